"""The qualification stage on top of storage: entrants, results, standings, rounds (rules 3.v, 8.i).

Standings are recomputed from the stored matches and games every time (rules/tiebreaks.py); no
total is ever stored.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.td import OperationError, require_tournament
from rules.colour import Colour
from rules.model import Player, PlayerId
from rules.qualification import (
    absent_result,
    bye_result,
    forfeit_results,
    played_results,
    rank_entrants,
    withdrawn_result,
)
from rules.ruleset import Ruleset, StageKind
from rules.scoring import HALF, match_score
from rules.swiss_results import Entrant, Exit, ExitKind, RoundKind, RoundResult
from rules.tiebreaks import Standings, compute_standings
from storage.convert import to_game, to_match
from storage.models import MatchRow, RoundRow, StageEntrantRow, StageRow
from storage.uow import UnitOfWork

COUNTED_ROUND_STATES = ("approved", "published", "complete")


async def qualification_stage(uow: UnitOfWork) -> StageRow:
    tournament = await require_tournament(uow)
    stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
    if stage is None:  # pragma: no cover - create_tournament makes every stage
        raise OperationError("the tournament has no qualification stage")
    return stage


async def entrants(uow: UnitOfWork, stage: StageRow) -> tuple[Entrant, ...]:
    rows = await uow.stages.entrants(stage.id)
    players = {p.id: p for p in await uow.players.list()}
    return tuple(
        Entrant(
            pairing_number=r.number,
            player=PlayerId(r.player_id),
            username=players[r.player_id].username,
            seed_rating=r.seed_rating,
        )
        for r in rows
    )


async def fix_entrants(
    uow: UnitOfWork, stage: StageRow, ruleset: Ruleset, *, now: dt.datetime, actor: str
) -> tuple[Entrant, ...]:
    """Rank the registered players into pairing numbers once, at the first pairing (rules 3.v.3)."""
    existing = await entrants(uow, stage)
    if existing:
        return existing
    players = [
        Player(id=PlayerId(p.id), username=p.username, seed_rating=p.seed_rating)
        for p in await uow.players.list(status="active")
    ]
    ranked = rank_entrants(players, seeding=ruleset.seeding)
    if len(ranked) < 2:
        raise OperationError(
            f"{len(ranked)} entrant(s) for the qualification: at least 2 are needed to pair"
        )
    for e in ranked:
        await uow.stages.add_entrant(
            StageEntrantRow(
                stage_id=stage.id,
                player_id=e.player,
                number=e.pairing_number,
                seed_rating=e.seed_rating,
            )
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="qualification.entrants",
        details={"entrants": [[e.pairing_number, e.username, e.seed_rating] for e in ranked]},
    )
    return ranked


async def exits(uow: UnitOfWork) -> tuple[Exit, ...]:
    return tuple(
        Exit(player=PlayerId(r.player_id), kind=ExitKind(r.kind), last_round=r.last_round)
        for r in await uow.stages.exits(StageKind.QUALIFICATION.value)
    )


@dataclass(frozen=True, slots=True)
class StoredRound:
    row: RoundRow
    matches: tuple[MatchRow, ...]

    @property
    def is_finished(self) -> bool:
        return all(m.state == "complete" for m in self.matches)


async def rounds(uow: UnitOfWork, stage: StageRow) -> list[StoredRound]:
    result = []
    for row in await uow.tournaments.rounds(stage.id):
        result.append(StoredRound(row, tuple(await uow.matches.for_round(row.id))))
    return result


async def match_results(
    uow: UnitOfWork, row: MatchRow, number: int, ruleset: Ruleset
) -> list[RoundResult]:
    """The results a finished match gives its players."""
    if row.black_first is None:
        return [bye_result(PlayerId(row.white_first), number, stages=ruleset.stages)]
    match = to_match(row, round=number)
    games = [to_game(g) for g in await uow.games.for_match(row.id)]
    if row.decided_by in ("forfeit", "td") and row.outcome in ("first_wins", "second_wins"):
        winner = match.white_first if row.outcome == "first_wins" else match.black_first
        score = match_score(match, games) if games else None
        return list(forfeit_results(match, winner=winner, score=score))
    if row.decided_by in ("forfeit", "td") and row.outcome == "tied":
        return [
            RoundResult(
                player=p,
                round=number,
                kind=RoundKind.PLAYED,
                match_points=HALF,
                opponent=o,
                colour=c,
            )
            # RoundResult needs the colour of game 1 for a played match: the paired colours.
            for p, o, c in (
                (match.white_first, match.black_first, Colour.WHITE),
                (match.black_first, match.white_first, Colour.BLACK),
            )
        ]
    return list(played_results(match, games))


async def results(
    uow: UnitOfWork, stage: StageRow, ruleset: Ruleset, *, finished_only: bool = True
) -> tuple[tuple[Entrant, ...], list[RoundResult], tuple[Exit, ...], int]:
    """Every entrant's result in every finished round; the number of rounds counted."""
    field = await entrants(uow, stage)
    gone = await exits(uow)
    exit_round = {e.player: e.last_round for e in gone}
    out: list[RoundResult] = []
    counted = 0
    for stored in await rounds(uow, stage):
        if stored.row.state not in COUNTED_ROUND_STATES or not stored.is_finished:
            if finished_only:
                break
            continue
        counted += 1
        number = stored.row.number
        seen: set[PlayerId] = set()
        for m in stored.matches:
            for r in await match_results(uow, m, number, ruleset):
                out.append(r)
                seen.add(r.player)
        for e in field:
            if e.player in seen:
                continue
            if e.player in exit_round and exit_round[e.player] < number:
                out.append(withdrawn_result(e.player, number))
            else:
                out.append(absent_result(e.player, number))
    return field, out, gone, counted


async def standings(uow: UnitOfWork, ruleset: Ruleset) -> Standings:
    stage = await qualification_stage(uow)
    field, res, gone, _ = await results(uow, stage, ruleset)
    if not field:
        raise OperationError("the qualification has no entrants yet: pair round 1 first")
    return compute_standings(field, res, exits=gone)
