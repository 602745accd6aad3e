"""Repositories of the later-stage tables (:mod:`storage.models_stages`).

Instantiate on a unit of work's session: ``StagesRepository(uow.session)``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import MatchRow
from storage.models_stages import ArmageddonRow, ArmageddonStepRow, BracketRow, StagePlanRow


class StagesRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    # --- stage plans ---------------------------------------------------------------------

    async def plan(self, stage_id: int) -> StagePlanRow | None:
        return await self.session.get(StagePlanRow, stage_id)

    async def set_plan(
        self,
        stage_id: int,
        *,
        earliest_publication: dt.date,
        settings: dict[str, Any],
        now: dt.datetime,
        actor: str,
    ) -> StagePlanRow:
        row = await self.plan(stage_id)
        if row is None:
            row = StagePlanRow(
                stage_id=stage_id,
                earliest_publication=earliest_publication,
                created_at=now,
                created_by=actor,
                settings=settings,
            )
            self.session.add(row)
        else:
            row.earliest_publication, row.settings = earliest_publication, settings
        await self.session.flush()
        return row

    # --- the knockout bracket ------------------------------------------------------------

    async def bracket(self, tournament_id: int) -> BracketRow | None:
        return await self.session.get(BracketRow, tournament_id)

    async def save_bracket(
        self, tournament_id: int, data: dict[str, Any], *, now: dt.datetime
    ) -> BracketRow:
        row = await self.bracket(tournament_id)
        if row is None:
            row = BracketRow(tournament_id=tournament_id, data=data, updated_at=now)
            self.session.add(row)
        else:
            row.data, row.updated_at = data, now
        await self.session.flush()
        return row

    # --- knockout matches ----------------------------------------------------------------

    async def matches_of_stages(self, stages: Sequence[str]) -> Sequence[MatchRow]:
        result = await self.session.execute(
            select(MatchRow)
            .where(MatchRow.stage.in_(tuple(stages)))
            .order_by(MatchRow.round_id, MatchRow.board, MatchRow.week, MatchRow.id)
        )
        return result.scalars().all()

    # --- armageddons ---------------------------------------------------------------------

    async def armageddon(self, armageddon_id: int) -> ArmageddonRow | None:
        return await self.session.get(ArmageddonRow, armageddon_id)

    async def armageddon_for_match(self, match_id: int) -> ArmageddonRow | None:
        result = await self.session.execute(
            select(ArmageddonRow).where(ArmageddonRow.match_id == match_id)
        )
        return result.scalars().first()

    async def add_armageddon(self, row: ArmageddonRow) -> ArmageddonRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def steps(self, armageddon_id: int) -> Sequence[ArmageddonStepRow]:
        result = await self.session.execute(
            select(ArmageddonStepRow)
            .where(ArmageddonStepRow.armageddon_id == armageddon_id)
            .order_by(ArmageddonStepRow.seq)
        )
        return result.scalars().all()

    async def add_step(
        self,
        armageddon_id: int,
        *,
        kind: str,
        at: dt.datetime,
        player: str | None = None,
        value: str | None = None,
        salt: str | None = None,
    ) -> ArmageddonStepRow:
        result = await self.session.execute(
            select(func.max(ArmageddonStepRow.seq)).where(
                ArmageddonStepRow.armageddon_id == armageddon_id
            )
        )
        last = result.scalar_one_or_none()
        row = ArmageddonStepRow(
            armageddon_id=armageddon_id,
            seq=(last or 0) + 1,
            kind=kind,
            player=player,
            value=value,
            salt=salt,
            at=at,
        )
        self.session.add(row)
        await self.session.flush()
        return row
