"""Waiting for whichever comes first: a wake-up call or a moment on the service clock."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any

from bot.runtime.clock import Clock, SystemClock


class WakeUp:
    """A loop's wake-up call, and what it last looked at.

    ``watch`` (optional) says cheaply what the table the loop reads looks like now (a count of
    this process's commits to it); :meth:`ring_if_changed` rings only when that moved since the
    loop last :meth:`looked <looking>`. :meth:`ring` always rings.
    """

    def __init__(self, watch: Callable[[], object] | None = None) -> None:
        self.event = asyncio.Event()
        self.watch = watch
        self._seen: object = None

    def ring(self) -> None:
        self.event.set()

    def ring_if_changed(self) -> None:
        if self.watch is None or self.watch() != self._seen:
            self.event.set()

    def looking(self) -> None:
        """The loop is about to read its table: later commits ring again."""
        self.event.clear()
        self._seen = None if self.watch is None else self.watch()


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


class WaitingLoop:
    """What the outbox dispatcher and the deadline runner share: a wake-up call and whether the
    loop waits with nothing to do (:attr:`quiet`, what the demo's driver settles by)."""

    def __init__(
        self,
        clock: Clock,
        *,
        watch: Callable[[], object] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> None:
        self.clock = clock
        self.wakeup = WakeUp(watch)
        self.on_wait = on_wait
        self._waiting = False
        self._until: dt.datetime | None = None

    def wake(self) -> None:
        """Its table changed: look again now."""
        self.wakeup.ring()

    def wake_if_changed(self) -> None:
        """Something was committed: look again if it may have touched the loop's table."""
        self.wakeup.ring_if_changed()

    @property
    def quiet(self) -> bool:
        """Waiting with nothing to do: no wake-up pending and its next due time still ahead."""
        return (
            self._waiting
            and not self.wakeup.event.is_set()
            and (self._until is None or self._until > self.clock.now())
        )

    @property
    def until(self) -> dt.datetime | None:
        """When the loop next looks by itself (``None``: only when woken), while it waits."""
        return self._until

    async def idle(self, when: dt.datetime | None, *, poll: dt.timedelta | None = None) -> None:
        """Wait to be woken, or until ``when``; with the wall clock, look again after ``poll``
        at the latest (another process may have written what the loop reads)."""
        if poll is not None and isinstance(self.clock, SystemClock):
            at = self.clock.now() + poll
            when = at if when is None else min(when, at)
        self._going_to_wait(when)
        try:
            await wake_or_time(self.wakeup.event, self.clock, when)
        finally:
            self._waiting = False

    def _going_to_wait(self, until: dt.datetime | None) -> None:
        self._waiting, self._until = True, until
        if self.on_wait is not None:
            self.on_wait()


class WatchLoop(WaitingLoop):
    """A loop that calls ``look`` at its start and whenever it is woken (its table changed in
    this process); with the wall clock also every ``poll``, for another process's commit."""

    def __init__(
        self,
        clock: Clock,
        look: Callable[[], Awaitable[None]],
        *,
        watch: Callable[[], object] | None = None,
        on_wait: Callable[[], None] | None = None,
        poll: dt.timedelta = dt.timedelta(minutes=1),
    ) -> None:
        super().__init__(clock, watch=watch, on_wait=on_wait)
        self.look = look
        self.poll = poll

    async def run(self) -> None:
        while True:
            self.wakeup.looking()
            await self.look()
            await self.idle(None, poll=self.poll)
