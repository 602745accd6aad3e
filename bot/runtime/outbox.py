"""Delivers what the outbox holds: DMs, TD alerts and team updates (DESIGN.md: effects go through
an outbox).

Each message is written in the same transaction as the change that caused it; this dispatcher sends
it and marks it sent in a transaction of its own right after Lichess accepts it. A crash between
those two steps is the only way a message can go out twice. Forum drafts are not sent: they wait
for a TD to paste them and mark them posted.

Messages due together to one recipient go out as one DM (a round's pairing and a reminder, say;
:class:`bot.notify.Notifier` makes a player's DMs written within ``[outbox]
merge_window_seconds`` due together), each notice keeping its row; with ``dm_per_minute`` (the
service's: lila's 20 replies a minute) no more DMs than that go out in a minute, a DM with a
link counting twice (lila halves the budget for them): the rest wait for the minute to pass,
rather than meet a 429.
A failure is classed by what Lichess said, per recipient, never for the whole queue:

* ``InboxLimitedError`` (429 from ``/inbox``: the bot's message budget) holds that recipient's
  messages until the next plausible reset: a minute when the bot has written to them before
  (a reply: lila's budget per minute), else 1 h, then longer, up to a day (a new conversation:
  the budget per day); nothing else waits. A notice still held after :data:`LIMIT_GIVE_UP`
  is marked failed and the TDs are told.
* ``MessageRefusedError`` (400: the player refuses the bot's messages) fails those messages at
  once, marks the player ``dm-refused:<player>`` in ``lichess_holds`` and tells the TDs (one alert
  a player a day) what the player missed; it is in their match room.
* ``AuthorizationError`` (401/403: the token is bad or lacks ``msg:write``/``team:lead``) stops
  the outbox: the ``outbox`` hold names the error for the TDs (desk, ``acwc doctor``), nothing is
  marked, and the next start-up whose token check passes lifts it.
* Lichess unreachable or failing (a transport error, a 5xx) is an outage, not a refusal: the
  messages wait, tried again at least every :data:`OUTAGE_RETRY_CAP`, however long it lasts,
  and go out when Lichess is back; once it has lasted :data:`LATE_AFTER`, the TDs get a note
  (once an outage) that they are late, not lost.
* Anything else is retried with backoff (a global 429 already waited in the client) and fails
  after :data:`MAX_ATTEMPTS`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from bot.notify.kinds import SENDABLE, Channel, OutboxStatus
from bot.runtime.clock import Clock
from bot.runtime.deadlines import Gate, no_gate
from bot.runtime.wakeup import WaitingLoop
from rules.talk.spelling import as_lichess_message
from storage.db import Database, broken_connection
from storage.models import OutboxRow
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

SENDABLE_KINDS = tuple(c.value for c in SENDABLE)
PERSONAL_KINDS = tuple(c.value for c in SENDABLE if c is not Channel.TEAM_UPDATE)
MAX_ATTEMPTS = 8
BATCH = 20
RETRY_BASE = dt.timedelta(seconds=30)
RETRY_CAP = dt.timedelta(hours=1)
POLL = dt.timedelta(seconds=30)
"""With the wall clock, look at the outbox at least this often: a TD command run in another
process queues messages without waking this one."""
OUTAGE_RETRY_CAP = dt.timedelta(minutes=5)
"""While Lichess is unreachable, each waiting message is tried again at least this often."""
LATE_AFTER = dt.timedelta(minutes=15)
"""An outage this long gets the TDs' note that messages are late (not lost)."""
LIMIT_DELAYS = tuple(dt.timedelta(hours=h) for h in (1, 2, 4, 8, 16, 24))
"""After the n-th 429 from ``/inbox``, hold that recipient's messages this long (lila's message
budget is a window of a day that opened at an unknown time)."""
REPLY_DELAY = dt.timedelta(minutes=1)
"""After a 429 on a conversation that exists: lila's reply budget is per minute."""
DM_PER_MINUTE = 20
"""lila's budget of replies a minute for an ordinary account (``MsgSecurity``)."""
PACE = dt.timedelta(minutes=1)
LIMIT_GIVE_UP = dt.timedelta(hours=25)
"""A notice still held by the message budget this long after it was written (so a whole window
has passed) is marked failed and the TDs are told."""
MERGE_LIMIT = 8000
"""The longest DM Lichess takes; merged notices stay under it."""
MERGE_SEPARATOR = "\n\n---\n\n"
"""Between merged notices: a rule line a reader sees and a test can split on."""
ORIGIN = "outbox-dispatcher"
"""The dispatcher's writes (``Database.uow(origin=...)``): it looks at the outbox again after
them, so they need not wake it (``TableChanges.version(besides=...)``)."""
DOUBT_LOOK = 0.25
"""While a previous leader's claims stay its own, look again this often (real seconds)."""
RECORD_ATTEMPTS = 3
"""Tries to record a message Lichess took, each on a new connection after a broken one."""
OUTBOX_HOLD = "outbox"
REFUSED_HOLD = "dm-refused:"


