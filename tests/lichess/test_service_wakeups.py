"""The running service wakes its outbox and deadline loops only for what they read.

Every commit calls ``Service.changed()``; the database counts this process's commits per table,
so a commit that only stored a game wakes neither loop, a queued DM wakes the outbox (and it goes
out to the sandbox), a new deadline wakes the runner, and a change made by another process
(``elsewhere=True``) wakes both. Each loop calls ``on_wait`` every time it goes back to waiting:
that is what is counted here.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter

from lichess_helpers import until
from test_service_intake import published_match, service

from bot.clock import FakeClock
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import DeadlineRow, GameRow

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
        await until(lambda: waits["deadlines"] == 1 and svc.runner.quiet)
        # (the outbox may look once more: marking the DM sent was a commit to its table)
        outbox = waits["outbox"]

        svc.changed()  # nothing new since: neither looks
        await _turns()
        assert waits == Counter(outbox=outbox, deadlines=1)

        svc.changed(elsewhere=True)
        await until(lambda: waits == Counter(outbox=outbox + 1, deadlines=2))
