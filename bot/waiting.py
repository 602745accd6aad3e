"""Waiting for whichever comes first: a wake-up call or a moment on the service clock."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from bot.clock import Clock


async def wake_or_time(event: asyncio.Event, clock: Clock, when: dt.datetime | None) -> None:
    """Return when ``event`` is set or, if ``when`` is given, when ``clock`` reaches it."""
    waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(event.wait())]
    if when is not None:
        waits.append(asyncio.ensure_future(clock.sleep_until(when)))
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
