"""Three ``acwc run`` on one PostgreSQL database; the leader is SIGKILLed at five random points of a
season (issue 18): the same season, no deadline fired twice, no notice lost.

The driver hosts the sandbox, the fake clock (served as a feed) and the actors, as in
``test_crash.py``; the service is three ``python -m bot.demo.follow_clock`` processes (``acwc run``
on the driver's clock). The advisory lock lets one of them act; the others serve their web pages and
wait. Before five settles chosen by a seeded draw the driver kills the one that leads; a standby
takes over and carries on from the database, and the killed one is started again as a standby. The
reference is the uninterrupted in-process run of the same seed. About 4 minutes on a loaded 2-core
machine, so it runs in the suite's PostgreSQL run only. Duplicated DMs (a kill between Lichess
accepting a DM and the outbox marking it sent) are counted and printed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import TEST_DB
from tests.robustness.harness import assert_same_season, reference_season, season

SEED = 3
KILLS = 5


@pytest.mark.timeout(900)
@pytest.mark.skipif(
    TEST_DB != "postgresql", reason="the PostgreSQL run of the suite (ACWC_TEST_DB=postgresql)"
)
async def test_killing_the_leader_of_three_5_times_hands_over_and_changes_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    reference = await reference_season(SEED, tmp_path)
    points = frozenset(random.Random(SEED + 18).sample(range(5, reference.settles - 5), KILLS))
    run = await season(SEED, url=pg_url, mode="failover", folder=tmp_path, kill_at=points)
    duplicates = run.duplicates
    print(
        f"reference {reference.wall:.1f} s, fail-over run {run.wall:.1f} s, {run.extra}, "
        f"duplicated DMs: {sum(duplicates.values())} {dict(duplicates)}"
    )
    assert run.extra["kills"] == KILLS
    # the first leader, then a take-over per kill (and one more when a loaded machine made a
    # lock check outlast its timeout: the leader stands down, which is what it must do)
    assert run.extra["leads"] >= 1 + KILLS
    fired = Counter(
        (entry[5], *(json.loads(entry[6])[k] for k in ("kind", "subject", "due")))
        for entry in run.audit
        if entry[2] == "deadline.fired"
    )
    assert fired
    assert max(fired.values()) == 1  # no deadline fired twice
    assert_same_season(run, reference)
