"""Standings of the qualification Swiss and their tie-breaks (rules 3.v.5).

Players are ranked by, in order:

1. match points (rules 3.v.1);
2. Median-Buchholz, which FIDE C.07 Art. 14.3 calls **Buchholz Median-1 (BH-M1)**: Buchholz
   (Art. 8.1, the sum of the opponents' scores) with the least and then the most significant
   value cut;
3. cumulative score, FIDE C.07 Art. 7.5 **Progressive Score (PS)**: the player's running score
   after each round, added up;
4. seed: the qualification pairing number, lower first (rules 3.v.5.3).

The pairing number is unique, so the ranking is a total order. The table is a pure function of
the entrants and the stored results (:func:`compute_standings`); it is recomputed from them
every time and never patched. All scores are match points, kept exact as
:class:`fractions.Fraction`.

Unplayed rounds (FIDE C.07, 2026 text, Art. 16)
-----------------------------------------------
The text in force since 1 March 2026 (approved by the FIDE Council on 2 February 2026) is
implemented point by point. Round kinds are those of :mod:`rules.swiss.results`.

* **16.1.1 requested bye**: a half-point or zero-point bye; an ABSENT round and every WITHDRAWN
  round (the note: any round after a participant withdraws is a zero-point bye).
* **16.1.2 voluntary unplayed round (VUR)**: a requested bye or a forfeit loss.
* **16.2 categories**: 16.2.1 pairing-allocated bye (BYE); 16.2.2 forfeit win; 16.2.3 a
  requested bye followed by at least one round that is not a VUR; 16.2.4 forfeit loss; 16.2.5 a
  requested bye followed only by VURs, or in the last round. "Last round" is the last round of
  the results being ranked, so a table after round 4 of 7 treats round 4 as the last.
* **16.3 adjusted score** (used only when the player is somebody's opponent): categories
  16.2.1-16.2.4 count with the points awarded, 16.2.5 counts as a draw (½). A player who
  withdraws therefore lends their past opponents ½ per round missed.
* **16.4 dummy**: each unplayed round of the player counts in their own Buchholz as a game
  against a dummy whose score is the player's own (unadjusted) score, but at most
  (16.4.1) the scheduled opponent's adjusted score for a forfeit win or loss, and
  (16.4.2) the points of a draw times the number of rounds (½ x rounds) for every other
  unplayed round. "Number of rounds" is the number of rounds being ranked (see above).
* **16.5 Cut-1 exception**: when a cut removes the least significant value from a player with
  VURs, the lowest contribution coming from a VUR is cut instead (for Buchholz it can never be
  lower than the least significant value, so it is always the one cut). BH-M1 makes one such low
  cut and then cuts the highest remaining value; 16.5 says nothing about high cuts.
* **16.6** lets an event's rules override 16.3-16.5; the ACWC rules do not, so none is applied.

The edition before the 2026 revision (the texts of 2024) had no cap in 16.4: the dummy's score
was simply the player's own score. :class:`C07Edition` ``E2024`` computes that, and reproduces
the FIDE exercise set (Exercises in Tie-Breaking, Rev. 2403220900), used as a test fixture.

Other points decided here
-------------------------
* Progressive score adds the points each round actually awarded, byes and forfeits included:
  C.07 Art. 16 covers only Buchholz and Sonneborn-Berger and their variants.
* A round counts as "played" only when it is PLAYED; a TD-ruled draw without games (rules 5.6,
  5.9) is a PLAYED round between the paired players.
* Forfeits decided under rules 8.i (see :mod:`rules.stages.qualification`) are forfeits here.
* With fewer than two values BH-M1 cuts what there is: one round gives 0.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from rules.core.model import PlayerId
from rules.core.states import PlayerStatus
from rules.swiss.results import (
    Entrant,
    Exit,
    ExitKind,
    QualificationError,
    QualificationErrorReason,
    ResultKind,
    RoundResult,
    results_by_player,
    rounds_in,
)

__all__ = [
    "C07Edition",
    "Contribution",
    "PlayerStatus",
    "Standings",
    "StandingsRow",
    "UnplayedCategory",
    "adjusted_score",
    "buchholz_contributions",
    "compute_standings",
    "cut_contributions",
    "progressive_score",
    "score",
    "unplayed_category",
]

ZERO = Fraction(0)
HALF = Fraction(1, 2)


class C07Edition(enum.Enum):
    """Which text of FIDE C.07 Art. 16.4 to apply."""

    E2024 = "2024"  # dummy = own score
    E2026 = "2026"  # dummy = own score, capped (Art. 16.4.1-16.4.2); in force from 1 March 2026


class UnplayedCategory(enum.Enum):
    """FIDE C.07 Art. 16.2."""

    PAIRING_BYE = "16.2.1"
    FORFEIT_WIN = "16.2.2"
    REQUESTED_BYE_FOLLOWED = "16.2.3"
    FORFEIT_LOSS = "16.2.4"
    REQUESTED_BYE_FINAL = "16.2.5"

    @property
    def is_voluntary(self) -> bool:
        """Art. 16.1.2: a requested bye or a forfeit loss."""
        return self in (
            UnplayedCategory.REQUESTED_BYE_FOLLOWED,
            UnplayedCategory.FORFEIT_LOSS,
            UnplayedCategory.REQUESTED_BYE_FINAL,
        )

    @property
    def is_forfeit(self) -> bool:
        return self in (UnplayedCategory.FORFEIT_WIN, UnplayedCategory.FORFEIT_LOSS)


_DIRECT_CATEGORY = {
    ResultKind.BYE: UnplayedCategory.PAIRING_BYE,
    ResultKind.FORFEIT_WIN: UnplayedCategory.FORFEIT_WIN,
    ResultKind.FORFEIT_LOSS: UnplayedCategory.FORFEIT_LOSS,
}


def unplayed_category(results: Sequence[RoundResult], index: int) -> UnplayedCategory | None:
    """The Art. 16.2 category of ``results[index]`` (one player's rounds in order), or ``None``
    for a played round."""
    kind = results[index].kind
    if kind is ResultKind.PLAYED:
        return None
    if kind in _DIRECT_CATEGORY:
        return _DIRECT_CATEGORY[kind]
    if any(not later.kind.is_voluntary_unplayed for later in results[index + 1 :]):
        return UnplayedCategory.REQUESTED_BYE_FOLLOWED
    return UnplayedCategory.REQUESTED_BYE_FINAL


def score(results: Iterable[RoundResult]) -> Fraction:
    """Match points: the sum of the points each round awarded."""
    return sum((r.match_points for r in results), ZERO)


def adjusted_score(results: Sequence[RoundResult]) -> Fraction:
    """The score a player lends to their opponents' Buchholz (Art. 16.3)."""
    total = ZERO
    for index, result in enumerate(results):
        if unplayed_category(results, index) is UnplayedCategory.REQUESTED_BYE_FINAL:
            total += HALF
        else:
            total += result.match_points
    return total


def progressive_score(results: Iterable[RoundResult]) -> Fraction:
    """C.07 Art. 7.5: the running score after each round, added up (rules 3.v.5.2)."""
    running = total = ZERO
    for result in results:
        running += result.match_points
        total += running
    return total


@dataclass(frozen=True, slots=True)
class Contribution:
    """One round's value in a player's Buchholz.

    ``opponent`` is the player whose adjusted score counts, or ``None`` when a dummy stands in
    for an unplayed round (then ``category`` says which kind).
    """

    round: int
    value: Fraction
    opponent: PlayerId | None
    category: UnplayedCategory | None

    @property
    def is_voluntary_unplayed(self) -> bool:
        return self.category is not None and self.category.is_voluntary


def buchholz_contributions(
    results: Sequence[RoundResult],
    adjusted: Mapping[PlayerId, Fraction],
    *,
    edition: C07Edition = C07Edition.E2026,
) -> tuple[Contribution, ...]:
    """Each round's contribution to the Buchholz of the player whose ``results`` these are.

    ``adjusted`` maps every player to their Art. 16.3 adjusted score. A played round contributes
    the opponent's adjusted score; an unplayed one the dummy of Art. 16.4.
    """
    own = score(results)
    rounds = len(results)
    out: list[Contribution] = []
    for index, result in enumerate(results):
        category = unplayed_category(results, index)
        if category is None:
            assert result.opponent is not None  # a played round always has one
            out.append(Contribution(result.round, adjusted[result.opponent], result.opponent, None))
            continue
        value = own
        if edition is C07Edition.E2026:
            if category.is_forfeit:
                assert result.opponent is not None  # a forfeit always names its opponent
                cap = adjusted[result.opponent]
            else:
                cap = HALF * rounds
            value = min(value, cap)
        out.append(Contribution(result.round, value, None, category))
    return tuple(out)


def _value_then_round(c: Contribution) -> tuple[Fraction, int]:
    return (c.value, c.round)


def _value_then_late_round(c: Contribution) -> tuple[Fraction, int]:
    return (c.value, -c.round)


def cut_contributions(
    contributions: Iterable[Contribution], *, low: int, high: int
) -> tuple[tuple[Contribution, ...], tuple[Contribution, ...]]:
    """Apply ``low`` least-significant and then ``high`` most-significant cuts (C.07 Art. 14).

    Returns ``(kept, cut)``. Each low cut follows Art. 16.5: with a VUR among the remaining
    values, the lowest VUR contribution goes (if it is not lower than the least significant
    value, which for Buchholz always holds). Equal values are cut earliest round first for low
    cuts and latest round first for high cuts; the sum does not depend on it, the display does.
    """
    remaining = sorted(contributions, key=lambda c: c.round)
    cut: list[Contribution] = []
    for _ in range(low):
        if not remaining:
            break
        least = min(remaining, key=_value_then_round)
        voluntary = [c for c in remaining if c.is_voluntary_unplayed]
        victim = least
        if voluntary:
            lowest_vur = min(voluntary, key=_value_then_round)
            if lowest_vur.value >= least.value:
                victim = lowest_vur
        remaining.remove(victim)
        cut.append(victim)
    for _ in range(high):
        if not remaining:
            break
        victim = max(remaining, key=_value_then_late_round)
        remaining.remove(victim)
        cut.append(victim)
    return tuple(remaining), tuple(cut)


@dataclass(frozen=True, slots=True)
class StandingsRow:
    """One line of the table, with every column a TD or a player may want to see.

    ``buchholz`` (uncut) and ``game_points`` are shown for information; they break no tie.
    ``contributions`` and ``cut`` show how ``buchholz_median`` was reached.
    """

    rank: int
    player: PlayerId
    username: str
    pairing_number: int
    match_points: Fraction
    buchholz_median: Fraction
    progressive: Fraction
    buchholz: Fraction
    game_points: Fraction
    games: int
    status: PlayerStatus
    contributions: tuple[Contribution, ...]
    cut: tuple[Contribution, ...]

    @property
    def seed(self) -> int:
        return self.pairing_number

    @property
    def sort_key(self) -> tuple[Fraction, Fraction, Fraction, int]:
        """Ascending order of this key is the ranking (rules 3.v.5)."""
        return (-self.match_points, -self.buchholz_median, -self.progressive, self.pairing_number)


@dataclass(frozen=True, slots=True)
class Standings:
    """The ranked table after ``rounds`` rounds."""

    rounds: int
    edition: C07Edition
    rows: tuple[StandingsRow, ...]

    def row(self, player: PlayerId) -> StandingsRow:
        """The row of ``player``; raises :class:`QualificationError` for a non-entrant."""
        for row in self.rows:
            if row.player == player:
                return row
        raise QualificationError(
            QualificationErrorReason.UNKNOWN_PLAYER, f"{player} is not in the standings."
        )

    @property
    def ranking(self) -> tuple[PlayerId, ...]:
        return tuple(row.player for row in self.rows)


def _check_entrants(entrants: Sequence[Entrant]) -> None:
    players = [e.player for e in entrants]
    numbers = [e.pairing_number for e in entrants]
    if len(set(players)) != len(players):
        raise QualificationError(
            QualificationErrorReason.DUPLICATE_PLAYER, "A player is listed twice as an entrant."
        )
    if len(set(numbers)) != len(numbers) or any(n < 1 for n in numbers):
        raise QualificationError(
            QualificationErrorReason.DUPLICATE_PLAYER,
            "Pairing numbers must be positive and different for every entrant.",
        )


def _statuses(
    exits: Iterable[Exit], table: Mapping[PlayerId, tuple[RoundResult, ...]]
) -> dict[PlayerId, PlayerStatus]:
    statuses: dict[PlayerId, PlayerStatus] = {}
    for ex in sorted(exits, key=lambda e: e.player):
        if ex.player not in table:
            raise QualificationError(
                QualificationErrorReason.UNKNOWN_PLAYER, f"{ex.player} is not an entrant."
            )
        if ex.player in statuses:
            raise QualificationError(
                QualificationErrorReason.INVALID_EXIT, f"{ex.player} cannot leave twice."
            )
        for result in table[ex.player][ex.last_round :]:
            if result.kind is not ResultKind.WITHDRAWN:
                raise QualificationError(
                    QualificationErrorReason.INVALID_EXIT,
                    f"{ex.player} left after round {ex.last_round} but has a "
                    f"{result.kind.value} result in round {result.round}.",
                )
        statuses[ex.player] = (
            PlayerStatus.WITHDRAWN if ex.kind is ExitKind.WITHDRAWAL else PlayerStatus.DISQUALIFIED
        )
    return statuses


def compute_standings(
    entrants: Iterable[Entrant],
    results: Iterable[RoundResult],
    *,
    exits: Iterable[Exit] = (),
    edition: C07Edition = C07Edition.E2026,
) -> Standings:
    """Rank every entrant by match points, BH-M1, progressive score and seed (rules 3.v.5).

    ``results`` must hold one result per entrant per round 1..k (see
    :func:`rules.swiss.results.results_by_player`); ``exits`` mark who withdrew or was
    disqualified (their rows stay in the table, with a status), and each exited player's results
    after their last round must be WITHDRAWN. Raises :class:`QualificationError` on duplicate
    entrants or pairing numbers, and on any inconsistency in the results or exits.
    """
    entrant_list = sorted(entrants, key=lambda e: e.pairing_number)
    _check_entrants(entrant_list)
    table = results_by_player((e.player for e in entrant_list), results)
    statuses = _statuses(exits, table)
    adjusted = {player: adjusted_score(rs) for player, rs in table.items()}

    unranked: list[StandingsRow] = []
    for entrant in entrant_list:
        rs = table[entrant.player]
        contributions = buchholz_contributions(rs, adjusted, edition=edition)
        kept, cut = cut_contributions(contributions, low=1, high=1)
        unranked.append(
            StandingsRow(
                rank=0,
                player=entrant.player,
                username=entrant.username,
                pairing_number=entrant.pairing_number,
                match_points=score(rs),
                buchholz_median=sum((c.value for c in kept), ZERO),
                progressive=progressive_score(rs),
                buchholz=sum((c.value for c in contributions), ZERO),
                game_points=sum((r.game_points for r in rs), ZERO),
                games=sum(r.games for r in rs),
                status=statuses.get(entrant.player, PlayerStatus.ACTIVE),
                contributions=contributions,
                cut=cut,
            )
        )
    ordered = sorted(unranked, key=lambda row: row.sort_key)
    rows = tuple(replace(row, rank=rank) for rank, row in enumerate(ordered, start=1))
    return Standings(rounds=rounds_in(table), edition=edition, rows=rows)
