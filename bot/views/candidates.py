"""The Candidates read back from storage: the two pools, each match's result, the standings
with their tiebreaks and the crosstable (rules 3.vi). One read model: the public page, the
command line, the desk and the stage progression all read these."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from bot.config import Config
from bot.errors import OperationError
from bot.views.scores import DECIDED_ELSEWHERE
from bot.views.tournament import stage_rounds, stage_row
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome, format_points, match_score
from rules.stages.candidates import (
    MatchResult,
    Pool,
    PoolEntry,
    SeededRole,
    StandingRow,
    crosstable,
    pool_standings,
    result_of,
)
from storage.convert import to_game, to_match
from storage.models import MatchRow
from storage.uow import UnitOfWork

__all__ = [
    "PoolTables",
    "candidates_results",
    "candidates_view",
    "match_result",
    "pool_entries",
    "pool_tables",
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
    place = {p: i + 1 for i, p in enumerate(ranked)}
    out: dict[Pool, list[PoolEntry]] = {Pool.UPPER: [], Pool.LOWER: []}
    for r in sorted(rows, key=lambda r: (r.pool or "", r.number)):
        player = await uow.players.get(r.player_id)
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


async def candidates_results(uow: UnitOfWork) -> list[MatchResult]:
    stage = await stage_row(uow, StageKind.CANDIDATES)
    out = []
    for rnd, rows in await stage_rounds(uow, stage):
        for row in rows:
            result = await match_result(uow, row, rnd.number)
            if result is not None:
                out.append(result)
    return out


async def _exited(uow: UnitOfWork) -> list[PlayerId]:
    return [PlayerId(r.player_id) for r in await uow.stages.exits(StageKind.CANDIDATES.value)]


async def pool_tables(uow: UnitOfWork, config: Config) -> PoolTables:
    entries = await pool_entries(uow)
    results = await candidates_results(uow)
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


def _score_text(scores: tuple[Fraction, ...] | None) -> str:
    if scores is None:
        return "x"
    return "/".join(format_points(s) for s in scores) or "."


async def candidates_view(uow: UnitOfWork, config: Config) -> list[dict[str, Any]]:
    """Each pool: its players, standings (with tiebreaks) and crosstable of game scores."""
    cand = await stage_row(uow, StageKind.CANDIDATES)
    if cand.state == "pending":
        raise OperationError("the Candidates have not started yet")
    tables = await pool_tables(uow, config)
    gone = set(await _exited(uow))
    out = []
    for pool, (entries, rows, results) in tables.items():
        order = [r.player for r in rows]
        cross = crosstable(order, [r for r in results if not {r.first, r.second} & gone])
        out.append(
            {
                "pool": pool.value,
                "players": [
                    {
                        "number": i,
                        "player": e.player,
                        "seeded": None if e.seeded is None else e.seeded.value,
                        "qualification_place": e.qualification_place,
                        "withdrawn": e.player in gone,
                    }
                    for i, e in enumerate(entries, start=1)
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
                    for r in rows
                ],
                "crosstable": {
                    "players": list(cross.players),
                    "rows": [
                        {
                            "player": row.player,
                            "scores": [_score_text(c.scores) for c in row.cells],
                            "game_points": format_points(row.game_points),
                            "match_points": format_points(row.match_points),
                        }
                        for row in cross.rows
                    ],
                },
            }
        )
    return out
