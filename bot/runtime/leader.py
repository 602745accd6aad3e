"""One acting instance: the leader runs the games stream, the deadlines and the outbox.

Any number of ``acwc run`` may start on one PostgreSQL database; each serves the web pages, and
the one holding the run lock (:mod:`storage.run_lock`, an advisory lock with an epoch and a lease
beside it) is the *leader*: it runs what acts on its own (:meth:`Leadership.run`'s ``act``). The
others are *standbys* waiting for the lock; the server hands it to one of them the moment the
leader's session ends, and a standby ends the sessions of a leader whose lease ran out (a frozen
process). The new leader first waits until the previous one acts no more
(:meth:`~storage.run_lock.AdvisoryLock.settle_previous`), then carries on from the database
(overdue deadlines fire once, pending messages go out). On SQLite the lock is a file lock taken
at start-up, so a second process is refused before it gets here and the only process leads at once.

Every action (a deadline's transaction, a message sent and recorded, a broadcast made) goes
through :meth:`Leadership.acting`, which refuses the moment the lock's session closes (the
connection's termination callback, not the next check), when the lease ran out by this process's
own clock (it was frozen), or once the lead is lost; its writes are fenced by the epoch besides
(:mod:`storage.fence`). An action already under way finishes and records what Lichess answered;
then the acting loops stop and this process says its epoch ended, and queues again.

The lease checks run on real seconds (``asyncio.sleep``), not on the service clock: they watch a
network connection, not the tournament's time, and a fast fake clock must not spin them.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import enum
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from bot.runtime.clock import Clock
from storage.run_lock import RunLock

__all__ = ["CHECK_SECONDS", "RETRY_SECONDS", "LeaderLost", "Leadership", "Role"]

log = logging.getLogger(__name__)

CHECK_SECONDS = 2.0
"""How often the leader renews its lease (real seconds); the lease lasts several times longer."""
CHECK_TIMEOUT = 5.0
"""How long a renewal may take before the leader stands down (real seconds): a busy machine or
database is slow, not gone; a broken connection fails at once."""
RETRY_SECONDS = 2.0
"""Pause before queuing for the lock again after the database could not be reached."""
DRAIN_SECONDS = 30.0
"""How long a leader that lost the lead lets an action under way finish (its Lichess call
answer and be recorded) before it cuts it off; and how long a new leader waits for a previous
one that cannot say it stopped (real seconds). Above the Lichess client's request timeout."""


class Role(enum.StrEnum):
    STARTING = "starting"
    LEADER = "leader"
    STANDBY = "standby"


class LeaderLost(Exception):
    """The lock's session is gone, or another process leads: this one must not act."""


