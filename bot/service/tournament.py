"""The tournament and its stages, created once from the config."""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.service.seasons import Seasons
from rules.core.states import StageState
from rules.stages.formats import stage_kinds
from storage.models import SeasonState, StageRow, TournamentRow
from storage.uow import UnitOfWork

__all__ = ["Tournament"]


class Tournament:
    """``acwc tournament create``: the tournament and all its stages, from the config."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.seasons = Seasons(config)

    async def create(self, uow: UnitOfWork, *, now: dt.datetime, actor: str) -> TournamentRow:
        if await uow.seasons.all():
            raise OperationError(
                "a tournament already exists in this database: next year's season is made from "
                "it (its settings and its final)"
            )
        tournament = await uow.tournaments.add(
            TournamentRow(
                name=self.config.tournament.name,
                created_at=now,
                current_stage=stage_kinds(self.config.rules)[0],  # the first of the registry
                year=self.config.rules.calendar.first_publication.year,
                state=SeasonState.OPEN,
                title_holder=self.config.rules.seeding.title_holder,
                runner_up=self.config.rules.seeding.runner_up,
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
