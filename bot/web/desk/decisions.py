"""The TD desk's decisions: what one pending decision shows (its evidence and buttons) and the
kind of adapter that lists and settles them (:class:`DecisionSource`).

Settling is recorded in the audit log with the TD's name (``desk.settle``), which is also what
keeps a settled decision off the list.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from bot.notify.notes import FOLDED_HEAD
from bot.service.services import Services
from bot.views.timeline import timeline
from storage.models import AuditRow, OutboxRow
from storage.uow import UnitOfWork

__all__ = [
    "REASON_LIMIT",
    "Choice",
    "Decision",
    "DecisionSource",
    "Evidence",
    "Ruling",
    "alert_body",
    "audit_text",
    "match_timeline",
    "player_names",
    "settled_keys",
    "weekly_timeline",
]

REASON_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class Choice:
    """One button. ``previewed``: the decision can change the standings, so the button first
    shows the lines it changes (rank, player, points before -> after) and a TD confirms."""

    value: str
    label: str
    needs_reason: bool = False
    previewed: bool = False


@dataclass(frozen=True, slots=True)
class Evidence:
    at: dt.datetime | None
    text: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    kind: str
    key: str
    title: str
    summary: str
    at: dt.datetime | None
    match_id: int | None = None
    evidence: tuple[Evidence, ...] = ()
    choices: tuple[Choice, ...] = ()
    link: str | None = None
    table: tuple[tuple[str, ...], ...] = field(default=())
    optional: bool = False
    """A ruling the bot took that the TDs may overrule: listed apart from the decisions that
    wait for them, as nothing happens if no TD acts."""


@dataclass(frozen=True, slots=True)
class Ruling:
    """The button a TD pressed on one decision (``key``), with the reason and who and when."""

    key: str
    choice: str
    reason: str
    actor: str
    now: dt.datetime


class DecisionSource(Protocol):
    kind: str

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        """What is waiting for a TD, with its evidence and buttons."""
        ...

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        """Make the ruling through the service operation the CLI calls; the sentence says what
        was done. Raises :class:`OperationError` or :class:`RulesError` when it cannot be."""
        ...


async def player_names(uow: UnitOfWork) -> dict[str, str]:
    """Player id -> the username as Lichess spells it."""
    return {p.id: p.username for p in await uow.players.list()}


async def settled_keys(uow: UnitOfWork) -> set[tuple[str, str]]:
    rows = await uow.web.audit_actions("desk.settle")
    return {(str(r.details.get("kind")), str(r.details.get("key"))) for r in rows}


async def match_timeline(uow: UnitOfWork, match_id: int) -> tuple[Evidence, ...]:
    """The match's audit trail: every game seen, every offer, every decision."""
    rows = await uow.audit.list(match_id=match_id)
    return tuple(Evidence(at=r.at, text=audit_text(r)) for r in rows[-30:])


def audit_text(row: AuditRow) -> str:
    bits = [f"{row.actor}: {row.action}"]
    if row.player:
        bits.append(f"player {row.player}")
    if row.reason:
        bits.append(f"— {row.reason}")
    details = {k: v for k, v in (row.details or {}).items() if k not in ("text",)}
    if details:
        bits.append(
            "(" + ", ".join(f"{k}: {v}" for k, v in sorted(details.items()) if v is not None) + ")"
        )
    text = " ".join(bits)
    return text if len(text) <= 400 else text[:399] + "…"


async def weekly_timeline(uow: UnitOfWork, match_id: int) -> tuple[Evidence, ...]:
    """The match's history, as evidence (the one timeline: :mod:`bot.views.timeline`)."""
    return tuple(
        Evidence(at=t.at, text=f"{t.actor}: {t.text}") for t in await timeline(uow, match_id)
    )


def alert_body(row: OutboxRow, names: Mapping[str, str]) -> str:
    """An alert's words for the desk: without the "[ACWC] match N:" head (the title says it)
    nor the line that says how to settle it (the buttons do it); line breaks kept; players as
    Lichess spells them (the bot's notices name them by id), without the notes the alert
    carried for the TDs' digest (the "recent" list shows those)."""
    lines = row.body.splitlines()
    if FOLDED_HEAD in lines:
        lines = lines[: lines.index(FOLDED_HEAD)]
        while lines and not lines[-1].strip():
            lines.pop()
    if lines:
        lines[0] = re.sub(r"^\[ACWC\]( match \d+:)? ?", "", lines[0])
    text = "\n".join(line for line in lines if not line.startswith("Settle it with the buttons"))
    if not names:
        return text
    pattern = (
        r"(?<![\w/-])("
        + "|".join(re.escape(p) for p in sorted(names, key=len, reverse=True))
        + r")(?![\w-])"
    )
    return re.sub(pattern, lambda m: names.get(m.group(1), m.group(1)), text)
