"""The kinds of decision the desk lists, in the order it shows them, each settled by the same
service operation the CLI calls: stage starts and round approvals (:mod:`.stage_cards`),
negotiation faults, claims, disqualifications and flagged games (:mod:`.rulings`), and every
armageddons (:mod:`.armageddon_cards`), and every other TD alert (:mod:`.alerts`)."""

from __future__ import annotations

import datetime as dt

from bot.service.services import Services
from bot.web.core import not_found
from bot.web.desk.alerts import TdAlerts
from bot.web.desk.armageddon_cards import ArmageddonDecisions
from bot.web.desk.decisions import Decision, DecisionSource, settled_keys
from bot.web.desk.marks import MarkedAccounts
from bot.web.desk.privacy_cards import RemovalRequests, UnrevokedTokens
from bot.web.desk.rulings import (
    ClaimDecisions,
    Disqualifications,
    FaultDecisions,
    FlaggedGames,
)
from bot.web.desk.season_cards import NextSeason
from bot.web.desk.stage_cards import RoundApprovals, StageStarts
from storage.uow import UnitOfWork

__all__ = ["SOURCES", "pending_decisions", "source"]


SOURCES: list[DecisionSource] = [
    StageStarts(),
    RoundApprovals(),
    FaultDecisions(),
    ClaimDecisions(),
    Disqualifications(),
    MarkedAccounts(),
    FlaggedGames(),
    ArmageddonDecisions(),
    TdAlerts(),
    RemovalRequests(),
    UnrevokedTokens(),
    NextSeason(),
]
"""Decision kinds, in the order the desk shows them. Feature modules may add their own."""


def source(kind: str) -> DecisionSource:
    for s in SOURCES:
        if s.kind == kind:
            return s
    raise not_found("There is no such kind of decision.")


async def pending_decisions(
    uow: UnitOfWork, services: Services, *, now: dt.datetime
) -> list[Decision]:
    done = await settled_keys(uow)
    out: list[Decision] = []
    for s in SOURCES:
        out.extend(
            d for d in await s.pending(uow, services, now=now) if (d.kind, d.key) not in done
        )
    # A match with a fault or a claim to rule on is one decision: its alerts (a no-show, a
    # pause) are the evidence of that ruling, not items of their own.
    ruled = {d.match_id for d in out if d.kind in ("fault", "claim")}
    return [d for d in out if d.kind != "alert" or d.match_id is None or d.match_id not in ruled]
