"""The running service's loops: woken only for what they read, and started again if they fail.

Every commit calls ``Service.changed()``; the database counts this process's commits per table,
so a commit that only stored a game wakes neither loop, a queued DM wakes the outbox (and it goes
out to the sandbox), a new deadline wakes the runner, and a change made by another process
(``elsewhere=True``) wakes both. Each loop calls ``on_wait`` every time it goes back to waiting:
that is what is counted here.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections import Counter

import pytest
from lichess_helpers import until
from test_service_intake import published_match, service

from bot.app import Service
from bot.config import Config, Secrets, ServiceConfig, TournamentConfig
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import Firing
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import DeadlineRow, GameRow
from storage.uow import UnitOfWork

NOW = dt.datetime(2021, 10, 13, 12, 0, tzinfo=dt.UTC)


async def _turns(n: int = 20) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_a_commit_wakes_only_the_loop_whose_table_it_wrote(
    db: Database, sandbox_url: str, bot_token: str, state: SandboxState
) -> None:
    match_id = await published_match(db)
    clock = FakeClock(NOW)
    async with service(db, sandbox_url, bot_token, clock) as svc:
        waits: Counter[str] = Counter()
        svc.dispatcher.on_wait = lambda: waits.update(["outbox"])
        svc.runner.on_wait = lambda: waits.update(["deadlines"])
        svc.changed(elsewhere=True)
        await until(lambda: svc.dispatcher.quiet and svc.runner.quiet)
        waits.clear()

        async with svc.db.uow() as uow:
            await uow.games.add(
                GameRow(
                    id="quiet001", match_id=match_id, white="alice", black="bob",
                    status="started", variant="antichess", rated=True, clock_limit=120,
                    clock_increment=5, created_at=NOW, recorded_at=NOW,
                )
            )  # fmt: skip
            await uow.commit()
        svc.changed()
        await _turns()
        assert waits == Counter()

        async with svc.db.uow() as uow:
            await uow.outbox.enqueue(now=NOW, kind="dm", recipient="alice", body="wake up")
            await uow.commit()
        svc.changed()
        await until(lambda: "wake up" in state.inbox_of("alice") and svc.dispatcher.quiet)
        assert waits == Counter(outbox=1)

        async with svc.db.uow() as uow:
            await uow.deadlines.add(
                DeadlineRow(
                    kind="reply_reminder", due_at=NOW + dt.timedelta(days=1),
                    match_id=match_id, subject="bob", payload={}, created_at=NOW,
                )
            )  # fmt: skip
            await uow.commit()
        svc.changed()
        # The outbox may look once more: marking the DM sent was a commit to its table, so this
        # change() woke it too. Wait until it has looked and waits again, whenever that lands
        # (under load it can come after the runner's wait): only then is its count final.
        await until(lambda: waits["deadlines"] == 1 and svc.runner.quiet and svc.dispatcher.quiet)
        outbox = waits["outbox"]

        svc.changed()  # nothing new since: neither looks
        await _turns()
        assert waits == Counter(outbox=outbox, deadlines=1)

        svc.changed(elsewhere=True)
        await until(lambda: waits == Counter(outbox=outbox + 1, deadlines=2))


async def test_a_failing_deadline_handler_is_logged_and_retried_while_the_rest_runs(
    db: Database,
    sandbox_url: str,
    bot_token: str,
    state: SandboxState,
    caplog: pytest.LogCaptureFixture,
) -> None:
    match_id = await published_match(db)
    calls: list[dt.datetime] = []

    async def flaky(uow: UnitOfWork, firing: Firing) -> None:
        calls.append(firing.now)
        await uow.outbox.enqueue(now=firing.now, kind="dm", recipient="bob", body="reminder")
        if len(calls) == 1:
            raise RuntimeError("the database went away")

    clock = FakeClock(NOW)
    config = Config(
        tournament=TournamentConfig(tds=("ODMWND",)),
        service=ServiceConfig(database_url=db.url, lichess_url=sandbox_url),
        secrets=Secrets(lichess_token=bot_token),
    )
    async with Service(
        config, clock=clock, serve_web=False, deadline_handlers={"reply_reminder": flaky}
    ) as svc:
        async with svc.db.uow() as uow:
            await uow.deadlines.add(
                DeadlineRow(
                    kind="reply_reminder", due_at=NOW, match_id=match_id, subject="bob",
                    payload={}, created_at=NOW,
                )
            )  # fmt: skip
            await uow.outbox.enqueue(now=NOW, kind="dm", recipient="alice", body="still here")
            await uow.commit()
        task = asyncio.create_task(svc.run())
        try:
            await until(lambda: svc.restarts["deadline runner"] == 1)
            # The runner waits a second of service time; the outbox goes on meanwhile.
            await until(lambda: "still here" in state.inbox_of("alice"))
            assert state.inbox_of("bob") == []  # the failed firing's DM was rolled back
            await clock.wait_for_sleepers(1)
            clock.advance(dt.timedelta(seconds=1))
            await until(lambda: len(calls) == 2 and "reminder" in state.inbox_of("bob"))
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    assert calls == [NOW, NOW + dt.timedelta(seconds=1)]
    assert state.inbox_of("bob") == ["reminder"]
    assert "the deadline runner failed; starting it again" in caplog.text
    assert "the database went away" in caplog.text
    async with db.uow() as uow:
        assert await uow.deadlines.open_for_match(match_id) == []  # fired, on the second try
