"""The weekly flow of a round (DESIGN.md "The flow of one week"): publication, negotiation,
deadlines, no-shows and forfeits (rules 4, 5, 6, 7.1), one job a module.

State: the match's event log (``match_events``) is the history; the negotiation is rebuilt from
it by replaying every accepted step through the pure functions of :mod:`rules.week.negotiation`
(:mod:`bot.service.weekly.log`). A live action goes through the very same function before its
event is written, so what was accepted replays identically.
"""
