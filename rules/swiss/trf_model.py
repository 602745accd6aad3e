"""The content of a tournament report file (TRF16, TRF-2026) as the pairing engine reads it:
its records, round cells and result codes, and the error that names a bad line and column.
Reading and writing are in :mod:`rules.swiss.trf`."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.errors import RulesError

__all__ = [
    "TrfAcceleration",
    "TrfBye",
    "TrfCell",
    "TrfError",
    "TrfPlayer",
    "TrfProhibition",
    "TrfReason",
    "TrfResult",
    "TrfRoundRating",
    "TrfTieBreakLine",
    "TrfTournament",
]

FIRST_CELL = 91  # 0-based column of round 1's opponent field (position 92)
CELL_WIDTH = 10


class TrfReason(enum.Enum):
    """Why a TRF file was rejected."""

    MALFORMED = "malformed"


class TrfError(RulesError):
    """The TRF text is invalid; ``line`` and ``column`` (1-based) locate the fault."""

    def __init__(self, line: int, column: int, problem: str) -> None:
        super().__init__(TrfReason.MALFORMED, f"line {line}, column {column}: {problem}")
        self.line = line
        self.column = column


class TrfResult(enum.Enum):
    """The result code of a round cell (TRF16 / TRF-2026 position 99)."""

    WIN = "1"
    LOSS = "0"
    DRAW = "="
    FORFEIT_WIN = "+"
    FORFEIT_LOSS = "-"
    UNRATED_WIN = "W"
    UNRATED_DRAW = "D"
    UNRATED_LOSS = "L"
    PAIRING_BYE = "U"
    HALF_BYE = "H"
    FULL_BYE = "F"
    ZERO_BYE = "Z"
    BLANK = " "


PLAYED_POINTS = {
    TrfResult.WIN: Fraction(1),
    TrfResult.LOSS: Fraction(0),
    TrfResult.DRAW: Fraction(1, 2),
    TrfResult.UNRATED_WIN: Fraction(1),
    TrfResult.UNRATED_DRAW: Fraction(1, 2),
    TrfResult.UNRATED_LOSS: Fraction(0),
}
UNPLAYED_POINTS = {
    TrfResult.FORFEIT_WIN: Fraction(1),
    TrfResult.FORFEIT_LOSS: Fraction(0),
    TrfResult.PAIRING_BYE: Fraction(1),
    TrfResult.HALF_BYE: Fraction(1, 2),
    TrfResult.FULL_BYE: Fraction(1),
    TrfResult.ZERO_BYE: Fraction(0),
    TrfResult.BLANK: Fraction(0),
}


@dataclass(frozen=True, slots=True)
class TrfCell:
    """One round of a player: scheduled opponent (None for 0000), colour, result."""

    opponent: int | None
    colour: Colour | None
    result: TrfResult

    @property
    def is_paired(self) -> bool:
        """The player took part in the pairing of this round (opponent or PAB)."""
        return self.opponent is not None or self.result is TrfResult.PAIRING_BYE


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """A ``001`` record. ``static`` keeps columns 9-89 verbatim (sex, title, name, ...)."""

    number: int
    static: str
    rounds: tuple[TrfCell, ...]
    line: int = field(default=0, compare=False)
    """The line of the file the record was read from (1-based; 0: not read from a file)."""

    @property
    def name(self) -> str:
        """The name field, positions 15-47."""
        return self.static[5:38].strip()


@dataclass(frozen=True, slots=True)
class TrfProhibition:
    """Players who may not meet each other, in rounds ``first``..``last`` (None: every round)."""

    players: tuple[int, ...]
    first: int | None = None
    last: int | None = None
    line: int = field(default=0, compare=False)
    columns: tuple[int, ...] = field(default=(), compare=False)
    """Where each player number was read (1-based; empty: not read from a file)."""

    def applies_to(self, round_number: int) -> bool:
        """Whether the prohibition holds in ``round_number``."""
        return (self.first is None or self.first <= round_number) and (
            self.last is None or round_number <= self.last
        )


@dataclass(frozen=True, slots=True)
class TrfBye:
    """A TRF-2026 ``240`` record: players given a requested bye (``F``, ``H``, ``Z``) in a round."""

    kind: TrfResult
    round_number: int
    players: tuple[int, ...]
    line: int = field(default=0, compare=False)
    columns: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class TrfAcceleration:
    """A TRF-2026 ``250`` record: ``points`` virtual points for the players ``first_player`` to
    ``last_player`` in the rounds ``first_round`` to ``last_round`` (C.04.5)."""

    points: Fraction
    first_round: int
    last_round: int
    first_player: int
    last_player: int
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class TrfRoundRating:
    """An ``XXL RRR PPPP RRRR`` line (our extension, docs/pairing.md): the rating of player
    ``player`` for pairing round ``round_number`` of an event longer than 30 days."""

    round_number: int
    player: int
    rating: int
    line: int = field(default=0, compare=False)

    @property
    def players(self) -> tuple[int, ...]:
        """The player named, as the other records name theirs (for the existence check)."""
        return (self.player,)

    @property
    def columns(self) -> tuple[int, ...]:
        """Where the player number was read (1-based; empty: not read from a file)."""
        return (9,) if self.line else ()


@dataclass(frozen=True, slots=True)
class TrfTieBreakLine:
    """A TRF-2026 ``202`` (the tie-breaks) or ``212`` (the standings: ``PTS`` and the
    tie-breaks) record, as written; :mod:`rules.swiss.fide_tiebreaks` reads its codes."""

    text: str
    line: int = field(default=0, compare=False)

    @property
    def with_points(self) -> bool:
        """A ``212`` record lists the points (``PTS``) itself; a ``202`` record implies them
        first."""
        return self.text.startswith("212")


@dataclass(frozen=True, slots=True)
class TrfTournament:
    """The content of a TRF file that pairing needs, plus every other line verbatim."""

    players: tuple[TrfPlayer, ...]
    total_rounds: int | None = None
    initial_colour: Colour | None = None
    prohibitions: tuple[TrfProhibition, ...] = ()
    byes: tuple[TrfBye, ...] = ()
    """TRF-2026 ``240`` records; the one for the round being paired makes its players absent."""
    accelerations: tuple[TrfAcceleration, ...] = ()
    """TRF-2026 ``250`` records (they override ``baku``)."""
    baku: bool = False
    """A ``192 FIDE_DUTCH_2025_BAKU`` (or ``FIDE_DUTCH_BAKU``) record: the Baku acceleration
    (C.04.5.1) when no ``250`` record gives the virtual points."""
    tiebreaks: TrfTieBreakLine | None = None
    """The ``212`` record, else the ``202`` one (also kept in ``other_lines``)."""
    per_round_ratings: bool = False
    """An ``XXO per-round-ratings`` line (our extension; ``acwc pair --per-round-ratings``):
    each round is ranked by the ratings of that round (``round_ratings``), C.04 for events
    longer than 30 days."""
    round_ratings: tuple[TrfRoundRating, ...] = ()
    """``XXL`` lines: a player's rating from a round on."""
    trf2026: bool = False
    """Write the round count, initial colour and prohibitions as 142/152/260 records."""
    other_lines: tuple[str, ...] = ()
    """Unrecognised lines, written back before the player records."""
