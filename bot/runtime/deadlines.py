"""Fires deadlines from the database (DESIGN.md: deadlines are rows).

The runner sleeps until the next unfired deadline; with the wall clock, APScheduler's job at that
moment is what wakes it (and a change to the deadlines wakes it early); with a fake clock it sleeps
on the clock, so a season runs in seconds. Firing a deadline and recording its effects happen in one
transaction, which the runner opens and commits (a handler never commits): the row is claimed
(``fired_at`` set) and the handler's changes, audit entries and outbox messages commit together
or not at all. On start-up every overdue, unfired deadline fires once, late, and its handler is
told so.

A handler that must ask Lichess after a commit (so that a crash while Lichess is asked loses
nothing, and the database's write lock is not held while it answers) returns an :class:`Ask`:
that is two firings. The first commits with the row of its answer (kind ``<kind>.answer``, due
at once); the question is asked outside any transaction; the answer's row then fires with the
reply in a transaction of its own. A crash between leaves the answer's row due, so the next
runner to fire it asks again (the first firing's handler runs again and keeps the answer's row
open); who looks for work in flight reads the open answer rows, never guesses.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

from bot.runtime.clock import Clock, SystemClock
from bot.runtime.wakeup import WaitingLoop, wake_or_time
from storage.db import Database
from storage.models import DeadlineRow
from storage.repositories import ANSWER_SUFFIX as ANSWER
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


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Ask(Generic[T]):
    """A firing's question to Lichess, asked after the firing committed: ``question()`` runs
    outside any transaction (it raises nothing it expects: a refusal is a reply), and
    ``answered(uow, reply)`` records the reply in the second firing's transaction."""

    question: Callable[[], Awaitable[T]]
    answered: Callable[[UnitOfWork, T], Awaitable[None]]


def is_answer(kind: str) -> bool:
    """Whether deadlines of ``kind`` are an :class:`Ask`'s answer (the second firing)."""
    return kind.endswith(ANSWER)


