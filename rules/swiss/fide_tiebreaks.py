"""FIDE tie-breaks (Handbook C.07, the text in force from 1 March 2026) over the rounds of a
tournament report file, the standings they define, and the check of a file's standings.

A TRF-2026 file declares its tie-breaks in a ``202`` record (``202 BH/C1,BH,SB``: the points
first, then these) or a ``212`` record (the same with the points named: ``212 PTS,DE,BH``).
Codes are separated by commas or blanks; a modifier follows a ``/`` (or ``-``): ``C1`` cuts the
least significant value, ``M1`` the least and the most significant ones.

Implemented, for individual events (Swiss and round-robin) with 1, 1/2, 0 points:

=======  ==================================================================================
PTS      the points
DE       direct encounter (Art. 6): among players tied so far, the points scored in the games
         they played against each other; when not all of them met, a player is ranked ahead
         only if his points there exceed what any other could reach (an unplayed encounter
         counted as a win); still-tied players are ranked again among themselves
WIN      rounds that gave as many points as a win (played or not: forfeit win, ``F``, ``U``)
WON      games won over the board
BPG      games played over the board with Black
BWG      games won over the board with Black
REP      rounds one elected to play (also ``GE``): games played and rounds won without playing
PS       progressive score: the running score after each round, added up; ``/Cn`` leaves
         out the first n rounds
BH       Buchholz: the opponents' adjusted scores; ``/Cn``, ``/Mn``
SB       Sonneborn-Berger: each opponent's adjusted score times the points scored against
         him; ``/Cn``, ``/Mn``
ARO      average rating of the opponents met over the board (``001`` positions 49-52),
         rounded to the nearest integer, half up; ``/Cn``, ``/Mn`` cut the lowest and highest
         ratings
TPR      tournament performance rating: ARO plus the rating difference table B.02 8.1(a)
         gives the percentage scored in those games (rounded half up); ``/Cn``, ``/Mn`` cut
         the lowest and highest rated opponents with the points scored against them
PTP      perfect tournament performance: the lowest rating whose expected scores (table
         8.1(b)) against those opponents reach the points scored against them; for no points
         the lowest rating less 800; ``/Cn``, ``/Mn`` as for TPR
APRO     the average (half up) of the TPRs of the opponents met over the board
APPO     the average (half up) of their PTPs
KS       Koya (the round-robin tie-break): the points scored against the opponents who
         scored at least half of the rounds' points (played or forfeited games)
=======  ==================================================================================

Unplayed rounds (Art. 16, 2026): a forfeit loss and a requested bye (``H``, ``Z``, a blank
cell, no cell) are voluntary unplayed rounds (VURs); a full-point bye ``F`` is not (it counts
as the pairing-allocated bye does). A player's adjusted score, lent to his opponents, counts a
VUR without an opponent that no round other than a VUR follows as a draw. An unplayed round
of a player counts in his own Buchholz as a dummy opponent whose score is his own, but at most
the scheduled opponent's adjusted score for a forfeit, and at most half a point a round for
the rest; Sonneborn-Berger multiplies it by the points of that round. A low cut takes a VUR's
value instead of the least significant one unless the least significant value is lower (Art.
16.5). Where the text leaves a choice (what counts as least significant for Sonneborn-Berger:
the lowest opponent's score first; a full-point bye not a VUR) this module follows FIDE's
tie-break checker (TieBreakServer, by the author of C.07's algorithms) and says so here. The
rating tables are :mod:`rules.swiss.fide_rating_tables`.

The rounds ranked are the rounds the file shows played; the file's standing is its rank
column (``001`` positions 86-89, ties share a rank).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.swiss.fide_rating_tables import average_rating, perfect_performance, performance_rating
from rules.swiss.trf_model import (
    PLAYED_POINTS,
    UNPLAYED_POINTS,
    TrfCell,
    TrfError,
    TrfPlayer,
    TrfResult,
    TrfTieBreakLine,
    TrfTournament,
)

__all__ = [
    "Code",
    "Standing",
    "StandingDifference",
    "TieBreak",
    "check_standings",
    "parse_tiebreaks",
    "standings",
]

ZERO = Fraction(0)
HALF = Fraction(1, 2)
ONE = Fraction(1)
RANK_COLUMN = 86


class Code(enum.Enum):
    """The tie-breaks implemented, by their C.07 codes."""

    PTS = "PTS"
    DE = "DE"
    WIN = "WIN"
    WON = "WON"
    BPG = "BPG"
    BWG = "BWG"
    REP = "REP"
    PS = "PS"
    BH = "BH"
    SB = "SB"
    ARO = "ARO"
    KS = "KS"
    TPR = "TPR"
    PTP = "PTP"
    APRO = "APRO"
    APPO = "APPO"


_ALIASES = {"GE": Code.REP}
_CUTTABLE = {
    Code.PS: "C",
    Code.BH: "CM",
    Code.SB: "CM",
    Code.ARO: "CM",
    Code.TPR: "CM",
    Code.PTP: "CM",
}
_RATED = {Code.ARO, Code.TPR, Code.PTP, Code.APRO, Code.APPO}


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One entry of the tie-break list: a code, its cuts, and where the file wrote it."""

    code: Code
    cut_low: int = 0
    cut_high: int = 0
    text: str = ""
    column: int = 0

    @property
    def label(self) -> str:
        return self.text or self.code.value


