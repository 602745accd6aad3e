"""The tournament's values: players, matches, games, and the ids that name them.

Everything is a frozen value. Functions that work on them live in :mod:`rules.core.scoring` and the
stage modules; nothing here reads a clock or does I/O.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import NewType

from rules.core.colour import Colour
from rules.core.ruleset import MatchFormat, StageKind

__all__ = [
    "Colour",
    "Game",
    "GameId",
    "GameStatus",
    "Match",
    "MatchId",
    "Player",
    "PlayerId",
    "StageKind",
    "normalise_username",
]

PlayerId = NewType("PlayerId", str)
"""A Lichess user id: the username in lower case."""

MatchId = NewType("MatchId", int)
GameId = NewType("GameId", str)
"""A Lichess game id (8 characters)."""


def normalise_username(name: str) -> PlayerId:
    """Lichess user ids are usernames in lower case; compare players by this."""
    return PlayerId(name.strip().lower())


class GameStatus(enum.StrEnum):
    """Lichess game statuses, named as the API names them (``statusName``)."""

    CREATED = "created"
    STARTED = "started"
    ABORTED = "aborted"
    MATE = "mate"
    RESIGN = "resign"
    STALEMATE = "stalemate"
    TIMEOUT = "timeout"
    DRAW = "draw"
    OUTOFTIME = "outoftime"
    CHEAT = "cheat"
    NO_START = "noStart"
    UNKNOWN_FINISH = "unknownFinish"
    VARIANT_END = "variantEnd"

    @property
    def is_finished(self) -> bool:
        return self not in (GameStatus.CREATED, GameStatus.STARTED)

    @property
    def is_played(self) -> bool:
        """Finished with a result that counts (not aborted, never started)."""
        return self.is_finished and self not in (
            GameStatus.ABORTED,
            GameStatus.NO_START,
            GameStatus.UNKNOWN_FINISH,
        )


@dataclass(frozen=True, slots=True)
class Player:
    """A registered player. ``seed_rating`` orders the qualification (rules 3.v.3)."""

    id: PlayerId
    username: str
    seed_rating: int | None = None


@dataclass(frozen=True, slots=True)
class Game:
    """One Lichess game, normalised from the stream or the export.

    ``winner`` is ``None`` for a draw or an unfinished game; ``clock_limit`` and
    ``clock_increment`` are in seconds (``None`` for a correspondence or unlimited game).
    ``source`` is how Lichess says the game was made (``friend`` for a challenge, ``lobby``,
    ``arena``, ``swiss``, ``ai``...; ``None`` when the payload does not say, as the games stream
    does not); ``initial_fen`` is set for a game from a custom position.
    """

    id: GameId
    white: PlayerId
    black: PlayerId
    status: GameStatus
    winner: Colour | None
    variant: str
    rated: bool
    clock_limit: int | None
    clock_increment: int | None
    created_at: dt.datetime
    last_move_at: dt.datetime | None = None
    white_rating: int | None = None
    black_rating: int | None = None
    white_rating_diff: int | None = None
    black_rating_diff: int | None = None
    source: str | None = None
    initial_fen: str | None = None

    def colour_of(self, player: PlayerId) -> Colour:
        """The colour ``player`` had; raises ``ValueError`` if they did not play."""
        if player == self.white:
            return Colour.WHITE
        if player == self.black:
            return Colour.BLACK
        raise ValueError(f"{player} did not play game {self.id}")

    def player(self, colour: Colour) -> PlayerId:
        return self.white if colour is Colour.WHITE else self.black

    def points_of(self, player: PlayerId) -> Fraction:
        """1 for a win, 1/2 for a draw, 0 for a loss (rules 3.v.1, 3.vi.3)."""
        if not self.status.is_played:
            raise ValueError(f"game {self.id} has no result ({self.status.value})")
        if self.winner is None:
            return Fraction(1, 2)
        return Fraction(1) if self.winner is self.colour_of(player) else Fraction(0)


@dataclass(frozen=True, slots=True)
class Match:
    """A match between two players: ``white_first`` has White in game 1.

    ``week`` counts the weekly repeats of a tied final (rules 3.viii.3-5), starting at 1.
    """

    id: MatchId
    stage: StageKind
    round: int
    white_first: PlayerId
    black_first: PlayerId
    format: MatchFormat
    week: int = 1

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.white_first, self.black_first)

    def opponent_of(self, player: PlayerId) -> PlayerId:
        if player == self.white_first:
            return self.black_first
        if player == self.black_first:
            return self.white_first
        raise ValueError(f"{player} does not play match {self.id}")

    def has_player(self, player: PlayerId) -> bool:
        return player in (self.white_first, self.black_first)

    def white_in_game(self, number: int) -> PlayerId:
        """Who has White in game ``number`` (1-based): colours alternate from game 1."""
        if number < 1:
            raise ValueError("games are numbered from 1")
        return self.white_first if number % 2 == 1 else self.black_first