Handler = Callable[[UnitOfWork, Firing], Awaitable[Ask[Any] | None]]
"""Does what a deadline asks, in the runner's transaction; returns an :class:`Ask` when it must
ask Lichess after that transaction commits."""
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
        first: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """``watch`` says cheaply what the deadlines table looks like (a count of this process's
        commits to it), so :meth:`wake_if_changed` wakes only for a change; ``after_fire`` is
        awaited after deadlines fired (their messages are queued; a round one published is
        watched and broadcast); ``on_wait`` each time the
        runner has fired what was due and goes to wait; ``gate`` is entered around each
        deadline's transaction, whose claim is fenced by the leadership's epoch besides
        (:mod:`storage.fence`): a process that no longer leads claims nothing; ``first`` is
        awaited before each firing (what must go before it: the games a burst's stream read
        are stored before the runner fires the follow-ups of the first ones, which would
        otherwise share the event loop with them)."""
        super().__init__(clock, watch=watch, on_wait=on_wait)
        self.db = db
        self.gate = gate
        self.first = first
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
            if self.first is not None:
                await self.first()
            async with self.gate():  # around both firings of an Ask: its answer is recorded
                async with self.db.uow(origin=ORIGIN) as uow:
                    now = self.clock.now()
                    row = await uow.claims.next_deadline(now)
                    if row is None:
                        self.next_due = await uow.deadlines.next_due()
                        break
                    ask, answer = await self._fire(uow, row, now)
                    # What is due next, this firing's own new rows included: when nothing else
                    # is due now, no transaction more is needed to find that out. (An Ask's
                    # answer row is due now: the answer's transaction reads it instead.)
                    asking = ask is not None and answer is not None
                    upcoming = None if asking else await uow.deadlines.next_due()
                    await uow.commit()
                    fired += 1
                if ask is not None and answer is not None:  # (asking)
                    upcoming = await self._answer(ask, answer)
                    fired += 1
            if upcoming is None or upcoming > self.clock.now():
                self.next_due = upcoming
                break
        self.fired += fired
        if fired and self.after_fire is not None:
            await self.after_fire()
        return fired

    async def _fire(
        self, uow: UnitOfWork, row: DeadlineRow, now: dt.datetime
    ) -> tuple[Ask[Any] | None, int | None]:
        """Run ``row``'s handler and record its firing; with an :class:`Ask`, the id of the
        answer's row, added (or, for an answer's row fired without its reply, kept open)."""
        first = row
        if is_answer(row.kind):  # the question was cut off (a crash): asked again
            found = await uow.deadlines.get(int(row.payload.get("of", 0)))
            first = found if found is not None else row
        handler = self.handlers.get(first.kind)
        if handler is None:
            log.error("no handler for deadline kind %s (id %s)", row.kind, row.id)
            await uow.audit.record(
                at=now,
                actor="bot",
                action="deadline.unhandled",
                match_id=row.match_id,
                details={"kind": row.kind, "id": row.id},
            )
            return None, None
        firing = Firing(first, now)
        if firing.is_late:
            log.warning("deadline %s (%s) fires late by %s", row.id, row.kind, firing.late_by)
        ask = await handler(uow, firing)
        answer: int | None = None
        if ask is not None and first is row:
            answer = (await uow.deadlines.add(_answer_row(row, now))).id
        elif ask is not None:
            row.fired_at = None  # asked again: the answer is still to come
            return ask, row.id
        await self._record_fired(uow, row, firing)
        return ask, answer

    async def _answer(self, ask: Ask[Any], answer_id: int) -> dt.datetime | None:
        """Ask the question, then fire its answer's row with the reply; the next due time.
        The answer is recorded even by a process that lost the lead meanwhile (what Lichess
        did is a fact); an answer's row fired by another (after a take-over) drops it."""
        reply = await ask.question()
        async with self.db.uow(origin=ORIGIN) as uow:
            now = self.clock.now()
            row = await uow.deadlines.claim_id(answer_id, now)  # (one statement: no read)
            if row is not None:
                await ask.answered(uow, reply)
                await self._record_fired(uow, row, Firing(row, now))
            else:
                log.error(
                    "deadline %s: its answer was fired elsewhere; this one dropped", answer_id
                )
            upcoming = await uow.deadlines.next_due()
            await uow.commit()
        return upcoming

    @staticmethod
    async def _record_fired(uow: UnitOfWork, row: DeadlineRow, firing: Firing) -> None:
        await record_fired(uow, row, firing)

    async def hold_answers(self, seconds: float) -> int:
        """On taking the lead from a process that may still record what Lichess answered it
        (frozen, not dead: ``Leadership.doubt_left``): its open answers fire no earlier than
        ``seconds`` from now, so it records them first and none is asked twice; how many."""
        held = 0
        async with self.gate(), self.db.uow(origin=ORIGIN) as uow:
            await uow.claims.hold_lead()
            until = self.clock.now() + dt.timedelta(seconds=seconds)
            for row in await uow.deadlines.open_answers():
                if row.due_at < until:
                    row.due_at, held = until, held + 1
            await uow.commit()
        return held

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


async def record_fired(uow: UnitOfWork, row: DeadlineRow, firing: Firing) -> None:
    """The audit entry of ``row``'s firing, whoever claimed it (the runner, or the games
    intake for a match's follow-up it runs before it takes the match's next game)."""
    await uow.audit.record(
        at=firing.now,
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


def _answer_row(first: DeadlineRow, now: dt.datetime) -> DeadlineRow:
    """The row of the answer to ``first``'s question, open until it is recorded: due at once
    (``first``'s due time, so its identity is as unique as ``first``'s)."""
    return DeadlineRow(
        kind=f"{first.kind}{ANSWER}",
        due_at=first.due_at,
        match_id=first.match_id,
        subject=first.subject,
        payload={"of": first.id},
        created_at=now,
    )
