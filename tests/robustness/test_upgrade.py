"""An upgrade in the middle of a season (issue 31): the database left at the previous release's
schema mid-season, ``acwc db upgrade --check`` says the running version may keep going,
``acwc db upgrade`` runs, and the season plays on to the same end as an uninterrupted one.

The season is the crash test's (``crashed.py``: ``acwc follow-clock`` in a child process on the
driver's clock, killed 10 times). At the kill nearest half way, while the service is down, the
schema is taken back to the previous release's head: what that release's database holds at that
point, the same rows without this release's additions (the ``leadership`` table,
``outbox.claim_epoch``). The check and the upgrade run through the command line, the service
starts again, and the season is compared with the reference run: placement, standings, matches,
games, the audit log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TEST_DB
from tests.robustness.crashed import PREVIOUS_RELEASE, crashed_season
from tests.robustness.harness import assert_same_season


@pytest.mark.timeout(1500)
@pytest.mark.skipif(
    TEST_DB != "sqlite", reason="the SQLite run of the suite (a season in a child process)"
)
async def test_a_mid_season_database_of_the_previous_release_upgrades_and_plays_on(
    database_url: str, tmp_path: Path
) -> None:
    played = await crashed_season(database_url, tmp_path)
    assert len(played.upgrade_said) == 2, "the upgrade did not run"
    check, upgrade = played.upgrade_said
    assert f"the version running on {PREVIOUS_RELEASE} can keep going" in check
    assert upgrade.strip(), "acwc db upgrade said nothing"
    assert_same_season(played.run, played.reference)
