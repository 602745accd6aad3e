"""Upgrades during a season (issue 31): which migrations only expand the schema, what
``acwc db upgrade --check`` says, and when a version runs on a database newer than it knows."""

from __future__ import annotations

from sqlalchemy import text, update

from storage import migrate
from storage.db import Database
from storage.models_ops import LeadershipRow


async def test_the_check_lists_the_steps_and_says_whether_the_running_version_keeps_going(
    any_database_url: str,
) -> None:
    db = Database(any_database_url)
    try:
        empty = await migrate.check_upgrade(db)
        assert empty.current is None
        assert empty.steps[0].revision == "0001"
        await migrate.upgrade(db, "0014")
        expanding = await migrate.check_upgrade(db)
        assert [s.revision for s in expanding.steps][-1] == migrate.head_revision()
        assert expanding.keeps_going
        assert "the version running on 0014 can keep going" in "\n".join(expanding.lines())
        await migrate.downgrade(db, "0007")
        contracting = await migrate.check_upgrade(db)
        # 0008 does not say it only expands: it counts as a contraction, stop first
        assert not contracting.keeps_going
        assert "cannot keep going" in "\n".join(contracting.lines())
        await migrate.upgrade(db)
        assert (await migrate.check_upgrade(db)).steps == ()
        assert await migrate.why_not_run(db) is None
    finally:
        await db.dispose()


async def test_a_version_runs_on_a_newer_schema_only_while_it_only_expanded_since(
    any_database_url: str,
) -> None:
    db = Database(any_database_url)
    try:
        await migrate.upgrade(db)
        async with db.engine.begin() as conn:
            assert await conn.scalar(text("SELECT oldest_code FROM leadership")) == "0009"
            # a later release's expansion: a revision this version does not know
            await conn.execute(text("UPDATE alembic_version SET version_num = 'f00d'"))
        assert await migrate.why_not_run(db) is None  # the code of 0009 on (this too) runs on it
        async with db.engine.begin() as conn:  # a later release contracted the schema
            await conn.execute(update(LeadershipRow).values(oldest_code="beef"))
        found = await migrate.why_not_run(db)
        assert found is not None
        assert "newer than this version" in found
        async with db.engine.begin() as conn:
            await conn.execute(text("UPDATE alembic_version SET version_num = '0009'"))
        assert "older than this version" in (await migrate.why_not_run(db) or "")
    finally:
        await db.dispose()
