"""Keeps each of the service's loops running: a failure is logged and the loop started again."""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Awaitable, Callable

from bot.runtime.clock import Clock
from bot.runtime.leader import LeaderLost
from storage.fence import Deposed

__all__ = ["RESTART_PAUSE", "RESTART_PAUSE_MAX", "LoopKeeper"]

log = logging.getLogger(__name__)

RESTART_PAUSE = dt.timedelta(seconds=1)
RESTART_PAUSE_MAX = dt.timedelta(minutes=1)


class LoopKeeper:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.restarts: Counter[str] = Counter()
        """How often each loop failed and was started again (logged each time)."""

    async def keep(self, loop: Callable[[], Awaitable[None]], name: str) -> None:
        """Run one of the service's loops for as long as the service runs.

        A failure the loop does not handle itself (the database gone for a moment, a bug in
        one deadline's handler) is logged with its traceback and the loop starts again after
        a pause on the service clock, doubling up to :data:`RESTART_PAUSE_MAX`: one part
        failing never stops the others, and what it was doing is still in the database (a
        deadline's transaction rolled back is still unfired, a message still pending).

        A lost lead (:class:`LeaderLost`, :class:`Deposed`) is no failure of the loop: it goes
        up to :class:`~bot.runtime.leader.Leadership`, which stops every acting loop.
        """
        pause = RESTART_PAUSE
        while True:
            try:
                await loop()
                return
            except (LeaderLost, Deposed):
                raise
            except Exception:
                self.restarts[name] += 1
                log.exception("the %s failed; starting it again in %s", name, pause)
            await self.clock.sleep(pause.total_seconds())
            pause = min(pause * 2, RESTART_PAUSE_MAX)
