"""Delivers what the outbox holds: DMs, TD alerts and team updates (DESIGN.md: effects go through
an outbox).

Each message is written in the same transaction as the change that caused it; this dispatcher sends
it and marks it sent in a transaction of its own right after Lichess accepts it. A crash between
those two steps is the only way a message can go out twice. Forum drafts are not sent: they wait
for a TD to paste them and mark them posted.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.notify.kinds import SENDABLE, Channel, OutboxStatus
from bot.runtime.clock import Clock, SystemClock
from bot.runtime.wakeup import WaitingLoop, wake_or_time
from storage.db import Database
from storage.models import OutboxRow
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

SENDABLE_KINDS = tuple(c.value for c in SENDABLE)
MAX_ATTEMPTS = 8
BATCH = 20
RETRY_BASE = dt.timedelta(seconds=30)
RETRY_CAP = dt.timedelta(hours=1)
POLL = dt.timedelta(seconds=30)
"""With the wall clock, look at the outbox at least this often: a TD command run in another
process queues messages without waking this one."""


class Messenger(Protocol):
    async def send_dm(self, username: str, text: str) -> None: ...

    async def team_update(self, team: str, text: str) -> None: ...


def is_permanent(error: BaseException) -> bool:
    """A 4xx other than 429 will not go better by retrying (unknown user, blocked, bad text)."""
    status = getattr(error, "status", None)
    return isinstance(status, int) and 400 <= status < 500 and status != 429


def retry_delay(attempts: int) -> dt.timedelta:
    delay: dt.timedelta = min(RETRY_BASE * 2 ** max(attempts - 1, 0), RETRY_CAP)
    return delay


class OutboxDispatcher(WaitingLoop):
    def __init__(
        self,
        db: Database,
        messenger: Messenger,
        clock: Clock,
        *,
        watch: Callable[[], object] | None = None,
        on_wait: Callable[[], None] | None = None,
        on_failed: Callable[[UnitOfWork, OutboxRow, dt.datetime], Awaitable[None]] | None = None,
    ) -> None:
        """``watch`` says cheaply what the outbox table looks like (a count of this process's
        commits to it), so :meth:`wake_if_changed` wakes only for a change; ``on_wait`` is
        called each time the dispatcher has done what was due and goes to wait; ``on_failed``
        is told, in the same transaction, of a message given up on (the TDs' digest)."""
        super().__init__(clock, watch=watch, on_wait=on_wait)
        self.db = db
        self.messenger = messenger
        self.on_failed = on_failed
        self.sent = 0

    async def _send(self, row: OutboxRow) -> None:
        if row.kind is Channel.TEAM_UPDATE:
            await self.messenger.team_update(row.recipient, row.body)
        else:
            await self.messenger.send_dm(row.recipient, row.body)

    async def deliver_due(self) -> int:
        """Send every due message once; returns how many went out."""
        sent = 0
        while True:
            async with self.db.uow() as uow:
                due = list(
                    await uow.outbox.due(self.clock.now(), kinds=SENDABLE_KINDS, limit=BATCH)
                )
            if not due:
                return sent
            for row in due:
                error: BaseException | None = None
                try:
                    await self._send(row)
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # delivery failures are recorded, never fatal
                    error = e
                async with self.db.uow() as uow:
                    if error is None:
                        marked = await uow.outbox.mark_sent(row.id, at=self.clock.now())
                        await uow.commit()
                        sent += marked
                        continue
                    stored = await uow.outbox.get(row.id)
                    if stored is None or stored.status is not OutboxStatus.PENDING:
                        continue
                    now = self.clock.now()
                    stored.attempts += 1
                    stored.last_error = f"{type(error).__name__}: {error}"[:500]
                    if is_permanent(error) or stored.attempts >= MAX_ATTEMPTS:
                        stored.status = OutboxStatus.FAILED
                        log.warning("outbox %s to %s failed: %s", row.id, row.recipient, error)
                        if self.on_failed is not None:
                            await self.on_failed(uow, stored, now)
                    else:
                        stored.next_attempt_at = now + retry_delay(stored.attempts)
                    await uow.commit()
            self.sent += sent
            if len(due) < BATCH:
                # That was every message due when we looked; one queued since woke us and
                # is sent on the next round of run().
                return sent

    async def _next_retry(self) -> dt.datetime | None:
        # One MIN() rather than loading every pending row: forum drafts stay pending until a TD
        # marks them posted, so over a season that list grows with every round.
        async with self.db.uow() as uow:
            return await uow.outbox.next_retry(SENDABLE_KINDS)

    async def run(self) -> None:
        while True:
            self.wakeup.looking()
            await self.deliver_due()
            when = await self._next_retry()
            if isinstance(self.clock, SystemClock):
                poll = self.clock.now() + POLL
                when = poll if when is None else min(when, poll)
            self._going_to_wait(when)
            try:
                await wake_or_time(self.wakeup.event, self.clock, when)
            finally:
                self._waiting = False
