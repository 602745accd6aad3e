"""What a TD's decision changes in the standings: every line of the qualification standings and
of the Candidates pools as they stand now (counting the decided matches of the round in play),
and the lines that differ between two such readings (rank, player, points before -> after).

The desk shows these before a TD confirms a ruling (:mod:`bot.service.preview` runs the ruling
in a unit of work it never commits, between two readings).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from bot.config import Config
from bot.errors import OperationError
from bot.views.candidates import points_text, pool_tables
from bot.views.qualification import qualification_stage, results
from rules.core.errors import RulesError
from rules.swiss.tiebreaks import compute_standings
from storage.uow import UnitOfWork

__all__ = ["LineChange", "StandingsLine", "changed_lines", "standings_lines"]


@dataclass(frozen=True, slots=True)
class StandingsLine:
    table: str
    rank: int
    player: str
    match_points: Fraction
    game_points: Fraction

    @property
    def points(self) -> str:
        return f"{points_text(self.match_points)} ({points_text(self.game_points)} game pts)"


@dataclass(frozen=True, slots=True)
class LineChange:
    """One standings line a decision changes; ``None`` where the line is not in that table."""

    table: str
    player: str
    before: StandingsLine | None
    after: StandingsLine | None

    @property
    def rank(self) -> str:
        return _moved(*(None if x is None else str(x.rank) for x in (self.before, self.after)))

    @property
    def points(self) -> str:
        return _moved(*(None if x is None else x.points for x in (self.before, self.after)))

    def text(self) -> str:
        return f"{self.table}: #{self.rank} {self.player}, {self.points}"


def _moved(before: str | None, after: str | None) -> str:
    if before == after:
        return before or "-"
    return f"{before or '-'} -> {after or '-'}"


Lines = dict[tuple[str, str], StandingsLine]


async def standings_lines(uow: UnitOfWork, config: Config) -> Lines:
    """Every standings line of the qualification and the Candidates pools, by (table, player).

    The qualification's lines count the decided matches of a round still in play (the public
    standings wait for the whole round), so a ruling in the current week shows its effect.
    """
    out: Lines = {}
    names = {p.id: p.username for p in await uow.players.list()}
    try:
        stage = await qualification_stage(uow)
        field, res, gone, _ = await results(uow, stage, config.rules, provisional=True)
        table = compute_standings(field, res, exits=gone) if field else None
    except (OperationError, RulesError):
        table = None  # no qualification yet
    if table is not None:
        for row in table.rows:
            line = StandingsLine(
                "Qualification", row.rank, row.username, row.match_points, row.game_points
            )
            out[(line.table, row.player)] = line
    try:
        pools = await pool_tables(uow, config)
    except (OperationError, RulesError):
        pools = {}
    for pool, (_, rows, _) in pools.items():
        for r in rows:
            name = f"Candidates, {pool.value} pool"
            out[(name, r.player)] = StandingsLine(
                name, r.rank, names.get(r.player, r.player), r.match_points, r.game_points
            )
    return out


def changed_lines(
    before: Mapping[tuple[str, str], StandingsLine], after: Mapping[tuple[str, str], StandingsLine]
) -> tuple[LineChange, ...]:
    """The lines that differ (rank or points), by table and in the order of the table after."""
    changes = []
    for key in [*after, *(k for k in before if k not in after)]:
        old, new = before.get(key), after.get(key)
        if _key(old) == _key(new):
            continue
        shown = new or old
        assert shown is not None
        changes.append((key[0], shown.rank, LineChange(key[0], shown.player, old, new)))
    return tuple(c for *_, c in sorted(changes, key=lambda c: (c[0], c[1])))


def _key(line: StandingsLine | None) -> tuple[int, Fraction, Fraction] | None:
    return None if line is None else (line.rank, line.match_points, line.game_points)