class Leadership:
    """Elects this process the leader through ``lock`` (``None``: no other process can share
    the database, lead at once) and runs ``act`` only while it leads."""

    def __init__(
        self,
        lock: RunLock | None,
        clock: Clock,
        *,
        check_seconds: float = CHECK_SECONDS,
        check_timeout: float = CHECK_TIMEOUT,
        retry_seconds: float = RETRY_SECONDS,
        drain_seconds: float = DRAIN_SECONDS,
    ) -> None:
        self.lock = lock
        self.clock = clock
        self.check_seconds = check_seconds
        self.check_timeout = check_timeout
        self.retry_seconds = retry_seconds
        self.drain_seconds = drain_seconds
        self.role = Role.STARTING
        self.since: dt.datetime | None = None
        self.elected = 0
        """How often this process became the leader."""
        self.lost = 0
        """How often it lost the lead while it lived (its lock's connection broke)."""
        self.refused = 0
        """Actions :meth:`acting` refused because the lead was lost or in doubt."""
        self.leading = asyncio.Event()
        self._moves: list[asyncio.Future[None]] = []
        self._deposed: str | None = None
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._doubt_until: float | None = None
        self._trouble = asyncio.Event()
        """Set when :meth:`acting` refused an action of the leader: stand down now."""

    async def until(self, predicate: Callable[[Leadership], bool]) -> None:
        """Return once ``predicate(self)`` holds (checked at each change of role)."""
        while not predicate(self):
            move: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._moves.append(move)
            await move

    def why_not(self) -> str | None:
        """Why this process may not act now, or ``None`` when it may. Before :meth:`run` no
        election runs: whoever drives the loops by hand (a test, a tool) may act."""
        if self.role is Role.STARTING:
            return None
        if self.role is not Role.LEADER:
            return "this process does not lead"
        if self._deposed is not None:
            return self._deposed
        if self.lock is not None:
            if self.lock.lost.is_set():
                return "the run lock's session closed"
            if self.lock.lease_left() <= 0:
                return "the lease ran out by this process's clock (was it frozen?)"
        return None

    def doubt_left(self) -> float:
        """Seconds an action a previous leader claimed stays its own (0: none does). After a
        take-over from a leader whose lease ran out (frozen, not dead), what it claimed may
        have gone out to Lichess: woken, it records that, and it does not act again (its
        lease is gone by its own clock). After ``drain_seconds`` such an action is done again."""
        if self._doubt_until is None:
            return 0.0
        left = self._doubt_until - _seconds()
        if left <= 0:
            self._doubt_until = None
        return max(left, 0.0)

    @contextlib.asynccontextmanager
    async def acting(self) -> AsyncIterator[None]:
        """Around one action: lets it in only while this process leads. An action let in is
        waited for (up to ``drain_seconds``) before the lead is given up, so what Lichess
        answered is recorded. Refused while leading (the lock's session closed, the lease ran
        out), the caller waits there until the acting loops are stopped, all together once
        the actions under way have ended (a loop that raised would cut the others off
        mid-call); refused elsewhere (a standby), it raises :class:`LeaderLost`."""
        why = self.why_not()
        if why is not None:
            self.refused += 1
            if self.role is not Role.LEADER:
                raise LeaderLost(why)
            self._deposed = self._deposed or why
            self._trouble.set()
            await asyncio.Event().wait()  # cancelled with the acting loops by _stand_down
        self._in_flight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()

    async def run(self, act: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Wait for the lead, run ``act`` while leading; queue again if the lead is lost."""
        while True:
            self._become(Role.STANDBY)
            try:
                if self.lock is not None:
                    await self.lock.acquire()
                    settled = await self.lock.settle_previous(grace=self.drain_seconds)
                    log.info("taking the lead: %s", settled)
                    if self.lock.ended_holder:  # frozen, it may wake and record its last call
                        self._doubt_until = _seconds() + self.drain_seconds
            except ConnectionError as e:
                log.warning("cannot queue for the run lock (%s); again soon", e)
                if self.lock is not None:
                    await self.lock.release()
                await asyncio.sleep(self.retry_seconds)
                continue
            self.elected += 1
            self._deposed = None
            self._trouble.clear()
            self._become(Role.LEADER)
            log.warning("this process leads: it runs the games stream, deadlines and outbox")
            try:
                await self._lead(act)
            except* LeaderLost as group:
                self.lost += 1
                log.error("lost the lead (%s): acting stops; queuing again", group.exceptions[0])
            finally:
                self.leading.clear()
                if self.lock is not None:
                    await self.lock.release()

    async def _lead(self, act: Callable[[], Coroutine[Any, Any, None]]) -> None:
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(act(), name="acting")
            if self.lock is not None:
                tasks.create_task(self._watch(), name="lead-check")

    async def _watch(self) -> None:
        assert self.lock is not None
        lost, trouble = self.lock.lost, self._trouble
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.check_seconds):
                    await _first(lost, trouble)
            if self._deposed is not None:
                await self._stand_down(self._deposed)
            try:
                async with asyncio.timeout(self.check_timeout):
                    await self.lock.check()
            except TimeoutError:
                why = "the database did not renew the lease in time"
            except Exception as e:
                why = f"{type(e).__name__}: {e}"
            else:
                continue
            await self._stand_down(why)

    async def _stand_down(self, why: str) -> None:
        """Refuse every new action, let the one under way finish, then stop acting."""
        self._deposed = why
        self.leading.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.drain_seconds):
                await self._idle.wait()
        raise LeaderLost(why)

    def _become(self, role: Role) -> None:
        self.role = role
        self.since = self.clock.now()
        if role is Role.LEADER:
            self.leading.set()
        moves, self._moves = self._moves, []
        for move in moves:
            if not move.done():
                move.set_result(None)

    async def close(self) -> None:
        if self.lock is not None:
            with contextlib.suppress(Exception):
                await self.lock.release()


async def _first(*events: asyncio.Event) -> None:
    """Return once one of ``events`` is set."""
    waits = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()


def _seconds() -> float:
    """Real seconds on the event loop's monotonic clock (what ``asyncio.sleep`` counts): a
    lease is the network's time, not the tournament's (the service clock may be a fake one).
    It goes on while the process is stopped, as the lease does."""
    return asyncio.get_running_loop().time()
