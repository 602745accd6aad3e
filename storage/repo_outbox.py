"""The outbox's repository: every message the bot queued, sent, failed or drafted."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from sqlalchemy import and_, bindparam, func, or_, select, update

from storage.models import Channel, OutboxRow, OutboxStatus
from storage.repositories import _Repository

__all__ = ["OutboxRepository"]

_OUTBOX_KEY_TAKEN = select(OutboxRow.id).where(OutboxRow.dedupe_key == bindparam("key")).limit(1)
_DUE = (
    OutboxRow.status == OutboxStatus.PENDING,
    OutboxRow.kind.in_(bindparam("kinds", expanding=True)),
    or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at <= bindparam("now")),
)
_OUTBOX_DUE = select(OutboxRow).where(*_DUE).order_by(OutboxRow.id).limit(bindparam("limit"))
_OUTBOX_MARK_SENT = (
    update(OutboxRow)
    .where(
        OutboxRow.id.in_(bindparam("row_ids", expanding=True)),
        OutboxRow.status == OutboxStatus.PENDING,
    )
    .values(
        status=OutboxStatus.SENT,
        sent_at=bindparam("sent_at", type_=OutboxRow.__table__.c.sent_at.type),
        last_error=None,
        attempts=OutboxRow.attempts + 1,
    )
)
_OUTBOX_NEXT_RETRY = select(func.min(OutboxRow.next_attempt_at)).where(
    OutboxRow.status == OutboxStatus.PENDING,
    OutboxRow.kind.in_(bindparam("kinds", expanding=True)),
)
_OUTBOX_NEXT_AFTER = _OUTBOX_NEXT_RETRY.where(OutboxRow.next_attempt_at > bindparam("now"))
# What is due and when the first message not yet due is, in one statement: the earliest later
# time (a one-row aggregate) joined to the due rows, so that it comes back when none is due.
_LATER = _OUTBOX_NEXT_AFTER.with_only_columns(
    func.min(OutboxRow.next_attempt_at).label("later")
).subquery("later")
_OUTBOX_DUE_AND_LATER = (
    select(OutboxRow, _LATER.c.later)
    .select_from(_LATER)
    .outerjoin(OutboxRow, and_(*_DUE))
    .order_by(OutboxRow.id)
    .limit(bindparam("limit"))
)


class OutboxRepository(_Repository):
    async def enqueue(
        self,
        *,
        now: dt.datetime,
        kind: str,
        recipient: str,
        body: str,
        subject: str | None = None,
        dedupe_key: str | None = None,
        notice: str | None = None,
        event: str | None = None,
        match_id: int | None = None,
        player: str | None = None,
        due_at: dt.datetime | None = None,
    ) -> OutboxRow | None:
        """Queue a message, due at ``due_at`` (default ``now``); with ``dedupe_key`` a second
        identical request queues nothing.

        ``notice``, ``event``, ``match_id`` and ``player`` say what it reports (bot.notify)."""
        if dedupe_key is not None:
            existing = await self.session.execute(_OUTBOX_KEY_TAKEN, {"key": dedupe_key})
            if existing.first() is not None:
                return None
        row = OutboxRow(
            created_at=now,
            kind=kind,
            recipient=recipient,
            subject=subject,
            body=body,
            dedupe_key=dedupe_key,
            notice=notice,
            event=event,
            match_id=match_id,
            player=player,
            status=OutboxStatus.PENDING,
            attempts=0,
            next_attempt_at=now if due_at is None else due_at,
        )
        self.session.add(row)
        await self.session.flush()
        return row

    async def due(
        self, now: dt.datetime, *, kinds: Sequence[str], limit: int = 50
    ) -> Sequence[OutboxRow]:
        result = await self.session.execute(
            _OUTBOX_DUE, {"now": now, "kinds": list(kinds), "limit": limit}
        )
        return result.scalars().all()

    async def due_and_later(
        self, now: dt.datetime, *, kinds: Sequence[str], limit: int = 50
    ) -> tuple[list[OutboxRow], dt.datetime | None]:
        """What :meth:`due` gives, and when the first pending message of ``kinds`` not yet
        due at ``now`` is due, in one round trip: the outbox's loop looks after every batch
        (on PostgreSQL each statement is one)."""
        result = await self.session.execute(
            _OUTBOX_DUE_AND_LATER, {"now": now, "kinds": list(kinds), "limit": limit}
        )
        rows = result.all()
        later: dt.datetime | None = rows[0].later if rows else None
        return [row for row, _ in rows if row is not None], later

    async def due_to(
        self, recipients: Iterable[str], now: dt.datetime, *, kinds: Sequence[str]
    ) -> Sequence[OutboxRow]:
        """Every pending message of ``kinds`` due at ``now`` to one of ``recipients`` (any
        case), oldest first: what goes out with a batch's messages to them."""
        lowered = sorted({r.lower() for r in recipients})
        if not lowered:
            return []
        result = await self.session.execute(
            select(OutboxRow)
            .where(
                OutboxRow.status == OutboxStatus.PENDING,
                OutboxRow.kind.in_(list(kinds)),
                func.lower(OutboxRow.recipient).in_(lowered),
                or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at <= now),
            )
            .order_by(OutboxRow.id)
        )
        return result.scalars().all()

    async def waiting(self, kind: str, recipient: str, now: dt.datetime) -> dt.datetime | None:
        """When the first message of ``kind`` to ``recipient`` (any case) that was never tried
        and waits beyond ``now`` (for others to merge with it) goes out; ``None``: none."""
        value: dt.datetime | None = await self.session.scalar(
            select(func.min(OutboxRow.next_attempt_at)).where(
                OutboxRow.status == OutboxStatus.PENDING,
                OutboxRow.kind == kind,
                func.lower(OutboxRow.recipient) == recipient.lower(),
                OutboxRow.attempts == 0,
                OutboxRow.next_attempt_at > now,
            )
        )
        return value

    async def hurry(
        self, kind: str, recipient: str, now: dt.datetime, *, until: dt.datetime
    ) -> int:
        """The messages of ``kind`` to ``recipient`` (any case) never tried and waiting until
        ``until`` at the latest go at ``now`` (with an urgent one); a message held longer (a
        retry, the message budget) stays held."""
        result = await self.session.execute(
            update(OutboxRow)
            .where(
                OutboxRow.status == OutboxStatus.PENDING,
                OutboxRow.kind == kind,
                func.lower(OutboxRow.recipient) == recipient.lower(),
                OutboxRow.attempts == 0,
                OutboxRow.next_attempt_at > now,
                OutboxRow.next_attempt_at <= until,
            )
            .values(next_attempt_at=now)
        )
        return int(getattr(result, "rowcount", 0) or 0)

    async def get(self, row_id: int) -> OutboxRow | None:
        return await self.session.get(OutboxRow, row_id)

    async def alerts(
        self,
        *,
        notice: str | None = None,
        except_notice: str | None = None,
        with_notes: Sequence[str] = (),
    ) -> Sequence[OutboxRow]:
        """TD alerts (one row per TD), oldest first: of one notice kind, or all but one; with the
        TD notes of the notice kinds ``with_notes`` (rulings the TDs may overrule)."""
        query = select(OutboxRow).where(
            or_(
                OutboxRow.kind == Channel.TD_ALERT,
                and_(OutboxRow.kind == Channel.TD_NOTE, OutboxRow.notice.in_(list(with_notes))),
            )
            if with_notes
            else OutboxRow.kind == Channel.TD_ALERT
        )
        if notice is not None:
            query = query.where(OutboxRow.notice == notice)
        if except_notice is not None:
            query = query.where(or_(OutboxRow.notice.is_(None), OutboxRow.notice != except_notice))
        result = await self.session.execute(query.order_by(OutboxRow.id))
        return result.scalars().all()

    async def count_due(self, now: dt.datetime, *, kinds: Sequence[str]) -> int:
        """Pending messages of ``kinds`` due at ``now``."""
        result = await self.session.execute(
            select(func.count())
            .select_from(OutboxRow)
            .where(
                OutboxRow.status == OutboxStatus.PENDING,
                OutboxRow.kind.in_(list(kinds)),
                or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at <= now),
            )
        )
        return int(result.scalar_one())

    async def oldest_pending(self, kinds: Sequence[str]) -> dt.datetime | None:
        """When the oldest message of ``kinds`` still undelivered was queued (``/healthz``)."""
        value: dt.datetime | None = await self.session.scalar(
            select(func.min(OutboxRow.created_at)).where(
                OutboxRow.status == OutboxStatus.PENDING, OutboxRow.kind.in_(list(kinds))
            )
        )
        return value

    async def mark_all_sent(self, row_ids: Sequence[int], *, at: dt.datetime) -> int:
        """Mark the messages of ``row_ids`` that are still pending sent, in one statement; how
        many were."""
        result = await self.session.execute(
            _OUTBOX_MARK_SENT, {"row_ids": list(row_ids), "sent_at": at}
        )
        return int(getattr(result, "rowcount", 0) or 0)

    async def next_retry(self, kinds: Sequence[str]) -> dt.datetime | None:
        """When the earliest pending message of ``kinds`` is due (``None``: nothing to send).

        One MIN() rather than loading every pending row: forum drafts stay pending until a TD
        marks them posted, so over a season that list grows with every round."""
        value: dt.datetime | None = await self.session.scalar(
            _OUTBOX_NEXT_RETRY, {"kinds": list(kinds)}
        )
        return value

    async def events(
        self, kinds: Sequence[str]
    ) -> Sequence[tuple[str, str | None, str, int | None]]:
        """(channel, notice kind, event, match) of each distinct event on ``kinds``: every copy
        of one event (to each TD) is one row here."""
        result = await self.session.execute(
            select(OutboxRow.kind, OutboxRow.notice, OutboxRow.event, OutboxRow.match_id)
            .where(OutboxRow.kind.in_(list(kinds)))
            .group_by(OutboxRow.kind, OutboxRow.notice, OutboxRow.event, OutboxRow.match_id)
        )
        return [(str(k), n, e or "", m) for k, n, e, m in result.all()]

    async def count_events(self, notice: str) -> int:
        """How many distinct events of ``notice`` kind the outbox holds (copies count once)."""
        result = await self.session.execute(
            select(func.count(func.distinct(OutboxRow.event))).where(OutboxRow.notice == notice)
        )
        return int(result.scalar_one())

    async def status_counts(self, kinds: Iterable[str]) -> dict[str, int]:
        """How many messages of ``kinds`` are in each status."""
        result = await self.session.execute(
            select(OutboxRow.status, func.count())
            .where(OutboxRow.kind.in_(list(kinds)))
            .group_by(OutboxRow.status)
        )
        return {str(status): int(n) for status, n in result.all()}

    async def forum_post(self, event: str) -> OutboxRow | None:
        """The forum draft of ``event`` (a round's pairings or closing post), if drafted."""
        result = await self.session.execute(
            select(OutboxRow)
            .where(OutboxRow.kind == Channel.FORUM_DRAFT, OutboxRow.event == event)
            .order_by(OutboxRow.id)
            .limit(1)
        )
        return result.scalar_one_or_none()

    async def notes_pending(self) -> Sequence[OutboxRow]:
        """Information for the TDs not yet in a digest, oldest first."""
        result = await self.session.execute(
            select(OutboxRow)
            .where(OutboxRow.kind == Channel.TD_NOTE, OutboxRow.status == OutboxStatus.PENDING)
            .order_by(OutboxRow.id)
        )
        return result.scalars().all()

    async def recent_notes(self, limit: int = 20) -> Sequence[OutboxRow]:
        """The newest information for the TDs (the desk's "recent" list), newest first."""
        result = await self.session.execute(
            select(OutboxRow)
            .where(OutboxRow.kind == Channel.TD_NOTE)
            .order_by(OutboxRow.id.desc())
            .limit(limit)
        )
        return result.scalars().all()

    async def list(
        self, *, status: str | None = None, kind: str | None = None
    ) -> Sequence[OutboxRow]:
        query = select(OutboxRow).order_by(OutboxRow.id)
        if status is not None:
            query = query.where(OutboxRow.status == status)
        if kind is not None:
            query = query.where(OutboxRow.kind == kind)
        result = await self.session.execute(query)
        return result.scalars().all()
