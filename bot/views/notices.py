"""A player's notices ("your notices" in their match room): every DM the bot wrote them and the
team's messages, newest first, each with how it went out, so nothing depends on a DM alone.

A notice Lichess would not take (the player refuses the bot's messages, or the bot's message
budget held it for a day) says so here; one still held by the budget says when it goes next.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.notify.kinds import NoticeKind, notice_label
from storage.models import Channel, OutboxRow, OutboxStatus
from storage.uow import UnitOfWork

__all__ = ["NoticeView", "player_notices", "summary_line"]

LIMIT = 30


@dataclass(frozen=True, slots=True)
class NoticeView:
    id: int
    at: dt.datetime
    label: str
    text: str
    delivery: str  # "sent by DM", "waiting to go out", "not delivered by DM: ..."
    delivered: bool | None  # None: not yet
    unread: bool
    summary: str = ""  # its first line, in one short line


SUMMARY_LIMIT = 110


def summary_line(body: str) -> str:
    """A notice's first non-empty line, without Markdown's backticks, cut to one short line."""
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    first = first.replace("`", "")
    if len(first) <= SUMMARY_LIMIT:
        return first
    return first[: SUMMARY_LIMIT - 1].rsplit(" ", 1)[0] + "…"


def _label(row: OutboxRow) -> str:
    if row.kind is Channel.TEAM_UPDATE:
        return row.subject or "Team message"
    try:
        return notice_label(NoticeKind(row.notice)) if row.notice else "Message"
    except ValueError:
        return row.notice or "Message"


def _delivery(row: OutboxRow, now: dt.datetime) -> tuple[str, bool | None]:
    how = "DM" if row.kind is Channel.DM else "team message"
    if row.status is OutboxStatus.SENT:
        return f"sent by {how}", True
    if row.status is OutboxStatus.FAILED:
        error = row.last_error or ""
        if "MessageRefused" in error:
            why = "your Lichess settings refuse messages from the bot"
        elif "InboxLimited" in error:
            why = "the bot's daily message limit on Lichess held it back"
        else:
            why = "Lichess did not take it"
        return f"not delivered by {how}: {why}", False
    if row.next_attempt_at is not None and row.next_attempt_at > now:
        return (
            f"waiting to go out by {how} (next try {row.next_attempt_at:%a %d %b %H:%M} UTC)",
            None,
        )
    return f"waiting to go out by {how}", None


async def player_notices(
    uow: UnitOfWork, *, player: str, team: str | None, now: dt.datetime, seen_up_to: int = 0
) -> list[NoticeView]:
    """``player``'s notices (their Lichess id), newest first; those after ``seen_up_to`` (the
    newest notice id the player's room showed them before) are unread."""
    rows = await uow.notices.for_player(player.lower(), team=team or None, limit=LIMIT)
    out = []
    for row in rows:
        delivery, delivered = _delivery(row, now)
        out.append(
            NoticeView(
                id=row.id,
                at=row.created_at,
                label=_label(row),
                text=row.body,
                delivery=delivery,
                delivered=delivered,
                unread=row.id > seen_up_to,
                summary=summary_line(row.body),
            )
        )
    return out
