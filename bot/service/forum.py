"""Forum drafts: the posts the TDs paste into the forum, marked posted once they have (Lichess
has no API for the forum, DESIGN.md)."""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from storage.models import Channel, OutboxRow, OutboxStatus
from storage.uow import UnitOfWork

__all__ = ["AlreadyPostedError", "Forum", "NotADraftError"]


class NotADraftError(OperationError):
    """There is no forum draft of that number."""


class AlreadyPostedError(OperationError):
    """The draft was marked posted before."""


class Forum:
    async def mark_posted(
        self, uow: UnitOfWork, draft_id: int, *, now: dt.datetime, actor: str
    ) -> OutboxRow:
        """A TD pasted forum draft ``draft_id``: never list it again (audited by name)."""
        row = await uow.outbox.get(draft_id)
        if row is None:
            raise NotADraftError(f"there is no outbox message {draft_id}")
        if row.kind is not Channel.FORUM_DRAFT:
            raise NotADraftError(f"outbox message {row.id} is a {row.kind}, not a forum draft")
        if row.status is OutboxStatus.POSTED:
            raise AlreadyPostedError(f"forum draft {row.id} was already marked posted")
        row.status, row.sent_at = OutboxStatus.POSTED, now
        await uow.audit.record(
            at=now,
            actor=actor,
            action="forum.posted",
            details={"outbox": row.id, "subject": row.subject},
        )
        return row
