"""Migrations 0025 on carry a played single-season database into seasons with nothing lost.

The season is played on this version's schema and the database then taken back to 0031, the
schema the version before seasons wrote (the downgrade drops only what 0025 added), so what the
upgrade meets is a database of the previous schema after a whole season. Every row of every
table is read before and after: each value the previous schema held is unchanged, and the new
columns say which season each entry belongs to.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from bot.config import Config
from storage import migrate
from storage.db import Database
from tests.stages.helpers import SEEDED, config_for, season_played

PREVIOUS = "0031"  # the schema before seasons (0023, then the players' language)
Snapshot = dict[str, list[dict[str, Any]]]


def _snapshot(connection: Connection) -> Snapshot:
    """Every row of every table but alembic's own, in a stable order, as plain values."""
    found = inspect(connection)
    out: Snapshot = {}
    for table in sorted(found.get_table_names()):
        if table == "alembic_version":
            continue
        columns = [c["name"] for c in found.get_columns(table)]
        rows = connection.execute(text(f"SELECT * FROM {table}")).mappings().all()
        out[table] = sorted(
            ({c: row[c] for c in columns} for row in rows), key=lambda r: repr(sorted(r.items()))
        )
    return out


def _as_before(after: Snapshot, before: Snapshot) -> Snapshot:
    """``after`` cut down to the tables and columns ``before`` had."""
    cut: Snapshot = {}
    for table, rows in before.items():
        columns = rows[0].keys() if rows else ()
        cut[table] = sorted(
            ({c: row[c] for c in columns} for row in after[table]),
            key=lambda r: repr(sorted(r.items())),
        )
    return cut


async def _read(db: Database) -> Snapshot:
    async with db.engine.connect() as connection:
        return await connection.run_sync(_snapshot)


async def test_a_played_season_of_the_previous_schema_upgrades_with_nothing_lost(
    database_url: str,
) -> None:
    db = Database(database_url)
    config: Config = config_for(database_url)
    try:
        await migrate.upgrade(db)
        await season_played(db, config)
        await migrate.downgrade(db, PREVIOUS)
        before = await _read(db)
        assert "season_entries" not in before
        assert len(before["games"]) > 100  # a whole season: qualification to the final
        assert len(before["players"]) == 12

        await migrate.upgrade(db)
        after = await _read(db)
    finally:
        await db.dispose()

    assert _as_before(after, before) == before
    (season,) = after["tournaments"]
    assert season["state"] == "open"
    assert season["year"] == int(str(before["tournaments"][0]["created_at"])[:4]) == 2021
    assert (season["title_holder"], season["runner_up"]) == SEEDED
    # no window of its own (0032): it reads the config's [registration], as it did
    assert (season["registration_opens"], season["registration_closes"]) == (None, None)
    # the audit log's entries are the one season's (0033)
    assert len(after["audit_log"]) > 100
    assert {e["tournament_id"] for e in after["audit_log"]} == {season["id"]}
    assert {p["tournament_id"] for p in after["players"]} == {season["id"]}
    entries = {e["player_id"]: e for e in after["season_entries"]}
    assert set(entries) == {p["id"] for p in before["players"]}
    for player in before["players"]:
        entry = entries[player["id"]]
        assert entry["tournament_id"] == season["id"]
        for column in ("username", "seed_rating", "seeded_as", "status", "registered_at"):
            assert entry[column] == player[column], (player["id"], column)
