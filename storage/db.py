"""Engines and sessions, built from a URL (never at import time)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from storage.uow import UnitOfWork


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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def create_engine(url: str) -> AsyncEngine:
    check_url(url)
    engine = create_async_engine(url, pool_pre_ping=not url.startswith("sqlite"))
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


class Database:
    """An engine and its session factory; ``uow()`` opens a unit of work."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = create_engine(url)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    def uow(self) -> UnitOfWork:
        return UnitOfWork(self.sessions)

    async def dispose(self) -> None:
        await self.engine.dispose()
