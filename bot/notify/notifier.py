"""The one writer of the outbox: a message goes in with its kind, match and player as columns.

Messages are written in the caller's unit of work, so they commit with the change that caused
them (DESIGN.md: effects go through an outbox); the dispatcher sends them afterwards.

Players are named as they spell their usernames (``Bob``, where the texts have the id ``bob``):
:mod:`bot.notify.spelling`, once, as a message is written.

A DM to a player waits ``[outbox] merge_window_seconds`` before it is due, and a DM to them
written while one waits is due with it: the dispatcher sends every DM due together to one
player as one message (issue 13: a burst of offers, an agreement and its link, a result and the
next pairing reach the player as one DM). An urgent notice (:data:`URGENT`) is due at once and
takes the waiting ones with it. Every notice keeps its own outbox row.
"""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.notify.keys import NoticeKey
from bot.notify.kinds import NEEDS_DECISION, Channel, NoticeKind
from bot.notify.notes import folded_notes
from bot.notify.spelling import spelled
from rules.talk.notices import fit
from storage.models import DeadlineRow, OutboxRow, OutboxStatus
from storage.uow import UnitOfWork

__all__ = ["DIGEST_DEADLINE", "FORUM", "TDS", "URGENT", "Notifier", "next_digest"]

FORUM = "forum"
"""Recipient of forum drafts: the TDs paste them and mark them posted (DESIGN.md)."""
TDS = "tds"
"""Recipient of the TDs' information waiting for the daily digest."""
DIGEST_DEADLINE = "td_digest"
"""The deadline kind of the daily digest (:mod:`bot.service.digest` handles it)."""
URGENT = frozenset({NoticeKind.NO_SHOW_NOTICE, NoticeKind.CLAIM_RIGHT})
"""Notices a player may have to act on within minutes (rules 6.3): they wait for no others."""
MERGED_ALERTS = frozenset({NoticeKind.CHEAT_REPORT})
"""TD alerts that wait for others of their kind, like a player's DMs: a burst of private reports
(rules 7.1) reaches each TD as one message, not one each. A decision's alert takes them along."""
ALERT_WINDOW = dt.timedelta(minutes=10)
"""The longest a private report's alert waits for others."""


def next_digest(now: dt.datetime, at: dt.time) -> dt.datetime:
    """The first digest time (``at``, UTC) after ``now``."""
    due = dt.datetime.combine(now.date(), at, tzinfo=dt.UTC)
    return due if due > now else due + dt.timedelta(days=1)


