"""The production clock path (issue 18): the deadline runner and the outbox on the wall clock.

With a :class:`SystemClock` the runner is woken by APScheduler at the next deadline and the
outbox sleeps on the wall clock until its next retry; the rest of the suite drives a fake clock
and takes the other branch. These tests wait real seconds (two at most) for what the issue asks:
a deadline due in 2 s fires once within a second of it, overdue rows fire once after a restart,
and a message Lichess refused with a 5xx is retried and delivered once.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest
from aiohttp import web

from bot.app import LichessMessenger
from bot.lichess.client import LichessClient
from bot.runtime.clock import SystemClock
from bot.runtime.deadlines import DeadlineRunner, Firing
from bot.runtime.outbox import OutboxDispatcher
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import DeadlineRow, OutboxStatus
from storage.uow import UnitOfWork

CLOCK = SystemClock()
PROBE = "probe"


class Waits:
    """A loop's ``on_wait``: notes ``probe()`` (what the loop has done) each time it goes to
    wait, so a test can await the wait that follows a given amount of work."""

    def __init__(self, probe: Callable[[], int]) -> None:
        self.probe = probe
        self.seen: list[int] = []
        self._event = asyncio.Event()

    def __call__(self) -> None:
        self.seen.append(self.probe())
        self._event.set()

    async def until(self, done: int) -> None:
        """Return once the loop went to wait with ``probe() == done``."""
        while done not in self.seen:
            self._event.clear()
            await self._event.wait()


@contextlib.asynccontextmanager
async def running(loop: Coroutine[Any, Any, None]) -> AsyncIterator[None]:
    task = asyncio.create_task(loop)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def add_deadline(db: Database, due: dt.datetime, subject: str) -> None:
    async with db.uow() as uow:
        await uow.deadlines.add(
            DeadlineRow(kind=PROBE, due_at=due, subject=subject, created_at=CLOCK.now())
        )
        await uow.commit()


class Fired:
    """A deadline handler that writes down each firing."""

    def __init__(self) -> None:
        self.firings: list[Firing] = []
        self.event = asyncio.Event()

    async def __call__(self, uow: UnitOfWork, firing: Firing) -> None:
        self.firings.append(firing)
        self.event.set()

    def subjects(self) -> list[str]:
        return [f.deadline.subject for f in self.firings]


async def test_a_deadline_due_in_2_s_fires_once_within_a_second_of_it(db: Database) -> None:
    due = CLOCK.now() + dt.timedelta(seconds=2)
    await add_deadline(db, due, "in-2-s")
    fired = Fired()
    waits = Waits(lambda: runner.fired)
    runner = DeadlineRunner(db, CLOCK, {PROBE: fired}, on_wait=waits)
    async with running(runner.run()):
        await waits.until(1)  # fired, looked at the table again and waits: nothing more fires
    assert fired.subjects() == ["in-2-s"]
    assert runner.fired == 1
    assert due <= fired.firings[0].now < due + dt.timedelta(seconds=1)
    assert not fired.firings[0].is_late
    async with db.uow() as uow:
        assert await uow.deadlines.next_due() is None  # claimed: no process fires it again


async def test_after_a_restart_overdue_rows_fire_once_late_and_later_ones_on_time(
    db: Database,
) -> None:
    now = CLOCK.now()
    await add_deadline(db, now - dt.timedelta(minutes=10), "overdue")
    soon = now + dt.timedelta(seconds=1.5)
    await add_deadline(db, soon, "soon")
    fired = Fired()
    first_waits = Waits(lambda: first.fired)
    first = DeadlineRunner(db, CLOCK, {PROBE: fired}, on_wait=first_waits)
    async with running(first.run()):
        await first_waits.until(1)  # fired what was overdue and waits for "soon"
    assert fired.subjects() == ["overdue"]
    assert fired.firings[0].is_late
    # the process restarts: a new runner on the same table
    second_waits = Waits(lambda: second.fired)
    second = DeadlineRunner(db, CLOCK, {PROBE: fired}, on_wait=second_waits)
    async with running(second.run()):
        await second_waits.until(1)
    assert fired.subjects() == ["overdue", "soon"]
    assert soon <= fired.firings[1].now < soon + dt.timedelta(seconds=1)
    assert (first.fired, second.fired) == (1, 1)


@pytest.fixture
async def real_sandbox() -> AsyncIterator[tuple[SandboxState, str, str]]:
    state = SandboxState(now=CLOCK.now)
    state.add_user("Alice")
    token = state.add_token("acwc-bot")
    runner = web.AppRunner(make_app(state), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield state, f"http://127.0.0.1:{site.port}", token
    finally:
        await runner.cleanup()


async def test_a_message_lichess_refused_with_a_503_is_retried_on_the_wall_clock_and_sent_once(
    db: Database, real_sandbox: tuple[SandboxState, str, str]
) -> None:
    sandbox, url, token = real_sandbox
    sandbox.knobs.server_error_next = 1
    async with db.uow() as uow:
        row = await uow.outbox.enqueue(now=CLOCK.now(), kind="dm", recipient="Alice", body="hi")
        assert row is not None
        row_id = row.id
        await uow.commit()
    waits = Waits(lambda: dispatcher.sent)
    # one attempt a call: the outbox's own retry is what is under test, not the client's
    async with LichessClient(
        base_url=url, token=token, clock=CLOCK, timeout=5.0, max_attempts=1
    ) as client:
        dispatcher = OutboxDispatcher(db, LichessMessenger(client), CLOCK, on_wait=waits)
        async with running(dispatcher.run()):
            await waits.until(0)  # the first attempt failed
            async with db.uow() as uow:
                stored = await uow.outbox.get(row_id)
                assert stored is not None
                assert (stored.status, stored.attempts) == (OutboxStatus.PENDING, 1)
                assert "503" in (stored.last_error or "")
                assert stored.next_attempt_at is not None
                assert stored.next_attempt_at > CLOCK.now() + dt.timedelta(seconds=20)
                # stand in for the retry delay passing: the retry is due in a second
                retry_at = CLOCK.now() + dt.timedelta(seconds=1)
                stored.next_attempt_at = retry_at
                await uow.commit()
            dispatcher.wake()
            await waits.until(1)
    assert sandbox.inbox_of("Alice") == ["hi"]
    async with db.uow() as uow:
        stored = await uow.outbox.get(row_id)
        assert stored is not None
        assert stored.status is OutboxStatus.SENT
        assert stored.sent_at is not None
        assert stored.sent_at >= retry_at
