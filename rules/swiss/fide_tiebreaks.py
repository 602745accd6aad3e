"""FIDE tie-breaks (Handbook C.07, the text in force from 1 March 2026) over the rounds of a
tournament report file, the standings they define, and the check of a file's standings.

A TRF-2026 file declares its tie-breaks in a ``202`` record (``202 BH/C1,BH,SB``: the points
first, then these) or a ``212`` record (the same with the points named: ``212 PTS,DE,BH``);
:mod:`rules.swiss.tiebreak_codes` reads them with their modifiers (``/Cn``, ``/Mn``, ``/L+n``,
``/P``, ``/F``). Every individual tie-break of C.07 Art. 5 is implemented, for Swiss and
round-robin events with 1, 1/2, 0 points:

=======  ==================================================================================
PTS      the points
DE       direct encounter (Art. 6): among players tied so far, the points scored in the games
         they played against each other (``/P``: forfeits too); when not all of them met, a
         player is ranked ahead only if his points there exceed what any other could reach
         (an unplayed encounter counted as a win); still-tied players are ranked again
WIN      rounds that gave as many points as a win (played or not: forfeit win, ``F``, ``U``)
WON      games won over the board
BPG      games played over the board with Black
BWG      games won over the board with Black
PS       progressive score: the running score after each round, added up; ``/Cn`` leaves
         out the first n rounds
REP      rounds one elected to play (also ``GE``): games played and rounds won without playing
STD      standard points (Art. 7.7): 1 for a round scored above the opponent of a game played
         (above a draw's points in a round not played), 1/2 for one scored equal
TPN      the starting rank (Art. 7.8), the lowest first
BH       Buchholz: the opponents' adjusted scores; ``/Cn``, ``/Mn``, ``/P``
AOB      the average of the Buchholz (``/F``: Fore Buchholz) of the opponents met over the
         board (Art. 8.2), to the hundredth, half up (as FIDE's checker shows it; that
         checker also leaves out an opponent whose Buchholz is 0, which the text does not)
FB       Fore Buchholz (Art. 8.3): Buchholz as if every game paired for the final round had
         been drawn (a bye keeps its points); before the final round, the Buchholz
SB       Sonneborn-Berger: each opponent's adjusted score times the points scored against
         him; ``/Cn``, ``/Mn``, ``/P``
KS       Koya (Art. 9.2): the points scored against the opponents who scored at least half
         of the rounds' points (played or forfeited games); ``/L+n`` raises the limit by n
         half-points, ``/L-n`` lowers it (Art. 14.5)
ARO      average rating of the opponents met over the board, rounded to the nearest integer,
         half up; ``/Cn``, ``/Mn`` cut the lowest and highest ratings
TPR      tournament performance rating: ARO plus the rating difference table B.02 8.1(a)
         gives the percentage scored in those games (rounded half up); ``/Cn``, ``/Mn`` cut
         the lowest and highest rated opponents with the points scored against them
PTP      perfect tournament performance: the lowest rating whose expected scores (table
         8.1(b)) against those opponents reach the points scored against them; for no points
         the lowest rating less 800; ``/Cn``, ``/Mn`` as for TPR
APRO     the average (half up) of the TPRs of the opponents met over the board
APPO     the average (half up) of their PTPs
RTNG     the player's own rating (Art. 10.6), the highest first
=======  ==================================================================================

Ratings: the ``001`` record's (positions 49-52). With the per-round ratings flag (``XXO
per-round-ratings``, :mod:`rules.swiss.round_ratings`) a game counts the opponent's rating of
the round it was played in (ARO, TPR, PTP and through them APRO, APPO); RTNG keeps the ``001``
rating, the first. (Art. 10: with more than one rating the first counts unless the event's
rules say otherwise; an event paired by each round's ratings is read as saying so for its
games.)

Unplayed rounds (Art. 16, 2026): a forfeit loss and a requested bye (``H``, ``Z``, a blank
cell, no cell) are voluntary unplayed rounds (VURs); a full-point bye ``F`` is not (it counts
as the pairing-allocated bye does). A player's adjusted score, lent to his opponents, counts a
VUR without an opponent that no round other than a VUR follows as a draw. An unplayed round
of a player counts in his own Buchholz as a dummy opponent whose score is his own, but at most
the scheduled opponent's adjusted score for a forfeit, and at most half a point for each round
of the tournament (not of the rounds ranked: they differ before the final round) for the
rest; Sonneborn-Berger multiplies it by the points of that round. A low cut takes a VUR's
value instead of the least significant one unless the least significant value is lower (Art.
16.5). Where the text leaves a choice (what counts as least significant for Sonneborn-Berger:
the lowest opponent's score first; a full-point bye not a VUR; AOB's rounding) this module
follows FIDE's tie-break checker (TieBreakServer, by the author of C.07's algorithms) and says
so here. The rating tables are :mod:`rules.swiss.fide_rating_tables`.

The rounds ranked are the rounds the file shows played; the final round (FB) is the file's
number of rounds (``XXR``, ``142``), else the last round shown. The file's standing is its rank
column (``001`` positions 86-89, ties share a rank).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.swiss.fide_rating_tables import average_rating, perfect_performance, performance_rating
from rules.swiss.tiebreak_codes import Code, TieBreak, parse_tiebreaks
from rules.swiss.trf_model import (
    PLAYED_POINTS,
    UNPLAYED_POINTS,
    TrfCell,
    TrfError,
    TrfPlayer,
    TrfResult,
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


_Ratings = Mapping[int, tuple[int | None, ...]]
"""Each player's ratings: his ``001`` rating, then his rating in rounds 1, 2, ... (None:
unrated)."""


class _Table:
    """Every player's rounds 1..``count`` and the scores tie-breaks are made of."""

    def __init__(
        self, rounds: Mapping[int, tuple[_Round, ...]], ratings: _Ratings, count: int, final: int
    ) -> None:
        self.count = count
        self.final = final
        self.rounds = dict(rounds)
        self.score = {n: sum((r.points for r in rs), ZERO) for n, rs in self.rounds.items()}
        self.adjusted = {n: _adjusted(rs) for n, rs in self.rounds.items()}
        self.ratings = ratings
        self._fore: _Table | None = None
        self._buchholz: dict[int, Fraction] = {}

    def opponent_values(
        self, number: int, *, sonneborn: bool, forfeits_played: bool = False
    ) -> list[_Value]:
        out: list[_Value] = []
        own = self.score[number]
        for index, r in enumerate(self.rounds[number], start=1):
            met = r.played or (forfeits_played and r.opponent is not None)
            if met:
                assert r.opponent is not None
                score = self.adjusted[r.opponent]
            elif r.opponent is not None:
                score = min(own, self.adjusted[r.opponent])  # Art. 16.4.1
            else:
                score = min(own, HALF * max(self.final, self.count))  # Art. 16.4.2
            value = score * r.points if sonneborn else score
            out.append(_Value(score, value, r.voluntary and not met, index))
        return out

    def buchholz(self, number: int) -> Fraction:
        """The player's Buchholz, without modifiers."""
        if number not in self._buchholz:
            values = self.opponent_values(number, sonneborn=False)
            self._buchholz[number] = sum((v.value for v in values), ZERO)
        return self._buchholz[number]

    def fore(self) -> _Table:
        """Art. 8.3: the rounds as if every game paired for the final round had been drawn
        (played or forfeited; a bye keeps its points). While the final round is not among the
        rounds, they are the rounds themselves."""
        if self._fore is None:
            self._fore = self
            if self.final <= self.count:
                drawn = {n: _drawn(rs, self.final - 1) for n, rs in self.rounds.items()}
                self._fore = _Table(drawn, self.ratings, self.count, self.final)
        return self._fore


