"""The TD desk's decisions: what one pending decision shows (its evidence and buttons) and the
kind of adapter that lists and settles them (:class:`DecisionSource`).

Settling is recorded in the audit log with the TD's name (``desk.settle``), which is also what
keeps a settled decision off the list.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol

from bot.service.services import Services
from bot.views.timeline import timeline
from storage.models import AuditRow
from storage.repo_web import WebRepository
from storage.uow import UnitOfWork

__all__ = [
    "REASON_LIMIT",
    "Choice",
    "Decision",
    "DecisionSource",
    "Evidence",
    "audit_text",
    "match_timeline",
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


class DecisionSource(Protocol):
    kind: str

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        """What is waiting for a TD, with its evidence and buttons."""
        ...

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str: ...


async def settled_keys(uow: UnitOfWork) -> set[tuple[str, str]]:
    rows = await WebRepository(uow.session).audit_actions("desk.settle")
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
