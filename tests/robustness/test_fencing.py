"""A deposed leader acts no more (issue 31): two ``acwc run`` on one PostgreSQL database, a burst
of deadlines and DMs, and the leader struck mid-burst, while it sends: its lock's session ended
from the server (``pg_terminate_backend``), or its process frozen (SIGSTOP) past its lease and
woken once the other has taken over. Every DM reaches its player once, every deadline fires once.
PostgreSQL only (SQLite has one process, its file lock); see ``fencing.py``.
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path

import asyncpg
import pytest

from tests.conftest import TEST_DB
from tests.robustness.fencing import DEADLINES, DMS, Burst, burst, two_services, until

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(
        TEST_DB != "postgresql", reason="the PostgreSQL run of the suite (ACWC_TEST_DB=postgresql)"
    ),
]

LOCK_SESSION = (
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


async def test_ending_the_leaders_lock_session_mid_burst_doubles_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    async with two_services(pg_url, tmp_path) as stage:
        first = stage.leader()

        async def cut() -> None:
            admin = await asyncpg.connect(stage.admin_url)
            try:
                holder = await admin.fetchval(LOCK_SESSION)
                await admin.execute("SELECT pg_terminate_backend($1)", holder)
            finally:
                await admin.close()

        result = await burst(stage, strike_at=7, strike=cut)
        assert stage.leader() is not first
    _assert_once(result)


async def test_freezing_the_leader_past_its_lease_doubles_nothing(
    pg_url: str, tmp_path: Path
) -> None:
    async with two_services(pg_url, tmp_path) as stage:
        first = stage.leader()
        second = next(p for p in stage.processes if p is not first)
        assert first.process is not None
        pid = first.process.pid

        async def freeze() -> None:
            os.kill(pid, signal.SIGSTOP)  # its sessions stay open: only its lease runs out

            async def second_leads() -> bool:
                return second.leading

            await until(second_leads)
            # woken, it records what it had under way, finds its lease gone by its own clock,
            # and acts no more
            os.kill(pid, signal.SIGCONT)

        result = await burst(stage, strike_at=7, strike=freeze)
        assert second.leading

        async def stands_by() -> bool:
            return not first.leading and first.leads == 1

        await until(stands_by)
        woken = Counter(m.text for m in stage.sandbox.inbox)
    _assert_once(result)
    assert woken == result.delivered  # nothing more went out once it woke


def _assert_once(result: Burst) -> None:
    print(f"leads {result.leads}, delivered {result.delivered.total()}, doubles {result.doubles}")
    assert result.doubles == 0, result.delivered.most_common(5)
    assert sorted(result.delivered) == sorted(f"burst message {n}" for n in range(DMS))
    assert result.sent == DMS
    assert len(result.fired) == DEADLINES