def _drawn(rounds: tuple[_Round, ...], index: int) -> tuple[_Round, ...]:
    r = rounds[index]
    if r.opponent is None:
        return rounds
    draw = _Round(HALF, r.opponent, played=True, black=r.black, voluntary=False)
    return (*rounds[:index], draw, *rounds[index + 1 :])


def _rating(player: TrfPlayer) -> int | None:
    text = player.static[40:44].strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def _ratings(tournament: TrfTournament, count: int) -> dict[int, tuple[int | None, ...]]:
    """Each player's ``001`` rating, then his rating in each round: the same, or with the
    per-round ratings flag the rating his latest ``XXL`` line up to that round gives
    (:mod:`rules.swiss.round_ratings`)."""
    given: dict[int, dict[int, int]] = {}
    if tournament.per_round_ratings:
        for record in sorted(tournament.round_ratings, key=lambda r: r.round_number):
            given.setdefault(record.player, {})[record.round_number] = record.rating
    out: dict[int, tuple[int | None, ...]] = {}
    for player in tournament.players:
        current = first = _rating(player)
        row = [first]
        for round_number in range(1, count + 1):
            if round_number in given.get(player.number, {}):
                current = given[player.number][round_number] or None
            row.append(current)
        out[player.number] = tuple(row)
    return out