class Notifier:
    """Queues DMs, TD alerts, forum drafts and team updates (``config``: the TDs and the team)."""

    def __init__(self, config: Config) -> None:
        self._tds = tuple(config.tournament.tds)
        self._team = config.tournament.team
        self._digest_at = config.tournament.digest_time
        self._window = config.outbox.merge_window

    async def as_stored(self, uow: UnitOfWork, body: str) -> str:
        """``body`` as it is stored: the players spelled, cut to a message's length."""
        return fit(await spelled(uow, body, tds=self._tds))

    async def _enqueue(
        self,
        uow: UnitOfWork,
        channel: Channel,
        *,
        now: dt.datetime,
        to: str,
        body: str,
        key: NoticeKey,
        subject: str | None = None,
        player: str | None = None,
        due_at: dt.datetime | None = None,
    ) -> OutboxRow | None:
        """The queued row (``None``: this event's copy to ``to`` is queued already); the
        players in ``body`` are spelled as they spell their usernames."""
        queued = await uow.outbox.enqueue(
            now=now,
            kind=channel.value,
            recipient=to,
            subject=subject,
            body=await self.as_stored(uow, body),
            dedupe_key=key.dedupe(to),
            notice=key.kind.value,
            event=key.event,
            match_id=key.match_id,
            player=key.player if key.player is not None else player,
            due_at=due_at,
        )
        return queued

    async def dm(
        self, uow: UnitOfWork, *, now: dt.datetime, to: str, text: str, key: NoticeKey
    ) -> bool:
        """A DM to a player (``to``: their username or id); the player column names them.

        It is due with the DMs waiting for them, or after the merge window. Returns whether it
        was queued (``False``: this event's DM to them is queued already)."""
        player = to.lower()
        due_at = await self._due(uow, player, now=now, urgent=key.kind in URGENT)
        queued = await self._enqueue(
            uow, Channel.DM, now=now, to=to, body=text, key=key, player=player, due_at=due_at
        )
        return queued is not None

    async def _due(
        self, uow: UnitOfWork, player: str, *, now: dt.datetime, urgent: bool
    ) -> dt.datetime:
        """When a DM to ``player`` written at ``now`` goes out: with the first one waiting for
        them (if it goes within the window), else after the window; an urgent one at once,
        with those waiting."""
        latest = now + self._window
        if urgent:
            await uow.outbox.hurry(Channel.DM.value, player, now, until=latest)
            return now
        if not self._window:
            return now
        waiting = await uow.outbox.waiting(Channel.DM.value, player, now)
        return waiting if waiting is not None and waiting <= latest else latest

    async def dm_player(
        self, uow: UnitOfWork, *, now: dt.datetime, player: str, text: str, key: NoticeKey
    ) -> bool:
        """A DM to a registered player by id, addressed with their username as registered."""
        row = await uow.players.get(player)
        return await self.dm(
            uow, now=now, to=row.username if row is not None else player, text=text, key=key
        )

    async def td_alert(
        self, uow: UnitOfWork, *, now: dt.datetime, text: str, key: NoticeKey
    ) -> None:
        """One DM to each TD (DESIGN.md) for a decision (:data:`NEEDS_DECISION`), carrying the
        notes that wait for the daily digest; anything else waits for that digest. A repeated
        event queues nothing."""
        if key.kind not in NEEDS_DECISION:
            await self.td_note(uow, now=now, text=text, key=key)
            return
        rows = []
        merged = key.kind in MERGED_ALERTS
        text = await spelled(uow, text, tds=self._tds)
        for td in self._tds:
            due_at = await self._alert_due(uow, td, now=now, merged=merged)
            row = await self._enqueue(
                uow, Channel.TD_ALERT, now=now, to=td, body=text, key=key, due_at=due_at
            )
            if row is not None:
                rows.append(row)
        if not rows or merged:
            return
        # The TDs read this message anyway: the notes that wait for the digest go with it (the
        # digest then has fewer or none to send). They stay on the desk's "recent" list.
        body, carried = folded_notes(fit(text), await uow.outbox.notes_pending())
        for row in rows:
            row.body = body
        for note in carried:
            note.status, note.sent_at = OutboxStatus.SENT, now

    async def _alert_due(
        self, uow: UnitOfWork, td: str, *, now: dt.datetime, merged: bool
    ) -> dt.datetime:
        """When an alert to ``td`` goes: a merged one with the first one waiting (within
        :data:`ALERT_WINDOW`), else after the window; any other at once, taking the waiting
        ones with it."""
        latest = now + ALERT_WINDOW
        if not merged:
            await uow.outbox.hurry(Channel.TD_ALERT.value, td, now, until=latest)
            return now
        waiting = await uow.outbox.waiting(Channel.TD_ALERT.value, td, now)
        return waiting if waiting is not None and waiting <= latest else latest

    async def td_note(
        self, uow: UnitOfWork, *, now: dt.datetime, text: str, key: NoticeKey
    ) -> None:
        """Information for the TDs: kept for the next daily digest (and the desk's "recent"
        list), which is scheduled if it is not yet."""
        await self._enqueue(uow, Channel.TD_NOTE, now=now, to=TDS, body=text, key=key)
        await self.schedule_digest(uow, now=now)

    async def schedule_digest(
        self, uow: UnitOfWork, *, now: dt.datetime, at_once: bool = False
    ) -> None:
        """Make sure the daily digest job has its next run (one open row at a time); with
        ``at_once`` that run is now (a stage just started: its first round may go out today)."""
        due = now if at_once else next_digest(now, self._digest_at)
        row = await uow.deadlines.open_of_kind(DIGEST_DEADLINE)
        if row is None:
            await uow.deadlines.add(
                DeadlineRow(
                    kind=DIGEST_DEADLINE, due_at=due, subject="", payload={}, created_at=now
                )
            )
        elif due < row.due_at:
            row.due_at = due

    async def forum(
        self, uow: UnitOfWork, *, now: dt.datetime, subject: str, body: str, key: NoticeKey
    ) -> None:
        """A forum post for the TDs to paste (never sent by the bot)."""
        await self._enqueue(
            uow, Channel.FORUM_DRAFT, now=now, to=FORUM, body=body, key=key, subject=subject
        )

    async def team_update(
        self, uow: UnitOfWork, *, now: dt.datetime, subject: str, body: str, key: NoticeKey
    ) -> None:
        """A message to every member of ``tournament.team``; nothing when no team is set.

        Lichess shows it in the team's feed to the members who did not unsubscribe, not as a
        DM (``TeamMsgApi``): an announcement only. Every notice a player must read or act on
        (their pairing among them) goes by DM as well, never by the team update alone."""
        if self._team:
            await self._enqueue(
                uow,
                Channel.TEAM_UPDATE,
                now=now,
                to=self._team,
                body=body,
                key=key,
                subject=subject,
            )
