"""The tournament and its stages, created once from the config."""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from rules.core.states import StageState
from rules.stages.formats import stage_kinds
from storage.models import StageRow, TournamentRow
from storage.uow import UnitOfWork

__all__ = ["Tournament"]


class Tournament:
    """``acwc tournament create``: the tournament and all its stages, from the config."""

    def __init__(self, config: Config) -> None:
        self.config = config

    async def create(self, uow: UnitOfWork, *, now: dt.datetime, actor: str) -> TournamentRow:
        if await uow.tournaments.current() is not None:
            raise OperationError("a tournament already exists in this database")
        tournament = await uow.tournaments.add(
            TournamentRow(
                name=self.config.tournament.name,
                created_at=now,
                current_stage=stage_kinds(self.config.rules)[0],  # the first of the registry
            )
        )
        for kind in stage_kinds(self.config.rules):
            await uow.tournaments.add_stage(
                StageRow(tournament_id=tournament.id, kind=kind, state=StageState.PENDING)
            )
        await uow.audit.record(
            at=now, actor=actor, action="tournament.create", details={"name": tournament.name}
        )
        return tournament
