"""``acwc db backup`` / ``acwc db restore`` (issue 18): a database comes back row for row, on
SQLite and PostgreSQL and from one to the other; a restore refuses a database that holds rows,
a file that is not a backup, and a running service's SQLite file."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.launch import main
from storage import migrate
from storage.base import Base
from storage.db import Database
from storage.models import AuditRow, DeadlineRow
from storage.models_web import WebSessionRow
from storage.run_lock import FileLock
from tests.conftest import _url_for
from tests.factories import stored_match

NOW = dt.datetime(2021, 10, 12, 18, 0, tzinfo=dt.UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
async def target_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database to restore into, once of each kind (beside the source's)."""
    folder = tmp_path / "target"
    folder.mkdir()
    async for url in _url_for(request.param, folder):
        yield url


def _config(folder: Path, url: str, name: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f'[service]\ndatabase_url = "{url}"\n')
    return path


async def _fill(url: str) -> None:
    db = Database(url)
    try:
        await migrate.upgrade(db)
        match_id = await stored_match(db, "alice", "bob")
        async with db.uow() as uow:
            await uow.outbox.enqueue(now=NOW, kind="dm", recipient="alice", body="héllo ✓")
            await uow.deadlines.add(
                DeadlineRow(
                    kind="offers_check", due_at=NOW, match_id=match_id, created_at=NOW,
                    payload={"week": 1, "nested": {"a": [1, 2]}},
                )
            )  # fmt: skip
            await uow.audit.record(
                at=NOW, actor="ODMWND", action="test", match_id=match_id, details={"x": 1}
            )
            await uow.commit()
    finally:
        await db.dispose()


async def _dump(url: str) -> dict[str, list[tuple[Any, ...]]]:
    db = Database(url)
    try:
        async with db.engine.connect() as conn:
            found = {}
            for table in Base.metadata.sorted_tables:
                keys = list(table.primary_key.columns)
                rows = await conn.execute(select(table).order_by(*keys))
                found[table.name] = [tuple(row) for row in rows]
            return found
    finally:
        await db.dispose()


async def _add_audit(url: str) -> int:
    db = Database(url)
    try:
        async with db.uow() as uow:
            await uow.audit.record(at=NOW, actor="bot", action="after-restore")
            await uow.commit()
            async with db.uow() as check:
                ids = (await check.session.execute(select(AuditRow.id))).scalars().all()
            return max(ids)
    finally:
        await db.dispose()


def test_a_backup_restores_row_for_row_into_an_empty_database(
    database_url: str, target_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_fill(database_url))
    source = _config(tmp_path, database_url, "source")
    target = _config(tmp_path, target_url, "target")
    file = tmp_path / "season.acwc-backup"
    assert main(["--config", str(source), "db", "backup", str(file)]) == 0
    assert main(["--config", str(target), "db", "restore", str(file)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("wrote ")
    assert out[1].startswith("restored ")
    before, after = asyncio.run(_dump(database_url)), asyncio.run(_dump(target_url))
    assert after == before
    assert sum(len(rows) for rows in after.values()) > 10
    # new rows continue after the restored ids (PostgreSQL's sequences were moved)
    restored_max = max(row[0] for row in after["audit_log"])
    assert asyncio.run(_add_audit(target_url)) == restored_max + 1


def test_restore_refuses_a_database_with_rows_and_a_file_that_is_no_backup(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_fill(database_url))
    config = _config(tmp_path, database_url, "source")
    file = tmp_path / "b.json"
    assert main(["--config", str(config), "db", "backup", str(file)]) == 0
    before = asyncio.run(_dump(database_url))
    assert main(["--config", str(config), "db", "restore", str(file)]) == 1
    assert "the database is not empty (table " in capsys.readouterr().err
    assert main(["--config", str(config), "db", "backup", str(file)]) == 1
    assert "exists: give a new file" in capsys.readouterr().err
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"tables": {}}')
    assert main(["--config", str(config), "db", "restore", str(garbage)]) == 1
    assert "is not an acwc backup" in capsys.readouterr().err
    assert asyncio.run(_dump(database_url)) == before


def test_restore_refuses_a_sqlite_file_a_service_runs_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source_url = f"sqlite+aiosqlite:///{tmp_path / 'a.db'}"
    asyncio.run(_fill(source_url))
    file = tmp_path / "b.json"
    assert (
        main(["--config", str(_config(tmp_path, source_url, "a")), "db", "backup", str(file)]) == 0
    )
    target = tmp_path / "running.db"
    lock = FileLock(target)
    lock.try_acquire(now=NOW)  # as `acwc run` holds it
    try:
        url = f"sqlite+aiosqlite:///{target}"
        assert main(["--config", str(_config(tmp_path, url, "b")), "db", "restore", str(file)]) == 1
    finally:
        asyncio.run(lock.release())
    assert "another `acwc run` is running on" in capsys.readouterr().err
    assert not target.exists()


async def _add_session(url: str) -> None:
    db = Database(url)
    try:
        async with db.uow() as uow:
            uow.session.add(
                WebSessionRow(
                    id="ab" * 32, user_id="alice", username="Alice", csrf="c" * 64,
                    created_at=NOW, expires_at=NOW + dt.timedelta(days=7),
                )
            )  # fmt: skip
            await uow.commit()
    finally:
        await db.dispose()


def test_a_backup_is_for_its_owner_only_and_holds_login_sessions_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'a.db'}"
    asyncio.run(_fill(url))
    asyncio.run(_add_session(url))
    config = str(_config(tmp_path, url, "a"))
    plain, full = tmp_path / "plain.json", tmp_path / "full.json"
    assert main(["--config", config, "db", "backup", str(plain)]) == 0
    assert main(["--config", config, "db", "backup", "--with-sessions", str(full)]) == 0
    for file in (plain, full):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert "web_sessions" not in json.loads(plain.read_text())["tables"]
    assert json.loads(full.read_text())["tables"]["web_sessions"]["rows"]
    assert "ab" * 32 not in plain.read_text()
    # a backup without the sessions restores: everyone logs in again
    target_url = f"sqlite+aiosqlite:///{tmp_path / 'b.db'}"
    assert (
        main(["--config", str(_config(tmp_path, target_url, "b")), "db", "restore", str(plain)])
        == 0
    )
    restored = asyncio.run(_dump(target_url))
    assert restored["web_sessions"] == []
    assert restored["audit_log"] == asyncio.run(_dump(url))["audit_log"]
