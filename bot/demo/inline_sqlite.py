"""SQLite on the event loop's own thread, for SQLAlchemy's ``sqlite+aiosqlite`` dialect.

aiosqlite runs every call (cursor, execute, fetch, close, commit) in a worker thread and hands
the result back through the event loop: four thread hand-offs for one SELECT, each waiting for the
GIL. For a small local database that costs far more than the query. :func:`connect` returns an
object with the slice of aiosqlite's connection API that SQLAlchemy's adapter uses, but runs each
call at once on the calling thread (the coroutines never suspend), so a statement costs what
SQLite costs. The demo season hands :func:`connect` to its service (``Service(sqlite_connect=)``,
:func:`storage.db.create_engine`); production never uses it.

One thing changes: a blocked writer must not block the event loop (the connection holding the
lock needs the loop to finish). The connection therefore runs with ``busy_timeout`` 0 and, when a
statement finds the database locked, yields to the loop for a moment and tries again, until the
timeout the caller asked for. A statement that meets a lock has done nothing yet, and the first
write of a transaction (the only one that can meet another writer's lock: Python's sqlite3 begins
the transaction just before it) starts from a fresh snapshot, so trying it again is what SQLite's
own busy handler does.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

__all__ = ["InlineConnection", "connect"]

T = TypeVar("T")

BUSY_TIMEOUT = 10.0
"""Seconds a statement keeps trying when another connection holds the write lock."""


def _locked(error: sqlite3.OperationalError) -> bool:
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY or (
        "database is locked" in str(error)
    )


async def _retrying(call: Callable[[], T], patience: float) -> T:
    """``call()``, tried again while the database is locked, for ``patience`` seconds of
    pauses in all (counted, so no clock is read)."""
    waited = 0.0
    pause = 0.0005
    while True:
        try:
            return call()
        except sqlite3.OperationalError as e:
            if not _locked(e) or waited >= patience:
                raise
        await asyncio.sleep(pause)
        waited += pause
        pause = min(pause * 2, 0.02)


class _Cursor:
    """An aiosqlite-like cursor over a :class:`sqlite3.Cursor`."""

    def __init__(self, owner: InlineConnection, cursor: sqlite3.Cursor) -> None:
        self._owner = owner
        self._cursor = cursor

    async def __aenter__(self) -> _Cursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value

    async def execute(self, sql: str, parameters: Any = None) -> _Cursor:
        args = () if parameters is None else parameters
        await _retrying(lambda: self._cursor.execute(sql, args), self._owner.busy_timeout)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> _Cursor:
        rows = list(parameters)
        await _retrying(lambda: self._cursor.executemany(sql, rows), self._owner.busy_timeout)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> Sequence[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> Sequence[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()


class _CursorOpener:
    """What ``connection.cursor()`` returns: awaitable, and an async context manager."""

    def __init__(self, owner: InlineConnection) -> None:
        self._owner = owner

    def __await__(self) -> Any:
        return self._open().__await__()

    async def _open(self) -> _Cursor:
        return _Cursor(self._owner, self._owner._conn.cursor())

    async def __aenter__(self) -> _Cursor:
        return await self._open()

    async def __aexit__(self, *exc: object) -> None:
        return None


class InlineConnection:
    """The part of ``aiosqlite.Connection`` SQLAlchemy's aiosqlite adapter uses."""

    def __init__(self, connection: sqlite3.Connection, busy_timeout: float) -> None:
        self._connection: sqlite3.Connection | None = connection
        self.busy_timeout = busy_timeout

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError("no active connection")
        return self._connection

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    def cursor(self) -> _CursorOpener:
        return _CursorOpener(self)

    async def execute(self, sql: str, parameters: Any = None) -> _Cursor:
        cursor = _Cursor(self, self._conn.cursor())
        return await cursor.execute(sql, parameters)

    async def commit(self) -> None:
        await _retrying(self._conn.commit, self.busy_timeout)

    async def rollback(self) -> None:
        self._conn.rollback()

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    async def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def stop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


async def connect(
    database: str, *, busy_timeout: float = BUSY_TIMEOUT, **kwargs: Any
) -> InlineConnection:
    """Open ``database`` (the arguments of :func:`sqlite3.connect`) on this thread."""
    kwargs.pop("timeout", None)
    connection = sqlite3.connect(database, timeout=0, **kwargs)
    return InlineConnection(connection, busy_timeout)
