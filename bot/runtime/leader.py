"""One acting instance: the leader runs the games stream, the deadlines and the outbox.

Any number of ``acwc run`` may start on one PostgreSQL database; each serves the web pages, and
the one holding the run lock (:mod:`storage.run_lock`, an advisory lock) is the *leader*: it runs
what acts on its own (:meth:`Leadership.run`'s ``act``). The others are *standbys* waiting for the
lock; the server hands it to one of them the moment the leader's session ends, and that one
carries on from the database (overdue deadlines fire once, pending messages go out). A leader
that finds its lock's connection gone stops acting at once and queues for the lock again: once its
session is gone another process may already lead. On SQLite the lock is a file lock taken at
start-up, so a second process is refused before it gets here and the only process leads at once.

The connection checks run on real seconds (``asyncio.sleep``), not on the service clock: they
watch a network connection, not the tournament's time, and a fast fake clock must not spin them.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import enum
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from bot.runtime.clock import Clock
from storage.run_lock import RunLock

__all__ = ["CHECK_SECONDS", "RETRY_SECONDS", "LeaderLost", "Leadership", "Role"]

log = logging.getLogger(__name__)

CHECK_SECONDS = 5.0
"""How often the leader makes sure its lock's session is alive (real seconds)."""
CHECK_TIMEOUT = 5.0
"""How long the lock check may take before the leader stands down (real seconds): a busy
machine or database is slow, not gone; a broken connection fails the check at once."""
RETRY_SECONDS = 2.0
"""Pause before queuing for the lock again after the database could not be reached."""


class Role(enum.StrEnum):
    STARTING = "starting"
    LEADER = "leader"
    STANDBY = "standby"


class LeaderLost(Exception):
    """The lock's session is gone: another process may lead now."""


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
    ) -> None:
        self.lock = lock
        self.clock = clock
        self.check_seconds = check_seconds
        self.check_timeout = check_timeout
        self.retry_seconds = retry_seconds
        self.role = Role.STARTING
        self.since: dt.datetime | None = None
        self.elected = 0
        """How often this process became the leader."""
        self.lost = 0
        """How often it lost the lead while it lived (its lock's connection broke)."""
        self.leading = asyncio.Event()
        self._moves: list[asyncio.Future[None]] = []

    async def until(self, predicate: Callable[[Leadership], bool]) -> None:
        """Return once ``predicate(self)`` holds (checked at each change of role)."""
        while not predicate(self):
            move: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._moves.append(move)
            await move

    async def run(self, act: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Wait for the lead, run ``act`` while leading; queue again if the lead is lost."""
        while True:
            self._become(Role.STANDBY)
            try:
                if self.lock is not None:
                    await self.lock.acquire()
            except ConnectionError as e:
                log.warning("cannot queue for the run lock (%s); again soon", e)
                await asyncio.sleep(self.retry_seconds)
                continue
            self.elected += 1
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
        while True:
            await asyncio.sleep(self.check_seconds)
            try:
                async with asyncio.timeout(self.check_timeout):
                    await self.lock.check()
            except TimeoutError:
                raise LeaderLost("the database did not answer the lock check in time") from None
            except Exception as e:
                raise LeaderLost(f"{type(e).__name__}: {e}") from e

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
