"""Simulated players: they turn up at the agreed time and play their match on the sandbox.

``play_match(host, plan, rng=...)`` creates, starts and finishes the match's games on a
:class:`GameHost` (the in-process :class:`LocalHost` or :class:`HttpHost` over the sandbox's
admin API), with results drawn from ``rng`` by the Elo expectation of the two strengths. It
stops at the clinch score, plays a wrong-clock game first or stays away when the plan says so.
With a ``clock`` it waits on it between moves of the match, so the games reach the stream live;
without one every game is written at once with its timestamps.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import aiohttp

from bot.sandbox.schemas import GameColor, user_id
from bot.sandbox.state import SandboxState

__all__ = [
    "GameHost",
    "HttpHost",
    "LocalHost",
    "MatchPlan",
    "MatchReport",
    "SimulatedPlayer",
    "play_match",
    "play_round",
]

DRAW_CHANCE = 0.06
WIN_ENDINGS = (("variantEnd", 0.6), ("resign", 0.25), ("outoftime", 0.15))
"""How a won game ends (a ``GameStatusName``), with its weight."""
DRAW_ENDINGS = ("draw", "stalemate")


class Sleeper(Protocol):
    """A clock the players wait on (the service's fake clock in tests and the demo)."""

    async def sleep_until(self, when: dt.datetime) -> None: ...


class GameHost(Protocol):
    async def create_game(
        self,
        *,
        white: str,
        black: str,
        variant: str,
        rated: bool,
        clock_limit: int,
        clock_increment: int,
        created_at: dt.datetime,
    ) -> str: ...

    async def start_game(self, game_id: str) -> None: ...

    async def finish_game(
        self, game_id: str, *, status: str, winner: GameColor | None, at: dt.datetime
    ) -> None: ...


class LocalHost:
    """Games on an in-process :class:`SandboxState`."""

    def __init__(self, state: SandboxState) -> None:
        self.state = state

    async def create_game(
        self,
        *,
        white: str,
        black: str,
        variant: str,
        rated: bool,
        clock_limit: int,
        clock_increment: int,
        created_at: dt.datetime,
    ) -> str:
        game = self.state.create_game(
            white,
            black,
            variant=variant,
            rated=rated,
            clock_limit=clock_limit,
            clock_increment=clock_increment,
            created_at=created_at,
        )
        return game.id

    async def start_game(self, game_id: str) -> None:
        self.state.start_game(game_id)

    async def finish_game(
        self, game_id: str, *, status: str, winner: GameColor | None, at: dt.datetime
    ) -> None:
        self.state.finish_game(game_id, status=status, winner=winner, at=at)


class HttpHost:
    """Games on a sandbox in another process, through its ``/_sandbox`` admin API."""

    def __init__(self, base_url: str, session: aiohttp.ClientSession) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = session

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        async with self.session.post(f"{self.base_url}{path}", json=body) as resp:
            data: dict[str, Any] = await resp.json()
            if resp.status != 200:
                raise RuntimeError(f"sandbox {path}: {data.get('error')}")
            return data

    async def create_game(
        self,
        *,
        white: str,
        black: str,
        variant: str,
        rated: bool,
        clock_limit: int,
        clock_increment: int,
        created_at: dt.datetime,
    ) -> str:
        data = await self._post(
            "/_sandbox/games",
            {
                "white": white,
                "black": black,
                "variant": variant,
                "rated": rated,
                "clock_limit": clock_limit,
                "clock_increment": clock_increment,
                "created_at": created_at.isoformat(),
            },
        )
        return str(str(data["id"]))

    async def start_game(self, game_id: str) -> None:
        await self._post(f"/_sandbox/games/{game_id}/start", {})

    async def finish_game(
        self, game_id: str, *, status: str, winner: GameColor | None, at: dt.datetime
    ) -> None:
        await self._post(
            f"/_sandbox/games/{game_id}/finish",
            {"status": status, "winner": winner, "at": at.isoformat()},
        )


@dataclass(frozen=True, slots=True)
class SimulatedPlayer:
    """A player with an Elo-like ``strength``; ``no_show`` never turns up."""

    username: str
    strength: int = 1500
    no_show: bool = False

    @property
    def id(self) -> str:
        return user_id(self.username)


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """One match to play from ``start``: ``games`` games, stopping at ``clinch_at`` points."""

    white_first: SimulatedPlayer
    black_first: SimulatedPlayer
    start: dt.datetime
    games: int = 10
    clinch_at: Fraction | None = Fraction(11, 2)
    variant: str = "antichess"
    clock_limit: int = 120
    clock_increment: int = 5
    wrong_clock_first: bool = False
    """Play one 3+0 game first (intake must refuse it and alert the TDs)."""
    game_length: dt.timedelta = dt.timedelta(minutes=7)
    pause: dt.timedelta = dt.timedelta(minutes=1)


@dataclass
class MatchReport:
    game_ids: list[str] = field(default_factory=list)
    points: dict[str, Fraction] = field(default_factory=dict)
    no_show: tuple[str, ...] = ()
    ended_at: dt.datetime | None = None


async def play_match(
    host: GameHost, plan: MatchPlan, *, rng: random.Random, clock: Sleeper | None = None
) -> MatchReport:
    """Play ``plan`` on ``host``; results come from ``rng`` only (reproducible)."""
    a, b = plan.white_first, plan.black_first
    report = MatchReport(points={a.id: Fraction(0), b.id: Fraction(0)})
    absent = tuple(p.id for p in (a, b) if p.no_show)
    if absent:
        report.no_show = absent
        return report
    at = plan.start
    if plan.wrong_clock_first:
        gid = await _play_one(host, plan, a, b, at=at, rng=rng, clock=clock, limit=180, increment=0)
        report.game_ids.append(gid)
        at += plan.game_length + plan.pause
    for number in range(1, plan.games + 1):
        white, black = (a, b) if number % 2 == 1 else (b, a)
        winner, gid = await _play_scored(host, plan, white, black, at=at, rng=rng, clock=clock)
        report.game_ids.append(gid)
        if winner is None:
            report.points[white.id] += Fraction(1, 2)
            report.points[black.id] += Fraction(1, 2)
        else:
            report.points[(white if winner == "white" else black).id] += 1
        at += plan.game_length + plan.pause
        if plan.clinch_at is not None and max(report.points.values()) >= plan.clinch_at:
            break
    report.ended_at = at - plan.pause
    return report


async def play_round(
    host: GameHost,
    plans: list[MatchPlan],
    *,
    rng: random.Random,
    clock: Sleeper | None = None,
) -> list[MatchReport]:
    """Play every match of a round at once; each match draws from its own seeded generator,
    so the results do not depend on how the matches interleave."""
    seeds = [rng.getrandbits(64) for _ in plans]
    return list(
        await asyncio.gather(
            *(
                play_match(host, plan, rng=random.Random(seed), clock=clock)
                for plan, seed in zip(plans, seeds, strict=True)
            )
        )
    )


def _outcome(
    white: SimulatedPlayer, black: SimulatedPlayer, rng: random.Random
) -> tuple[GameColor | None, str]:
    expected = 1 / (1 + 10 ** ((black.strength - white.strength) / 400))
    roll = rng.random()
    if roll < DRAW_CHANCE:
        return None, DRAW_ENDINGS[0] if rng.random() < 0.5 else DRAW_ENDINGS[1]
    winner: GameColor = "white" if rng.random() < expected else "black"
    statuses = [s for s, _ in WIN_ENDINGS]
    weights = [w for _, w in WIN_ENDINGS]
    return winner, rng.choices(statuses, weights=weights)[0]


async def _play_scored(
    host: GameHost,
    plan: MatchPlan,
    white: SimulatedPlayer,
    black: SimulatedPlayer,
    *,
    at: dt.datetime,
    rng: random.Random,
    clock: Sleeper | None,
) -> tuple[GameColor | None, str]:
    winner, status = _outcome(white, black, rng)
    gid = await _play_one(
        host,
        plan,
        white,
        black,
        at=at,
        rng=rng,
        clock=clock,
        limit=plan.clock_limit,
        increment=plan.clock_increment,
        result=(winner, status),
    )
    return winner, gid


async def _play_one(
    host: GameHost,
    plan: MatchPlan,
    white: SimulatedPlayer,
    black: SimulatedPlayer,
    *,
    at: dt.datetime,
    rng: random.Random,
    clock: Sleeper | None,
    limit: int,
    increment: int,
    result: tuple[GameColor | None, str] | None = None,
) -> str:
    winner, status = result if result is not None else _outcome(white, black, rng)
    if clock is not None:
        await clock.sleep_until(at)
    gid = await host.create_game(
        white=white.username,
        black=black.username,
        variant=plan.variant,
        rated=True,
        clock_limit=limit,
        clock_increment=increment,
        created_at=at,
    )
    await host.start_game(gid)
    end = at + plan.game_length
    if clock is not None:
        await clock.sleep_until(end)
    await host.finish_game(gid, status=status, winner=winner, at=end)
    return gid
