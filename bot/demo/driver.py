"""The season driver: a discrete-event simulation around the real service.

The driver owns the fake clock, the sandbox Lichess and the simulated actors. Each step it

1. lets the service **settle** (:meth:`SeasonDriver.settle`), never sleeping a fixed time: no
   outbox message due and unsent, no deadline due and unfired nor still firing (claimed without
   its end committed: a challenge asks Lichess between the two), and every game the sandbox has
   started or finished dealt with in that state;
2. runs the actors due at the current time in a fixed order (TDs, matches, games), settling after
   each one that acted;
3. moves the clock to the next event: the earliest of the next deadline row, the next outbox retry
   and the actors' next wake-ups.

Wall-clock time never decides anything; a settle that takes longer than ``settle_timeout`` wall
seconds is a failure with the facts that were still missing.

The service sits behind :class:`ServicePort`. :class:`InProcessService` runs ``bot.app.Service`` in
this event loop (``acwc demo``); it settles by what the service knows in memory (the dispatcher
and the runner say when they wait with nothing due, the intake which game it dealt with), with
no database query. Any other port (a service in another process sharing the database, see
:mod:`bot.demo.remote`) settles by the same facts read from the database, so that port only has
to carry the clock and the "state changed" poke across. When the database counts its committed
writes (``Database.track_changes``), the next-event query is read again only after the deadlines
or the outbox changed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.app import Service
from bot.demo.actors import Actor
from bot.runtime.clock import FakeClock
from bot.runtime.outbox import SENDABLE_KINDS
from rules.core.model import Game, GameId
from storage.db import Database

__all__ = [
    "InProcessService",
    "SeasonDriver",
    "ServicePort",
    "SettleError",
    "SettleWatch",
    "StuckError",
]

log = logging.getLogger(__name__)


class SettleError(RuntimeError):
    """The service did not catch up with the world within the settle timeout."""


class StuckError(RuntimeError):
    """Nothing is due any more but the season is not over."""


class ServicePort(Protocol):
    """The driver's handle on the service, wherever it runs."""

    async def poke(self, players_changed: bool) -> None:
        """Stored state changed behind the service's back: look again (and re-watch players)."""
        ...


class SettleWatch:
    """What the service running in this process tells the driver (a
    :class:`bot.app.ServiceWatch`): the outbox dispatcher and the deadline runner say when they
    have done what was due and gone to wait, and the intake which game it has dealt with last,
    in which state (:attr:`games`). Each of those moments sets :attr:`activity`, which the
    driver waits on. Hand it to the service when it is built."""

    def __init__(self) -> None:
        self.activity = asyncio.Event()
        self.games: dict[GameId, tuple[str, float]] = {}
        """Each game the intake dealt with: its last state and when (perf_counter seconds)."""
        self.taken: dict[GameId, float] = {}
        """Each game's last intake: seconds from when the intake began on it to its commit
        (what it cost itself, without waiting behind the games delivered before it; a burst's
        games stored together: from when their batch began, so each counts the batch's)."""
        self.taken_cpu: dict[GameId, float] = {}
        """The process's CPU seconds over the same span (every thread's: SQLite's work runs in
        aiosqlite's; what the other loops did meanwhile is in it too, so an upper bound, but one
        the machine's load does not inflate as it does the wall)."""

    def loop_waiting(self) -> None:
        self.activity.set()

    def game_done(self, game: Game, *, began: float, began_cpu: float) -> None:
        done = time.perf_counter()
        self.games[game.id] = (game.status.value, done)
        self.taken[game.id] = done - began
        self.taken_cpu[game.id] = time.process_time() - began_cpu
        self.activity.set()


class InProcessService:
    """``bot.app.Service`` running in the driver's event loop, built with ``watch``.

    Being in the same process, it can tell when the service has settled from what the service
    knows in memory, without asking the database (:class:`SettleWatch`).
    """

    def __init__(self, service: Service, watch: SettleWatch) -> None:
        self.service = service
        self.watch = watch

    @property
    def activity(self) -> asyncio.Event:
        return self.watch.activity

    @property
    def games(self) -> dict[GameId, tuple[str, float]]:
        return self.watch.games

    @property
    def quiet(self) -> bool:
        """The dispatcher and the runner both wait with nothing due."""
        return self.service.dispatcher.quiet and self.service.runner.quiet

    def next_due(self) -> dt.datetime | None:
        """While :attr:`quiet`: the service's next due time, the earlier of the two loops'
        (each read it from its table when it last looked, and nothing written to that table
        since woke it)."""
        times = [
            t for t in (self.service.dispatcher.until, self.service.runner.until) if t is not None
        ]
        return min(times) if times else None

    async def poke(self, players_changed: bool) -> None:
        if players_changed:
            await self.service.refresh_players()
        self.service.changed()


