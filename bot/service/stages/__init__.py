"""The stages of the championship (rules 3.ii-3.ix, 4.2, 8): the qualification's pairings, the
progression from one stage to the next through a registry of stage formats, the Candidates pools,
the knockout with its repeat weeks and armageddons, and the exits.

Standings, brackets and placements are recomputed from the stored matches and games on every
read (:mod:`bot.views`); what is stored is only what cannot be recomputed: pools, the knockout
bracket, the inputs of an armageddon procedure, a stage's first publication date.
"""
