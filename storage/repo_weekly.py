"""Repositories of the weekly feature, on the unit of work's session.

Use: ``WeeklyRepository(uow.session)``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import DeadlineRow
from storage.models_weekly import CheatReportRow, ForfeitRow, MatchEventRow

# Built once (see storage.repositories): the intake and every player's text run these.
_EVENTS = (
    select(MatchEventRow)
    .where(MatchEventRow.match_id == bindparam("match_id"))
    .order_by(MatchEventRow.seq)
)
_EVENTS_OF_WEEK = (
    select(MatchEventRow)
    .where(MatchEventRow.match_id == bindparam("match_id"), MatchEventRow.week == bindparam("week"))
    .order_by(MatchEventRow.seq)
)
_LAST_SEQ = select(func.max(MatchEventRow.seq)).where(
    MatchEventRow.match_id == bindparam("match_id")
)
_DEADLINES_OF_MATCH = (
    select(DeadlineRow)
    .where(DeadlineRow.match_id == bindparam("match_id"))
    .order_by(DeadlineRow.due_at, DeadlineRow.id)
)


class WeeklyRepository:
    """The match event log, forfeits, private reports and a match's deadline rows."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    # --- the event log --------------------------------------------------------------------

    async def events(self, match_id: int, *, week: int | None = None) -> Sequence[MatchEventRow]:
        """A match's events in order (of one week if given)."""
        if week is None:
            result = await self.session.execute(_EVENTS, {"match_id": match_id})
        else:
            result = await self.session.execute(
                _EVENTS_OF_WEEK, {"match_id": match_id, "week": week}
            )
        return result.scalars().all()

    async def append(
        self,
        match_id: int,
        *,
        week: int,
        at: dt.datetime,
        actor: str,
        kind: str,
        data: dict[str, Any] | None = None,
        via: str | None = None,
    ) -> MatchEventRow:
        """Append one event; ``seq`` is the next number of the match.

        Two writers appending to one match at once collide on the unique (match, seq) pair and
        the later commit fails, rather than interleaving two histories.
        """
        result = await self.session.execute(_LAST_SEQ, {"match_id": match_id})
        last = result.scalar_one_or_none() or 0
        row = MatchEventRow(
            match_id=match_id,
            week=week,
            seq=last + 1,
            at=at,
            actor=actor,
            kind=kind,
            via=via,
            data=data or {},
        )
        self.session.add(row)
        await self.session.flush()
        return row

    # --- forfeits -------------------------------------------------------------------------

    async def add_forfeit(self, row: ForfeitRow) -> ForfeitRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def forfeit(self, forfeit_id: int) -> ForfeitRow | None:
        return await self.session.get(ForfeitRow, forfeit_id)

    async def forfeits(
        self, *, player: str | None = None, match_id: int | None = None
    ) -> Sequence[ForfeitRow]:
        query = select(ForfeitRow)
        if player is not None:
            query = query.where(ForfeitRow.player_id == player)
        if match_id is not None:
            query = query.where(ForfeitRow.match_id == match_id)
        result = await self.session.execute(query.order_by(ForfeitRow.id))
        return result.scalars().all()

    # --- private reports ------------------------------------------------------------------

    async def add_report(self, row: CheatReportRow) -> CheatReportRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def reports(self) -> Sequence[CheatReportRow]:
        result = await self.session.execute(select(CheatReportRow).order_by(CheatReportRow.id))
        return result.scalars().all()

    # --- deadlines ------------------------------------------------------------------------

    async def deadlines(self, match_id: int | None = None) -> Sequence[DeadlineRow]:
        """Every deadline row (of one match), fired and cancelled ones included."""
        if match_id is not None:
            result = await self.session.execute(_DEADLINES_OF_MATCH, {"match_id": match_id})
            return result.scalars().all()
        result = await self.session.execute(
            select(DeadlineRow).order_by(DeadlineRow.due_at, DeadlineRow.id)
        )
        return result.scalars().all()
