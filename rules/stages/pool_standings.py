"""A Candidates pool's standings and their tiebreaks (rules 3.vi.6, 8.ii).

Match points first, then rules 3.vi.6's chain: mutual match points, mutual game points, overall
game points, the previous final, the qualification place; a withdrawn or disqualified candidate's
matches are disregarded (rules 8.ii). The matches' results come from
:mod:`rules.stages.candidates` (:class:`MatchResult`, :func:`result_of`).

Everything here is pure: the caller passes the pool's entries and its matches' results and gets
the table back.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.model import PlayerId, normalise_username
from rules.stages.candidates import (
    CandidatesError,
    CandidatesErrorReason,
    MatchResult,
    PoolEntry,
    SeededRole,
    disregard_withdrawn,
)

__all__ = [
    "Criterion",
    "StandingRow",
    "TiebreakValue",
    "pool_standings",
]


class Criterion(enum.Enum):
    """The standings order (rules 3.vi.6), primary first."""

    MATCH_POINTS = "match_points"
    MUTUAL_MATCH_POINTS = "mutual_match_points"
    MUTUAL_GAME_POINTS = "mutual_game_points"
    GAME_POINTS = "game_points"
    PREVIOUS_FINAL = "previous_final"
    QUALIFICATION = "qualification"


_CHAIN = tuple(Criterion)
_RESTART = _CHAIN.index(Criterion.MUTUAL_MATCH_POINTS)
_RECORDED = frozenset(
    (Criterion.MUTUAL_MATCH_POINTS, Criterion.MUTUAL_GAME_POINTS, Criterion.GAME_POINTS)
)


@dataclass(frozen=True, slots=True)
class TiebreakValue:
    """One tiebreak applied to a player: the value and the tied group it was computed among."""

    criterion: Criterion
    value: Fraction
    among: tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of a pool's standings.

    ``separated_by`` names the criterion that put this player ahead of the next row (``None``
    on the last row). ``tiebreaks`` lists every points tiebreak (mutual match and game points,
    overall game points) computed for the player, in order;
    ``mutual_match_points``/``mutual_game_points`` are the first such values (the whole tied
    group), ``None`` when the player was never tied. ``previous_final_place`` is 1-based.
    ``qualification_place`` is ``None`` for a seeded entrant (see :func:`pool_standings`).
    """

    rank: int
    player: PlayerId
    match_points: Fraction
    game_points: Fraction
    matches_played: int
    previous_final_place: int | None
    qualification_place: int | None
    seeded: SeededRole | None
    tiebreaks: tuple[TiebreakValue, ...]
    separated_by: Criterion | None

    def _first(self, criterion: Criterion) -> Fraction | None:
        for value in self.tiebreaks:
            if value.criterion is criterion:
                return value.value
        return None

    @property
    def mutual_match_points(self) -> Fraction | None:
        return self._first(Criterion.MUTUAL_MATCH_POINTS)

    @property
    def mutual_game_points(self) -> Fraction | None:
        return self._first(Criterion.MUTUAL_GAME_POINTS)


