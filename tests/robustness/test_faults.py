"""The same small season with the sandbox failing at random: the same final result."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TEST_DB
from tests.robustness.harness import reference_season, season


# Two seasons: long, so one run of the suite has it: the PostgreSQL one (production's database;
# the service's code is the same on both), which shares its reference season with the fail-over
# test, while the SQLite run has the crash season.
@pytest.mark.timeout(1500)
@pytest.mark.skipif(TEST_DB != "postgresql", reason="the PostgreSQL run of the suite")
async def test_a_season_with_429s_5xx_dropped_streams_and_garbage_lines_ends_as_a_clean_one(
    database_url: str, tmp_path: Path
) -> None:
    clean = await reference_season(3, tmp_path)
    faulty = await season(3, url=database_url, mode="faults", folder=tmp_path)
    print(f"clean {clean.wall:.1f} s, faulty {faulty.wall:.1f} s, {faulty.extra}")
    assert sum(faulty.extra["injected"].values()) >= 10
    assert faulty.placement == clean.placement
    assert faulty.standings == clean.standings
    assert faulty.matches == clean.matches
    assert faulty.games == clean.games
    assert not faulty.lost
    assert not faulty.unsent
