"""An upgrade in the middle of a season (issue 31): the database left at the previous release's
schema mid-season, ``acwc db upgrade --check`` says the running version may keep going,
``acwc db upgrade`` runs, and the season plays on to the same end as an uninterrupted one.

The season is the crash test's (``harness.py``, ``acwc follow-clock`` in a child process on the
driver's clock). At a settle half way through the driver stops the service and takes the schema
back to the previous release's head: what that release's database holds at that point, the same
rows without this release's additions (the ``leadership`` table, ``outbox.claim_epoch``). The
check and the upgrade run through the command line, the service starts again, and the season is
compared with the reference run: placement, standings, matches, games, the audit log.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path

import pytest

from bot.launch import main
from storage import migrate
from storage.db import Database
from tests.conftest import TEST_DB
from tests.robustness.harness import assert_same_season, reference_season, season

SEED = 3
PREVIOUS_RELEASE = "0014"
"""The schema head of the release before this one (the parent of its first migration)."""


def _acwc(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.mark.timeout(900)
@pytest.mark.skipif(
    TEST_DB != "sqlite", reason="the SQLite run of the suite (a season in a child process)"
)
async def test_a_mid_season_database_of_the_previous_release_upgrades_and_plays_on(
    database_url: str, tmp_path: Path
) -> None:
    reference = await reference_season(SEED, tmp_path)
    config = tmp_path / "upgrade.toml"
    config.write_text(f'[service]\ndatabase_url = "{database_url}"\n')
    said: list[str] = []

    async def previous_then_upgrade() -> None:
        db = Database(database_url)
        try:
            await migrate.downgrade(db, PREVIOUS_RELEASE)
            assert await migrate.current_revision(db) == PREVIOUS_RELEASE
        finally:
            await db.dispose()
        code, out = await asyncio.to_thread(
            _acwc, "--config", str(config), "db", "upgrade", "--check"
        )
        said.append(out)
        assert code == 0, out
        code, out = await asyncio.to_thread(_acwc, "--config", str(config), "db", "upgrade")
        assert code == 0, out

    half = frozenset({reference.settles // 2})
    run = await season(
        SEED, url=database_url, mode="crash", folder=tmp_path, kill_at=half,
        between=previous_then_upgrade,
    )  # fmt: skip
    assert said, "the upgrade did not run"
    assert f"the version running on {PREVIOUS_RELEASE} can keep going" in said[0]
    assert_same_season(run, reference)
