"""SQLite on the event loop's thread (bot/demo/inline_sqlite.py), as the demo season uses it."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.demo import inline_sqlite
from storage import migrate
from storage.db import Database
from storage.models import SettingRow


async def _table(path: Path) -> None:
    setup = await inline_sqlite.connect(str(path))
    await setup.execute("PRAGMA journal_mode=WAL")
    await setup.execute("CREATE TABLE t (x INTEGER)")
    await setup.commit()
    await setup.close()


async def test_a_writer_waits_for_the_lock_while_the_loop_runs_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    await _table(path)
    a = await inline_sqlite.connect(str(path))
    b = await inline_sqlite.connect(str(path), busy_timeout=30.0)
    await a.execute("INSERT INTO t VALUES (1)")  # a's transaction holds the write lock
    waiting = asyncio.create_task(b.execute("INSERT INTO t VALUES (2)"))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not waiting.done()
    await a.commit()
    await waiting
    await b.commit()
    rows = await (await a.execute("SELECT x FROM t ORDER BY x")).fetchall()
    assert [r[0] for r in rows] == [1, 2]
    await a.close()
    await b.close()


async def test_a_writer_gives_up_after_its_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    await _table(path)
    a = await inline_sqlite.connect(str(path))
    b = await inline_sqlite.connect(str(path), busy_timeout=0.0)
    await a.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        await b.execute("INSERT INTO t VALUES (2)")
    await a.rollback()
    await a.close()
    await b.close()


async def test_an_inline_database_migrates_and_stores_like_aiosqlite(tmp_path: Path) -> None:
    db = Database(
        f"sqlite+aiosqlite:///{tmp_path / 'inline.db'}", sqlite_connect=inline_sqlite.connect
    )
    try:
        await migrate.upgrade(db)
        assert await migrate.current_revision(db) == migrate.head_revision()
        async with db.uow() as uow:
            await uow.settings.set("demo", "kept")
            await uow.commit()
        async with db.uow() as uow:
            await uow.settings.set("demo", "rolled back")
        async with db.uow() as uow:
            rows = (await uow.session.execute(select(SettingRow))).scalars().all()
        assert [(r.key, r.value) for r in rows] == [("demo", "kept")]
    finally:
        await db.dispose()