@dataclass
class Facts:
    outbox_due: int
    deadlines_due: int
    """Due and not fired: a question to Lichess under way among them, as its answer's row
    (:class:`bot.runtime.deadlines.Ask`: the first firing committed, the second not yet)."""
    games_missing: tuple[GameId, ...]

    @property
    def settled(self) -> bool:
        return not self.outbox_due and not self.deadlines_due and not self.games_missing


STALL = 0.1
"""Real seconds without activity after which, during an outage, the clock moves to a sleeper."""
MAX_JUMP = dt.timedelta(minutes=5)
"""The furthest such a move goes."""


@dataclass
class SeasonDriver:
    db: Database
    clock: FakeClock
    port: ServicePort
    actors: Sequence[Actor]
    settle_timeout: float = 60.0
    max_steps_at_one_time: int = 50
    outage: Callable[[], bool] | None = None
    """Whether Lichess is (or was just) down: then a service that waits on the clock to try a
    call again (a sleeper) is moved to that sleeper's wake when it stalls, as a fault season
    does (the calls it retries wait on the fake clock, which only the driver moves)."""
    steps: int = 0
    settles: int = 0
    game_delays: list[float] = field(default_factory=list)
    """Wall seconds from a game's end on the sandbox to its row in the database."""
    game_intakes: list[float] = field(default_factory=list)
    """Of those (a service in this process only): the seconds from when the intake began on
    the game to its commit; the rest of the delay it waited behind the games that ended with
    it (the driver ends every game due at the same simulated moment at once)."""
    game_intake_cpu: list[float] = field(default_factory=list)
    """The process's CPU seconds over each of those intakes (:attr:`SettleWatch.taken_cpu`)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Wall seconds spent settling and in each actor (for the figures)."""
    until: dt.datetime | None = None
    """Give up (:class:`StuckError`) once the clock passes this: a season that stalls while
    the daily deadlines go on firing would otherwise run for simulated years."""
    _expected: dict[GameId, tuple[str, float]] = field(default_factory=dict)
    _next: dt.datetime | None = None
    _next_at: tuple[int, ...] | None = None

    def _spent(self, what: str, since: float) -> None:
        self.timings[what] = self.timings.get(what, 0.0) + time.perf_counter() - since

    def expect(self, game: Game) -> None:
        """A game changed on the sandbox: the next settle waits for its row in this state."""
        self._expected[game.id] = (game.status.value, time.perf_counter())

    async def facts(self) -> Facts:
        """What is still owed at the current time, read from the database.

        The games are read first and the counts after, in a later statement: the service
        commits a game together with what it caused (result DMs, new deadlines), so once a
        game is seen stored, its effects are in the counts. Read the other way round, a
        game committed between the two reads looks dealt with while its DMs were missed.
        """
        now = self.clock.now()
        async with self.db.reads() as uow:
            missing: list[GameId] = []
            if self._expected:
                stored = await uow.games.statuses(list(self._expected))
                seen = time.perf_counter()
                for gid, (status, since) in list(self._expected.items()):
                    if stored.get(gid) == status:
                        del self._expected[gid]
                        if status not in ("created", "started"):
                            self.game_delays.append(seen - since)
                    else:
                        missing.append(gid)
            outbox = await uow.outbox.count_due(now, kinds=SENDABLE_KINDS)
            deadlines = await uow.deadlines.count_due(now)
        return Facts(outbox, deadlines, tuple(missing))

    async def settle(self) -> None:
        """Return once the service has caught up with everything up to the current time."""
        self.settles += 1
        started = time.perf_counter()
        if isinstance(self.port, InProcessService):
            await self._settle_in_memory(self.port, started)
            self._spent("settle", started)
            return
        pause = 0.0005
        while True:
            await asyncio.sleep(0)
            facts = await self.facts()
            if facts.settled:
                self._spent("settle", started)
                return
            if time.perf_counter() - started > self.settle_timeout:
                raise SettleError(
                    f"at {self.clock.now().isoformat()} the service did not settle in "
                    f"{self.settle_timeout:.0f} s: {facts.outbox_due} message(s) due, "
                    f"{facts.deadlines_due} deadline(s) due (a question to Lichess under way "
                    "among them: its answer's row), games not stored: "
                    f"{', '.join(facts.games_missing[:10]) or 'none'}"
                )
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.02)

    def _missing_in_memory(self, port: InProcessService) -> list[GameId]:
        missing: list[GameId] = []
        for gid, (status, since) in list(self._expected.items()):
            done = port.games.get(gid)
            if done is not None and done[0] == status:
                del self._expected[gid]
                if status not in ("created", "started"):
                    self.game_delays.append(done[1] - since)
                    self.game_intakes.append(port.watch.taken.get(gid, 0.0))
                    self.game_intake_cpu.append(port.watch.taken_cpu.get(gid, 0.0))
            else:
                missing.append(gid)
        return missing

    async def _settle_in_memory(self, port: InProcessService, started: float) -> None:
        while True:
            port.activity.clear()
            await asyncio.sleep(0)  # let what the last action woke take its turn
            missing = self._missing_in_memory(port)
            if not missing and port.quiet:
                return
            left = self.settle_timeout - (time.perf_counter() - started)
            if left <= 0:
                facts = await self.facts()
                raise SettleError(
                    f"at {self.clock.now().isoformat()} the service did not settle in "
                    f"{self.settle_timeout:.0f} s: dispatcher "
                    f"{'quiet' if port.service.dispatcher.quiet else 'busy'}, runner "
                    f"{'quiet' if port.service.runner.quiet else 'busy'}, "
                    f"{facts.outbox_due} message(s) due, {facts.deadlines_due} deadline(s) "
                    f"due, games not dealt with: {', '.join(missing[:10]) or 'none'}"
                )
            outage = self.outage is not None and self.outage()
            try:
                await asyncio.wait_for(port.activity.wait(), min(left, STALL) if outage else left)
            except TimeoutError:
                wake = self._sleeper_wake() if outage else None
                if wake is not None and not port.quiet:
                    self.clock.set(wake)

    def _sleeper_wake(self) -> dt.datetime | None:
        """During an outage, the earliest wake of a task sleeping on the clock, if it is near."""
        wake = self.clock.next_wake()
        return wake if wake is not None and wake - self.clock.now() <= MAX_JUMP else None

    async def _service_next(self) -> dt.datetime | None:
        if isinstance(self.port, InProcessService) and self.port.quiet:
            return self.port.next_due()  # what the loops know: no read
        changes = self.db.changes
        key = None if changes is None else changes.version(("deadlines", "outbox"))
        if key is None or key != self._next_at:
            self._next = await self._read_service_next()
            self._next_at = key
        return self._next

    async def drain(self, within: dt.timedelta) -> None:
        """Let the messages the season's last steps queued go out: while one is due within
        ``within`` of now (the outbox's merge window: a DM waits that long for others to its
        reader), move the clock to it and settle."""
        latest = self.clock.now() + within
        for _ in range(self.max_steps_at_one_time):
            await self.settle()
            async with self.db.reads() as uow:
                retry = await uow.outbox.next_retry(SENDABLE_KINDS)
            if retry is None or retry > latest or retry <= self.clock.now():
                return
            self.clock.set(retry)

    async def _settled_next(self, now: dt.datetime) -> dt.datetime | None:
        """The service's next due time, after settling again while it says "now".

        A deadline or message due at ``now`` means the service took in something after the
        last settle looked (its work runs beside the driver's). Dropping that time as "not in
        the future" would let the clock jump past every later deadline, which then fire late:
        settle until nothing is due now, a bounded number of times.
        """
        for _ in range(self.max_steps_at_one_time):
            service_next = await self._service_next()
            if service_next is None or service_next > now:
                return service_next
            self._next_at = None  # read again after this settle, whatever the counts say
            await self.settle()
        raise StuckError(f"the service keeps having work due at {now.isoformat()}")

    async def _read_service_next(self) -> dt.datetime | None:
        async with self.db.reads() as uow:
            deadline = await uow.deadlines.next_due()
            retry = await uow.outbox.next_retry(SENDABLE_KINDS)
        times = [t for t in (deadline, retry) if t is not None]
        return min(times) if times else None

    async def run(self, *, finished: Actor | None = None) -> None:
        """Step until ``finished`` (an actor with a ``finished`` flag) says the season is over."""
        while not getattr(finished, "finished", False):
            await self.settle()
            now = self.clock.now()
            wakes: list[dt.datetime] = []
            for _ in range(self.max_steps_at_one_time):
                wakes = []
                acted_any = False
                for actor in self.actors:
                    began = time.perf_counter()
                    acted, wake = await actor.step(now)
                    self._spent(actor.name, began)
                    if acted:
                        acted_any = True
                        await self.settle()
                    elif wake is not None:
                        wakes.append(wake)
                    if getattr(finished, "finished", False):
                        return
                self.steps += 1
                if not acted_any:
                    break
            else:
                raise StuckError(f"actors keep acting at {now.isoformat()}")
            service_next = await self._settled_next(now)
            if service_next is not None:
                wakes.append(service_next)
            future = [w for w in wakes if w > now]
            if not future:
                raise StuckError(f"nothing is due after {now.isoformat()}; the season is not over")
            if self.until is not None and min(future) > self.until:
                raise StuckError(
                    f"the season is not over at {self.until.isoformat()}: it stalled "
                    f"(the actors' last step was at {now.isoformat()})"
                )
            # During an outage a settle may have moved the clock on to a sleeper's wake (past
            # ``now``, even past these wakes): then the next step acts at the moved time.
            self.clock.set(max(min(future), self.clock.now()))