_TOKEN = re.compile(r"[^,\s]+")


def _parse_code(token: str, line: int, column: int) -> TieBreak:
    name, *modifiers = re.split(r"[/-]", token.upper())
    code = _ALIASES.get(name) or next((c for c in Code if c.value == name), None)
    if code is None:
        known = ", ".join(c.value for c in Code)
        raise TrfError(line, column, f"tie-break {name} is not implemented (these are: {known})")
    low = high = 0
    for modifier in modifiers:
        kind, count = modifier[:1], modifier[1:]
        if kind not in _CUTTABLE.get(code, "") or not count.isdigit():
            raise TrfError(
                line, column, f"{token}: modifier {modifier!r} is not one {code.value} takes"
            )
        low += int(count)
        high += int(count) if kind == "M" else 0
    return TieBreak(code, low, high, token, column)


def parse_tiebreaks(declaration: TrfTieBreakLine) -> tuple[TieBreak, ...]:
    """The tie-break list of a ``202`` or ``212`` record, the points first.

    Raises:
        TrfError: a code not implemented, or a modifier it does not take, at its column.
    """
    found = [
        _parse_code(match.group(), declaration.line, match.start() + 1)
        for match in _TOKEN.finditer(declaration.text, 4)
    ]
    if not declaration.with_points:
        found.insert(0, TieBreak(Code.PTS, text="PTS"))
    return tuple(found)


# ---------------------------------------------------------------------------
# Each player's rounds as tie-breaks see them
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Round:
    points: Fraction
    opponent: int | None
    played: bool
    """A game over the board (results 1, =, 0 and the unrated W, D, L)."""
    black: bool
    voluntary: bool
    """A voluntary unplayed round (Art. 16.1.2): a forfeit loss or a requested bye."""


_NOT_VOLUNTARY = {TrfResult.FORFEIT_WIN, TrfResult.FULL_BYE, TrfResult.PAIRING_BYE}
_ABSENT = TrfCell(None, None, TrfResult.BLANK)


def _round(cell: TrfCell) -> _Round:
    played = cell.result in PLAYED_POINTS and cell.opponent is not None
    points = PLAYED_POINTS.get(cell.result, UNPLAYED_POINTS.get(cell.result, ZERO))
    return _Round(
        points=points,
        opponent=cell.opponent,
        played=played,
        black=played and cell.colour is Colour.BLACK,
        voluntary=not played and cell.result not in _NOT_VOLUNTARY,
    )


def _rounds(player: TrfPlayer, count: int) -> tuple[_Round, ...]:
    cells = list(player.rounds[:count]) + [_ABSENT] * (count - len(player.rounds))
    return tuple(_round(cell) for cell in cells)


