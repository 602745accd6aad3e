"""Migrations: up from empty, no drift against the models, and back down to base."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from storage import migrate
from storage.db import Database
from storage.models import Base

TABLES = {
    "tournaments",
    "players",
    "stages",
    "rounds",
    "matches",
    "games",
    "audit_log",
    "outbox",
    "deadlines",
}


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_upgrade_autogenerate_and_downgrade(any_database_url: str) -> None:
    db = Database(any_database_url)
    try:
        assert await migrate.current_revision(db) is None
        await migrate.upgrade(db)
        assert await migrate.current_revision(db) == migrate.head_revision()
        async with db.engine.connect() as conn:
            assert await conn.run_sync(_tables) >= TABLES
            assert await conn.run_sync(_diff) == []
        await migrate.downgrade(db, "base")
        assert await migrate.current_revision(db) is None
        async with db.engine.connect() as conn:
            assert not (TABLES & await conn.run_sync(_tables))
        await migrate.upgrade(db)  # and up again from base
        assert await migrate.current_revision(db) == migrate.head_revision()
    finally:
        await db.dispose()
