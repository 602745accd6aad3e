"""Fencing: the leadership's epoch checked in the transaction of each acting write (issue 31).

:class:`storage.run_lock.AdvisoryLock` raises the ``leadership`` row's epoch each time a process
takes the lock, and keeps its own in :class:`Fence`. An acting write (a deadline's claim, an
outbox row claimed to be sent, a challenge's or broadcast's attempt) carries
``EXISTS (SELECT 1 FROM leadership WHERE id = 1 AND epoch = :epoch FOR SHARE)`` in its own
statement: it writes only while this process's epoch is the current one, and the share lock it
holds until its commit makes the next leader's raise of the epoch wait for it, so that leader
reads what the write did. A process that lost the lead without knowing it yet finds its writes
refused (nothing claimed), and so never asks Lichess for what the next leader will do.

On SQLite (and an in-memory database) the file lock leaves no second process to fence out:
:attr:`Fence.epoch` stays ``None`` and the statements are the plain ones, no round trip more.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, bindparam, exists, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import DeadlineRow, OutboxRow, OutboxStatus
from storage.models_ops import LeadershipRow
from storage.repositories import _DEADLINE_CLAIM_NEXT, _DEADLINE_CLAIM_ROW

__all__ = ["LEADERSHIP_ID", "Claims", "Deposed", "Fence"]

LEADERSHIP_ID = 1


class Deposed(Exception):
    """This process's epoch is no longer the leadership's: another process leads."""


@dataclass(slots=True)
class Fence:
    """This process's leadership epoch while it leads on PostgreSQL, else ``None``."""

    epoch: int | None = None


def _current(epoch: ColumnElement[int] | int) -> ColumnElement[bool]:
    """Whether ``epoch`` is the leadership's, holding the row's share lock till the commit."""
    return exists(
        select(literal(1))
        .select_from(LeadershipRow)
        .where(LeadershipRow.id == LEADERSHIP_ID, LeadershipRow.epoch == epoch)
        .with_for_update(read=True)
    )


_CLAIM_NEXT_FENCED = _DEADLINE_CLAIM_NEXT.where(_current(bindparam("epoch")))

_CLAIM_ROW_FENCED = _DEADLINE_CLAIM_ROW.where(_current(bindparam("epoch")))

_CLAIM_OUTBOX = (
    update(OutboxRow)
    .where(
        OutboxRow.id.in_(bindparam("ids", expanding=True)),
        OutboxRow.status == OutboxStatus.PENDING,
    )
    .values(claim_epoch=bindparam("epoch"))
    .returning(OutboxRow.id)
    .execution_options(synchronize_session=False)
)
_CLAIM_OUTBOX_FENCED = _CLAIM_OUTBOX.where(_current(bindparam("epoch")))


async def _claim_next_deadline(
    session: AsyncSession, fence: Fence, now: dt.datetime
) -> DeadlineRow | None:
    """:meth:`DeadlineRepository.claim_next`, refused (``None``) unless ``fence``'s epoch leads."""
    if fence.epoch is None:
        row: DeadlineRow | None = (
            (await session.execute(_DEADLINE_CLAIM_NEXT, {"now": now, "fired_at": now}))
            .scalars()
            .first()
        )
        return row
    result = await session.execute(
        _CLAIM_NEXT_FENCED, {"now": now, "fired_at": now, "epoch": fence.epoch}
    )
    return result.scalars().first()


async def _claim_outbox(session: AsyncSession, fence: Fence, ids: Sequence[int]) -> set[int]:
    """Claim outbox rows to send them: the ids still pending, under ``fence``'s epoch (none
    when another process leads). Without fencing every id is taken as it is, no statement."""
    if fence.epoch is None:
        return set(ids)
    result = await session.execute(_CLAIM_OUTBOX_FENCED, {"ids": list(ids), "epoch": fence.epoch})
    return set(result.scalars())


_UNCLAIM_OUTBOX = (
    update(OutboxRow)
    .where(
        OutboxRow.id.in_(bindparam("ids", expanding=True)),
        OutboxRow.status == OutboxStatus.PENDING,
        OutboxRow.claim_epoch == bindparam("epoch"),
    )
    .values(claim_epoch=None)
    .execution_options(synchronize_session=False)
)


async def _unclaim_outbox(session: AsyncSession, fence: Fence, ids: Sequence[int]) -> int:
    """Give back rows :func:`_claim_outbox` took and that were not sent (no fence: giving back
    is no action, and a deposed process must be able to); how many."""
    if fence.epoch is None:
        return 0
    result = await session.execute(_UNCLAIM_OUTBOX, {"ids": list(ids), "epoch": fence.epoch})
    return int(getattr(result, "rowcount", 0) or 0)


async def _holds(session: AsyncSession, fence: Fence) -> None:
    """Raise :class:`Deposed` unless ``fence``'s epoch leads; in a transaction, the share lock
    on the leadership row is held till its end (a write that needs no claim of its own)."""
    if fence.epoch is None:
        return
    found = await session.scalar(select(literal(1)).where(_current(fence.epoch)))
    if found is None:
        raise Deposed(f"epoch {fence.epoch} no longer leads")


class Claims:
    """The fenced writes of one unit of work (``uow.claims``), under its database's
    :class:`Fence`: the loops claim through it, and never reach the session themselves."""

    def __init__(self, session: AsyncSession, fence: Fence) -> None:
        self._session = session
        self._fence = fence

    async def next_deadline(self, now: dt.datetime) -> DeadlineRow | None:
        """The first due deadline, claimed (``None``: nothing due, or another process leads)."""
        return await _claim_next_deadline(self._session, self._fence, now)

    async def deadline(self, row_id: int, now: dt.datetime) -> DeadlineRow | None:
        """The deadline ``row_id`` claimed, to fire it now (``None``: it was fired or cancelled
        already, or another process leads)."""
        values: dict[str, object] = {"row_id": row_id, "fired_at": now}
        if self._fence.epoch is None:
            result = await self._session.execute(_DEADLINE_CLAIM_ROW, values)
        else:
            result = await self._session.execute(
                _CLAIM_ROW_FENCED, {**values, "epoch": self._fence.epoch}
            )
        row: DeadlineRow | None = result.scalars().first()
        return row

    async def outbox(self, ids: Sequence[int]) -> set[int]:
        """Outbox rows claimed to be sent: the ids still pending (none if another leads)."""
        return await _claim_outbox(self._session, self._fence, ids)

    async def give_back_outbox(self, ids: Sequence[int]) -> int:
        """Rows :meth:`outbox` claimed and did not send, given back; how many."""
        return await _unclaim_outbox(self._session, self._fence, ids)

    async def hold_lead(self) -> None:
        """Raise :class:`Deposed` unless this process leads; the leadership row's share lock is
        held till the transaction ends (a write that needs no claim of its own)."""
        await _holds(self._session, self._fence)
