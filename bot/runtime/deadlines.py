"""Fires deadlines from the database (DESIGN.md: deadlines are rows).

The runner sleeps until the next unfired deadline; with the wall clock, APScheduler's job at that
moment is what wakes it (and a change to the deadlines wakes it early); with a fake clock it sleeps
on the clock, so a season runs in seconds. Firing a deadline and recording its effects happen in one
transaction: the row is claimed (``fired_at`` set) and the handler's changes, audit entries and
outbox messages commit together or not at all. On start-up every overdue, unfired deadline fires
once, late, and its handler is told so.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

from bot.runtime.clock import Clock, SystemClock
from bot.runtime.wakeup import WaitingLoop, wake_or_time
from storage.db import Database
from storage.models import DeadlineRow
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

LATE_AFTER = dt.timedelta(minutes=1)
ORIGIN = "deadline-runner"
"""The runner's writes (``Database.uow(origin=...)``): it reads the deadlines again after
them, so they need not wake it (``TableChanges.version(besides=...)``)."""
POLL = dt.timedelta(minutes=1)
"""With the wall clock, look at the table at least this often: a TD command run in another
process changes deadlines without waking this one."""


@dataclass(frozen=True, slots=True)
class Firing:
    """What a handler is told: the deadline, the time it fires, and whether it is late."""

    deadline: DeadlineRow
    now: dt.datetime

    @property
    def late_by(self) -> dt.timedelta:
        return max(self.now - self.deadline.due_at, dt.timedelta(0))

    @property
    def is_late(self) -> bool:
        return self.late_by > LATE_AFTER


Handler = Callable[[UnitOfWork, Firing], Awaitable[None]]
Gate = Callable[[], contextlib.AbstractAsyncContextManager[None]]
"""Around each action: refuses (raises) when this process may not act
(:meth:`bot.runtime.leader.Leadership.acting`)."""


def no_gate() -> contextlib.AbstractAsyncContextManager[None]:
    return contextlib.nullcontext()


class DeadlineRunner(WaitingLoop):
    def __init__(
        self,
        db: Database,
        clock: Clock,
        handlers: Mapping[str, Handler],
        *,
        watch: Callable[[], object] | None = None,
        after_fire: Callable[[], Awaitable[None]] | None = None,
        on_wait: Callable[[], None] | None = None,
        gate: Gate = no_gate,
    ) -> None:
        """``watch`` says cheaply what the deadlines table looks like (a count of this process's
        commits to it), so :meth:`wake_if_changed` wakes only for a change; ``after_fire`` is
        awaited after deadlines fired (their messages are queued; a round one published is
        watched and broadcast); ``on_wait`` each time the
        runner has fired what was due and goes to wait; ``gate`` is entered around each
        deadline's transaction, whose claim is fenced by the leadership's epoch besides
        (:mod:`storage.fence`): a process that no longer leads claims nothing."""
        super().__init__(clock, watch=watch, on_wait=on_wait)
        self.db = db
        self.gate = gate
        self.handlers = dict(handlers)
        self._apscheduler: AsyncIOScheduler | None = None
        self.fired = 0
        self.after_fire = after_fire
        self.next_due: dt.datetime | None = None
        """When the next deadline is due, as the last :meth:`fire_due` found it."""

    async def fire_due(self) -> int:
        """Fire every deadline that is due now, each in its own transaction; how many fired.

        Each transaction claims the first due row in one statement (``UPDATE ... RETURNING``),
        runs its handler and reads when the next deadline is, which :meth:`run` waits for
        (:attr:`next_due`) unless it is due already: one transaction a deadline, where a
        look, a list of what is due, a read of each row and a look again were four. A
        commit of another task meanwhile wakes the runner (it looked before this began)."""
        fired = 0
        while True:
            async with self.gate(), self.db.uow(origin=ORIGIN) as uow:
                now = self.clock.now()
                row = await uow.claims.next_deadline(now)
                if row is None:
                    self.next_due = await uow.deadlines.next_due()
                    break
                firing = Firing(row, now)
                handler = self.handlers.get(row.kind)
                if handler is None:
                    log.error("no handler for deadline kind %s (id %s)", row.kind, row.id)
                    await uow.audit.record(
                        at=now,
                        actor="bot",
                        action="deadline.unhandled",
                        match_id=row.match_id,
                        details={"kind": row.kind, "id": row.id},
                    )
                else:
                    if firing.is_late:
                        log.warning(
                            "deadline %s (%s) fires late by %s", row.id, row.kind, firing.late_by
                        )
                    await handler(uow, firing)
                    await uow.audit.record(
                        at=now,
                        actor="bot",
                        action="deadline.fired",
                        match_id=row.match_id,
                        details={
                            "kind": row.kind,
                            "subject": row.subject,
                            "due": row.due_at.isoformat(),
                            "late_by_seconds": int(firing.late_by.total_seconds()),
                        },
                    )
                # What is due next, this firing's own new rows included: when nothing else is
                # due now, no transaction more is needed to find that out.
                upcoming = await uow.deadlines.next_due()
                await uow.commit()
                fired += 1
            if upcoming is None or upcoming > self.clock.now():
                self.next_due = upcoming
                break
        self.fired += fired
        if fired and self.after_fire is not None:
            await self.after_fire()
        return fired

    def _schedule_wake(self, when: dt.datetime) -> None:
        assert self._apscheduler is not None
        self._apscheduler.add_job(
            self.wakeup.ring,
            DateTrigger(run_date=when),
            id="next-deadline",
            replace_existing=True,
            misfire_grace_time=None,
        )

    async def _wait(self, next_due: dt.datetime | None) -> None:
        self._going_to_wait(next_due)
        try:
            await self._wait_for(next_due)
        finally:
            self._waiting = False

    async def _wait_for(self, next_due: dt.datetime | None) -> None:
        if isinstance(self.clock, SystemClock):
            poll = self.clock.now() + POLL
            self._schedule_wake(poll if next_due is None else min(next_due, poll))
            await self.wakeup.event.wait()
            return
        await wake_or_time(self.wakeup.event, self.clock, next_due)

    async def run(self) -> None:
        if isinstance(self.clock, SystemClock):
            self._apscheduler = AsyncIOScheduler(timezone=dt.UTC)
            self._apscheduler.start()
        try:
            while True:
                self.wakeup.looking()
                # Fires what is due; the transaction that finds nothing due (most wake-ups:
                # a replan that moved a later deadline) reads the next due time.
                await self.fire_due()
                await self._wait(self.next_due)
        finally:
            if self._apscheduler is not None:
                self._apscheduler.shutdown(wait=False)
