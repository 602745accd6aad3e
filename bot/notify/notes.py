"""The TDs' notes (information that needs no decision) as lines a TD reads: the daily digest's,
and the lines a decision's alert carries when it goes out (:meth:`Notifier.td_alert`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.notify.kinds import NoticeKind, notice_label
from rules.talk import alerts
from rules.talk.notices import DM_LIMIT
from storage.models import OutboxRow

__all__ = ["FOLDED_HEAD", "LINE_LIMIT", "digest_text", "folded_notes", "note_line"]

LINE_LIMIT = 300
"""A note's first line, cut to this length in the digest (the desk shows it whole)."""
FOLDED_HEAD = alerts.DIGEST_FOLDED_HEAD
"""The line before the notes an alert carries (the desk shows the alert without them)."""


def _label(row: OutboxRow) -> str:
    try:
        kind = NoticeKind(row.notice) if row.notice else None
    except ValueError:  # a kind a later version wrote
        kind = None
    label = notice_label(kind) if kind is not None else "Note"
    return alerts.note_label(label, row.match_id)


def note_line(row: OutboxRow) -> str:
    """One note as a line of the digest: its kind, its match, its first line."""
    first = row.body.strip().splitlines()[0] if row.body.strip() else ""
    return alerts.digest_line(_label(row), first[:LINE_LIMIT])


def _fitting(
    used: int, notes: Sequence[OutboxRow], limit: int
) -> tuple[list[str], list[OutboxRow]]:
    """The lines of as many of ``notes`` (oldest first) as fit after ``used`` characters."""
    lines: list[str] = []
    carried: list[OutboxRow] = []
    for row in notes:
        line = note_line(row)
        if used + 1 + len(line) > limit:
            break
        lines.append(line)
        carried.append(row)
        used += 1 + len(line)
    return lines, carried


def digest_text(
    day: dt.date, notes: Sequence[OutboxRow], *, limit: int = DM_LIMIT
) -> tuple[str, list[OutboxRow]]:
    """The digest's words, one line a note, and the notes it carries: as many as fit in one
    message (the rest wait for the next digest)."""
    head = alerts.digest_head(day)
    lines, carried = _fitting(len(head), notes, limit)
    return "\n".join([head, *lines]), carried


def folded_notes(
    text: str, notes: Sequence[OutboxRow], *, limit: int = DM_LIMIT
) -> tuple[str, list[OutboxRow]]:
    """``text`` with as many of ``notes`` (oldest first) as fit in one message after it, and
    the notes it carries; those that do not fit wait for the digest."""
    lines, carried = _fitting(len(text) + 2 + len(FOLDED_HEAD), notes, limit)
    if not carried:
        return text, []
    return "\n".join([text, "", FOLDED_HEAD, *lines]), carried
