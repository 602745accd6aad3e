"""Apply, inspect and revert the schema with alembic from async code."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

import migrations
from storage.db import Database

SCRIPT_LOCATION = str(Path(migrations.__file__).parent)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


async def _with_connection(db: Database, action: str, revision: str) -> None:
    cfg = alembic_config(db.url)

    def run(connection: Connection) -> None:
        cfg.attributes["connection"] = connection
        if action == "upgrade":
            command.upgrade(cfg, revision)
        else:
            command.downgrade(cfg, revision)

    async with db.engine.begin() as connection:
        await connection.run_sync(run)


async def upgrade(db: Database, revision: str = "head") -> None:
    await _with_connection(db, "upgrade", revision)


async def downgrade(db: Database, revision: str) -> None:
    await _with_connection(db, "downgrade", revision)


def known_revision(revision: str) -> bool:
    """Whether ``revision`` is one of this version's migrations (a backup from a newer
    version, or no acwc backup at all, names one it does not know)."""
    try:
        return (
            ScriptDirectory.from_config(alembic_config("sqlite://")).get_revision(revision)
            is not None
        )
    except Exception:  # alembic's CommandError / ResolutionError for a name it cannot resolve
        return False


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


async def current_revision(db: Database) -> str | None:
    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with db.engine.connect() as connection:
        return await connection.run_sync(read)
