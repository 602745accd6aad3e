"""Repository of the web feature's tables, on the unit of work's session."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import AuditRow, Channel, OutboxRow, OutboxStatus
from storage.models_web import WebSessionRow
from storage.repo_seasons import of_season


class WebRepository:
    """``WebRepository(uow.session)``: sessions, desk marks and the TD desk's reads."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add_session(self, row: WebSessionRow) -> WebSessionRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def get_session(self, session_id: str, *, now: dt.datetime) -> WebSessionRow | None:
        row = await self.session.get(WebSessionRow, session_id)
        if row is None or row.expires_at <= now:
            return None
        return row

    async def delete_session(self, session_id: str) -> None:
        await self.session.execute(delete(WebSessionRow).where(WebSessionRow.id == session_id))

    async def delete_expired(self, now: dt.datetime) -> None:
        await self.session.execute(delete(WebSessionRow).where(WebSessionRow.expires_at <= now))

    async def audit_actions(self, prefix: str) -> Sequence[AuditRow]:
        """Audit rows whose action starts with ``prefix``, oldest first."""
        result = await self.session.execute(
            select(AuditRow).where(AuditRow.action.startswith(prefix)).order_by(AuditRow.id)
        )
        return result.scalars().all()

    async def recent_audit(
        self,
        *,
        limit: int,
        before: int | None = None,
        match_id: int | None = None,
        player: str | None = None,
        actor: str | None = None,
        action: str | None = None,
    ) -> Sequence[AuditRow]:
        """The newest audit rows first (``before``: older than that id, for paging), of one
        match, about one player (by id), by one actor (any case) or whose action starts with
        ``action`` ("claim." is every claim ruling)."""
        query = (
            select(AuditRow)
            .where(of_season(AuditRow.tournament_id))  # the season's log, not every season's
            .order_by(AuditRow.id.desc())
            .limit(limit)
        )
        if before is not None:
            query = query.where(AuditRow.id < before)
        if match_id is not None:
            query = query.where(AuditRow.match_id == match_id)
        if player is not None:
            query = query.where(AuditRow.player == player)
        if actor is not None:
            query = query.where(func.lower(AuditRow.actor) == actor.lower())
        if action is not None:
            query = query.where(AuditRow.action.startswith(action, autoescape=True))
        result = await self.session.execute(query)
        return result.scalars().all()

    async def forum_drafts(self) -> Sequence[OutboxRow]:
        """Forum posts to paste (pending first), then the ones already marked posted."""
        result = await self.session.execute(
            select(OutboxRow)
            .where(OutboxRow.kind == Channel.FORUM_DRAFT)
            .order_by((OutboxRow.status == OutboxStatus.POSTED).asc(), OutboxRow.id)
        )
        return result.scalars().all()