def _adjusted(rounds: Sequence[_Round]) -> Fraction:
    """Art. 16.3: a VUR without an opponent that only VURs follow counts as a draw."""
    last_chosen = max((i for i, r in enumerate(rounds) if not r.voluntary), default=-1)
    return sum(
        (
            HALF if index > last_chosen and r.voluntary and r.opponent is None else r.points
            for index, r in enumerate(rounds)
        ),
        ZERO,
    )


@dataclass(frozen=True, slots=True)
class _Value:
    """One round's value in a Buchholz-like sum: the opponent's (or dummy's) score, the value
    added, whether it comes from a VUR, and the round (for a stable order)."""

    score: Fraction
    value: Fraction
    voluntary: bool
    round: int


def _cut(values: list[_Value], low: int, high: int) -> list[_Value]:
    """Art. 14 cuts with the Art. 16.5 exception for low cuts."""
    low = min(low, len(values))
    high = min(high, len(values) - low)
    kept = sorted(values, key=lambda v: v.round)
    for _ in range(low):
        least = min(kept, key=lambda v: (v.score, v.value, v.round))
        voluntary = [v for v in kept if v.voluntary]
        victim = least
        if voluntary:
            lowest = min(voluntary, key=lambda v: (v.score, v.value, v.round))
            victim = least if least.value > lowest.value else lowest
        kept.remove(victim)
    for _ in range(high):
        kept.remove(max(kept, key=lambda v: (v.score, v.value, -v.round)))
    return kept


class _Table:
    """Every player's rounds 1..``count`` and the scores tie-breaks are made of."""

    def __init__(self, tournament: TrfTournament, count: int) -> None:
        self.count = count
        self.rounds = {p.number: _rounds(p, count) for p in tournament.players}
        self.score = {n: sum((r.points for r in rs), ZERO) for n, rs in self.rounds.items()}
        self.adjusted = {n: _adjusted(rs) for n, rs in self.rounds.items()}
        self.rating = {p.number: _rating(p) for p in tournament.players}

    def opponent_values(self, number: int, sonneborn: bool) -> list[_Value]:
        out: list[_Value] = []
        own = self.score[number]
        for index, r in enumerate(self.rounds[number], start=1):
            if r.played:
                assert r.opponent is not None
                score = self.adjusted[r.opponent]
            elif r.opponent is not None:
                score = min(own, self.adjusted[r.opponent])  # Art. 16.4.1
            else:
                score = min(own, HALF * self.count)  # Art. 16.4.2
            value = score * r.points if sonneborn else score
            out.append(_Value(score, value, r.voluntary and not r.played, index))
        return out


