"""A player's notices ("your notices" in their match room): every DM the bot wrote them and the
team's messages, newest first, each with how it went out, so nothing depends on a DM alone.

A notice Lichess would not take (the player refuses the bot's messages, or the bot's message
budget held it for a day) says so here; one still held by the budget says when it goes next.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bot.notify.kinds import NoticeKind, notice_label
from rules.core.words import ENGLISH, Words
from rules.week.calendar import label_time
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


def _player_labels(words: Words) -> dict[NoticeKind, str]:
    """The kinds of a player's notices in their words."""
    k = NoticeKind
    return {
        k.PAIRING: words.gettext("Pairing"),
        k.NEGOTIATION_STEP: words.gettext("Negotiation step"),
        k.TIME_AGREED: words.gettext("Time agreed"),
        k.GAME_LINK: words.gettext("Game link"),
        k.REPLY_REMINDER: words.gettext("Reply reminder"),
        k.FAULT_RULING: words.gettext("Fault ruling"),
        k.RESULT: words.gettext("Result"),
        k.BREAK_CALLED: words.gettext("Break called"),
        k.NO_SHOW_NOTICE: words.gettext("No show notice"),
        k.CLAIM_RIGHT: words.gettext("Claim right"),
        k.CLAIM_RECEIVED: words.gettext("Claim received"),
        k.CLAIM_DISMISSED: words.gettext("Claim dismissed"),
        k.GAME_FORFEIT: words.gettext("Game forfeit"),
    }


def _label(row: OutboxRow, words: Words) -> str:
    if row.kind is Channel.TEAM_UPDATE:
        return row.subject or words.gettext("Team message")
    try:
        kind = NoticeKind(row.notice) if row.notice else None
    except ValueError:
        return row.notice or words.gettext("Message")
    if kind is None:
        return words.gettext("Message")
    return _player_labels(words).get(kind) or notice_label(kind)


def _delivery(row: OutboxRow, now: dt.datetime, words: Words) -> tuple[str, bool | None]:
    dm = row.kind is Channel.DM
    if row.status is OutboxStatus.SENT:
        sent = words.gettext("sent by DM") if dm else words.gettext("sent by team message")
        return sent, True
    if row.status is OutboxStatus.FAILED:
        error = row.last_error or ""
        if "MessageRefused" in error:
            why = words.gettext("your Lichess settings refuse messages from the bot")
        elif "InboxLimited" in error:
            why = words.gettext("the bot's daily message limit on Lichess held it back")
        else:
            why = words.gettext("Lichess did not take it")
        failed = (
            words.gettext("not delivered by DM: %(why)s")
            if dm
            else words.gettext("not delivered by team message: %(why)s")
        )
        return failed % {"why": why}, False
    waiting = (
        words.gettext("waiting to go out by DM")
        if dm
        else words.gettext("waiting to go out by team message")
    )
    if row.next_attempt_at is not None and row.next_attempt_at > now:
        later = words.gettext("%(waiting)s (next try %(time)s)")
        return later % {"waiting": waiting, "time": label_time(row.next_attempt_at, words)}, None
    return waiting, None


async def player_notices(
    uow: UnitOfWork,
    *,
    player: str,
    team: str | None,
    now: dt.datetime,
    seen_up_to: int = 0,
    words: Words = ENGLISH,
) -> list[NoticeView]:
    """``player``'s notices (their Lichess id), newest first; those after ``seen_up_to`` (the
    newest notice id the player's room showed them before) are unread; their labels in
    ``words``."""
    rows = await uow.notices.for_player(player.lower(), team=team or None, limit=LIMIT)
    out = []
    for row in rows:
        delivery, delivered = _delivery(row, now, words)
        out.append(
            NoticeView(
                id=row.id,
                at=row.created_at,
                label=_label(row, words),
                text=row.body,
                delivery=delivery,
                delivered=delivered,
                unread=row.id > seen_up_to,
                summary=summary_line(row.body),
            )
        )
    return out
