"""The Candidates read back from storage: the two pools, each match's result, the standings
with their tiebreaks and the crosstable (rules 3.vi). One read model: the public page, the
command line, the desk and the stage progression all read these."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bot.config import Config
from bot.errors import OperationError
from bot.views.scores import DECIDED_ELSEWHERE
from bot.views.tournament import stage_rounds, stage_row
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome, format_points, match_score
from rules.core.states import RoundState, StageState
from rules.stages.candidates import MatchResult, Pool, PoolEntry, SeededRole, result_of
from rules.stages.crosstable import crosstable
from rules.stages.pool_standings import StandingRow, pool_standings
from storage.convert import to_game, to_match
from storage.models import MatchRow
from storage.uow import UnitOfWork

__all__ = [
    "CrossCell",
    "CrossRow",
    "PoolTables",
    "PoolView",
    "candidates_results",
    "candidates_view",
    "match_result",
    "points_text",
    "pool_entries",
    "pool_tables",
    "pools",
]

PoolTables = dict[Pool, tuple[tuple[PoolEntry, ...], tuple[StandingRow, ...], list[MatchResult]]]
"""Each pool: its entries (Berger order), its standings and its matches' results."""


async def pool_entries(uow: UnitOfWork) -> dict[Pool, list[PoolEntry]]:
    """The two pools as stored at the start of the Candidates (pool order = Berger numbers)."""
    cand = await stage_row(uow, StageKind.CANDIDATES)
    qual = await stage_row(uow, StageKind.QUALIFICATION)
    qual_place = {
        r.player_id: r.placement
        for r in await uow.stages.entrants(qual.id)
        if r.placement is not None
    }
    rows = await uow.stages.entrants(cand.id)
    ranked = sorted(
        (r.player_id for r in rows if r.player_id in qual_place),
        key=lambda p: (qual_place[p], p),
    )
    players = {r.player_id: await uow.players.get(r.player_id) for r in rows}
    # Reserves the TDs took to fill the empty places (rules 1.3, 5.10) come after the
    # qualifiers, best seed rating first (bot/service/stages/small_field.py).
    reserves = {
        pid: p.seed_rating or 0
        for pid, p in players.items()
        if p is not None and not p.seeded_as and pid not in qual_place
    }
    ranked += sorted(reserves, key=lambda pid: (-reserves[pid], pid))
    place = {p: i + 1 for i, p in enumerate(ranked)}
    out: dict[Pool, list[PoolEntry]] = {Pool.UPPER: [], Pool.LOWER: []}
    for r in sorted(rows, key=lambda r: (r.pool or "", r.number)):
        player = players[r.player_id]
        seeded = (
            SeededRole(player.seeded_as)
            if player is not None and player.seeded_as and r.player_id not in place
            else None
        )
        pool = Pool(r.pool or "upper")
        out[pool].append(PoolEntry(PlayerId(r.player_id), pool, place.get(r.player_id), seeded))
    return out


async def match_result(uow: UnitOfWork, row: MatchRow, number: int) -> MatchResult | None:
    """What a Candidates match gives its players: its games, or the stored decision (a forfeit,
    the TDs) with the games played before it."""
    if row.black_first is None:
        return None
    match = to_match(row, round=number)
    games = [to_game(g) for g in await uow.games.for_match(row.id)]
    if row.decided_by in DECIDED_ELSEWHERE and row.outcome is not None:
        score = match_score(match, games)
        return MatchResult(
            match.id,
            match.white_first,
            match.black_first,
            score.first,
            score.second,
            score.games_played,
            Outcome(row.outcome),
        )
    return result_of(match, games)


async def candidates_results(uow: UnitOfWork, *, through: int | None = None) -> list[MatchResult]:
    """Every decided Candidates match's result (``through``: of the rounds up to that one)."""
    stage = await stage_row(uow, StageKind.CANDIDATES)
    out = []
    for rnd, rows in await stage_rounds(uow, stage):
        if through is not None and rnd.number > through:
            continue
        for row in rows:
            result = await match_result(uow, row, rnd.number)
            if result is not None:
                out.append(result)
    return out


async def _exited(uow: UnitOfWork) -> list[PlayerId]:
    return [PlayerId(r.player_id) for r in await uow.stages.exits(StageKind.CANDIDATES.value)]


async def pool_tables(
    uow: UnitOfWork, config: Config, *, published_only: bool = False, through: int | None = None
) -> PoolTables:
    """Each pool's entries, standings and results (``published_only``: of published rounds;
    ``through``: of the rounds up to that one)."""
    entries = await pool_entries(uow)
    results = await candidates_results(uow, through=through)
    if published_only:
        cand = await stage_row(uow, StageKind.CANDIDATES)
        public = {
            m.id
            for rnd, rows in await stage_rounds(uow, cand)
            if rnd.state in (RoundState.PUBLISHED, RoundState.COMPLETE)
            for m in rows
        }
        results = [r for r in results if r.match_id in public]
    gone = await _exited(uow)
    out = {}
    for pool, members in entries.items():
        ids = {e.player for e in members}
        mine = [r for r in results if r.first in ids and r.second in ids]
        rows = pool_standings(
            members,
            mine,
            previous_final_order=config.rules.seeding.previous_final_order,
            withdrawn=gone,
        )
        out[pool] = (tuple(members), rows, mine)
    return out


