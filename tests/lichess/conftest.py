"""Fixtures for the Lichess adapter tests: a real sandbox Lichess on 127.0.0.1, a fake clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from lichess_helpers import BOT, START, TEAM

from bot.lichess.client import LichessClient
from bot.runtime.clock import FakeClock
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def state(clock: FakeClock) -> SandboxState:
    state = SandboxState(now=clock.now)
    state.knobs.keepalive_seconds = 0.5
    for name in ("Alice", "Bob", "Carol", "Dave"):
        state.add_user(name, online=True)
    return state


@pytest.fixture
def bot_token(state: SandboxState) -> str:
    token = state.add_token(BOT, token="lip_bot_token_123")
    state.make_team(TEAM, leaders=[BOT])
    return token


@pytest.fixture
async def sandbox_url(state: SandboxState) -> AsyncIterator[str]:
    runner = web.AppRunner(make_app(state), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{site.port}"
    finally:
        state.drop_streams()
        await runner.cleanup()


@pytest.fixture
async def client(
    sandbox_url: str, bot_token: str, clock: FakeClock
) -> AsyncIterator[LichessClient]:
    async with LichessClient(
        base_url=sandbox_url, token=bot_token, clock=clock, timeout=10.0, max_attempts=3
    ) as client:
        yield client
