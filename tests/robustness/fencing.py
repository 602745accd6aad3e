"""Two ``acwc run`` on one PostgreSQL database and a burst of deadlines and DMs (issue 31).

The driver hosts the sandbox and the fake clock's feed, as ``harness.py`` does; the service is two
``acwc follow-clock`` processes. :func:`burst` queues the work (each DM's text its own, each to its
own player, deadlines of a kind no handler knows, so each firing leaves one audit entry) and
hands the caller the moment to strike, when the sandbox has taken ``strike_at`` DMs: mid-burst,
while the leader is sending. Then the clock moves a minute at a time (the outbox sends 20 DMs a
minute) until every DM went out, and :class:`Burst` says what came out twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import func, or_, select

from bot.demo.bundled import prepare_sandbox
from bot.demo.remote import ClockFeed, ServiceProcess
from bot.demo.season import demo_config
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import AuditRow, DeadlineRow, OutboxRow
from tests.demo.test_season import short_matches
from tests.robustness.harness import _free_port, serve_remote, service_process

DMS = 60
DEADLINES = 80
PROBE = "fence_probe"
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


@dataclass
class Burst:
    """What the burst left: texts the sandbox received, rows marked sent, deadlines fired."""

    delivered: Counter[str] = field(default_factory=Counter)
    sent: int = 0
    fired: Counter[int] = field(default_factory=Counter)
    leads: int = 0

    @property
    def doubles(self) -> int:
        return sum(n - 1 for n in self.delivered.values() if n > 1) + sum(
            n - 1 for n in self.fired.values() if n > 1
        )


@dataclass
class Stage:
    """The running pair: the driver's handles on them."""

    db: Database
    sandbox: SandboxState
    feed: ClockFeed
    processes: list[ServiceProcess]
    admin_url: str

    def leader(self) -> ServiceProcess:
        leaders = [p for p in self.processes if p.running and p.leading]
        assert len(leaders) == 1, f"{len(leaders)} processes say they lead"
        return leaders[0]


@contextlib.asynccontextmanager
async def two_services(url: str, folder: Path) -> AsyncIterator[Stage]:
    config = demo_config(short_matches(), database_url=url, web_port=_free_port())
    clock = FakeClock(START)
    sandbox = SandboxState(now=clock.now)
    prepare_sandbox(sandbox, config)
    # lila's budget of 20 new conversations a day would hold 40 of the burst's 60 DMs for a day
    # of the fake clock; budgets are the contract tests' subject, fencing is this one's
    sandbox.knobs.dm_limits = False
    for n in range(DMS):
        sandbox.add_user(f"player{n}")
    async with contextlib.AsyncExitStack() as stack:
        feed, sandbox_url, feed_url, db = await serve_remote(stack, sandbox, clock, url)
        processes = []
        for n in range(2):
            process = service_process(config, sandbox_url, feed_url, folder, n)
            stack.push_async_callback(process.kill)
            await process.start()
            processes.append(process)
        await feed.synced()
        yield Stage(db, sandbox, feed, processes, url.replace("postgresql+asyncpg", "postgresql"))


async def _queue(db: Database, now: dt.datetime) -> None:
    async with db.uow() as uow:
        for n in range(DMS):
            await uow.outbox.enqueue(
                now=now, kind="dm", recipient=f"player{n}", body=f"burst message {n}"
            )
        for n in range(DEADLINES):
            await uow.deadlines.add(
                DeadlineRow(
                    kind=PROBE, due_at=now, subject=f"probe {n}", payload={}, created_at=now
                )
            )
        await uow.commit()


async def until(condition: Callable[[], Awaitable[bool]]) -> None:
    """Wait for a state the other processes reach (no event crosses into this one): look again
    every few milliseconds."""
    while not await condition():  # noqa: ASYNC110
        await asyncio.sleep(0.002)


async def _due_now(db: Database, now: dt.datetime) -> int:
    async with db.reads() as uow:
        found = await uow.session.scalar(
            select(func.count())
            .select_from(OutboxRow)
            .where(
                OutboxRow.status == "pending",
                or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at <= now),
            )
        )
    return int(found or 0)


async def _pending(db: Database) -> int:
    """DMs not yet sent and probes not yet fired."""
    async with db.reads() as uow:
        dms = await uow.session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.status == "pending")
        )
        probes = await uow.session.scalar(
            select(func.count())
            .select_from(DeadlineRow)
            .where(DeadlineRow.kind == PROBE, DeadlineRow.fired_at.is_(None))
        )
    return int(dms or 0) + int(probes or 0)


async def burst(
    stage: Stage, *, strike_at: int, strike: Callable[[], Awaitable[None]], within: float = 240.0
) -> Burst:
    """Queue the burst, ``strike`` once the sandbox took ``strike_at`` DMs, then move the clock
    a minute at a time until every DM is sent; what came out."""
    db, feed, clock = stage.db, stage.feed, stage.feed.clock
    await _queue(db, clock.now())
    struck = asyncio.Event()

    async def reached() -> bool:
        return len(stage.sandbox.inbox) >= strike_at

    async def watch() -> None:
        await until(reached)
        await strike()
        struck.set()

    async with asyncio.timeout(within), asyncio.TaskGroup() as tasks:
        tasks.create_task(watch())
        feed.nudge()  # the leader looks now
        while True:
            await feed.synced()
            await until(lambda: _nothing_due(db, clock.now()))
            if struck.is_set() and not await _pending(db):
                break
            feed.set(clock.now() + dt.timedelta(minutes=1))
    result = Burst(leads=sum(p.leads for p in stage.processes))
    result.delivered.update(m.text for m in stage.sandbox.inbox)
    async with db.reads() as uow:
        rows = (await uow.session.execute(select(OutboxRow))).scalars().all()
        result.sent = sum(1 for r in rows if r.status == "sent")
        for entry in (await uow.session.execute(select(AuditRow))).scalars():
            if entry.action in ("deadline.unhandled", "deadline.fired"):
                details = entry.details
                if details.get("kind") == PROBE:
                    result.fired[int(details["id"])] += 1
    return result


async def _nothing_due(db: Database, now: dt.datetime) -> bool:
    return await _due_now(db, now) == 0
