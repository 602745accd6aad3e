"""The service's clock: the one place that reads the time.

Everything in ``bot/`` asks a :class:`Clock` for the time and sleeps on it, so tests and the
sandbox can drive a :class:`FakeClock` and run a whole season in seconds. ``SystemClock.now`` is
the only ``datetime.now(UTC)`` of the repository.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import heapq
import itertools
from collections.abc import Callable
from typing import Protocol

UTC = dt.UTC

__all__ = ["Clock", "FakeClock", "SystemClock"]


class Clock(Protocol):
    """Aware UTC time and sleeps measured on that time."""

    def now(self) -> dt.datetime: ...

    async def sleep(self, seconds: float) -> None: ...

    async def sleep_until(self, when: dt.datetime) -> None: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> dt.datetime:
        return dt.datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def sleep_until(self, when: dt.datetime) -> None:
        _require_aware(when)
        remaining = (when - self.now()).total_seconds()
        if remaining > 0:
            await asyncio.sleep(remaining)


class FakeClock:
    """A clock that moves only when told to.

    ``advance(delta)`` moves time forward and wakes every sleeper that is due, in order of
    their wake-up times. With ``auto=True`` a sleep moves the clock forward to its own
    wake-up time at once, so code that sleeps for hours runs instantly (time never moves
    backwards: a sleeper whose time has already passed returns at once).
    """

    def __init__(self, start: dt.datetime, *, auto: bool = False) -> None:
        _require_aware(start)
        self._now = start
        self.auto = auto
        self._sleepers: list[tuple[dt.datetime, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._sleeper_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._watchers: list[Callable[[dt.datetime], None]] = []

    def __repr__(self) -> str:
        return f"FakeClock({self._now.isoformat()}, auto={self.auto})"

    def now(self) -> dt.datetime:
        return self._now

    @property
    def sleepers(self) -> int:
        """How many tasks are waiting on this clock (for tests that wait for a sleeper)."""
        return sum(1 for _, _, fut in self._sleepers if not fut.done())

    def next_wake(self) -> dt.datetime | None:
        """When the earliest task waiting on this clock wakes (``None``: none waits)."""
        return min((when for when, _, fut in self._sleepers if not fut.done()), default=None)

    async def sleep(self, seconds: float) -> None:
        await self.sleep_until(self._now + dt.timedelta(seconds=max(0.0, seconds)))

    async def sleep_until(self, when: dt.datetime) -> None:
        _require_aware(when)
        if when <= self._now:
            await asyncio.sleep(0)
            return
        if self.auto:
            self.set(when)
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (when, next(self._seq), fut))
        self._notify_sleeper_waiters()
        try:
            await fut
        finally:
            if not fut.done():
                fut.cancel()

    def watch(self, callback: Callable[[dt.datetime], None]) -> None:
        """Call ``callback(now)`` after every move of the clock (:meth:`set`, :meth:`advance`)."""
        self._watchers.append(callback)

    def advance(self, delta: dt.timedelta) -> None:
        """Move time forward by ``delta`` and wake the sleepers that are due.

        Woken tasks run at the event loop's next turn; ``await advance_and_settle()`` when
        the caller wants them to have run.
        """
        if delta < dt.timedelta(0):
            raise ValueError("a clock cannot go backwards")
        self.set(self._now + delta)

    def set(self, when: dt.datetime) -> None:
        """Move time forward to ``when`` (never backwards) and wake what is due."""
        _require_aware(when)
        if when < self._now:
            raise ValueError(f"a clock cannot go backwards ({when} < {self._now})")
        self._now = when
        while self._sleepers and self._sleepers[0][0] <= when:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)
        for callback in self._watchers:
            callback(when)

    async def advance_and_settle(self, delta: dt.timedelta, *, turns: int = 10) -> None:
        """``advance`` then yield to the loop a few turns so woken tasks get to run."""
        self.advance(delta)
        for _ in range(turns):
            await asyncio.sleep(0)

    async def wait_for_sleepers(self, count: int = 1) -> None:
        """Return once at least ``count`` tasks sleep on this clock (test helper)."""
        if self.sleepers >= count:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleeper_waiters.append((count, fut))
        await fut

    def _notify_sleeper_waiters(self) -> None:
        current = self.sleepers
        still = []
        for count, fut in self._sleeper_waiters:
            if fut.done():
                continue
            if current >= count:
                fut.set_result(None)
            else:
                still.append((count, fut))
        self._sleeper_waiters = still


def _require_aware(when: dt.datetime) -> None:
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"naive datetime {when!r}: the service works in aware UTC")
