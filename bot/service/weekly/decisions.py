"""The TDs' decisions on a match (rules 5.8-5.10, 6.3-6.5): who is at fault for a negotiation
without agreement, and a player's claim of the match win."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from bot.config import Config
from bot.errors import OperationError
from bot.notify import NoticeKind, Notifier
from bot.notify import keys as notice
from bot.notify.languages import readers, words_of
from bot.service.weekly.announce import Announcements
from bot.service.weekly.conduct import Conduct
from bot.service.weekly.log import Loaded, append, is_decided, load
from bot.service.weekly.planning import replan_deadlines
from rules.core.model import PlayerId, normalise_username
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState
from rules.talk.conduct import claim_dismissed
from rules.talk.notices import deadline_missed
from rules.week.conduct import granted_claim_reason
from rules.week.forfeits import ForfeitKind
from rules.week.negotiation import Negotiation
from storage.match_log import LogKind, apply_step, claim_rights
from storage.models import MatchRow
from storage.uow import UnitOfWork

__all__ = ["Decisions"]


@dataclass(frozen=True, slots=True)
class _ClaimDecision:
    """The TDs' decision on a match's claim: the match, their reason, when, who, how."""

    loaded: Loaded
    reason: str
    now: dt.datetime
    actor: str
    via: str


class Decisions:
    def __init__(
        self,
        config: Config,
        notifier: Notifier,
        *,
        announcements: Announcements,
        conduct: Conduct,
    ) -> None:
        self.config = config
        self.notifier = notifier
        self.announcements = announcements
        self.conduct = conduct

    async def decide_fault(
        self,
        uow: UnitOfWork,
        match_id: int,
        *,
        at_fault: str | None,
        reason: str,
        now: dt.datetime,
        actor: str,
        via: str = "cli",
    ) -> Negotiation:
        """The TDs rule on a negotiation without agreement (rules 5.8-5.10).

        ``at_fault`` names the player at fault (their opponent chooses the time); ``None`` rules
        nobody at fault: a tied match (½ each, no forfeit). Raises ``RulesError`` or
        :class:`OperationError` and changes nothing when it cannot.
        """
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        rules = self.config.rules
        loaded = await load(uow, rules, match_id)
        row = loaded.row
        if is_decided(row):
            raise OperationError(f"match {match_id} already has a result ({row.outcome})")
        data: dict[str, Any] = {
            "at_fault": normalise_username(at_fault) if at_fault else None,
            "reason": reason,
        }
        step = apply_step(loaded.negotiation, LogKind.TD_DECISION, actor, now, data, rules)
        after = step.negotiation
        event = await append(
            uow, row, at=now, actor=actor, kind=LogKind.TD_DECISION, data=data, via=via
        )
        assert after.ruling is not None
        key = notice.step(NoticeKind.FAULT_RULING, row.id, event.seq)
        tongues = await readers(uow, after.players)
        for note in deadline_missed(after, after.ruling, now=now, readers=tongues):
            if note.recipient is not None:
                await self.notifier.dm(uow, now=now, to=note.recipient, text=note.text, key=key)
        await uow.audit.record(
            at=now,
            actor=actor,
            action="fault.decide",
            match_id=row.id,
            reason=reason,
            player=data["at_fault"],
            details={"at_fault": data["at_fault"], "rule": "5.9"},
        )
        if after.ruling.tied:
            await self.announcements.tied_without_play(uow, row, decided_by=DecidedBy.TD, now=now)
        await replan_deadlines(uow, rules, row, after, now=now)
        return after

    async def decide_claim(
        self,
        uow: UnitOfWork,
        match_id: int,
        *,
        winner: str | None,
        reason: str,
        now: dt.datetime,
        actor: str,
        via: str = "cli",
    ) -> MatchRow:
        """The TDs grant a claim (``winner``: the match is forfeited by the other player, who
        gets a forfeit record, rules 6.3-6.5) or dismiss it (``winner=None``; needs an open
        claim)."""
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        loaded = await load(uow, self.config.rules, match_id)
        decision = _ClaimDecision(loaded, reason, now, actor, via)
        if winner is None:
            await self._dismiss_claim(uow, decision)
        else:
            await self._grant_claim(uow, decision, winner)
        return loaded.row

    async def _dismiss_claim(self, uow: UnitOfWork, d: _ClaimDecision) -> None:
        row = d.loaded.row
        rights, claimed = claim_rights(d.loaded.events)
        if not rights and not claimed:
            raise OperationError(f"match {row.id} has no open claim to dismiss")
        event = await append(
            uow,
            row,
            at=d.now,
            actor=d.actor,
            kind=LogKind.CLAIM_DECIDED,
            data={"winner": None, "reason": d.reason},
            via=d.via,
        )
        key = notice.step(NoticeKind.CLAIM_DISMISSED, row.id, event.seq)
        for p in sorted({r.claimant for r in rights} | {PlayerId(c) for c in claimed}):
            words = await words_of(uow, p)
            await self.notifier.dm(
                uow, now=d.now, to=p, text=claim_dismissed(row.id, d.reason, words), key=key
            )
        await uow.audit.record(
            at=d.now,
            actor=d.actor,
            action="claim.dismiss",
            match_id=row.id,
            reason=d.reason,
            details={},
        )

    async def _grant_claim(self, uow: UnitOfWork, d: _ClaimDecision, winner: str) -> None:
        row, now = d.loaded.row, d.now
        if is_decided(row):
            raise OperationError(f"match {row.id} already has a result ({row.outcome})")
        win = normalise_username(winner)
        if win not in (row.white_first, row.black_first):
            raise OperationError(f"{winner} does not play match {row.id}")
        assert row.black_first is not None
        loser = PlayerId(row.black_first if win == row.white_first else row.white_first)
        rights, _ = claim_rights(d.loaded.events)
        right = next((r for r in rights if r.claimant == win), None)
        forfeit_reason = granted_claim_reason(right).value
        await append(
            uow,
            row,
            at=now,
            actor=d.actor,
            kind=LogKind.CLAIM_DECIDED,
            data={
                "winner": win,
                "reason": d.reason,
                "claim": None if right is None else right.reason.value,
            },
            via=d.via,
        )
        row.outcome = Outcome.FIRST_WINS if win == row.white_first else Outcome.SECOND_WINS
        row.decided_by, row.state = DecidedBy.FORFEIT, MatchState.COMPLETE
        row.completed_at = now
        await uow.flush()
        await uow.audit.record(
            at=now,
            actor=d.actor,
            action="claim.grant",
            match_id=row.id,
            player=win,
            reason=d.reason,
            details={"winner": win, "forfeited_by": loser, "claim": forfeit_reason},
        )
        await self.announcements.result(uow, row, now=now)
        await self.conduct.record_forfeit(
            uow,
            player=loser,
            match_id=row.id,
            kind=ForfeitKind.MATCH,
            reason=forfeit_reason,
            now=now,
            actor=d.actor,
            note=d.reason,
        )
        await replan_deadlines(uow, self.config.rules, row, d.loaded.negotiation, now=now)
