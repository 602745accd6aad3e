"""Who may act on a database: the lock one ``acwc run`` holds while it runs the stream, the
deadlines and the outbox.

* **PostgreSQL**: a session-level advisory lock (``pg_advisory_lock``) on a connection of its
  own. Any number of processes may wait for it; the server gives it to the next one the moment
  the holder's session ends (the process died, its machine went away and the TCP keepalives
  below gave up on it, or it closed the connection).
* **SQLite**: an exclusive ``flock`` on a file beside the database (``acwc.db.run-lock``) that
  says who holds it. There is no standby on SQLite: a second process is refused at once with the
  holder's process id, host and start time. The kernel drops the lock when its holder dies.

Both are what :class:`bot.runtime.leader.Leadership` elects with; nothing here knows the service.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import os
import socket
from pathlib import Path
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

__all__ = [
    "ADVISORY_KEY",
    "AdvisoryLock",
    "FileLock",
    "RunLock",
    "RunLockHeld",
    "run_lock_for",
    "sqlite_path",
]

ADVISORY_KEY = 0x6163_7763_5F72_756E  # "acwc_run": advisory locks are per database
"""The advisory lock's key; one per database, so test databases on one server never meet."""


class RunLockHeld(Exception):
    """Another process holds the lock (SQLite: it is refused, not queued)."""


class RunLock(Protocol):
    """The lock :class:`~bot.runtime.leader.Leadership` elects with."""

    async def acquire(self) -> None:
        """Return once this process holds the lock (waits while another holds it)."""

    async def check(self) -> None:
        """Raise if the lock may have been lost (its connection is gone)."""

    async def release(self) -> None:
        """Let go of the lock (safe to call when not held or already lost)."""


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL, or ``None`` for an in-memory database or another backend."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file::memory:"):
        return None
    return Path(database)


def _describe_holder(path: Path) -> str:
    try:
        found = json.loads(path.read_text() or "{}")
        return (
            f"process {found['pid']} on {found['host']}, started {found['started']}"
            if isinstance(found, dict)
            else "another process"
        )
    except (OSError, ValueError, KeyError):
        return "another process"


class FileLock:
    """The SQLite run lock: ``flock`` on ``<database>.run-lock``, refused if held elsewhere."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".run-lock")
        self._fd: int | None = None

    def try_acquire(self, *, now: dt.datetime) -> None:
        """Take the lock or raise :class:`RunLockHeld` naming the holder."""
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise RunLockHeld(
                    f"another `acwc run` is running on {self.database} "
                    f"({_describe_holder(self.path)}; lock file {self.path})"
                ) from None
            raise
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": now.isoformat()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)
        self._fd = fd

    async def acquire(self) -> None:
        if self._fd is None:
            raise RunLockHeld(f"the run lock on {self.database} was not taken at start-up")

    async def check(self) -> None:
        """A ``flock`` is never lost while the process lives."""

    async def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


class AdvisoryLock:
    """The PostgreSQL run lock: ``pg_advisory_lock`` on a connection kept for it alone."""

    def __init__(self, engine: AsyncEngine, key: int = ADVISORY_KEY) -> None:
        self.engine = engine
        self.key = key
        self._conn: AsyncConnection | None = None

    async def acquire(self) -> None:
        if self._conn is not None:
            return
        try:
            conn = await self.engine.connect()
        except (OSError, DBAPIError) as e:
            raise ConnectionError(f"cannot reach the database: {e}") from e
        try:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": self.key})
        except BaseException as e:
            await _close_quietly(conn)
            if isinstance(e, OSError | DBAPIError):
                raise ConnectionError(f"lost the database while waiting for the lock: {e}") from e
            raise
        self._conn = conn

    async def check(self) -> None:
        if self._conn is None:
            raise ConnectionError("the run lock is not held")
        # The session alive is the lock held: nothing but its own end lets go of it.
        try:
            await self._conn.execute(text("SELECT 1"))
        except (OSError, DBAPIError) as e:
            raise ConnectionError(f"the run lock's session is gone: {e}") from e

    async def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            # Closing the session ends the lock even if the unlock cannot be sent; a broken
            # connection is invalidated rather than handed back to the pool.
            await _close_quietly(conn, unlock=self.key)


async def _close_quietly(conn: AsyncConnection, *, unlock: int | None = None) -> None:
    try:
        if unlock is not None:
            await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": unlock})
        await conn.close()
    except Exception:
        with contextlib.suppress(Exception):
            await conn.invalidate()


def run_lock_for(url: str, engine: AsyncEngine) -> RunLock | None:
    """The run lock of a database: PostgreSQL's advisory lock, a SQLite file's lock file;
    ``None`` for an in-memory SQLite database (no other process can open it)."""
    if make_url(url).get_backend_name() == "postgresql":
        return AdvisoryLock(engine)
    path = sqlite_path(url)
    return None if path is None else FileLock(path)
