"""``acwc db backup PATH`` / ``acwc db restore PATH``: every table to one JSON file and back.

One format for both databases (and between them: a SQLite season restores into PostgreSQL): the
schema revision, then each table's columns and rows, in the order of the foreign keys. A backup
reads one consistent snapshot (a single read transaction; REPEATABLE READ on PostgreSQL), so it
may run while ``acwc run`` runs. A restore goes only into a database at the same revision with
no row in any table (it refuses otherwise and changes nothing: nothing stored is ever lost),
inserts everything in one transaction, and on PostgreSQL moves each id sequence past the
restored ids.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Date, Table, func, insert, inspect, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from storage import migrate, models  # noqa: F401 (models registers every table on Base)
from storage.base import Base
from storage.db import Database
from storage.types import UTCDateTime

__all__ = ["FORMAT", "BackupError", "BackupSummary", "backup", "restore"]

FORMAT = "acwc-backup/1"


class BackupError(Exception):
    """A backup or restore that cannot be done; nothing was changed."""


@dataclass(frozen=True, slots=True)
class BackupSummary:
    revision: str | None
    rows: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.rows.values())


RUNTIME_TABLES = frozenset({"leadership"})
"""Tables of the running processes, not of the season: never backed up, never restored."""
SECRET_TABLES = frozenset({"web_sessions"})
"""Tables whose rows let a reader act as someone (a login session): backed up only when asked."""


def _tables() -> list[Table]:
    return [t for t in Base.metadata.sorted_tables if t.name not in RUNTIME_TABLES]


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


def _decoder(table: Table, name: str) -> Any:
    kind = table.c[name].type
    if isinstance(kind, UTCDateTime):
        return lambda v: None if v is None else dt.datetime.fromisoformat(v)
    if isinstance(kind, Date):
        return lambda v: None if v is None else dt.date.fromisoformat(v)
    return lambda v: v


async def _stored_tables(conn: AsyncConnection) -> set[str]:
    return set(await conn.run_sync(lambda sync: inspect(sync).get_table_names()))


async def _check_known(conn: AsyncConnection) -> None:
    unknown = (
        await _stored_tables(conn)
        - {t.name for t in _tables()}
        - RUNTIME_TABLES
        - {"alembic_version"}
    )
    if unknown:
        raise BackupError(
            f"the database has tables this version does not know: {', '.join(sorted(unknown))}"
        )


async def backup(
    db: Database, path: Path, *, now: dt.datetime, sessions: bool = False
) -> BackupSummary:
    """Write every row of ``db`` to ``path`` (a new file, readable by its owner only; an
    existing one is refused). The web's login sessions only with ``sessions``: without them
    a copy of the file lets nobody act as a TD or a player, and a restore logs everyone out."""
    if await asyncio.to_thread(path.exists):
        raise BackupError(f"{path} exists: give a new file (a backup never overwrites)")
    revision = await migrate.current_revision(db)
    if revision is None:
        raise BackupError("the database has no schema: nothing to back up")
    tables: dict[str, Any] = {}
    async with db.engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execution_options(isolation_level="REPEATABLE READ")
        async with conn.begin():
            await _check_known(conn)
            for table in _tables():
                if table.name in SECRET_TABLES and not sessions:
                    continue
                columns = [c.name for c in table.columns]
                order = [table.c[c.name] for c in table.primary_key.columns]
                result = await conn.execute(select(table).order_by(*order))
                rows = [[_encode(v) for v in row] for row in result]
                tables[table.name] = {"columns": columns, "rows": rows}
    document = {
        "format": FORMAT,
        "revision": revision,
        "created": now.isoformat(),
        "tables": tables,
    }
    await asyncio.to_thread(_write, path, document)
    return BackupSummary(revision, {name: len(t["rows"]) for name, t in tables.items()})


def _write(path: Path, document: dict[str, Any]) -> None:
    partial = path.with_name(path.name + ".partial")
    # 0600 from its creation: the season's players, their notices and the TDs' notes are not
    # for every account on the machine (a umask could only make it tighter).
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(document, ensure_ascii=False, separators=(",", ":")))
    try:
        os.link(partial, path)  # whole or absent, and never over a file that appeared since
    except FileExistsError:
        raise BackupError(f"{path} exists: give a new file (a backup never overwrites)") from None
    finally:
        partial.unlink()


def _read(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BackupError(f"{path} is not an acwc backup: {e}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BackupError(f"{path} is not an acwc backup (no {FORMAT!r} format mark)")
    if not isinstance(document.get("tables"), dict):
        raise BackupError(f"{path} is not an acwc backup: no tables")
    return document


async def restore(db: Database, path: Path) -> BackupSummary:
    """Load ``path`` into ``db``: an empty database at the backup's revision (upgraded first if it
    has no schema yet). Everything goes in one transaction or nothing does."""
    document = await asyncio.to_thread(_read, path)
    revision = document.get("revision")
    if not isinstance(revision, str) or not migrate.known_revision(revision):
        raise BackupError(
            f"the backup is at schema {revision!r}, which this version does not know (its newest "
            f"is {migrate.head_revision()}): restore it with the version that wrote it"
        )
    current = await migrate.current_revision(db)
    if current is None:
        await migrate.upgrade(db, revision)
        try:
            return await _load(db, document, revision)
        except BaseException:
            await migrate.downgrade(db, "base")  # all or nothing: the schema it made goes too
            raise
    if current != revision:
        raise BackupError(
            f"the backup is at schema {revision}, the database at {current}: restore into a "
            f"database at {revision} (or an empty one), then run `acwc db upgrade`"
        )
    return await _load(db, document, revision)


async def _load(db: Database, document: dict[str, Any], revision: str) -> BackupSummary:
    """Every table of ``document`` into ``db``'s empty tables, in one transaction."""
    counts: dict[str, int] = {}
    known = {t.name: t for t in _tables()}
    stray = set(document["tables"]) - set(known)
    if stray:
        raise BackupError(f"the backup has tables this version does not know: {sorted(stray)}")
    async with db.engine.begin() as conn:
        await _check_known(conn)
        for table in _tables():
            if await conn.scalar(select(func.count()).select_from(table)):
                raise BackupError(
                    f"the database is not empty (table {table.name} has rows): restore only "
                    "into an empty database, so nothing stored is lost"
                )
        for table in _tables():
            stored = document["tables"].get(table.name, {"columns": [], "rows": []})
            columns = stored["columns"]
            missing = set(columns) - set(table.c.keys())
            if missing:
                raise BackupError(f"table {table.name}: unknown columns {sorted(missing)}")
            decode = [_decoder(table, name) for name in columns]
            rows = [
                {name: d(v) for name, d, v in zip(columns, decode, row, strict=True)}
                for row in stored["rows"]
            ]
            if rows:
                await conn.execute(insert(table), rows)
            counts[table.name] = len(rows)
        if conn.dialect.name == "postgresql":
            await _move_sequences(conn)
    return BackupSummary(revision, counts)


async def _move_sequences(conn: AsyncConnection) -> None:
    """Each serial id's sequence continues after the largest restored id."""
    for table in _tables():
        for column in table.primary_key.columns:
            if not column.autoincrement or column.type.python_type is not int:
                continue
            sequence = await conn.scalar(
                text("SELECT pg_get_serial_sequence(:table, :column)"),
                {"table": table.name, "column": column.name},
            )
            if sequence is None:
                continue
            await conn.execute(
                text(
                    f'SELECT setval(:sequence, coalesce(max("{column.name}"), 1), '
                    f'max("{column.name}") IS NOT NULL) FROM "{table.name}"'
                ),
                {"sequence": sequence},
            )
