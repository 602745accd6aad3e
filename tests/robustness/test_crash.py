"""SIGKILL the service process at 10 random points of a season: nothing lost, the same season.

The driver (this test) hosts the sandbox, the fake clock (served as a feed) and the actors; the
service is ``python -m bot.demo.follow_clock`` (``acwc run`` on the driver's clock) in a child
process on the same database. Before 10 settles chosen by a seeded draw the driver kills it with
SIGKILL and starts it again, and waits until it is ready before the clock may move. The reference is
an uninterrupted in-process run of the same seed. Compared: placement, standings, matches, games and
the audit log without its ids, and with match ids replaced by their rank (PostgreSQL spends a
sequence number on every insert a kill rolled back: later ids shift, their order does not). The
season is small so that both runs fit in CI: 13 players, every match 2 games (``two_game_matches``),
about 1000 settles; about 2 minutes for the two runs on a loaded 2-core machine (reference about 30
s, crashed run about 90 s). Every DM the outbox marked sent must be in the sandbox's inbox; a DM
received more often than it was marked sent is a duplicate, which only a kill between Lichess
accepting it and the outbox marking it sent can cause: they are counted and printed, not failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import TEST_DB
from tests.robustness.crashed import KILLS, crashed_season
from tests.robustness.harness import assert_same_season


# Two seasons and ten restarts of `acwc run`: long, so it runs in the SQLite pass of the suite
# only; the PostgreSQL pass kills a leader five times in test_failover.py. The same run has the
# upgrade of test_upgrade.py at one of its kills (crashed.py).
@pytest.mark.timeout(1500)
@pytest.mark.skipif(
    TEST_DB != "sqlite", reason="the SQLite run of the suite (the PostgreSQL run has the fail-over)"
)
async def test_killing_the_service_10_times_loses_nothing_and_changes_nothing(
    database_url: str, tmp_path: Path
) -> None:
    played = await crashed_season(database_url, tmp_path)
    crashed, reference = played.run, played.reference
    duplicates = crashed.duplicates
    print(
        f"reference {reference.wall:.1f} s, crashed {crashed.wall:.1f} s, {crashed.extra}, "
        f"duplicated DMs: {sum(duplicates.values())} {dict(duplicates)}, "
        f"upgraded before settle {played.upgraded_at}"
    )
    assert crashed.extra["kills"] == KILLS
    assert_same_season(crashed, reference)
