"""The seam for running the service in another process (the crash test of issue 8).

The driver keeps the sandbox, the fake clock and the actors; the service runs as ``acwc run`` in a
child process against the same database and the driver's sandbox URL. Two things must cross the
process boundary, and nothing else (the settle facts are read from the shared database):

* **the time**: :func:`clock_feed` serves the driver's :class:`~bot.clock.FakeClock` as an NDJSON
  stream (``GET /clock``: one ``{"now": ISO, "seq": N}`` line per change, the current one first);
  :class:`RemoteClock` in the service follows it and implements :class:`~bot.clock.Clock`.
* **the poke** ("stored state changed, look again"): every line is also a nudge; the driver sends
  one with an unchanged time (:meth:`ClockFeed.nudge`) after its actors commit, and the service
  wires ``RemoteClock.on_tick`` to ``service.changed()`` and ``service.refresh_players()``.

A restarted service reconnects, reads the current time first, fires what is overdue and backfills
games (its watcher's ``last_seen`` is in the database), so the driver's next settle simply waits
for it. Selecting :class:`RemoteClock` in ``acwc run`` (a setting valid only with a sandbox
Lichess) is the follow-up's one change to ``bot/app.py``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable

import aiohttp
from aiohttp import web

from bot.clock import FakeClock

__all__ = ["ClockFeed", "RemoteClock", "RemotePort"]


class ClockFeed:
    """Serves a fake clock's time to other processes (``GET /clock``, NDJSON)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.seq = 0
        self._queues: list[asyncio.Queue[tuple[int, dt.datetime]]] = []

    def nudge(self) -> None:
        """Send the current time again: the followers look at the database again."""
        self.seq += 1
        for q in self._queues:
            q.put_nowait((self.seq, self.clock.now()))

    def set(self, when: dt.datetime) -> None:
        self.clock.set(when)
        self.nudge()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        queue: asyncio.Queue[tuple[int, dt.datetime]] = asyncio.Queue()
        queue.put_nowait((self.seq, self.clock.now()))
        self._queues.append(queue)
        try:
            while True:
                seq, now = await queue.get()
                line = json.dumps({"now": now.isoformat(), "seq": seq}) + "\n"
                await resp.write(line.encode())
        finally:
            self._queues.remove(queue)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/clock", self.handle)
        return app


class RemotePort:
    """The driver's :class:`~bot.demo.driver.ServicePort` for a service in another process."""

    def __init__(self, feed: ClockFeed) -> None:
        self.feed = feed

    async def poke(self, players_changed: bool) -> None:
        self.feed.nudge()  # the service refreshes its players on every nudge


class RemoteClock:
    """A :class:`~bot.clock.Clock` that follows a :class:`ClockFeed` (time only moves forward)."""

    def __init__(self, url: str, *, on_tick: Callable[[], None] | None = None) -> None:
        self.url = url.rstrip("/")
        self.on_tick = on_tick
        self._now: dt.datetime | None = None
        self._changed = asyncio.Condition()

    def now(self) -> dt.datetime:
        if self._now is None:
            raise RuntimeError("the remote clock has not said the time yet: await follow() first")
        return self._now

    async def sleep(self, seconds: float) -> None:
        await self.sleep_until(self.now() + dt.timedelta(seconds=max(0.0, seconds)))

    async def sleep_until(self, when: dt.datetime) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self._now is not None and self._now >= when)

    async def follow(self, session: aiohttp.ClientSession, ready: asyncio.Event) -> None:
        """Read the feed until cancelled; ``ready`` is set once the first time is known."""
        async with session.get(f"{self.url}/clock", timeout=aiohttp.ClientTimeout(total=None)) as r:
            async for line in r.content:
                if not line.strip():
                    continue
                when = dt.datetime.fromisoformat(json.loads(line)["now"])
                async with self._changed:
                    if self._now is None or when > self._now:
                        self._now = when
                    self._changed.notify_all()
                ready.set()
                if self.on_tick is not None:
                    self.on_tick()
