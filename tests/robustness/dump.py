"""A dump of every table, to show that a refused input changed nothing stored."""

from __future__ import annotations

from typing import Any

from storage.db import Database
from storage.models import Base


async def dump_tables(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (rows sorted by their text, so the order of reads cannot matter)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    async with db.uow() as uow:
        for table in Base.metadata.sorted_tables:
            rows = (await uow.session.execute(table.select())).all()
            out[table.name] = sorted((tuple(r) for r in rows), key=repr)
    return out
