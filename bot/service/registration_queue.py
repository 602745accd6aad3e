"""A player's own registration with its eligibility check off the request path (issue 25).

lila streams a player's game export at 20 to 30 games a second (``Game.apiExportByUser``), so
reading a history of a few thousand antichess games takes minutes: too long for a page request.
``POST /register`` therefore only asks for the check (:meth:`RegistrationChecks.request`): what
is known without Lichess (the window, a TDs' refusal, an entry already made) is answered at once;
otherwise a check is queued and the page says so at once. The leading process runs the queue
(:func:`bot.lichess.entries.run_registration_checks`, one check at a time: the bot keeps one
request queue to Lichess; each step of a check, :meth:`RegistrationChecks.steps`, is a write that
loop commits on its own, the account read between them: this module never commits), and the
player's page shows the check's state and the games read so far while it runs, then its result
(``/register`` is a live page: :meth:`RegistrationChecks.subscribe`).

Each check is a row of ``settings`` under :data:`CHECK_PREFIX` and the player's id, in JSON:
``queued`` (asked for, or to be tried again after Lichess could not be reached), ``reading``
(the leader reads the account; a process that dies leaves it so, and the next leader starts it
again), ``done`` (with the result: registered, or each reason not, or the team to join first).
The games read so far are written every :data:`PROGRESS_EVERY` games. A check names the season
it was asked in (issue 28): the pages and the queue of one season read its checks only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
import logging
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from bot.runtime.clock import Clock
from bot.runtime.deadlines import Gate, no_gate
from bot.runtime.wakeup import WaitingLoop
from bot.service.registration import Registration, RegistrationCheck, SelfRegistration
from rules.core.model import normalise_username
from rules.core.words import Words
from rules.talk import registration as talk
from storage.db import Database
from storage.uow import UnitOfWork, Write

__all__ = [
    "CHECK_PREFIX",
    "POLL",
    "CheckState",
    "RegistrationChecks",
    "check_of",
    "name_checks",
]

log = logging.getLogger(__name__)

CHECK_PREFIX = "registration.check."
PROGRESS_EVERY = 25
"""Write the games read so far after this many more (about a second of lila's pace)."""
RETRY = dt.timedelta(minutes=5)
"""A check Lichess could not answer is tried again this long after."""
POLL = dt.timedelta(minutes=1)
"""With the wall clock, look at the queue at least this often (another process's page)."""
QUEUED, READING, DONE = "queued", "reading", "done"


@dataclass(frozen=True, slots=True)
class CheckState:
    """One player's eligibility check: where it is, the games read so far, and its result."""

    username: str
    state: str
    requested_at: dt.datetime
    games: int = 0
    """Games read from Lichess so far."""
    not_before: dt.datetime | None = None
    """A queued check waits until then (Lichess could not be reached)."""
    problem: str | None = None
    """Why the last try did not finish (Lichess unreachable)."""
    registered: bool = False
    reasons: tuple[str, ...] = ()
    join_team: str | None = None
    language: str | None = None
    """The language of the player's pages when they asked: theirs once entered."""
    season: int | None = None
    """The season it was asked in (``tournaments.id``; None: asked before seasons named it,
    the open season's until a season is confirmed over it, which names it then)."""

    @property
    def running(self) -> bool:
        return self.state != DONE

    @property
    def result(self) -> SelfRegistration | None:
        if self.state != DONE:
            return None
        return SelfRegistration(self.username, self.registered, self.reasons, self.join_team)

    def text(self) -> str:
        data = dataclasses.asdict(self)
        data["requested_at"] = self.requested_at.isoformat()
        data["not_before"] = None if self.not_before is None else self.not_before.isoformat()
        return json.dumps(data, sort_keys=True)

    @classmethod
    def read(cls, text: str) -> CheckState:
        data: dict[str, Any] = json.loads(text)
        data["requested_at"] = dt.datetime.fromisoformat(data["requested_at"])
        if data.get("not_before"):
            data["not_before"] = dt.datetime.fromisoformat(data["not_before"])
        data["reasons"] = tuple(data.get("reasons", ()))
        return cls(**data)


def _key(username: str) -> str:
    return CHECK_PREFIX + normalise_username(username)


async def _open_season(uow: UnitOfWork) -> int | None:
    season = await uow.tournaments.current()
    return None if season is None else season.id


def _of_season(state: CheckState, season: int | None) -> bool:
    return state.season is None or season is None or state.season == season


async def check_of(uow: UnitOfWork, username: str) -> CheckState | None:
    """The player's last eligibility check in the open season, if any (one asked in an
    earlier season is that season's: a page of this season does not show it)."""
    text = await uow.settings.get(_key(username))
    if text is None:
        return None
    state = CheckState.read(text)
    return state if _of_season(state, await _open_season(uow)) else None


async def name_checks(uow: UnitOfWork, season: int) -> int:
    """The checks asked before seasons named theirs named as ``season``'s (the open season's,
    as a season is confirmed over it); how many."""
    named = 0
    for key, text in (await uow.settings.with_prefix(CHECK_PREFIX)).items():
        state = CheckState.read(text)
        if state.season is None:
            await uow.settings.set(key, dataclasses.replace(state, season=season).text())
            named += 1
    return named


class RegistrationChecks(WaitingLoop):
    """The queue of players' own eligibility checks, and the wake-up of the leader's loop that
    runs it (:func:`bot.lichess.entries.run_registration_checks`)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        registration: Registration,
        *,
        gate: Gate = no_gate,
        on_wait: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(clock, on_wait=on_wait)
        self.db = db
        self.registration = registration
        self.gate = gate
        self._listeners: list[Callable[[], None]] = []
        self.checked = 0
        """Checks finished by this process."""

    # --- the page's side ------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` (quick, no database) each time a check moves on; returns what
        unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def moved(self) -> None:
        """A step of a check was committed: tell the pages."""
        for listener in tuple(self._listeners):
            listener()

    async def request(
        self,
        uow: UnitOfWork,
        username: str,
        *,
        now: dt.datetime,
        words: Words | None = None,
        language: str | None = None,
    ) -> SelfRegistration | CheckState:
        """A logged-in player asks to register: the answer known without Lichess (in
        ``words``, the page's), or their check (queued now, or the one already running; an
        entry made stores ``language`` as theirs). Raises ``OperationError`` outside the
        window. The caller commits, then :meth:`wake` s the loop."""
        settled = await self.registration.settled(username, now=now, words=words)
        if settled is not None:
            return settled
        current = await check_of(uow, username)
        if current is not None and current.running:
            return current
        season = await _open_season(uow)
        state = CheckState(
            username=username, state=QUEUED, requested_at=now, season=season, language=language
        )
        await uow.settings.set(_key(username), state.text())
        return state

    # --- the leader's loop ----------------------------------------------------------------

    async def _queue(self) -> list[CheckState]:
        async with self.db.reads() as uow:
            found = await uow.settings.with_prefix(CHECK_PREFIX)
            season = await _open_season(uow)
        checks = [CheckState.read(text) for text in found.values()]
        # an earlier season's check left running is not this season's to finish; first asked,
        # first read (then by name)
        running = (c for c in checks if c.running and _of_season(c, season))
        return sorted(running, key=lambda c: (c.requested_at, normalise_username(c.username)))

    def store(self, state: CheckState) -> Write:
        """The write that stores ``state``."""

        async def write(uow: UnitOfWork) -> None:
            await uow.settings.set(_key(state.username), state.text())

        return write

    async def next_due(self) -> CheckState | dt.datetime | None:
        """The first check due now; else when the next one waits until (``None``: none)."""
        now = self.clock.now()
        queue = await self._queue()
        due = [c for c in queue if c.not_before is None or c.not_before <= now]
        if due:
            return due[0]
        return min((c.not_before for c in queue if c.not_before), default=None)

    async def steps(self, state: CheckState) -> AsyncGenerator[Write]:
        """One check, as the writes its runner commits one transaction each, Lichess asked
        between them: the check marked as reading, the games read so far as they come, then
        the player entered with the check done, or each reason not (or the check queued again
        when Lichess could not be reached)."""
        state = dataclasses.replace(state, state=READING, games=0, problem=None)
        yield self.store(state)
        loop = asyncio.get_running_loop()
        read = 0
        more = asyncio.Event()

        def on_game() -> None:  # in the client's worker thread
            nonlocal read
            read += 1
            if read % PROGRESS_EVERY == 0:
                loop.call_soon_threadsafe(more.set)

        task = asyncio.create_task(self.registration.check_player(state.username, on_game))
        found: RegistrationCheck | None = None
        result: SelfRegistration | None = None
        problem: str | None = None
        try:
            while not task.done():
                waiter = asyncio.create_task(more.wait())
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if more.is_set():
                    more.clear()
                    state = dataclasses.replace(state, games=read)
                    yield self.store(state)
            found = task.result()
            if found.unreachable:  # not a verdict: asked again when Lichess is back
                problem, found = found.problem, None
            else:
                result = await self.registration.refusal(state.username, found)
        except Exception as e:  # a failure of this check, not of the queue: tried again later
            log.exception("the eligibility check of %s failed", state.username)
            problem, found = talk.check_stopped(e), None
        finally:
            task.cancel()
        now = self.clock.now()
        if found is None:
            queued = dataclasses.replace(
                state, state=QUEUED, games=read, not_before=now + RETRY, problem=problem
            )
            yield self.store(queued)
            return
        if result is None:
            result = SelfRegistration(state.username, True)
        done = dataclasses.replace(
            state,
            state=DONE,
            games=read,
            not_before=None,
            registered=result.registered,
            reasons=result.reasons,
            join_team=result.join_team,
        )
        if not result.registered:
            yield self.store(done)
        else:
            yield self._enter(found, done, now)
        self.checked += 1

    def _enter(self, found: RegistrationCheck, done: CheckState, now: dt.datetime) -> Write:
        """The player entered and the check stored done, in one transaction."""

        async def write(uow: UnitOfWork) -> None:
            await self.registration.enter(
                uow, done.username, found, now=now, language=done.language
            )
            await self.store(done)(uow)

        return write

    async def wait_done(self, usernames: list[str]) -> list[CheckState]:
        """Wait until the checks of ``usernames`` are done (each move wakes this); their last
        states. (The demo waits so for its players; the loop must be running.)"""
        moved = asyncio.Event()
        unsubscribe = self.subscribe(moved.set)
        done: dict[str, CheckState] = {}
        try:
            while True:
                moved.clear()
                async with self.db.reads() as uow:
                    for name in usernames:  # a done check stays done: each is read until then
                        if name in done:
                            continue
                        state = await check_of(uow, name)
                        if state is None or state.running:
                            break  # the rest are read once this one is done
                        done[name] = state
                if len(done) == len(usernames):
                    return [done[name] for name in usernames]
                await moved.wait()
        finally:
            unsubscribe()
