"""Repositories of the later-stage tables (:mod:`storage.models_stages`).

Instantiate on a unit of work's session: ``StagesRepository(uow.session)``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from rules.stages.knockout import Bracket
from storage.bracket import bracket_data, bracket_from
from storage.models import MatchRow
from storage.models_stages import ArmageddonRow, ArmageddonStepRow, BracketRow, StagePlanRow
from storage.repo_seasons import in_open_season


class LaterStagesRepository:
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
            )
            self.session.add(row)
        else:
            row.earliest_publication = earliest_publication
        await self.session.flush()
        return row

    # --- the knockout bracket ------------------------------------------------------------

    async def bracket(self, tournament_id: int) -> BracketRow | None:
        return await self.session.get(BracketRow, tournament_id)

    async def bracket_value(self, tournament_id: int) -> Bracket | None:
        row = await self.bracket(tournament_id)
        return None if row is None else bracket_from(row.data)

    async def save_bracket(
        self, tournament_id: int, bracket: Bracket, *, now: dt.datetime
    ) -> BracketRow:
        data = bracket_data(bracket)
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
            .where(MatchRow.stage.in_(tuple(stages)), in_open_season(MatchRow.round_id))
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

    async def armageddons_for(self, match_ids: Sequence[int]) -> dict[int, ArmageddonRow]:
        """The armageddon of each of ``match_ids`` that has one."""
        result = await self.session.execute(
            select(ArmageddonRow).where(ArmageddonRow.match_id.in_(list(match_ids)))
        )
        return {a.match_id: a for a in result.scalars()}

    async def step_counts(self) -> dict[int, int]:
        """How many inputs each match's armageddon procedure has had, by match."""
        result = await self.session.execute(
            select(ArmageddonRow.match_id, func.count(ArmageddonStepRow.id))
            .join(ArmageddonStepRow, ArmageddonStepRow.armageddon_id == ArmageddonRow.id)
            .group_by(ArmageddonRow.match_id)
        )
        return {match_id: int(n) for match_id, n in result.all()}

    async def last_step_at(self, armageddon_id: int) -> dt.datetime | None:
        value: dt.datetime | None = await self.session.scalar(
            select(func.max(ArmageddonStepRow.at)).where(
                ArmageddonStepRow.armageddon_id == armageddon_id
            )
        )
        return value

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
