"""One acting instance (issue 18): an advisory lock on PostgreSQL elects the leader, a lock file
on SQLite refuses a second ``acwc run``."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from bot.app import Service
from bot.config import Config, ServiceConfig
from bot.demo.bundled import bundled_sandbox
from bot.errors import StartupError
from bot.runtime.clock import FakeClock
from bot.runtime.leader import Leadership, Role
from storage import migrate
from storage.db import Database

ROOT = Path(__file__).resolve().parents[2]
HERE = (
    "locktype = 'advisory' "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)
"""This database's advisory locks (pg_locks lists the whole server's: other tests' too)."""
START = dt.datetime(2021, 10, 1, 9, 0, tzinfo=dt.UTC)


def _config(url: str) -> Config:
    return Config(service=ServiceConfig(database_url=url))


@contextlib.asynccontextmanager
async def running(url: str, *, check_seconds: float = 5.0) -> AsyncIterator[Service]:
    """A service on ``url`` with its ``run()`` going (leading or standing by)."""
    async with Service(
        _config(url), clock=FakeClock(START), sandbox=bundled_sandbox(), serve_web=False
    ) as service:
        service.leadership.check_seconds = check_seconds
        task = asyncio.create_task(service.run())
        try:
            yield service
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _migrated(url: str) -> None:
    db = Database(url)
    try:
        await migrate.upgrade(db)
    finally:
        await db.dispose()


async def _waiting_for_lock(pg_url: str) -> None:
    """Return once a session of the database waits for an advisory lock (a standby queued)."""
    conn = await asyncpg.connect(pg_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        query = f"SELECT count(*) FROM pg_locks WHERE {HERE} AND NOT granted"
        while not await conn.fetchval(query):  # noqa: ASYNC110 (the server has no event for it)
            await asyncio.sleep(0.01)
    finally:
        await conn.close()


async def test_a_second_service_on_one_sqlite_file_is_refused_naming_the_first(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'acwc.db'}"
    async with running(url) as first:
        await first.leadership.leading.wait()
        with pytest.raises(StartupError) as refused:
            async with Service(_config(url), clock=FakeClock(START), sandbox=bundled_sandbox()):
                pass
    message = str(refused.value)
    assert "another `acwc run` is running on" in message
    assert f"process {os.getpid()} on " in message
    # the first one let go when it closed: a new one starts and leads at once
    async with running(url) as again:
        await again.leadership.leading.wait()
        assert again.leadership.role is Role.LEADER


async def test_on_postgresql_one_leads_the_other_waits_and_takes_over_when_it_stops(
    pg_url: str,
) -> None:
    await _migrated(pg_url)
    async with running(pg_url) as first:
        await first.leadership.leading.wait()
        async with running(pg_url) as second:
            await _waiting_for_lock(pg_url)
            assert second.leadership.role is Role.STANDBY
            assert second.leadership.elected == 0
            assert first.leadership.role is Role.LEADER
            await first.__aexit__(None, None, None)  # the leader stops (its session ends)
            async with asyncio.timeout(30):
                await second.leadership.leading.wait()
            assert second.leadership.elected == 1


async def test_a_leader_whose_connection_is_cut_stops_acting_and_queues_again(
    pg_url: str,
) -> None:
    await _migrated(pg_url)
    admin = await asyncpg.connect(pg_url.replace("postgresql+asyncpg", "postgresql"))
    try:
        async with running(pg_url, check_seconds=0.05) as first:
            await first.leadership.leading.wait()
            async with running(pg_url) as second:
                await _waiting_for_lock(pg_url)
                holder = await admin.fetchval(f"SELECT pid FROM pg_locks WHERE {HERE} AND granted")
                await admin.execute("SELECT pg_terminate_backend($1)", holder)
                await second.leadership.leading.wait()

                def stood_down(lead: Leadership) -> bool:
                    return lead.lost >= 1 and lead.role is Role.STANDBY

                await first.leadership.until(stood_down)
                assert not first.leadership.leading.is_set()
    finally:
        await admin.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_second_acwc_run_process_on_one_sqlite_file_exits_naming_the_first(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        "[service]\n"
        f'database_url = "sqlite+aiosqlite:///{tmp_path / "acwc.db"}"\n'
        f"web_port = {_free_port()}\nops_port = 0\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = (sys.executable, "-m", "bot", "run", "--config", str(config))
    first = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env
    )
    try:
        assert first.stdout is not None
        while not (line := await first.stdout.readline()).startswith(b"acwc-bot running"):
            assert line, "the first acwc run exited"
        second = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
        )
        out, err = await second.communicate()
        assert second.returncode == 1, (out, err)
        assert err.decode().startswith("acwc: error: another `acwc run` is running on "), err
        assert f"process {first.pid} on {socket.gethostname()}" in err.decode()
    finally:
        first.kill()
        await first.wait()