class Messenger(Protocol):
    async def send_dm(self, username: str, text: str) -> None: ...

    async def team_update(self, team: str, text: str) -> None: ...


class UndeliveredReporter(Protocol):
    async def undelivered(
        self, uow: UnitOfWork, *, now: dt.datetime, rows: Sequence[OutboxRow], why: str
    ) -> None: ...

    async def late(
        self, uow: UnitOfWork, *, now: dt.datetime, since: dt.datetime, waiting: int
    ) -> None: ...


def _status(error: BaseException) -> int | None:
    status = getattr(error, "status", None)
    return status if isinstance(status, int) else None


def _recipient_failure(error: BaseException) -> str | None:
    """``refused`` or ``limited`` when the error is about one recipient (the Lichess adapter's
    errors say so in ``recipient_failure``; the runtime sits below the adapter)."""
    value = getattr(error, "recipient_failure", None)
    return value if isinstance(value, str) else None


def is_permanent(error: BaseException) -> bool:
    """A 4xx other than 429 will not go better by retrying (unknown user, blocked, bad text),
    nor a team update lila redirected (303: the bot lacks the team's "Updates" permission)."""
    status = _status(error)
    return status is not None and (400 <= status < 500 or status == 303) and status != 429


def is_refused(error: BaseException) -> bool:
    return _recipient_failure(error) == "refused"


def is_limited(error: BaseException) -> bool:
    return _recipient_failure(error) == "limited"


def is_unauthorised(error: BaseException) -> bool:
    return _status(error) in (401, 403)


_LINK = re.compile(r"(https?://|www\.)\S|\b[a-z0-9-]+\.(org|com|net|io|tv)/", re.IGNORECASE)


def has_link(text: str) -> bool:
    """Whether lila would see a link in ``text`` (an address with a scheme, ``www.``, or a
    domain followed by a path): such a DM costs twice as much of the bot's budget."""
    return _LINK.search(text) is not None


def message_cost(group: Sequence[OutboxRow]) -> int:
    """What one message made of ``group`` costs of the per-minute budget: 2 with a link."""
    return 2 if any(has_link(r.body) for r in group) else 1


def is_outage(error: BaseException) -> bool:
    """Lichess unreachable or failing (no HTTP status, or a 5xx): retrying will help."""
    status = _status(error)
    return status is None or status >= 500


def retry_delay(attempts: int) -> dt.timedelta:
    delay: dt.timedelta = min(RETRY_BASE * 2 ** min(max(attempts - 1, 0), 16), RETRY_CAP)
    return delay


def limit_delay(limited: int) -> dt.timedelta:
    """How long to hold a recipient's messages after their ``limited``-th 429."""
    return LIMIT_DELAYS[min(max(limited, 1), len(LIMIT_DELAYS)) - 1]


def merge(rows: Sequence[OutboxRow], limit: int = MERGE_LIMIT) -> list[list[OutboxRow]]:
    """Split ``rows`` into groups whose bodies, joined, fit one message of ``limit``: a DM or
    TD alert merges with the next ones to the same recipient; a team update goes alone."""
    groups: list[list[OutboxRow]] = []
    open_: dict[tuple[str, str], list[OutboxRow]] = {}
    for row in rows:
        key = (str(row.kind), row.recipient.lower())
        group = open_.get(key) if row.kind is not Channel.TEAM_UPDATE else None
        if group is not None:
            length = sum(len(r.body) for r in group) + len(MERGE_SEPARATOR) * len(group)
            if length + len(row.body) <= limit:
                group.append(row)
                continue
        group = [row]
        groups.append(group)
        open_[key] = group
    return groups


