"""Simulated players play whole matches on the sandbox, seen through the stream and intake."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction

import aiohttp
from lichess_helpers import HANG, START, as_read, until

from bot.lichess import GameWatcher, LichessClient
from bot.runtime.clock import FakeClock
from bot.sandbox.players import (
    HttpHost,
    LocalHost,
    MatchPlan,
    SimulatedPlayer,
    play_match,
    play_round,
)
from bot.sandbox.state import SandboxState
from rules.core.model import Game, GameStatus, Match, MatchId, PlayerId, StageKind
from rules.core.ruleset import DEFAULT_RULESET
from rules.core.scoring import match_score
from rules.week.intake import Accepted, MatchContext, RefusalReason, Refused, classify_game

ALICE = SimulatedPlayer("Alice", strength=2100)
BOB = SimulatedPlayer("Bob", strength=1900)
MATCH = Match(
    id=MatchId(1),
    stage=StageKind.QUALIFICATION,
    round=1,
    white_first=PlayerId("alice"),
    black_first=PlayerId("bob"),
    format=DEFAULT_RULESET.formats.qualification,
)
CONTEXT = MatchContext(
    match=MATCH,
    window_start=START - dt.timedelta(days=1),
    window_end=START + dt.timedelta(days=6),
)


def games_of(state: SandboxState, ids: Iterable[str]) -> list[Game]:
    return [as_read(state.games[i]) for i in ids]


async def test_a_match_is_played_with_the_championship_clock_until_clinched(
    state: SandboxState,
) -> None:
    report = await play_match(
        LocalHost(state), MatchPlan(ALICE, BOB, start=START), rng=random.Random(7)
    )
    games = games_of(state, report.game_ids)
    assert all(g.variant == "antichess" and g.rated for g in games)
    assert all((g.clock_limit, g.clock_increment) == (120, 5) for g in games)
    assert [g.white for g in games] == [("alice", "bob")[i % 2] for i in range(len(games))]
    score = match_score(MATCH, games)
    assert max(score.first, score.second) >= Fraction(11, 2) or len(games) == 10
    assert {PlayerId("alice"): score.first, PlayerId("bob"): score.second} == report.points
    assert all(
        isinstance(
            classify_game(g, replace(CONTEXT, next_game=n), ruleset=DEFAULT_RULESET), Accepted
        )
        for n, g in enumerate(games, start=1)
    )


async def test_the_same_seed_plays_the_same_match(state: SandboxState) -> None:
    first = await play_match(
        LocalHost(state), MatchPlan(ALICE, BOB, start=START), rng=random.Random(3)
    )
    other = SandboxState(now=state.now)
    second = await play_match(
        LocalHost(other), MatchPlan(ALICE, BOB, start=START), rng=random.Random(3)
    )
    assert first.points == second.points
    assert [state.games[g].winner for g in first.game_ids] == [
        other.games[g].winner for g in second.game_ids
    ]


async def test_a_no_show_plays_no_game(state: SandboxState) -> None:
    absent = SimulatedPlayer("Bob", no_show=True)
    report = await play_match(
        LocalHost(state), MatchPlan(ALICE, absent, start=START), rng=random.Random(1)
    )
    assert report.no_show == (PlayerId("bob"),)
    assert report.game_ids == []
    assert state.games == {}


async def test_a_wrong_clock_game_is_refused_by_intake_with_an_alert(state: SandboxState) -> None:
    plan = MatchPlan(ALICE, BOB, start=START, wrong_clock_first=True, games=2, clinch_at=None)
    report = await play_match(LocalHost(state), plan, rng=random.Random(5))
    games = games_of(state, report.game_ids)
    # the wrong-clock game is refused, so the next one is still game 1 of the match's order
    numbers = [1, *range(1, len(games))]
    decisions = [
        classify_game(g, replace(CONTEXT, next_game=n), ruleset=DEFAULT_RULESET)
        for n, g in zip(numbers, games, strict=True)
    ]
    assert isinstance(decisions[0], Refused)
    assert decisions[0].reason is RefusalReason.WRONG_CLOCK
    assert decisions[0].alert_td
    assert [type(d) for d in decisions[1:]] == [Accepted, Accepted]


async def test_players_in_another_process_play_through_the_admin_api(
    sandbox_url: str, state: SandboxState
) -> None:
    async with aiohttp.ClientSession() as http:
        report = await play_match(
            HttpHost(sandbox_url, http),
            MatchPlan(ALICE, BOB, start=START, games=4, clinch_at=None),
            rng=random.Random(11),
        )
    games = games_of(state, report.game_ids)
    assert len(games) == 4
    assert all(g.status.is_finished for g in games)
    assert games[0].created_at == START


async def test_a_live_match_reaches_the_watcher_game_by_game(
    sandbox_url: str, bot_token: str, state: SandboxState
) -> None:
    clock = FakeClock(START, auto=True)
    state.now = clock.now
    delivered: list[Game] = []

    async def on_game(game: Game) -> None:
        delivered.append(game)

    async def pairs() -> list[tuple[PlayerId, PlayerId]]:
        return [(PlayerId(ALICE.id), PlayerId(BOB.id))]

    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        watcher = GameWatcher(
            client=client,
            clock=clock,
            on_game=on_game,
            players=[PlayerId(ALICE.id), PlayerId(BOB.id)],
            pairs_provider=pairs,
        )
        task = asyncio.create_task(watcher.run())
        try:
            await asyncio.wait_for(watcher.connected.wait(), HANG)
            await watcher.wait_backfilled()
            report = await play_match(
                LocalHost(state),
                MatchPlan(ALICE, BOB, start=clock.now() + dt.timedelta(hours=1)),
                rng=random.Random(2),
                clock=clock,
            )
            last = report.game_ids[-1]
            await until(lambda: any(g.id == last and g.status.is_finished for g in delivered))
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    finished = [g for g in delivered if g.status.is_finished]
    assert [g.id for g in finished] == report.game_ids
    assert [g.status for g in delivered].count(GameStatus.STARTED) == len(report.game_ids)


async def test_a_round_of_matches_plays_reproducibly(state: SandboxState) -> None:
    players = [SimulatedPlayer(f"P{i}", strength=1500 + 50 * i) for i in range(8)]

    def plans() -> list[MatchPlan]:
        return [
            MatchPlan(players[i], players[i + 1], start=START + dt.timedelta(hours=i))
            for i in range(0, 8, 2)
        ]

    first = await play_round(LocalHost(state), plans(), rng=random.Random(42))
    again = await play_round(LocalHost(SandboxState(now=state.now)), plans(), rng=random.Random(42))
    assert [r.points for r in first] == [r.points for r in again]
    assert all(r.game_ids for r in first)
