"""The public values of the Dutch engine: players, their past rounds, and the pairing made
(C.04.1 basic rules: pairing numbers, rounds played, unplayed rounds, the PAB)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import NewType

from rules.core.colour import Colour
from rules.core.errors import RulesError

PlayerNumber = NewType("PlayerNumber", int)
"""A tournament pairing number: 1 is the highest ranked player of the initial ranking list."""


class DutchReason(enum.Enum):
    """Why a round could not be paired."""

    NO_LEGAL_PAIRING = "no_legal_pairing"
    INVALID_INPUT = "invalid_input"


class NoLegalPairingError(RulesError):
    """No pairing of the present players satisfies the absolute criteria C1-C3 (C.04.3 C4)."""

    def __init__(self, message: str) -> None:
        super().__init__(DutchReason.NO_LEGAL_PAIRING, message)


class InvalidPairingInputError(RulesError):
    """The player histories given to :func:`pair_round` are inconsistent."""

    def __init__(self, message: str) -> None:
        super().__init__(DutchReason.INVALID_INPUT, message)


class RoundKind(enum.Enum):
    """What happened to a player in one past round."""

    PLAYED = "played"
    """The game was played over the board."""
    FORFEIT = "forfeit"
    """The player was paired but the game was not played (forfeit win or loss)."""
    PAIRING_BYE = "pab"
    """The player received the pairing-allocated bye."""
    ABSENT = "absent"
    """The player was not paired: absent, withdrawn, not yet entered, or a requested bye."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One past round of a player: what happened, the points scored, opponent and colour.

    ``opponent`` is set for PLAYED and FORFEIT rounds; ``colour`` only for PLAYED ones.
    """

    kind: RoundKind
    points: Fraction
    opponent: PlayerNumber | None = None
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """A player's state before the round being paired.

    ``history`` has one record per past round, oldest first; every player has exactly
    ``round_number - 1`` records. ``present`` is False for a player who is not to be paired.
    ``acceleration`` holds virtual points (C.04.5.1 Baku or TRF ``250`` records).
    """

    number: PlayerNumber
    history: tuple[RoundRecord, ...]
    present: bool = True
    acceleration: tuple[Fraction, ...] = ()
    """Virtual points of accelerated rounds (C.04.5), one per round from round 1 (missing: 0):
    the pairing score of a round is the score before it plus that round's virtual points."""

    @property
    def score(self) -> Fraction:
        """Points scored so far."""
        return sum((record.points for record in self.history), Fraction(0))

    @property
    def colours(self) -> tuple[Colour | None, ...]:
        """Colour per past round, None where no game was played."""
        return tuple(record.colour for record in self.history)

    @property
    def opponents(self) -> tuple[PlayerNumber | None, ...]:
        """Opponent per past round (also for forfeits), None where the player was not paired."""
        return tuple(record.opponent for record in self.history)


@dataclass(frozen=True, slots=True)
class Board:
    """One pairing: who has White (in game 1 of the match) and who has Black."""

    white: PlayerNumber
    black: PlayerNumber


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """The pairing of one round: boards in C.04.2 order, and the player given the PAB."""

    boards: tuple[Board, ...]
    bye: PlayerNumber | None
