"""Where a stored match, round, stage and player stand, and who decided a match.

These are the values the service keeps for each of them (``storage`` stores their ``value``).
They are ``StrEnum``s: a value reads and prints as its text, so a state written in a message or
a JSON document is the word, not the Python name.
"""

from __future__ import annotations

import enum

__all__ = ["DecidedBy", "MatchState", "PlayerStatus", "RoundState", "StageState"]


class MatchState(enum.StrEnum):
    """A match's life: proposed with its round, scheduled once published, complete once decided.

    A tied knockout match waits in ``REPEAT`` (its next week, rules 3.viii.3-4) or ``ARMAGEDDON``
    (rules 3.vii.2, 3.viii.5); a match replaced after a withdrawal (rules 8.iii-iv) is ``VOID``.
    """

    PROPOSED = "proposed"
    SCHEDULED = "scheduled"
    COMPLETE = "complete"
    REPEAT = "repeat"
    ARMAGEDDON = "armageddon"
    VOID = "void"


class RoundState(enum.StrEnum):
    """A round's pairings: proposed, approved by a TD, published to the players, complete."""

    PROPOSED = "proposed"
    APPROVED = "approved"
    PUBLISHED = "published"
    COMPLETE = "complete"


class StageState(enum.StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    COMPLETE = "complete"


class DecidedBy(enum.StrEnum):
    """How a match's result came about: its games, or one of the decisions that stand over them
    (a forfeit, the TDs, a bye, the armageddon game)."""

    GAMES = "games"
    FORFEIT = "forfeit"
    TD = "td"
    BYE = "bye"
    ARMAGEDDON = "armageddon"


class PlayerStatus(enum.StrEnum):
    ACTIVE = "active"
    WITHDRAWN = "withdrawn"
    DISQUALIFIED = "disqualified"
