"""A season through a three-hour Lichess outage on a round's Tuesday (issue 25): the sandbox
answers 5xx to every call and cuts its streams from the second round's publication, 09:00 UTC,
until 12:00. Every notice is delivered after it (none failed, none left waiting), the TDs get a
note that messages are late, not lost, and every game played on the sandbox is stored."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.demo.report import Reporter
from bot.demo.roster import Roster
from bot.demo.season import DemoOptions, run_season
from bot.sandbox.schemas import from_millis
from bot.sandbox.state import SandboxState
from tests.demo.test_season import PLAYERS
from tests.robustness.harness import two_game_matches


@pytest.mark.timeout(600)  # a season: 75-110 s on a loaded 2-core machine
async def test_a_season_through_a_three_hour_outage_loses_no_notice_and_no_game(
    tmp_path: Path,
) -> None:
    config = two_game_matches()  # the outage is in round 2; two games a match keep the rest short
    tuesday = dt.datetime.combine(
        config.rules.calendar.first_publication + dt.timedelta(days=7), dt.time(9, 0), dt.UTC
    )
    seen: list[SandboxState] = []

    def outage(sandbox: SandboxState, roster: Roster) -> None:
        sandbox.outage(tuesday + dt.timedelta(hours=3), start=tuesday)
        sandbox.knobs.export_throttle = False  # about the outage, not lila's export pace
        seen.append(sandbox)

    options = DemoOptions(
        players=PLAYERS,
        seed=7,
        folder=tmp_path,
        serve_web=False,
        settle_timeout=30.0,
        sandbox_setup=outage,
    )
    result = await run_season(config, options, reporter=Reporter(write=None))
    sandbox = seen[0]
    assert result.anomalies == []
    assert result.champion == result.placement[0]
    assert set(result.touches.notices) == {"sent"}  # none failed, none still waiting
    assert result.contract is not None
    assert result.contract.notices_lost == 0
    assert sum(result.contract.refused.values()) == 0
    assert result.contract.dm_limited == 0
    rounds = result.contract.broadcast_rounds
    assert rounds > 0
    assert result.contract.broadcast_rounds_showing == rounds  # each showed its match games
    assert any("not been reachable" in m.text for m in sandbox.inbox)  # the TDs' note
    stored = {g[0] for g in result.games}
    played = {
        g.id
        for g in sandbox.games.values()
        if from_millis(g.createdAt) >= tuesday - dt.timedelta(days=14)
        and g.status not in ("created", "aborted")
    }
    assert played <= stored
    assert result.counted_from_challenges == result.counted_games
