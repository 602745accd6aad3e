"""Shared values and helpers of the Lichess adapter tests."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable

from bot.lichess.games import game_from_export
from bot.sandbox.encode import game_json
from bot.sandbox.schemas import GameJson
from rules.core.model import Game

START = dt.datetime(2021, 10, 12, 18, 0, tzinfo=dt.UTC)
BOT = "acwc-bot"
TEAM = "acwc-2021"


HANG = 60.0
"""Real seconds after which a wait for an event or a fact counts as a hang (a guard, never a
timing check): generous, because CI runs on a loaded machine where 10 s was seen to pass."""


async def until(predicate: Callable[[], bool], *, within: float = HANG) -> None:
    """Wait until ``predicate()`` holds; fail the test after ``within`` real seconds.

    For facts with no event to wait on (a request reaching the sandbox); not a timing check.
    """
    async with asyncio.timeout(within):
        while not predicate():  # noqa: ASYNC110 - the facts polled here raise no event
            await asyncio.sleep(0.005)


def as_read(game: GameJson) -> Game:
    """A sandbox game as the service reads it: its export JSON through the client's decoder."""
    return game_from_export(game_json(game))