@dataclass(frozen=True, slots=True)
class CrossCell:
    """The row player's meetings with one opponent: their game points and the opponent's, per
    match; ``mine`` is ``None`` on the diagonal."""

    opponent: PlayerId
    mine: tuple[Fraction, ...] | None
    theirs: tuple[Fraction, ...]
    match_ids: tuple[int, ...]

    @property
    def text(self) -> str:
        """``x`` (the player), ``""`` (not met yet), else ``2½-½`` per match."""
        if self.mine is None:
            return "x"
        return "/".join(
            f"{points_text(m)}-{points_text(t)}"
            for m, t in zip(self.mine, self.theirs, strict=True)
        )


@dataclass(frozen=True, slots=True)
class CrossRow:
    player: PlayerId
    username: str
    cells: tuple[CrossCell, ...]
    game_points: Fraction
    match_points: Fraction


@dataclass(frozen=True, slots=True)
class PoolView:
    """One pool: its entries (Berger order), its standings with tiebreaks (rules 3.vi.5-6) and
    its crosstable in standings order. Matches of a withdrawn player are disregarded
    (rules 8.ii)."""

    pool: Pool
    entries: tuple[PoolEntry, ...]
    standings: tuple[StandingRow, ...]
    rows: tuple[CrossRow, ...]
    withdrawn: frozenset[PlayerId]

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return tuple(r.player for r in self.rows)


def points_text(value: Fraction) -> str:
    """``2½``, ``½``, ``3``: points as the public pages write them."""
    whole, frac = divmod(value, 1)
    if frac == 0:
        return str(whole)
    return ("" if whole == 0 else str(whole)) + "½"


async def pools(
    uow: UnitOfWork, config: Config, *, published_only: bool = False, through: int | None = None
) -> list[PoolView]:
    """Both pools, from the one set of match results: the public page (``published_only``: the
    matches of published rounds), ``acwc standings``, the desk and the forum posts (``through``:
    after that round) all read these. Empty while the Candidates have not started."""
    cand = await stage_row(uow, StageKind.CANDIDATES)
    if cand.state == StageState.PENDING:
        return []
    tables = await pool_tables(uow, config, published_only=published_only, through=through)
    gone = frozenset(await _exited(uow))
    names = {p.id: p.username for p in await uow.players.list()}
    out = []
    for pool, (members, standings, mine) in tables.items():
        counted = [r for r in mine if not {r.first, r.second} & gone]
        cross = crosstable([r.player for r in standings], counted)
        rows = []
        for row in cross.rows:
            cells = []
            for cell in row.cells:
                met = sorted(
                    (r for r in counted if {r.first, r.second} == {row.player, cell.opponent}),
                    key=lambda r: r.match_id,
                )
                cells.append(
                    CrossCell(
                        cell.opponent,
                        None if row.player == cell.opponent else cell.scores,
                        tuple(r.game_points_of(cell.opponent) for r in met),
                        tuple(int(r.match_id) for r in met),
                    )
                )
            rows.append(
                CrossRow(
                    row.player,
                    names.get(row.player, row.player),
                    tuple(cells),
                    row.game_points,
                    row.match_points,
                )
            )
        out.append(PoolView(pool, members, standings, tuple(rows), gone))
    return out


def _score_text(scores: tuple[Fraction, ...] | None) -> str:
    if scores is None:
        return "x"
    return "/".join(format_points(s) for s in scores) or "."


async def candidates_view(
    uow: UnitOfWork, config: Config, *, through: int | None = None
) -> list[dict[str, Any]]:
    """Each pool as plain data (``acwc stage show|standings candidates``): its players,
    standings (with tiebreaks) and crosstable of game scores (``through``: after that round)."""
    cand = await stage_row(uow, StageKind.CANDIDATES)
    if cand.state == StageState.PENDING:
        raise OperationError("the Candidates have not started yet")
    return [
        {
            "pool": view.pool.value,
            "players": [
                {
                    "number": i,
                    "player": e.player,
                    "seeded": None if e.seeded is None else e.seeded.value,
                    "qualification_place": e.qualification_place,
                    "withdrawn": e.player in view.withdrawn,
                }
                for i, e in enumerate(view.entries, start=1)
            ],
            "standings": [
                {
                    "rank": r.rank,
                    "player": r.player,
                    "match_points": format_points(r.match_points),
                    "game_points": format_points(r.game_points),
                    "played": r.matches_played,
                    "mutual_match_points": None
                    if r.mutual_match_points is None
                    else format_points(r.mutual_match_points),
                    "mutual_game_points": None
                    if r.mutual_game_points is None
                    else format_points(r.mutual_game_points),
                    "separated_by": None if r.separated_by is None else r.separated_by.value,
                }
                for r in view.standings
            ],
            "crosstable": {
                "players": list(view.players),
                "rows": [
                    {
                        "player": row.player,
                        "scores": [_score_text(c.mine) for c in row.cells],
                        "game_points": format_points(row.game_points),
                        "match_points": format_points(row.match_points),
                    }
                    for row in view.rows
                ],
            },
        }
        for view in await pools(uow, config, through=through)
    ]
