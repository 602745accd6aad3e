"""A restart between a deadline's due time and its firing: it fires once, late, and its
messages go out once (DESIGN.md: deadlines are rows, effects go through an outbox)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from bot.app import LichessMessenger
from bot.runtime.deadlines import DeadlineRunner
from bot.runtime.outbox import OutboxDispatcher
from storage.db import Database
from tests.weekly.harness import Week, at


async def _until(predicate: Callable[[], bool]) -> None:
    """Wait for a fact with no event to wait on; fails the test after 60 real seconds (a hang
    guard, not a timing check: CI runs on a loaded machine)."""
    async with asyncio.timeout(60):
        while not predicate():  # noqa: ASYNC110 - polled facts raise no event
            await asyncio.sleep(0.01)


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_overdue_deadline_fires_once_after_a_restart_and_its_messages_go_once(
    week: Week,
) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.deliver()
    inbox_before = len(week.state.inbox_of("alice"))

    # The service runs, sleeping until the offers check on Saturday 00:00 ...
    running = asyncio.create_task(week.runner.run())
    await week.clock.wait_for_sleepers(1)
    # ... and stops on Friday evening; it is down when the deadline falls due.
    await _stop(running)
    assert week.runner.fired == 0
    week.clock.set(at(16, 3))  # Saturday 03:00

    # A new service over the same database.
    db = Database(week.db.url)
    try:
        runner = DeadlineRunner(db, week.clock, week.services.deadline_handlers)
        dispatcher = OutboxDispatcher(db, LichessMessenger(week.client), week.clock)
        restarted = asyncio.create_task(runner.run())
        await _until(lambda: runner.fired >= 5)
        await _stop(restarted)
        # the offers check, the daily digest job and the daily look at the accounts, each once,
        # and the round's pairings post and closing (the offers check decided its one match)
        assert runner.fired == 5
        assert await runner.fire_due() == 0  # and never again

        (offers_check,) = [r for r in await week.deadlines(match_id) if r.kind == "offers_check"]
        assert offers_check.fired_at == at(16, 3)
        async with db.uow() as uow:
            fired = [
                a for a in await uow.audit.list(match_id=match_id) if a.action == "deadline.fired"
            ]
        assert [(a.details["kind"], a.details["late_by_seconds"]) for a in fired] == [
            ("offers_check", 3 * 3600)
        ]

        assert await dispatcher.deliver_due() == 0  # the DMs wait for their merge window
        week.clock.advance(week.config.outbox.merge_window)
        sent = await dispatcher.deliver_due()
        assert sent > 0
        assert await dispatcher.deliver_due() == 0
    finally:
        await db.dispose()
    new = week.state.inbox_of("alice")[inbox_before:]
    tied = [m for m in new if "recorded as a tied match" in m]
    assert len(tied) == 1
    assert "ran 3 hours late" in tied[0]
    assert len([m for m in new if "result:" in m]) == 1
    async with week.db.uow() as uow:  # no decision to take: it waits for the daily digest
        notes = [r.body for r in await uow.outbox.notes_pending()]
    assert len([n for n in notes if "neither player made the required offers" in n]) == 1
    assert "ran 3 hours late" in notes[0]
