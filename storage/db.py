"""Engines and sessions, built from a URL (never at import time)."""

from __future__ import annotations

import itertools
import os
import socket
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from storage.changes import TableChanges
from storage.fence import Fence
from storage.uow import UnitOfWork


def broken_connection(error: BaseException) -> bool:
    """Whether ``error`` is a statement that failed because its connection broke (the server
    ended the session): the same statement on a new connection may succeed."""
    return isinstance(error, DBAPIError) and bool(error.connection_invalidated)


class DatabaseURLError(ValueError):
    """The configured database URL is not one this service can use."""


SUPPORTED_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")


def check_url(url: str) -> str:
    """Return ``url`` if it names a supported async driver; raise :class:`DatabaseURLError`."""
    try:
        parsed = make_url(url)
    except Exception as e:  # sqlalchemy raises ArgumentError for garbage
        raise DatabaseURLError(f"not a database URL: {url!r}") from e
    if parsed.drivername not in SUPPORTED_DRIVERS:
        raise DatabaseURLError(
            f"unsupported database driver {parsed.drivername!r}; "
            f"use one of {', '.join(SUPPORTED_DRIVERS)}"
        )
    return url


def _sqlite_pragmas(dbapi_connection: Any, _record: Any, *, busy_ms: int = 10000) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
    cursor.close()


def _inline_pragmas(dbapi_connection: Any, record: Any) -> None:
    # The inline connection waits for a lock itself, yielding to the event loop (never 10 s
    # inside SQLite, which would block the loop the lock holder needs).
    _sqlite_pragmas(dbapi_connection, record, busy_ms=0)


POSTGRES_ENGINE: dict[str, Any] = {
    # No ping before each checkout: it was one more round trip for every transaction (about
    # seven a game). A connection the server dropped fails once; SQLAlchemy then discards the
    # pool's connections and the loop keeper, or the next web request, starts afresh.
    "pool_pre_ping": False,
    "pool_recycle": 1800,
    "pool_size": 10,
    "max_overflow": 10,
    "connect_args": {
        # More distinct statements than the default 100 run in a season: a statement that fell
        # out of asyncpg's cache is prepared again, one more round trip.
        "prepared_statement_cache_size": 500,
        "server_settings": {
            # Each process's own (process_name()): a new leader sees whether the previous
            # one's sessions are gone, and ends them when its lease ran out.
            "application_name": "acwc-bot",
            # synchronous_commit stays the server's (on): a commit returns once its WAL is on
            # disk, so what a page or a command said was saved survives a crash of the
            # database's machine (issue 31).
            # The server notices a leader whose machine vanished within 10 + 3 x 5 s and drops
            # its advisory lock, so a standby takes over within 30 s (bot/runtime/leader.py).
            "tcp_keepalives_idle": "10",
            "tcp_keepalives_interval": "5",
            "tcp_keepalives_count": "3",
        },
    },
}
"""The PostgreSQL engine's settings (pool and session)."""


_engines = itertools.count(1)
_names: weakref.WeakKeyDictionary[Engine, str] = weakref.WeakKeyDictionary()


def engine_name(engine: AsyncEngine) -> str | None:
    """The ``application_name`` of a PostgreSQL engine's sessions (``None``: another kind)."""
    return _names.get(engine.sync_engine)


def process_name() -> str:
    """A new engine of this process on the database server (its sessions'
    ``application_name``): process id, the engine's number in it and host, within PostgreSQL's
    63 characters."""
    return f"acwc-bot {os.getpid()}.{next(_engines)}@{socket.gethostname()}"[:63]


SqliteConnect = Callable[[str], Awaitable[Any]]
"""Opens a SQLite file as ``aiosqlite.connect`` would (the demo's: on the event loop's thread)."""


def create_engine(url: str, *, sqlite_connect: SqliteConnect | None = None) -> AsyncEngine:
    """An engine for ``url``. On SQLite, ``sqlite_connect`` (the demo's
    :mod:`bot.demo.inline_sqlite`) replaces aiosqlite's connection; it waits for a lock itself,
    so SQLite's own busy timeout is 0."""
    check_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and sqlite_connect is not None:
        path = parsed.database or ":memory:"
        engine = create_async_engine(url, async_creator=lambda: sqlite_connect(path))
        event.listen(engine.sync_engine, "connect", _inline_pragmas)
        return engine
    if parsed.get_backend_name() == "postgresql":
        name = process_name()
        settings = {**POSTGRES_ENGINE["connect_args"]["server_settings"], "application_name": name}
        connect_args = {**POSTGRES_ENGINE["connect_args"], "server_settings": settings}
        engine = create_async_engine(url, **{**POSTGRES_ENGINE, "connect_args": connect_args})
        _names[engine.sync_engine] = name
        return engine
    engine = create_async_engine(url)
    event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


class Database:
    """An engine and its session factory; ``uow()`` opens a unit of work."""

    def __init__(self, url: str, *, sqlite_connect: SqliteConnect | None = None) -> None:
        self.url = url
        self.engine = create_engine(url, sqlite_connect=sqlite_connect)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self.changes: TableChanges | None = None
        self.fence = Fence()
        """This process's leadership epoch, which its acting writes check (:mod:`storage.fence`)."""
        # PostgreSQL: reads that need no transaction run in autocommit, each statement on its
        # own snapshot, without the BEGIN and ROLLBACK round trips around them. (SQLite begins
        # no transaction for a read anyway.)
        self._reads = (
            async_sessionmaker(
                self.engine.execution_options(isolation_level="AUTOCOMMIT"),
                expire_on_commit=False,
            )
            if self.engine.dialect.name == "postgresql"
            else None
        )
        self._autocommit = self._reads

    def track_changes(self) -> TableChanges:
        """Count committed writes per table from now on (:mod:`storage.changes`)."""
        if self.changes is None:
            self.changes = TableChanges()
            counting = self.changes.session_class()
            self.sessions = async_sessionmaker(
                self.engine, expire_on_commit=False, sync_session_class=counting
            )
            if self._autocommit is not None:
                self._autocommit = async_sessionmaker(
                    self.engine.execution_options(isolation_level="AUTOCOMMIT"),
                    expire_on_commit=False,
                    sync_session_class=counting,
                )
        return self.changes

    def uow(self, *, origin: str | None = None) -> UnitOfWork:
        """A unit of work; ``origin`` names who writes through it, for
        :meth:`TableChanges.version`'s ``besides``."""
        return UnitOfWork(self.sessions, origin=origin, fence=self.fence)

    def one_write(self, *, origin: str | None = None) -> UnitOfWork:
        """A unit of work for a change that is one statement (atomic by itself): on
        PostgreSQL it runs in autocommit, without the BEGIN and COMMIT round trips; on SQLite
        it is :meth:`uow`. Its ``commit()`` is still called (it counts the change)."""
        if self._autocommit is None:
            return self.uow(origin=origin)
        return UnitOfWork(self._autocommit, origin=origin, fence=self.fence)

    def reads(self) -> UnitOfWork:
        """A unit of work that only reads, and needs no one snapshot for all its statements
        (a loop's look at what is due): on PostgreSQL without a transaction. It cannot
        commit."""
        if self._reads is None:
            return UnitOfWork(self.sessions, read_only=True, fence=self.fence)
        return UnitOfWork(self._reads, read_only=True, fence=self.fence)

    async def dispose(self) -> None:
        await self.engine.dispose()