def _rating(player: TrfPlayer) -> int | None:
    text = player.static[40:44].strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def _count(predicate: Callable[[_Round], bool]) -> Callable[[_Table, int, TieBreak], Fraction]:
    def value(table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
        return Fraction(sum(1 for r in table.rounds[number] if predicate(r)))

    return value


def _points(table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
    return table.score[number]


def _progressive(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
    running = total = ZERO
    for index, r in enumerate(table.rounds[number], start=1):
        running += r.points
        if index > tiebreak.cut_low:
            total += running
    return total


def _buchholz(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
    values = table.opponent_values(number, sonneborn=tiebreak.code is Code.SB)
    return sum((v.value for v in _cut(values, tiebreak.cut_low, tiebreak.cut_high)), ZERO)


def _games(table: _Table, number: int, tiebreak: TieBreak) -> list[tuple[int, Fraction]]:
    """The opponents' ratings and the points scored in the games played over the board, the
    lowest rated first, less the cuts of ``tiebreak`` (the lowest and highest ratings)."""
    games = sorted(
        (table.rating[r.opponent] or 0, r.points)
        for r in table.rounds[number]
        if r.played and r.opponent is not None
    )
    low = min(tiebreak.cut_low, len(games))
    return games[low : len(games) - min(tiebreak.cut_high, len(games) - low)]


def _rating_based(
    compute: Callable[[Fraction, Sequence[int]], int],
) -> Callable[[_Table, int, TieBreak], Fraction]:
    def value(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
        games = _games(table, number, tiebreak)
        return Fraction(compute(sum((p for _, p in games), ZERO), [r for r, _ in games]))

    return value


def _koya(table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
    """KS: the points scored against the opponents (scheduled, played or not) who scored at
    least half of the rounds' points."""
    limit = HALF * table.count
    return sum(
        (
            r.points
            for r in table.rounds[number]
            if r.opponent is not None and table.score[r.opponent] >= limit
        ),
        ZERO,
    )


def _opponents_average(code: Code) -> Callable[[_Table, int, TieBreak], Fraction]:
    """APRO, APPO: the average (rounded, half up) of the TPRs or PTPs of the opponents met
    over the board, each computed without cuts."""
    own = TieBreak(code)

    def value(table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
        opponents = [
            r.opponent for r in table.rounds[number] if r.played and r.opponent is not None
        ]
        compute = _VALUES[own.code]
        return Fraction(average_rating([int(compute(table, o, own)) for o in opponents]))

    return value


_VALUES: dict[Code, Callable[[_Table, int, TieBreak], Fraction]] = {
    Code.PTS: _points,
    Code.WIN: _count(lambda r: r.points == ONE),
    Code.WON: _count(lambda r: r.played and r.points == ONE),
    Code.BPG: _count(lambda r: r.black),
    Code.BWG: _count(lambda r: r.black and r.points == ONE),
    Code.REP: _count(lambda r: r.played or r.points == ONE),
    Code.PS: _progressive,
    Code.BH: _buchholz,
    Code.SB: _buchholz,
    Code.ARO: _rating_based(lambda _score, ratings: average_rating(ratings)),
    Code.KS: _koya,
    Code.TPR: _rating_based(performance_rating),
    Code.PTP: _rating_based(perfect_performance),
    Code.APRO: _opponents_average(Code.TPR),
    Code.APPO: _opponents_average(Code.PTP),
}


# ---------------------------------------------------------------------------
# Direct encounter
# ---------------------------------------------------------------------------


def _encounters(table: _Table, group: Sequence[int]) -> dict[int, tuple[Fraction, int]]:
    """Each player's points in the games played against the others of ``group``, and how many
    of them he met (a pair that met twice counts the average)."""
    members = set(group)
    out: dict[int, tuple[Fraction, int]] = {}
    for number in group:
        scored: dict[int, list[Fraction]] = {}
        for r in table.rounds[number]:
            if r.played and r.opponent in members:
                scored.setdefault(r.opponent, []).append(r.points)
        total = sum((sum(p, ZERO) / len(p) for p in scored.values()), ZERO)
        out[number] = (total, len(scored))
    return out


def _direct_encounter_tiers(table: _Table, group: list[int]) -> list[list[int]]:
    """Art. 6: ``group`` (tied so far, in starting-rank order) split into ranked tiers."""
    if len(group) < 2:
        return [group]
    met = _encounters(table, group)
    others = len(group) - 1
    if all(count == others for _, count in met.values()):
        tiers = _split(group, lambda n: met[n][0])
    else:
        best = {n: met[n][0] + (others - met[n][1]) for n in group}
        order = sorted(group, key=lambda n: (-met[n][0], -best[n], n))
        tiers = []
        while len(order) > 1 and met[order[0]][0] > max(best[n] for n in order[1:]):
            tiers.append([order.pop(0)])
        tiers.append(sorted(order))
    if len(tiers) == 1:
        return tiers
    return [tier for part in tiers for tier in _direct_encounter_tiers(table, part)]


def _split(group: list[int], key: Callable[[int], Fraction]) -> list[list[int]]:
    """``group`` in tiers of equal ``key``, the highest first (each tier in starting-rank
    order)."""
    tiers: dict[Fraction, list[int]] = {}
    for number in group:
        tiers.setdefault(key(number), []).append(number)
    return [tiers[value] for value in sorted(tiers, reverse=True)]


# ---------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place (ties share one) and his value for each tie-break of the list (for
    ``DE``, his tier among the players tied before it: 1 is the best)."""

    number: int
    rank: int
    values: tuple[Fraction, ...]


def standings(
    tournament: TrfTournament, rounds: int, tiebreaks: Sequence[TieBreak]
) -> tuple[Standing, ...]:
    """Rank every player after ``rounds`` rounds by ``tiebreaks`` in order (C.07 Art. 4.2): a
    tie-break only separates players every earlier one left tied."""
    table = _Table(tournament, rounds)
    _check_ratings(tournament, tiebreaks)
    groups = [sorted(table.rounds)]
    values: dict[int, list[Fraction]] = {number: [] for number in table.rounds}
    for tiebreak in tiebreaks:
        split: list[list[int]] = []
        for group in groups:
            if tiebreak.code is Code.DE:
                tiers = _direct_encounter_tiers(table, group)
                for place, tier in enumerate(tiers, start=1):
                    for number in tier:
                        values[number].append(Fraction(place))
            else:
                compute = _VALUES[tiebreak.code]
                for number in group:
                    values[number].append(compute(table, number, tiebreak))
                tiers = _split(group, lambda n: values[n][-1])
            split.extend(tiers)
        groups = split
    out: list[Standing] = []
    for group in groups:
        rank = len(out) + 1
        out.extend(Standing(number, rank, tuple(values[number])) for number in group)
    return tuple(out)


def _check_ratings(tournament: TrfTournament, tiebreaks: Sequence[TieBreak]) -> None:
    rated = next((t for t in tiebreaks if t.code in _RATED), None)
    unrated = next((p for p in tournament.players if _rating(p) is None), None)
    if rated is not None and unrated is not None:
        raise TrfError(
            tournament.tiebreaks.line if tournament.tiebreaks is not None else 0,
            rated.column,
            f"{rated.code.value} needs every player's rating, and player {unrated.number} has "
            "none (the "
            "rating of an unrated player is the event's choice, which a TRF does not record)",
        )


@dataclass(frozen=True, slots=True)
class StandingDifference:
    """The first player (in the file's order) whose rank column differs from the standings."""

    line: int
    number: int
    in_file: int
    computed: Standing
    tiebreaks: tuple[TieBreak, ...]

    def describe(self) -> str:
        shown = ", ".join(
            f"{t.label} {_show(v)}"
            for t, v in zip(self.tiebreaks, self.computed.values, strict=True)
        )
        return (
            f"line {self.line}, column {RANK_COLUMN}: player {self.number} is ranked "
            f"{self.in_file} in the file; the tie-break list ranks him {self.computed.rank} "
            f"({shown})"
        )


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _file_rank(player: TrfPlayer) -> int | None:
    text = player.static[77:81].strip()
    return int(text) if text.isdigit() else None


def check_standings(
    tournament: TrfTournament, rounds: int
) -> tuple[tuple[TieBreak, ...], StandingDifference | None] | None:
    """Compare the file's rank column with the standings its tie-break list defines.

    Returns None when there is nothing to check (no ``202``/``212`` record, or no rank in the
    file), else the list and the first difference (None: every rank matches).

    Raises:
        TrfError: a tie-break that is not implemented, or a rank column that is not a number.
    """
    if tournament.tiebreaks is None:
        return None
    tiebreaks = parse_tiebreaks(tournament.tiebreaks)
    ranks: dict[int, int] = {}
    for player in tournament.players:
        if player.static[77:81].strip():
            rank = _file_rank(player)
            if rank is None:
                raise TrfError(player.line, RANK_COLUMN, "the rank (86-89) is not a number")
            ranks[player.number] = rank
    if not ranks:
        return None
    computed: Mapping[int, Standing] = {
        s.number: s for s in standings(tournament, rounds, tiebreaks)
    }
    for player in tournament.players:
        if player.number in ranks and ranks[player.number] != computed[player.number].rank:
            return tiebreaks, StandingDifference(
                player.line, player.number, ranks[player.number], computed[player.number], tiebreaks
            )
    return tiebreaks, None
