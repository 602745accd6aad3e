"""The seam for running the service in another process (the crash test of issue 8).

The driver keeps the sandbox, the fake clock and the actors; the service runs as ``acwc run`` in a
child process against the same database and the driver's sandbox URL. Two things must cross the
process boundary, and nothing else (the settle facts are read from the shared database):

* **the time**: :func:`clock_feed` serves the driver's :class:`~bot.runtime.clock.FakeClock` as an
  NDJSON stream (``GET /clock``: one ``{"now": ISO, "seq": N}`` line per change, the current
  one first);
  :class:`RemoteClock` in the service follows it and implements :class:`~bot.runtime.clock.Clock`.
* **the poke** ("stored state changed, look again"): every line is also a nudge; the driver sends
  one with an unchanged time (:meth:`ClockFeed.nudge`) after its actors commit, and the service
  wires ``RemoteClock.on_tick`` to ``service.changed()`` and ``service.refresh_players()``.

A restarted service reconnects, reads the current time first, fires what is overdue and backfills
games (its watcher's ``last_seen`` is in the database), so the driver's next settle simply waits
for it. ``python -m bot.demo.follow_clock ... follow-clock URL`` (a tool of the tests, valid only
with a sandbox Lichess; neither a command of ``acwc`` nor a setting of the production config) is
``acwc run`` on a :class:`RemoteClock`.

The driver's side: :class:`ServiceProcess` starts ``python -m bot.demo.follow_clock`` on a config
file, waits until it says it is ready (its clock follows the feed and its tasks run) and kills it
with SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import aiohttp
from aiohttp import web

from bot.runtime.clock import FakeClock

if TYPE_CHECKING:
    from bot.app import SandboxStarter, Service
    from bot.config import Config

__all__ = [
    "LEADING_LINE",
    "READY_LINE",
    "STANDBY_LINE",
    "ClockFeed",
    "RemoteClock",
    "RemotePort",
    "ServiceProcess",
    "run_on_remote_clock",
]

READY_LINE = "acwc-bot ready on the remote clock"
LEADING_LINE = "acwc-bot leads on the remote clock"
STANDBY_LINE = "acwc-bot lost the lead and stands by"


class ClockFeed:
    """Serves a fake clock's time to other processes (``GET /clock``, NDJSON).

    Every move of the clock, whoever makes it (``clock.set``, ``clock.advance``), goes out as a
    line: the feed watches the clock. A follower acknowledges each line it has taken in
    (``POST /clock/ack`` with ``{"seq": N, "leader": bool}``); :meth:`synced` waits for the
    *leader's* acknowledgement, so the driver can be sure the acting service knows the current
    time before anything happens at that time (a standby's says nothing of what acts). A
    standby that takes over acknowledges the latest line it saw once it leads.
    """

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.seq = 0
        self.acked = -1
        """The latest line the leader acknowledged."""
        self._acked = asyncio.Condition()
        self._queues: list[asyncio.Queue[tuple[int, dt.datetime]]] = []
        clock.watch(lambda _now: self.nudge())

    def nudge(self) -> None:
        """Send the current time again: the followers look at the database again."""
        self.seq += 1
        for q in self._queues:
            q.put_nowait((self.seq, self.clock.now()))

    def set(self, when: dt.datetime) -> None:
        self.clock.set(when)  # the watch sends it

    async def synced(self) -> None:
        """Return once the leader has acknowledged the latest line (the current time)."""
        async with self._acked:
            await self._acked.wait_for(lambda: self.acked >= self.seq)

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
        except ConnectionResetError:
            pass  # the follower went away (killed): its successor opens a new feed
        finally:
            self._queues.remove(queue)
        return resp

    async def handle_ack(self, request: web.Request) -> web.Response:
        message = await request.json()
        if not message.get("leader", True):
            return web.Response(status=204)  # a standby took it in; it acts on nothing
        async with self._acked:
            self.acked = max(self.acked, int(message["seq"]))
            self._acked.notify_all()
        return web.Response(status=204)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/clock", self.handle)
        app.router.add_post("/clock/ack", self.handle_ack)
        return app


class RemotePort:
    """The driver's :class:`~bot.demo.driver.ServicePort` for a service in another process."""

    def __init__(self, feed: ClockFeed) -> None:
        self.feed = feed

    async def poke(self, players_changed: bool) -> None:
        self.feed.nudge()  # the service refreshes its players on every nudge


class RemoteClock:
    """A clock (:class:`~bot.runtime.clock.Clock`) following a :class:`ClockFeed`, forward only."""

    def __init__(self, url: str, *, on_tick: Callable[[], Awaitable[None]] | None = None) -> None:
        self.url = url.rstrip("/")
        self.on_tick = on_tick
        self.leads: Callable[[], bool] = lambda: False
        """Whether the service acts now (said with each acknowledgement)."""
        self.seq = -1
        """The latest line taken in."""
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
        """Read the feed until cancelled; ``ready`` is set once the first time is known.

        Each line is acknowledged once ``on_tick`` has run to its end: the driver's poke is
        answered only when the service has taken it in, as an in-process poke is awaited.
        """
        async with session.get(f"{self.url}/clock", timeout=aiohttp.ClientTimeout(total=None)) as r:
            async for line in r.content:
                if not line.strip():
                    continue
                message = json.loads(line)
                when = dt.datetime.fromisoformat(message["now"])
                async with self._changed:
                    if self._now is None or when > self._now:
                        self._now = when
                    self._changed.notify_all()
                ready.set()
                if self.on_tick is not None:
                    await self.on_tick()
                self.seq = max(self.seq, int(message["seq"]))
                await self.ack(session, int(message["seq"]))

    async def ack(self, session: aiohttp.ClientSession, seq: int) -> None:
        payload = {"seq": seq, "leader": self.leads()}
        async with session.post(f"{self.url}/clock/ack", json=payload):
            pass


async def run_on_remote_clock(
    config: Config, url: str, *, sandbox: SandboxStarter | None = None
) -> None:
    """``follow-clock URL`` (:mod:`bot.demo.follow_clock`): the service on a driver's clock until
    the feed ends.

    Every line of the feed (a new time or a nudge) wakes the outbox and the deadline runner and
    re-reads the active players (:func:`_take_in`) before it is acknowledged. Prints
    :data:`READY_LINE` once the service is open, its tasks are started and it has taken in the
    current time, and :data:`LEADING_LINE` each time it becomes the leader (several may follow
    one feed on PostgreSQL: one acts, the others stand by), after which it acknowledges the
    latest line again, as the leader.
    """
    from bot.app import Service

    clock = RemoteClock(url)
    async with aiohttp.ClientSession() as session, asyncio.TaskGroup() as tasks:
        ready = asyncio.Event()
        follow = tasks.create_task(clock.follow(session, ready), name="clock-feed")
        await ready.wait()
        async with Service(config, clock=clock, sandbox=sandbox) as service:
            clock.leads = service.leadership.leading.is_set
            runner = tasks.create_task(service.run(), name="service")
            clock.on_tick = lambda: _take_in(service)
            await _take_in(service)
            print(READY_LINE, flush=True)
            leads = tasks.create_task(_announce_leads(service, clock, session), name="leads")
            with contextlib.suppress(asyncio.CancelledError):
                await follow  # the driver closed the feed: stop
            runner.cancel()
            leads.cancel()


async def _announce_leads(
    service: Service, clock: RemoteClock, session: aiohttp.ClientSession
) -> None:
    """Each time this process becomes the leader: take in the current time as the leader,
    say so, and acknowledge the latest line again (the driver waits for the leader's)."""
    lead = service.leadership
    while True:
        await lead.leading.wait()
        await _take_in(service)
        print(LEADING_LINE, flush=True)
        await clock.ack(session, clock.seq)
        await lead.until(lambda now: not now.leading.is_set())
        print(STANDBY_LINE, flush=True)


async def _take_in(service: Service, *, within: float = 10.0) -> None:
    """A line of the feed: look at the outbox and deadlines, and watch the active players.

    Returns once the games streams watch the current active players (a changed set reopens
    them, and they deliver the games in progress as they open), so a game the driver starts
    after the acknowledgement is seen live.
    """
    service.changed(elsewhere=True)
    watcher = service.watcher
    before = watcher.players
    connections = watcher.connections
    await service.refresh_players()
    if watcher.players == before or not watcher.players or not service.leadership.leading.is_set():
        return  # (a standby's watcher does not run: nothing connects)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            # the watcher counts its connections and sets no event per reconnection: poll
            while not (watcher.connected.is_set() and watcher.connections > connections):  # noqa: ASYNC110
                await asyncio.sleep(0.002)


class ServiceProcess:
    """``python -m bot.demo.follow_clock --config PATH follow-clock URL`` in a child process the
    driver can kill."""

    def __init__(
        self, config_path: Path, clock_url: str, *, env: Mapping[str, str], cwd: Path
    ) -> None:
        self.config_path = config_path
        self.clock_url = clock_url
        self.env = {**os.environ, **env}
        self.cwd = cwd
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.kills = 0
        self.leading = False
        """It said it leads (:data:`LEADING_LINE`), and neither lost the lead nor was killed
        since."""
        self.leads = 0
        """How often it said it became the leader."""
        self._drain: asyncio.Task[None] | None = None
        self.log: list[str] = []
        self.flags: list[str] = []
        self.noise: tuple[str, ...] = ("DEBUG aiosqlite:", "DEBUG asyncio:")
        """Log lines not kept (with ``-v`` SQLite logs every call)."""

    async def start(self, *, within: float = 60.0) -> None:
        """Start the service and return once it prints :data:`READY_LINE`."""
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.demo.follow_clock",
            *self.flags,
            "--config",
            str(self.config_path),
            "follow-clock",
            self.clock_url,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=self.env,
            cwd=str(self.cwd),
        )
        self.starts += 1
        assert self.process.stdout is not None
        try:
            async with asyncio.timeout(within):
                while True:
                    line = await self.process.stdout.readline()
                    if not line:
                        raise RuntimeError(
                            "the service exited before it was ready:\n" + "\n".join(self.log[-30:])
                        )
                    text = line.decode(errors="replace").rstrip()
                    self.log.append(text)
                    # ``in``, not ``==``: with -v a long log line on stderr may be written in
                    # pieces to the same pipe, and the ready line lands inside it
                    self._note(text)
                    if READY_LINE in text:
                        break
        except TimeoutError:
            await self.kill()
            raise RuntimeError(
                f"the service was not ready within {within:.0f} s:\n" + "\n".join(self.log[-30:])
            ) from None
        except BaseException:
            await self.kill()
            raise
        self._drain = asyncio.create_task(self._read_rest(self.process.stdout))

    async def _read_rest(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = line.decode(errors="replace").rstrip()
            if any(noise in text for noise in self.noise):
                continue
            self._note(text)
            self.log.append(text)
            del self.log[:-2000]

    def _note(self, text: str) -> None:
        if LEADING_LINE in text:
            self.leading = True
            self.leads += 1
        elif STANDBY_LINE in text:
            self.leading = False

    async def kill(self) -> None:
        """SIGKILL: no cleanup of any kind runs in the service."""
        self.leading = False
        if self.process is None:
            return
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            self.kills += 1
        await self.process.wait()
        if self._drain is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._drain
            self._drain = None
        self.process = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None
