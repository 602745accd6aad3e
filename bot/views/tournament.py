"""The stored tournament and its stages, as every read model and operation finds them."""

from __future__ import annotations

from bot.errors import OperationError
from bot.views.bracket import VOID
from rules.core.ruleset import StageKind
from storage.models import MatchRow, RoundRow, StageRow, TournamentRow
from storage.uow import UnitOfWork

__all__ = ["require_tournament", "stage_rounds", "stage_row"]


async def require_tournament(uow: UnitOfWork) -> TournamentRow:
    tournament = await uow.tournaments.current()
    if tournament is None:
        raise OperationError("no tournament yet: a TD creates it first")
    return tournament


async def stage_row(uow: UnitOfWork, kind: StageKind) -> StageRow:
    """The stored stage of ``kind`` (every stage exists from the tournament's creation)."""
    tournament = await require_tournament(uow)
    stage = await uow.tournaments.stage(tournament.id, kind.value)
    if stage is None:  # pragma: no cover - create_tournament makes every stage
        raise OperationError(f"the tournament has no {kind.value} stage")
    return stage


async def stage_rounds(uow: UnitOfWork, stage: StageRow) -> list[tuple[RoundRow, list[MatchRow]]]:
    """Each round of ``stage`` with its matches that are not void."""
    out = []
    for rnd in await uow.tournaments.rounds(stage.id):
        rows = [m for m in await uow.matches.for_round(rnd.id) if m.state != VOID]
        out.append((rnd, rows))
    return out
