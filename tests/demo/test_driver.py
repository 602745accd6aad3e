"""The season driver's settle facts when the service works beside it (another process).

The service commits a game together with what it caused (the result DMs); the driver reads the
database with statements of its own. Another connection commits exactly between the driver's
statements here (an engine event runs the write before the chosen statement), so the test shows
the interleaving the crash test met by chance: a game seen stored while its DMs were not.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.demo.driver import SeasonDriver
from bot.runtime.clock import FakeClock
from rules.core.model import Game, GameId, GameStatus, PlayerId
from storage import migrate
from storage.db import Database

NOW = dt.datetime(2021, 12, 3, 15, 28, tzinfo=dt.UTC)


def _stored(when: dt.datetime) -> str:
    """A time as SQLAlchemy stores it in SQLite."""
    return when.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")


def _commit_game_and_its_dm(path: Path) -> None:
    """What the intake commits for a finished game: the game row and a result DM, at once."""
    with sqlite3.connect(path) as other:
        other.execute(
            "INSERT INTO games (id, white, black, status, variant, rated, created_at, counted,"
            " source, recorded_at) VALUES ('g1', 'alice', 'bob', 'mate', 'antichess', 1, ?, 1,"
            " 'lichess', ?)",
            (_stored(NOW - dt.timedelta(minutes=7)), _stored(NOW)),
        )
        other.execute(
            "INSERT INTO outbox (created_at, kind, recipient, body, status, attempts,"
            " next_attempt_at) VALUES (?, 'dm', 'alice', 'You won game 1', 'pending', 0, ?)",
            (_stored(NOW), _stored(NOW)),
        )


class _Port:
    async def poke(self, players_changed: bool) -> None:
        return None


@pytest.mark.parametrize("before_statement", [1, 2])
async def test_a_game_committed_with_its_dm_between_the_settle_reads_is_not_settled(
    tmp_path: Path, before_statement: int
) -> None:
    path = tmp_path / "facts.db"
    db = Database(f"sqlite+aiosqlite:///{path}")
    try:
        await migrate.upgrade(db)
        driver = SeasonDriver(db, FakeClock(NOW), _Port(), [])
        driver.expect(
            Game(
                id=GameId("g1"),
                white=PlayerId("alice"),
                black=PlayerId("bob"),
                status=GameStatus.MATE,
                winner=None,
                variant="antichess",
                rated=True,
                clock_limit=120,
                clock_increment=5,
                created_at=NOW - dt.timedelta(minutes=7),
            )
        )
        statements = 0

        def interleave(*_args: Any) -> None:
            nonlocal statements
            statements += 1
            if statements == before_statement:
                _commit_game_and_its_dm(path)

        event.listen(db.engine.sync_engine, "before_cursor_execute", interleave)
        facts = await driver.facts()
        event.remove(db.engine.sync_engine, "before_cursor_execute", interleave)
        assert statements >= 2, "facts are read in more than one statement"
        assert not facts.settled, facts
        # Read again once nothing is moving: the game is stored and its DM is due.
        again = await driver.facts()
        assert again.games_missing == ()
        assert again.outbox_due == 1
    finally:
        await db.dispose()


async def test_work_due_now_after_a_settle_is_settled_before_the_clock_moves(
    tmp_path: Path,
) -> None:
    path = tmp_path / "next.db"
    db = Database(f"sqlite+aiosqlite:///{path}")
    try:
        await migrate.upgrade(db)
        tomorrow = NOW + dt.timedelta(hours=8, minutes=32)
        with sqlite3.connect(path) as other:
            other.execute(
                "INSERT INTO deadlines (kind, due_at, subject, payload, created_at) VALUES"
                " ('offers_check', ?, '', '{}', ?)",
                (_stored(tomorrow), _stored(NOW)),
            )
        driver = SeasonDriver(db, FakeClock(NOW), _Port(), [])
        # The service took in a game after the last settle: its DM is due now. The "service"
        # here is this task, delivering it a moment later.
        _commit_game_and_its_dm(path)

        async def deliver() -> None:
            await asyncio.sleep(0.05)
            with sqlite3.connect(path) as other:
                other.execute("UPDATE outbox SET status = 'sent', sent_at = next_attempt_at")

        delivery = asyncio.create_task(deliver())
        assert await driver._settled_next(NOW) == tomorrow
        assert delivery.done()
    finally:
        await db.dispose()
