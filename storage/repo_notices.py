"""Repositories of the notices feature: holds on talking to Lichess, and a player's notices."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from storage.models import Channel, OutboxRow, OutboxStatus
from storage.models_notices import HoldRow

__all__ = ["HoldRepository", "NoticeRepository"]


class _Repository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session


class HoldRepository(_Repository):
    async def get(self, name: str) -> HoldRow | None:
        return await self.session.get(HoldRow, name)

    async def until(self, name: str, now: dt.datetime) -> dt.datetime | None:
        """When the timed hold ``name`` ends, if it has not ended by ``now``."""
        row = await self.session.get(HoldRow, name, populate_existing=True)
        if row is None or row.until is None or row.until <= now:
            return None
        return row.until

    async def put(
        self,
        name: str,
        *,
        since: dt.datetime,
        until: dt.datetime | None = None,
        reason: str | None = None,
    ) -> HoldRow:
        """Set the hold ``name`` (a later ``until`` than the stored one wins)."""
        row = await self.session.get(HoldRow, name)
        if row is None:
            row = HoldRow(name=name, since=since, until=until, reason=reason)
            self.session.add(row)
        else:
            if row.until is None or until is None or until > row.until:
                row.until = until
            row.reason = reason
        await self.session.flush()
        return row

    async def clear(self, name: str) -> int:
        result = await self.session.execute(delete(HoldRow).where(HoldRow.name == name))
        return int(getattr(result, "rowcount", 0) or 0)

    async def named(self, prefix: str) -> Sequence[HoldRow]:
        result = await self.session.execute(
            select(HoldRow).where(HoldRow.name.startswith(prefix)).order_by(HoldRow.name)
        )
        return result.scalars().all()


class NoticeRepository(_Repository):
    async def for_player(
        self, player: str, *, team: str | None, limit: int = 50
    ) -> Sequence[OutboxRow]:
        """The DMs sent (or meant) for ``player`` and the team's messages, newest first."""
        mine: ColumnElement[bool] = OutboxRow.kind.in_([Channel.DM, Channel.ROOM]) & or_(
            OutboxRow.player == player, func.lower(OutboxRow.recipient) == player
        )
        if team:
            mine = or_(
                mine, (OutboxRow.kind == Channel.TEAM_UPDATE) & (OutboxRow.recipient == team)
            )
        result = await self.session.execute(
            select(OutboxRow).where(mine).order_by(OutboxRow.id.desc()).limit(limit)
        )
        return result.scalars().all()

    async def team_sent(self, created_at: dt.datetime, *, at: dt.datetime) -> int:
        """The team message written at ``created_at`` went out: so did the notices it covers."""
        return await self._covered(created_at, status=OutboxStatus.SENT, sent_at=at)

    async def uncover(self, created_at: dt.datetime, *, now: dt.datetime) -> int:
        """The team message written at ``created_at`` failed: its notices go by DM after all."""
        return await self._covered(created_at, kind=Channel.DM, next_attempt_at=now)

    async def _covered(self, created_at: dt.datetime, **values: object) -> int:
        result = await self.session.execute(
            update(OutboxRow)
            .where(
                OutboxRow.kind == Channel.ROOM,
                OutboxRow.created_at == created_at,
                OutboxRow.status == OutboxStatus.PENDING,
            )
            .values(**values)
        )
        return int(getattr(result, "rowcount", 0) or 0)

    async def has_sent(self, kind: Channel, recipient: str) -> bool:
        """Whether a message of ``kind`` to ``recipient`` ever went out (a conversation exists)."""
        found = await self.session.scalar(
            select(OutboxRow.id)
            .where(
                OutboxRow.kind == kind,
                OutboxRow.recipient == recipient,
                OutboxRow.status == OutboxStatus.SENT,
            )
            .limit(1)
        )
        return found is not None

    async def defer_due(
        self, kinds: Sequence[Channel], now: dt.datetime, until: dt.datetime
    ) -> int:
        """Hold every pending message of ``kinds`` due at ``now`` until ``until``."""
        result = await self.session.execute(
            update(OutboxRow)
            .where(
                OutboxRow.kind.in_(list(kinds)),
                OutboxRow.status == OutboxStatus.PENDING,
                or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at <= now),
            )
            .values(next_attempt_at=until)
        )
        return int(getattr(result, "rowcount", 0) or 0)

    async def defer(self, kind: Channel, recipient: str, until: dt.datetime) -> int:
        """Hold every pending message of ``kind`` to ``recipient`` until ``until``."""
        result = await self.session.execute(
            update(OutboxRow)
            .where(
                OutboxRow.kind == kind,
                OutboxRow.recipient == recipient,
                OutboxRow.status == OutboxStatus.PENDING,
                or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at < until),
            )
            .values(next_attempt_at=until)
        )
        return int(getattr(result, "rowcount", 0) or 0)