class _TiebreakChain:
    """Rules 3.vi.6's tiebreak chain over a pool's counted matches, for :func:`pool_standings`."""

    def __init__(
        self,
        counted: Sequence[MatchResult],
        by_player: Mapping[PlayerId, PoolEntry],
        final_place: Mapping[PlayerId, int],
    ) -> None:
        self.counted, self.by_player, self.final_place = counted, by_player, final_place
        everyone = frozenset(by_player)
        self.match_points = self.totals(everyone, games=False)
        self.game_points = self.totals(everyone, games=True)
        self.steps: dict[PlayerId, list[TiebreakValue]] = {p: [] for p in by_player}

    def totals(self, group: frozenset[PlayerId], *, games: bool) -> dict[PlayerId, Fraction]:
        out = {p: Fraction(0) for p in group}
        for r in self.counted:
            if r.first in group and r.second in group:
                for p in r.players:
                    out[p] += r.game_points_of(p) if games else r.match_points_of(p)
        return out

    def values(
        self, criterion: Criterion, group: list[PlayerId]
    ) -> dict[PlayerId, Fraction] | None:
        """Higher is better; ``None`` when the criterion does not apply to this group."""
        members = frozenset(group)
        if criterion is Criterion.MATCH_POINTS:
            return {p: self.match_points[p] for p in group}
        if criterion is Criterion.MUTUAL_MATCH_POINTS:
            return self.totals(members, games=False)
        if criterion is Criterion.MUTUAL_GAME_POINTS:
            return self.totals(members, games=True)
        if criterion is Criterion.GAME_POINTS:
            return {p: self.game_points[p] for p in group}
        if criterion is Criterion.PREVIOUS_FINAL:
            if not all(p in self.final_place for p in group):
                return None
            return {p: Fraction(-self.final_place[p]) for p in group}
        return {p: Fraction(-self.by_player[p].seed_key) for p in group}

    def order(self, group: list[PlayerId], start: int) -> tuple[list[PlayerId], list[Criterion]]:
        """``group`` ranked from the chain's ``start``; the criteria between its players."""
        if len(group) == 1:
            return group, []
        by_player, steps = self.by_player, self.steps
        for criterion in _CHAIN[start:]:
            vals = self.values(criterion, group)
            if vals is None:
                continue
            # Places (previous final, qualification) are columns of their own; record the rest.
            if criterion in _RECORDED:
                among = tuple(sorted(group, key=lambda p: by_player[p].seed_key))
                for p in group:
                    steps[p].append(TiebreakValue(criterion, vals[p], among))
            levels = sorted(set(vals.values()), reverse=True)
            if len(levels) == 1:
                continue
            ranked: list[PlayerId] = []
            bounds: list[Criterion] = []
            for i, level in enumerate(levels):
                bucket = sorted(
                    (p for p in group if vals[p] == level), key=lambda p: by_player[p].seed_key
                )
                if i:
                    bounds.append(criterion)
                sub, sub_bounds = self.order(bucket, _RESTART)
                ranked += sub
                bounds += sub_bounds
            return ranked, bounds
        # Qualification places and seeded roles are distinct, so the chain always decides.
        raise AssertionError("tiebreak chain left a tie")  # pragma: no cover


def pool_standings(
    entries: Sequence[PoolEntry],
    results: Iterable[MatchResult],
    *,
    previous_final_order: Sequence[str] = (),
    withdrawn: Iterable[PlayerId] = (),
) -> tuple[StandingRow, ...]:
    """The pool's standings, a total order (rules 3.vi.6, 8.ii).

    Primary: match points (win 1, tied ½, loss 0). Ties are broken, in order, by

    1. mutual match points and 2. mutual game points, both counted only between the tied
       players; whenever any criterion splits a tied group, each smaller group that is still
       tied starts again at (1), so a three-way tie that leaves two players level is decided by
       the match between those two;
    3. overall game points;
    4. the previous final (``previous_final_order``, usernames, champion first): it applies to a
       tied group only when every player in it appears there;
    5. qualification place. The seeded entrants did not play the qualification; they rank above
       every qualifier, the title holder before the runner-up (they qualified by being the last
       final's top two).

    ``withdrawn`` players (rules 8.ii) are left out of the table and all their matches are
    disregarded. Matches with a player outside ``entries`` raise :class:`CandidatesError`.
    """
    gone = frozenset(withdrawn)
    players = [e for e in entries if e.player not in gone]
    ids = {e.player for e in players}
    if len(ids) != len(players):
        raise CandidatesError(
            CandidatesErrorReason.DUPLICATE_PLAYER, "A player appears twice in the pool."
        )
    counted = disregard_withdrawn(results, gone)
    for r in counted:
        for p in r.players:
            if p not in ids:
                raise CandidatesError(
                    CandidatesErrorReason.UNKNOWN_PLAYER,
                    f"Match {r.match_id} has {p}, who is not in this pool.",
                )
    by_player = {e.player: e for e in players}
    final_place = {normalise_username(name): i + 1 for i, name in enumerate(previous_final_order)}
    chain = _TiebreakChain(counted, by_player, final_place)
    played = {p: sum(1 for r in counted if r.is_finished and p in r.players) for p in ids}
    start_group = sorted(ids, key=lambda p: by_player[p].seed_key)
    ranked, bounds = chain.order(start_group, 0) if start_group else ([], [])
    rows: list[StandingRow] = []
    for i, p in enumerate(ranked):
        entry = by_player[p]
        rows.append(
            StandingRow(
                rank=i + 1,
                player=p,
                match_points=chain.match_points[p],
                game_points=chain.game_points[p],
                matches_played=played[p],
                previous_final_place=final_place.get(p),
                qualification_place=entry.qualification_place,
                seeded=entry.seeded,
                tiebreaks=tuple(chain.steps[p]),
                separated_by=bounds[i] if i < len(bounds) else None,
            )
        )
    return tuple(rows)
