"""The Candidates pools' crosstable (rules 3.vi): each player's game points against each other,
one entry per meeting."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.model import PlayerId
from rules.stages.candidates import CandidatesError, CandidatesErrorReason, MatchResult

__all__ = ["Crosstable", "CrosstableCell", "CrosstableRow", "crosstable"]


@dataclass(frozen=True, slots=True)
class CrosstableCell:
    """The row player's game points against ``opponent``, one entry per meeting (match id order).

    ``None`` marks the diagonal; an empty ``scores`` means they have not met yet.
    """

    opponent: PlayerId
    scores: tuple[Fraction, ...] | None
    finished: tuple[bool, ...] = ()


@dataclass(frozen=True, slots=True)
class CrosstableRow:
    player: PlayerId
    cells: tuple[CrosstableCell, ...]
    game_points: Fraction
    match_points: Fraction


@dataclass(frozen=True, slots=True)
class Crosstable:
    players: tuple[PlayerId, ...]
    rows: tuple[CrosstableRow, ...]

    def cell(self, player: PlayerId, opponent: PlayerId) -> CrosstableCell:
        for row in self.rows:
            if row.player == player:
                for cell in row.cells:
                    if cell.opponent == opponent:
                        return cell
        raise CandidatesError(
            CandidatesErrorReason.UNKNOWN_PLAYER, f"{player} or {opponent} is not in the table."
        )


def crosstable(players: Sequence[PlayerId], results: Iterable[MatchResult]) -> Crosstable:
    """A crosstable of game scores for display, rows and columns in the order of ``players``.

    Pass the standings order to get the usual table. Matches with a player outside ``players``
    are ignored (use :func:`rules.stages.candidates.disregard_withdrawn` first for rules 8.ii).
    """
    order = tuple(players)
    members = set(order)
    relevant = sorted(
        (r for r in results if r.first in members and r.second in members),
        key=lambda r: r.match_id,
    )
    rows: list[CrosstableRow] = []
    for p in order:
        cells: list[CrosstableCell] = []
        total_g = Fraction(0)
        total_m = Fraction(0)
        for q in order:
            if p == q:
                cells.append(CrosstableCell(q, None))
                continue
            mine = [r for r in relevant if {r.first, r.second} == {p, q}]
            cells.append(
                CrosstableCell(
                    q,
                    tuple(r.game_points_of(p) for r in mine),
                    tuple(r.is_finished for r in mine),
                )
            )
            total_g += sum((r.game_points_of(p) for r in mine), Fraction(0))
            total_m += sum((r.match_points_of(p) for r in mine), Fraction(0))
        rows.append(CrosstableRow(p, tuple(cells), total_g, total_m))
    return Crosstable(order, tuple(rows))