def _table(tournament: TrfTournament, count: int) -> _Table:
    rounds = {p.number: _rounds(p, count) for p in tournament.players}
    return _Table(rounds, _ratings(tournament, count), count, tournament.total_rounds or count)


_Compute = Callable[[_Table, int, TieBreak], Fraction]


def _count(predicate: Callable[[_Round], bool]) -> _Compute:
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


def _standard(table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
    """STD (Art. 7.7): 1 for a round scored above the opponent of a game played, or above a
    draw's points in a round not played; 1/2 for one scored equal; 0 below."""
    total = ZERO
    for index, r in enumerate(table.rounds[number]):
        other = HALF
        if r.played and r.opponent is not None:
            other = table.rounds[r.opponent][index].points
        total += ONE if r.points > other else HALF if r.points == other else ZERO
    return total


def _pairing_number(_table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
    """TPN (Art. 7.8): the starting rank (``001`` positions 5-8), the lowest first."""
    return Fraction(number)


def _own_rating(table: _Table, number: int, _tiebreak: TieBreak) -> Fraction:
    """RTNG (Art. 10.6): the ``001`` rating (Art. 10: the first, when a player has several)."""
    return Fraction(table.ratings[number][0] or 0)


def _buchholz(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
    values = table.opponent_values(
        number, sonneborn=tiebreak.code is Code.SB, forfeits_played=tiebreak.forfeits_played
    )
    return sum((v.value for v in _cut(values, tiebreak.cut_low, tiebreak.cut_high)), ZERO)


def _fore_buchholz(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
    return _buchholz(table.fore(), number, tiebreak)


def _opponents_buchholz(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
    """AOB (Art. 8.2): the average of the Buchholz (``/F``: Fore Buchholz) of the opponents
    met over the board, rounded half up to hundredths as FIDE's tie-break checker does (the
    text does not round)."""
    source = table.fore() if tiebreak.fore else table
    opponents = [r.opponent for r in table.rounds[number] if r.played and r.opponent is not None]
    if not opponents:
        return ZERO
    average = sum((source.buchholz(o) for o in opponents), ZERO) / len(opponents)
    return Fraction(math.floor(100 * average + HALF), 100)


def _games(table: _Table, number: int, tiebreak: TieBreak) -> list[tuple[int, Fraction]]:
    """The opponents' ratings (each the rating of the round the game was played) and the
    points scored in the games played over the board, the lowest rated first, less the cuts
    of ``tiebreak`` (the lowest and highest ratings)."""
    games = sorted(
        (table.ratings[r.opponent][index] or 0, r.points)
        for index, r in enumerate(table.rounds[number], start=1)
        if r.played and r.opponent is not None
    )
    low = min(tiebreak.cut_low, len(games))
    return games[low : len(games) - min(tiebreak.cut_high, len(games) - low)]


def _rating_based(compute: Callable[[Fraction, Sequence[int]], int]) -> _Compute:
    def value(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
        games = _games(table, number, tiebreak)
        return Fraction(compute(sum((p for _, p in games), ZERO), [r for r, _ in games]))

    return value


def _koya(table: _Table, number: int, tiebreak: TieBreak) -> Fraction:
    """KS (Art. 9.2): the points scored against the opponents (scheduled, played or not) who
    scored at least half of the rounds' points, the limit moved by ``/L`` (Art. 14.5)."""
    limit = HALF * table.count + HALF * tiebreak.limit
    return sum(
        (
            r.points
            for r in table.rounds[number]
            if r.opponent is not None and table.score[r.opponent] >= limit
        ),
        ZERO,
    )


def _opponents_average(code: Code) -> _Compute:
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


_VALUES: dict[Code, _Compute] = {
    Code.PTS: _points,
    Code.WIN: _count(lambda r: r.points == ONE),
    Code.WON: _count(lambda r: r.played and r.points == ONE),
    Code.BPG: _count(lambda r: r.black),
    Code.BWG: _count(lambda r: r.black and r.points == ONE),
    Code.REP: _count(lambda r: r.played or r.points == ONE),
    Code.PS: _progressive,
    Code.STD: _standard,
    Code.TPN: _pairing_number,
    Code.BH: _buchholz,
    Code.FB: _fore_buchholz,
    Code.AOB: _opponents_buchholz,
    Code.SB: _buchholz,
    Code.KS: _koya,
    Code.ARO: _rating_based(lambda _score, ratings: average_rating(ratings)),
    Code.TPR: _rating_based(performance_rating),
    Code.PTP: _rating_based(perfect_performance),
    Code.APRO: _opponents_average(Code.TPR),
    Code.APPO: _opponents_average(Code.PTP),
    Code.RTNG: _own_rating,
}
_ASCENDING = {Code.TPN}
_RATED = {Code.ARO, Code.TPR, Code.PTP, Code.APRO, Code.APPO, Code.RTNG}


# ---------------------------------------------------------------------------
# Direct encounter
# ---------------------------------------------------------------------------


def _encounters(
    table: _Table, group: Sequence[int], forfeits: bool
) -> dict[int, tuple[Fraction, int]]:
    """Each player's points in the games played against the others of ``group`` (with
    ``forfeits``, forfeited games too: Art. 6.1.1), and how many of them he met (a pair that met
    twice counts the average, Art. 6.1.2)."""
    members = set(group)
    out: dict[int, tuple[Fraction, int]] = {}
    for number in group:
        scored: dict[int, list[Fraction]] = {}
        for r in table.rounds[number]:
            if (r.played or forfeits) and r.opponent in members:
                scored.setdefault(r.opponent, []).append(r.points)
        total = sum((sum(p, ZERO) / len(p) for p in scored.values()), ZERO)
        out[number] = (total, len(scored))
    return out


def _direct_encounter_tiers(
    table: _Table, group: list[int], forfeits: bool = False
) -> list[list[int]]:
    """Art. 6: ``group`` (tied so far, in starting-rank order) split into ranked tiers."""
    if len(group) < 2:
        return [group]
    met = _encounters(table, group, forfeits)
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
    return [tier for part in tiers for tier in _direct_encounter_tiers(table, part, forfeits)]


def _split(
    group: list[int], key: Callable[[int], Fraction], *, ascending: bool = False
) -> list[list[int]]:
    """``group`` in tiers of equal ``key``, the highest first (``ascending``: the lowest),
    each tier in starting-rank order."""
    tiers: dict[Fraction, list[int]] = {}
    for number in group:
        tiers.setdefault(key(number), []).append(number)
    return [tiers[value] for value in sorted(tiers, reverse=not ascending)]


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
    table = _table(tournament, rounds)
    _check_ratings(tournament, table, tiebreaks)
    groups = [sorted(table.rounds)]
    values: dict[int, list[Fraction]] = {number: [] for number in table.rounds}
    for tiebreak in tiebreaks:
        split: list[list[int]] = []
        for group in groups:
            if tiebreak.code is Code.DE:
                tiers = _direct_encounter_tiers(table, group, tiebreak.forfeits_played)
                for place, tier in enumerate(tiers, start=1):
                    for number in tier:
                        values[number].append(Fraction(place))
            else:
                compute = _VALUES[tiebreak.code]
                for number in group:
                    values[number].append(compute(table, number, tiebreak))
                ascending = tiebreak.code in _ASCENDING
                tiers = _split(group, lambda n: values[n][-1], ascending=ascending)
            split.extend(tiers)
        groups = split
    out: list[Standing] = []
    for group in groups:
        rank = len(out) + 1
        out.extend(Standing(number, rank, tuple(values[number])) for number in group)
    return tuple(out)


def _check_ratings(tournament: TrfTournament, table: _Table, tiebreaks: Sequence[TieBreak]) -> None:
    rated = next((t for t in tiebreaks if t.code in _RATED), None)
    unrated = next((n for n, ratings in table.ratings.items() if None in ratings), None)
    if rated is not None and unrated is not None:
        raise TrfError(
            tournament.tiebreaks.line if tournament.tiebreaks is not None else 0,
            rated.column,
            f"{rated.code.value} needs every player's rating, and player {unrated} has none "
            "(the rating of an unrated player is the event's choice, which a TRF does not "
            "record)",
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
