"""Read models: stored rows turned into what the web pages and the command line show.

One of each: the match scores, the qualification standings, the Candidates pools and
crosstables, the knockout bracket, a match's timeline and its match room. The web pages and the
CLI read the same ones, so a rule is applied in one place. Nothing here writes.
"""