def _retry_or_give_up(
    stored: OutboxRow, error: BaseException, *, now: dt.datetime, reply: bool
) -> str | None:
    """After a failed send of ``stored``: its next attempt set (None returned), or it marked
    failed, and then why in the TDs' words ("": Lichess refused it). ``reply``: the player
    already had a message of this kind (a spent budget is then tried again sooner)."""
    if is_refused(error):
        stored.status = OutboxStatus.FAILED
        return "the player does not accept messages from the bot"
    if is_limited(error):
        if now - stored.created_at >= LIMIT_GIVE_UP:
            stored.status = OutboxStatus.FAILED
            return "the bot's daily message budget kept it back for a day"
        stored.next_attempt_at = now + (REPLY_DELAY if reply else limit_delay(stored.attempts))
        return None
    if is_outage(error):  # late, never lost: tried again when Lichess is back
        stored.next_attempt_at = now + min(retry_delay(stored.attempts), OUTAGE_RETRY_CAP)
        return None
    if is_permanent(error) or stored.attempts >= MAX_ATTEMPTS:
        stored.status = OutboxStatus.FAILED
        return ""
    stored.next_attempt_at = now + retry_delay(stored.attempts)
    return None


class OutboxDispatcher(WaitingLoop):
    def __init__(
        self,
        db: Database,
        messenger: Messenger,
        clock: Clock,
        *,
        watch: Callable[[], object] | None = None,
        on_wait: Callable[[], None] | None = None,
        alerts: UndeliveredReporter | None = None,
        dm_per_minute: int | None = None,
        gate: Gate = no_gate,
        may_act: Callable[[], str | None] = lambda: None,
        doubt_left: Callable[[], float] = lambda: 0.0,
    ) -> None:
        """``watch`` says cheaply what the outbox table looks like (a count of this process's
        commits to it), so :meth:`wake_if_changed` wakes only for a change; ``on_wait`` is
        called each time the dispatcher has done what was due and goes to wait; ``alerts``
        tells the TDs of a player's notice that could not be delivered; ``dm_per_minute``
        paces the DMs (``None``: no pacing); ``gate`` is entered around each message's claim,
        sending and record (:class:`~bot.runtime.deadlines.DeadlineRunner`'s); ``may_act``
        says why this process may not act now (``None``: it may), asked again between a claim
        and its call to Lichess; ``doubt_left`` how long rows a previous leader claimed stay
        its own (:meth:`bot.runtime.leader.Leadership.doubt_left`)."""
        super().__init__(clock, watch=watch, on_wait=on_wait)
        self.db = db
        self.gate = gate
        self.may_act = may_act
        self.doubt_left = doubt_left
        self.messenger = messenger
        self.alerts = alerts
        self.sent = 0
        """Notices sent, all told."""
        self.messages = 0
        """Messages Lichess accepted (merged notices count once)."""
        self.stopped: str | None = None
        self.dm_per_minute = dm_per_minute
        self._recent: deque[tuple[dt.datetime, int]] = deque()
        """The DMs of the last minute: when, and what each cost of the budget."""
        self._refusing: set[str] = set()
        self._refusing_read = False
        self.outage_since: dt.datetime | None = None
        """When Lichess stopped answering (``None``: it answers)."""
        self._late_told = False
        self._outage_tries = 0
        self.next_attempt: dt.datetime | None = None
        """When the first message not yet due is, as the last :meth:`deliver_due` found it
        (valid while ``_next_known``)."""
        self._next_known = False
        self._hold_read = False

    async def _send(self, group: Sequence[OutboxRow]) -> None:
        row = group[0]
        # Lichess shows a message as plain text: a `command` goes as "command"
        body = as_lichess_message(MERGE_SEPARATOR.join(r.body for r in group))
        if row.kind is Channel.TEAM_UPDATE:
            await self.messenger.team_update(row.recipient, body)
        else:
            await self.messenger.send_dm(row.recipient, body)

    async def is_stopped(self) -> str | None:
        """Why the outbox is stopped (Lichess refused the token), or ``None``."""
        async with self.db.reads() as uow:
            hold = await uow.holds.get(OUTBOX_HOLD)
        self.stopped = None if hold is None else (hold.reason or "stopped")
        return self.stopped

    async def deliver_due(self) -> int:
        """Send every due message once; returns how many went out.

        The look at what is due also reads, when it holds every due message, when the first
        one not yet due is: once all of them went out, that is when :meth:`run` looks again
        (:attr:`next_attempt`), without a read of its own. Whether the outbox is stopped is
        read on the first look and while it is stopped: only this dispatcher stops it (a
        start-up lifts it, in any process)."""
        sent = 0
        self._next_known = False
        while True:
            looked = await self._look()
            if looked is None:
                return sent
            due, batch, later = looked
            due = self._not_in_doubt(due)
            if due:  # one fenced claim for the whole batch (one round trip, not one a DM)
                async with self.gate():
                    due = await self._claim(due)
            if not due:
                self.next_attempt, self._next_known = later, True
                return sent
            count, done, failed = await self._deliver_batch(due)
            sent += count
            self.sent += count
            if done:
                return sent
            if batch < BATCH:
                # That was every message due when we looked; one queued since woke us and
                # is sent on the next round of run(). Each went out (a failure set a later
                # attempt: read again), so the next is the first that was not due.
                self.next_attempt, self._next_known = later, not failed
                return sent

    async def _look(self) -> tuple[list[OutboxRow], int, dt.datetime | None] | None:
        """What is due now (a batch, with whatever else is due to the same people), how many the
        batch held, and when the first message not yet due is (when the batch held them all);
        None while the outbox is stopped."""
        async with self.db.reads() as uow:
            if self.stopped is not None or not self._hold_read:
                hold = await uow.holds.get(OUTBOX_HOLD)
                self.stopped = None if hold is None else (hold.reason or "stopped")
                self._hold_read = True
            if self.stopped is not None:
                return None
            now = self.clock.now()
            due, later = await uow.outbox.due_and_later(now, kinds=SENDABLE_KINDS, limit=BATCH)
            batch = len(due)
            later = later if batch < BATCH else None
            # and whatever else is due to the same people, so it goes in the same message
            taken = {r.id for r in due}
            due += [
                r
                for r in await uow.outbox.due_to(
                    {r.recipient for r in due if r.kind is not Channel.TEAM_UPDATE},
                    now,
                    kinds=PERSONAL_KINDS,
                )
                if r.id not in taken
            ]
        return due, batch, later

    async def _deliver_batch(self, due: list[OutboxRow]) -> tuple[int, bool, bool]:
        """Send the claimed ``due``, merged into one message per person: how many went out,
        whether this look is over (paced, stopped, or Lichess down) and whether one failed."""
        sent, failed = 0, False
        groups = merge(sorted(due, key=lambda r: r.id))
        for n, group in enumerate(groups):
            if group[0].kind is not Channel.TEAM_UPDATE and await self._paced(group):
                return sent, True, failed
            if self.may_act() is not None:  # lost since the claim: the rest go back
                await self._unclaim([r for g in groups[n:] for r in g])
            async with self.gate():  # (which stops this loop if lost)
                error = await self._try_send(group)
                if error is None:
                    sent += await self._sent(group)
                elif is_unauthorised(error):
                    await self._stop(error)
                    return sent, True, failed
                else:
                    await self._failed(group, error)
                    failed = True
                    if is_outage(error):  # Lichess is down: the rest wait with this one
                        await self._hold_during_outage()
                        return sent, True, failed
        return sent, False, failed

    async def _try_send(self, group: Sequence[OutboxRow]) -> BaseException | None:
        """Send ``group`` as one message: the failure, or None."""
        try:
            await self._send(group)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # delivery failures are recorded, never fatal
            return e
        return None

    async def _claim(self, group: list[OutboxRow]) -> list[OutboxRow]:
        """The rows of ``group`` claimed to be sent under this process's leadership epoch, in
        one fenced statement (:mod:`storage.fence`): none when another process leads, and not
        those sent meanwhile; without fencing (SQLite) all of them, and no statement."""
        if self.db.fence.epoch is None:
            return group
        async with self.db.one_write(origin=ORIGIN) as uow:
            claimed = await uow.claims.outbox([r.id for r in group])
            await uow.commit()
        return [r for r in group if r.id in claimed]

    def _not_in_doubt(self, due: list[OutboxRow]) -> list[OutboxRow]:
        """``due`` without the rows a previous leader claimed while they are still its own
        (:attr:`doubt_left`): it may have sent them, and records so when it wakes. A look
        again is rung for when that may have happened."""
        epoch = self.db.fence.epoch
        if epoch is None or not any(r.claim_epoch not in (None, epoch) for r in due):
            return due
        left = self.doubt_left()
        if left <= 0:
            return due
        asyncio.get_running_loop().call_later(min(left, DOUBT_LOOK), self.wakeup.ring)
        return [r for r in due if r.claim_epoch in (None, epoch)]

    async def _unclaim(self, rows: Sequence[OutboxRow]) -> None:
        """Give back rows claimed but not sent: the next leader need not wait for them."""
        ids = [r.id for r in rows]
        await self._record(lambda uow: uow.claims.give_back_outbox(ids))

    async def _record(self, write: Callable[[UnitOfWork], Awaitable[int]]) -> int:
        """One statement that records what happened (``write``), on a new connection after a
        broken one: a process frozen while the lead passed finds its sessions ended."""
        for attempt in range(RECORD_ATTEMPTS):
            try:
                async with self.db.one_write(origin=ORIGIN) as uow:
                    done = await write(uow)
                    await uow.commit()
                return done
            except Exception as e:
                if not broken_connection(e) or attempt + 1 == RECORD_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    async def _paced(self, group: Sequence[OutboxRow]) -> bool:
        """Whether this minute's DM budget cannot pay for ``group``'s message (one with a link
        costs two: lila's ``MsgSecurity`` doubles it); if so, every due DM waits for the
        minute to pass."""
        if self.dm_per_minute is None:
            return False
        now = self.clock.now()
        while self._recent and self._recent[0][0] <= now - PACE:
            self._recent.popleft()
        spent = sum(cost for _, cost in self._recent)
        if not self._recent or spent + message_cost(group) <= self.dm_per_minute:
            return False
        async with self.db.uow(origin=ORIGIN) as uow:
            until = self._recent[0][0] + PACE
            await uow.notices.defer_due((Channel.DM, Channel.TD_ALERT), now, until)
            await uow.commit()
        return True

    async def _sent(self, group: Sequence[OutboxRow]) -> int:
        self.messages += 1
        if self.outage_since is not None:
            log.info("Lichess is back: the waiting messages go out")
        self.outage_since, self._late_told, self._outage_tries = None, False, 0
        if group[0].kind is not Channel.TEAM_UPDATE:
            self._recent.append((self.clock.now(), message_cost(group)))
        ids = [row.id for row in group]
        recipient = group[0].recipient.lower()
        kind = group[0].kind
        if kind is Channel.DM and not self._refusing_read:
            async with self.db.reads() as uow:
                await self._refused(uow)
        if kind is not Channel.TEAM_UPDATE and (
            kind is not Channel.DM or recipient not in self._refusing
        ):
            # the usual case, one statement: on PostgreSQL no transaction around it. Lichess took
            # it: that is recorded even after a broken connection (a process frozen while the
            # lead passed finds its sessions ended), on a new one.
            return await self._record(
                lambda uow: uow.outbox.mark_all_sent(ids, at=self.clock.now())
            )
        async with self.db.uow(origin=ORIGIN) as uow:
            marked = await uow.outbox.mark_all_sent(ids, at=self.clock.now())
            if kind is Channel.DM and recipient in await self._refused(uow):
                await uow.holds.clear(REFUSED_HOLD + recipient)  # they take DMs again
                self._refusing.discard(recipient)
            if group[0].kind is Channel.TEAM_UPDATE:  # and the notices it carried
                await uow.notices.team_sent(group[0].created_at, at=self.clock.now())
            await uow.commit()
        return marked

    async def _refused(self, uow: UnitOfWork) -> set[str]:
        """Who refuses the bot's DMs (read once; this dispatcher keeps it up to date)."""
        if not self._refusing_read:
            held = await uow.holds.named(REFUSED_HOLD)
            self._refusing.update(h.name.removeprefix(REFUSED_HOLD) for h in held)
            self._refusing_read = True
        return self._refusing

    async def _stop(self, error: BaseException) -> None:
        reason = f"Lichess refused the bot's token: {error}"[:500]
        log.error("outbox stopped: %s", reason)
        self.stopped = reason
        async with self.db.uow(origin=ORIGIN) as uow:
            await uow.holds.put(OUTBOX_HOLD, since=self.clock.now(), reason=reason)
            await uow.commit()

    async def _failed(self, group: Sequence[OutboxRow], error: BaseException) -> None:
        now = self.clock.now()
        note = f"{type(error).__name__}: {error}"[:500]
        given_up: list[OutboxRow] = []
        why = "Lichess refused it"
        async with self.db.uow(origin=ORIGIN) as uow:
            reply = is_limited(error) and await uow.notices.has_sent(
                group[0].kind, group[0].recipient
            )
            rows = [await uow.outbox.get(r.id) for r in group]
            for stored in rows:
                if stored is None or stored.status is not OutboxStatus.PENDING:
                    continue
                stored.attempts += 1
                stored.last_error = note
                gave_up = _retry_or_give_up(stored, error, now=now, reply=reply)
                if gave_up is not None:
                    given_up.append(stored)
                    why = gave_up or why
            row = group[0]
            if is_limited(error):
                held = [r.next_attempt_at for r in rows if r is not None and r.next_attempt_at]
                if held:
                    await uow.notices.defer(row.kind, row.recipient, max(held))
                log.info("message budget: %s's messages held", row.recipient)
            if is_refused(error):
                await uow.holds.put(REFUSED_HOLD + row.recipient.lower(), since=now, reason=note)
            if is_outage(error):
                await self._outage(uow, now)
            if given_up:
                await self._given_up(uow, row, given_up, error, why=why, now=now)
            await uow.commit()

    async def _given_up(
        self,
        uow: UnitOfWork,
        row: OutboxRow,
        given_up: list[OutboxRow],
        error: BaseException,
        *,
        why: str,
        now: dt.datetime,
    ) -> None:
        """Messages that will not go out: a team message's notices go by DM instead, and the
        TDs hear of the others in their digest."""
        if row.kind is Channel.TEAM_UPDATE:  # its notices go by DM instead
            await uow.notices.uncover(row.created_at, now=now)
        log.warning("outbox to %s failed: %s", row.recipient, error)
        if self.alerts is not None and row.kind is not Channel.TD_ALERT:
            await self.alerts.undelivered(uow, now=now, rows=given_up, why=why)

    async def _hold_during_outage(self) -> None:
        """Hold every due message until the next try (backing off to
        :data:`OUTAGE_RETRY_CAP`): while Lichess is down one message at a time asks it."""
        self._outage_tries += 1
        now = self.clock.now()
        until = now + min(retry_delay(self._outage_tries), OUTAGE_RETRY_CAP)
        async with self.db.uow(origin=ORIGIN) as uow:
            await uow.notices.defer_due(SENDABLE, now, until)
            await uow.commit()
        self._next_known = False

    async def _outage(self, uow: UnitOfWork, now: dt.datetime) -> None:
        """Note the outage; once it has lasted :data:`LATE_AFTER`, tell the TDs (once) that
        the waiting messages are late, not lost."""
        if self.outage_since is None:
            self.outage_since = now
            log.warning("Lichess unreachable: messages wait until it is back")
        if self._late_told or now - self.outage_since < LATE_AFTER or self.alerts is None:
            return
        self._late_told = True
        waiting = await uow.outbox.count_due(now + OUTAGE_RETRY_CAP, kinds=SENDABLE_KINDS)
        await self.alerts.late(uow, now=now, since=self.outage_since, waiting=waiting)

    async def _next_retry(self) -> dt.datetime | None:
        # One MIN() rather than loading every pending row: forum drafts stay pending until a TD
        # marks them posted, so over a season that list grows with every round.
        async with self.db.reads() as uow:
            return await uow.outbox.next_retry(SENDABLE_KINDS)

    async def run(self) -> None:
        self._hold_read = False  # another leader may have stopped it meanwhile
        while True:
            self.wakeup.looking()
            await self.deliver_due()
            # Stopped (a bad token): wait to be woken, or (wall clock) look again in a while.
            if self.stopped is not None:
                when = None
            elif self._next_known:
                when = self.next_attempt
            else:
                when = await self._next_retry()
            await self.idle(when, poll=POLL)
