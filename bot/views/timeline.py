"""A match's history: its event log and its audit entries, in words, by time (the one timeline
of the match room, the desk, ``acwc timeline`` and the TDs' alerts)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.week.calendar import label_time
from storage.match_log import event_time
from storage.models import AuditRow
from storage.models_weekly import MatchEventRow
from storage.uow import UnitOfWork

__all__ = ["TimelineEntry", "timeline"]


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One line of a match's history: an event of its log or an audit entry."""

    at: dt.datetime
    source: str  # "event" / "audit"
    actor: str
    kind: str
    text: str

    @property
    def line(self) -> str:
        return f"{self.at:%a %d %b %H:%M} UTC {self.actor}: {self.text}"


def _describe_event(e: MatchEventRow) -> str:
    return _negotiation_event(e.kind, e.data) or _ruling_event(e.kind, e.data) or e.kind


def _negotiation_event(kind: str, d: dict[str, Any]) -> str | None:
    """A step of the week's negotiation (rules 5), in a few words."""
    match kind:
        case "week_started":
            start, end = label_time(event_time(d["start"])), label_time(event_time(d["end"]))
            return f"pairing published, week {start} to {end}"
        case "offer":
            return "offered " + ", ".join(label_time(event_time(t)) for t in d["times"])
        case "accept":
            return (
                f"accepted offer {d['number']}"
                if d.get("number")
                else f"accepted {label_time(event_time(d['time']))}"
            )
        case "withdraw":
            return f"withdrew offer {d['number']}"
        case "change":
            return f"asked to move the match to {label_time(event_time(d['time']))}"
        case "accept_change":
            return "accepted the change"
        case "decline_change":
            return "declined the change"
        case "choose":
            return f"chose {label_time(event_time(d['time']))} (rules 5.5, 5.9)"
    return None


def _ruling_event(kind: str, d: dict[str, Any]) -> str | None:
    """A check, a ruling, a break or a claim (rules 5.5, 6), in a few words."""
    match kind:
        case "offers_verdict":
            at_fault = ", ".join(d.get("at_fault", [])) or "nobody"
            return f"offers check: {d.get('verdict')}, at fault: {at_fault}"
        case "td_decision":
            return f"TD decision: at fault {d.get('at_fault') or 'nobody'} ({d.get('reason')})"
        case "break":
            return "called a break (rules 6.1)"
        case "no_show_check":
            return (
                f"no-show check ({d.get('stage')}): seen "
                f"{', '.join(d.get('appeared', [])) or 'nobody'}, "
                f"not seen {', '.join(d.get('absent', [])) or 'nobody'}"
            )
        case "claim_right":
            return f"{d['claimant']} may claim the win ({d['reason']})"
        case "claim":
            return f"claimed the win ({d.get('reason')})"
        case "claim_decided":
            decided = f"winner {d['winner']}" if d.get("winner") else "dismissed"
            return f"claim decided: {decided} ({d.get('reason')})"
    return None


async def timeline(uow: UnitOfWork, match_id: int, *, audit: bool = True) -> list[TimelineEntry]:
    """The match's history: its event log and (with ``audit``) its audit entries, by time."""
    entries = [
        (e.at, 0, e.seq, TimelineEntry(e.at, "event", e.actor, e.kind, _describe_event(e)))
        for e in await uow.weekly.events(match_id)
    ]
    if audit:
        rows: Sequence[AuditRow] = await uow.audit.list(match_id=match_id)
        entries.extend(
            (
                a.at,
                1,
                a.id,
                TimelineEntry(
                    a.at,
                    "audit",
                    a.actor,
                    a.action,
                    f"{a.action}{' - ' + a.reason if a.reason else ''}",
                ),
            )
            for a in rows
        )
    return [t for *_, t in sorted(entries, key=lambda x: (x[0], x[1], x[2]))]
