"""What the weekly flow does when a deadline fires (rules 4.5, 5.1, 5.5-5.8, 6.3) and after a
counted game (pauses, rules 6.1, 6.2, 6.4; the result)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Protocol

from bot.config import Config
from bot.errors import OperationError
from bot.notify import NoticeKind, Notifier
from bot.notify import keys as notice
from bot.notify.languages import readers, words_of
from bot.runtime.clock import Clock
from bot.runtime.deadlines import Firing, Handler
from bot.service.weekly.announce import DECIDED, Announcements
from bot.service.weekly.conduct import Conduct
from bot.service.weekly.log import Loaded, append, games_started, is_decided, load
from bot.service.weekly.planning import PAUSE_CHECK, plan_pause_check, replan_deadlines
from bot.views.scores import match_state
from bot.views.timeline import timeline
from rules.core.model import GameStatus, MatchId, PlayerId
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, PlayerStatus
from rules.core.words import ENGLISH, Words
from rules.talk.conduct import claim_open
from rules.talk.notices import (
    TDAlert,
    deadline_missed,
    late_check_note,
    no_show_notice,
    reply_reminder,
    statuses_unavailable,
    td_completion_alert,
    td_no_show_alert,
    td_offers_verdict_alert,
    td_pause_alert,
    td_weekend_alert,
)
from rules.week.conduct import (
    ClaimRight,
    NoShowAlert,
    NoShowStage,
    assess_no_show,
    pause_check_due,
    review_pauses,
)
from rules.week.deadlines import DeadlineKind
from rules.week.faults import apply_verdict, assess_offer_deadline, assess_weekend, awaiting_reply
from rules.week.forfeits import ForfeitKind
from storage.match_log import LogKind, break_calls, claim_rights, game_spans
from storage.models import MatchRow
from storage.uow import UnitOfWork

__all__ = ["Presence", "PresenceSource", "WeeklyDeadlines"]

log = logging.getLogger(__name__)


class Presence(Protocol):
    """Whether a player is on Lichess now (no-show evidence, rules 6.3)."""

    @property
    def id(self) -> str: ...

    @property
    def online(self) -> bool: ...

    @property
    def playing(self) -> bool: ...


PresenceSource = Callable[[Iterable[str]], Awaitable[Sequence[Presence]]]
"""Lichess's user statuses (``GET /api/users/status``); ``None`` where there is no Lichess."""


def _late_note(firing: Firing, words: Words = ENGLISH) -> str:
    if not firing.is_late:
        return ""
    return late_check_note(firing.deadline.due_at, firing.late_by, words)


def _with_note(text: str, note: str) -> str:
    return text if not note else f"{text}\n{note}"


async def _record_claim_right(
    uow: UnitOfWork, row: MatchRow, claim: ClaimRight, *, now: dt.datetime, via: str
) -> None:
    """The log's record that ``claim.claimant`` may claim the match (rules 6.1, 6.3, 6.4)."""
    await append(
        uow,
        row,
        at=now,
        actor="bot",
        kind=LogKind.CLAIM_RIGHT,
        via=via,
        data={
            "claimant": claim.claimant,
            "against": claim.against,
            "reason": claim.reason.value,
            "since": claim.since.isoformat(),
        },
    )


class WeeklyDeadlines:
    """The deadline handlers of the weekly flow and its match listener."""

    def __init__(
        self,
        config: Config,
        clock: Clock,
        notifier: Notifier,
        *,
        announcements: Announcements,
        conduct: Conduct,
        presence: PresenceSource | None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.notifier = notifier
        self.announcements = announcements
        self.conduct = conduct
        self.presence = presence

    def handlers(self) -> Mapping[str, Handler]:
        """The handler of each weekly deadline kind, for the deadline runner."""
        return {
            DeadlineKind.REPLY_REMINDER.value: self.on_reply_reminder,
            DeadlineKind.OFFERS_CHECK.value: self.on_offers_check,
            DeadlineKind.WEEKEND_CHECK.value: self.on_weekend_check,
            DeadlineKind.NO_SHOW_FIRST.value: self.on_no_show,
            DeadlineKind.NO_SHOW_SECOND.value: self.on_no_show,
            DeadlineKind.COMPLETION_CHECK.value: self.on_completion_check,
            PAUSE_CHECK: self.on_pause_check,
        }

    async def _alert(
        self,
        uow: UnitOfWork,
        alert: TDAlert,
        *,
        now: dt.datetime,
        key: notice.NoticeKey,
        extra: str,
    ) -> None:
        text = alert.text if not extra else alert.text + "\n" + extra
        await self.notifier.td_alert(uow, now=now, text=text, key=key)

    # --- deadlines ------------------------------------------------------------------------

    async def _loaded(self, uow: UnitOfWork, firing: Firing) -> Loaded | None:
        match_id = firing.deadline.match_id
        if match_id is None:
            return None
        try:
            loaded = await load(uow, self.config.rules, match_id)
        except OperationError:
            log.warning("deadline %s: match %s has no negotiation", firing.deadline.id, match_id)
            return None
        week = firing.deadline.payload.get("week") if firing.deadline.payload else None
        if week is not None and week != loaded.row.week:
            return None  # a deadline of an earlier week of a repeated final
        for player in loaded.negotiation.players:
            entrant = await uow.players.get(player)
            if entrant is not None and entrant.status is not PlayerStatus.ACTIVE:
                # The exit path settles a leaver's match (rules 8) and cancels its deadlines;
                # one left open is never held against the opponent (no 5.6 forfeit, no alert).
                log.warning(
                    "deadline %s: %s of match %s has left", firing.deadline.id, player, match_id
                )
                return None
        return loaded

    async def on_reply_reminder(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 5.7: the player still owes an answer 24 hours after the opponent's offer."""
        loaded = await self._loaded(uow, firing)
        if loaded is None or is_decided(loaded.row):
            return
        n = loaded.negotiation
        for pending in awaiting_reply(n):
            if pending.player != firing.deadline.subject:
                continue
            if pending.since + self.config.rules.offers.reply_within != firing.deadline.due_at:
                continue  # answered since, and a newer offer awaits: its own reminder comes
            if not any(
                o.is_open(now=firing.now) for o in n.offers if o.number in pending.offer_numbers
            ):
                continue
            words = await words_of(uow, pending.player)
            note = reply_reminder(n, pending, now=firing.now, words=words)
            await self.notifier.dm(
                uow,
                now=firing.now,
                to=pending.player,
                text=_with_note(note.text, _late_note(firing, words)),
                key=notice.deadline(NoticeKind.REPLY_REMINDER, firing.deadline.id, loaded.row.id),
            )

    async def on_offers_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 5.1, 5.5, 5.6 at Friday 23:59 UTC."""
        rules = self.config.rules
        loaded = await self._loaded(uow, firing)
        if loaded is None:
            return
        row, n = loaded.row, loaded.negotiation
        if is_decided(row) or n.ruling is not None:
            return
        verdict = assess_offer_deadline(n, now=firing.now, ruleset=rules)
        step = apply_verdict(n, verdict, now=firing.now)
        if step.events:
            after = step.negotiation
            assert after.ruling is not None
            data = {
                "verdict": verdict.kind.value,
                "at_fault": list(verdict.at_fault),
                "offers": {p: c for p, c in verdict.offers},
                "late_by_seconds": int(firing.late_by.total_seconds()),
            }
            event = await append(
                uow,
                row,
                at=firing.now,
                actor="bot",
                kind=LogKind.OFFERS_VERDICT,
                data=data,
                via="deadline",
            )
            key = notice.step(NoticeKind.FAULT_RULING, row.id, event.seq)
            tongues = await readers(uow, after.players)
            for told in deadline_missed(after, after.ruling, now=firing.now, readers=tongues):
                if told.recipient is not None:
                    await self.notifier.dm(
                        uow,
                        now=firing.now,
                        to=told.recipient,
                        text=_with_note(told.text, _late_note(firing, tongues.of(told.recipient))),
                        key=key,
                    )
            await self._alert(
                uow,
                td_offers_verdict_alert(n, verdict),
                now=firing.now,
                key=notice.deadline(NoticeKind.OFFERS_VERDICT, firing.deadline.id, row.id),
                extra=_late_note(firing),
            )
            if after.ruling.tied:
                await self.announcements.tied_without_play(
                    uow, row, decided_by=DecidedBy.FORFEIT, now=firing.now
                )
                for p in after.ruling.forfeits:
                    await self.conduct.record_forfeit(
                        uow,
                        player=p,
                        match_id=row.id,
                        kind=ForfeitKind.GAME,
                        reason="offers",
                        now=firing.now,
                        actor="bot",
                        note="rules 5.6: fewer than the required offers by the deadline",
                    )
            n = after
        await replan_deadlines(uow, rules, row, n, now=firing.now)

    async def on_weekend_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 5.8: both made their offers, nothing agreed: the TDs decide with one command."""
        loaded = await self._loaded(uow, firing)
        if loaded is None or is_decided(loaded.row):
            return
        verdict = assess_weekend(loaded.negotiation, now=firing.now, ruleset=self.config.rules)
        if not verdict.needs_td:
            return
        base = td_weekend_alert(loaded.negotiation, verdict)
        history = tuple(e.line for e in await timeline(uow, loaded.row.id, audit=False))
        alert = TDAlert(
            base.match_id, base.what, (*base.evidence, "timeline:", *history), base.command
        )
        await self._alert(
            uow,
            alert,
            now=firing.now,
            key=notice.deadline(NoticeKind.WEEKEND_FAULT, firing.deadline.id, loaded.row.id),
            extra=_late_note(firing),
        )

    async def on_no_show(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 6.3 at the agreed time + 10 and + 20 minutes."""
        rules = self.config.rules
        loaded = await self._loaded(uow, firing)
        if loaded is None or is_decided(loaded.row):
            return
        row, n = loaded.row, loaded.negotiation
        if n.agreement is None or n.agreement.time.isoformat() != firing.deadline.subject:
            return  # the time moved since: the new time has its own checks
        scheduled = n.agreement.time
        started = await games_started(uow, row, scheduled - rules.conduct.no_show_grace)
        seen: set[PlayerId] = set()
        for e in loaded.events:
            if e.kind == LogKind.NO_SHOW_CHECK and e.data.get("scheduled") == scheduled.isoformat():
                seen.update(PlayerId(p) for p in e.data.get("appeared", []))
        unavailable = ""
        if self.presence is not None and not started:
            # a game Lichess made by bulk pairing has its players "playing" whether they came
            # or not: only being online counts then
            bulk = await uow.tokens.bulk_game_ids(*n.players)
            try:
                for status in await self.presence(list(n.players)):
                    if status.online or (status.playing and not bulk):
                        seen.add(PlayerId(status.id))
            except Exception as e:  # Lichess down: the alert says so rather than guessing
                unavailable = statuses_unavailable(type(e).__name__)
                log.warning("no-show check of match %s: statuses failed: %s", row.id, e)
        alert = assess_no_show(
            match_id=MatchId(row.id),
            players=n.players,
            scheduled=scheduled,
            now=firing.now,
            seen=seen,
            games_started=started,
            ruleset=rules,
        )
        if alert is None:
            return
        if (
            firing.deadline.kind == DeadlineKind.NO_SHOW_FIRST.value
            and alert.stage is NoShowStage.SECOND
        ):
            return  # fired so late that the second check covers it
        await self._record_no_show(uow, loaded, alert, firing, unavailable)

    async def _record_no_show(
        self,
        uow: UnitOfWork,
        loaded: Loaded,
        alert: NoShowAlert,
        firing: Firing,
        unavailable: str,
    ) -> None:
        row = loaded.row
        for e in loaded.events:
            if (
                e.kind == LogKind.NO_SHOW_CHECK
                and e.data.get("scheduled") == alert.scheduled.isoformat()
                and e.data.get("stage") == alert.stage.value
            ):
                return  # this check was recorded already: say nothing twice
        event = await append(
            uow,
            row,
            at=firing.now,
            actor="bot",
            kind=LogKind.NO_SHOW_CHECK,
            via="deadline",
            data={
                "stage": alert.stage.value,
                "scheduled": alert.scheduled.isoformat(),
                "appeared": list(alert.appeared),
                "absent": list(alert.absent),
            },
        )
        note = _late_note(firing)
        extra = "\n".join(x for x in (unavailable, note) if x)
        await self._alert(
            uow,
            td_no_show_alert(alert, ruleset=self.config.rules),
            now=firing.now,
            key=notice.no_show(row.id, alert.scheduled.isoformat(), alert.stage),
            extra=extra,
        )
        key = notice.step(NoticeKind.NO_SHOW_NOTICE, row.id, event.seq)
        tongues = await readers(uow, [*alert.appeared, *alert.absent])
        for told in no_show_notice(
            alert, now=firing.now, ruleset=self.config.rules, readers=tongues
        ):
            if told.recipient is not None:
                await self.notifier.dm(
                    uow,
                    now=firing.now,
                    to=told.recipient,
                    text=_with_note(told.text, _late_note(firing, tongues.of(told.recipient))),
                    key=key,
                )
        if alert.claim is not None:
            await _record_claim_right(uow, row, alert.claim, now=firing.now, via="deadline")

    async def on_completion_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 4.5: every match must be completed by Monday 23:59 UTC."""
        loaded = await self._loaded(uow, firing)
        if loaded is None or is_decided(loaded.row):
            return
        row = loaded.row
        state = await match_state(uow, row.id)
        agreed = loaded.negotiation.agreement
        alert = td_completion_alert(
            MatchId(row.id),
            (row.white_first, row.black_first or ""),
            loaded.negotiation.week.end,
            score=str(state.score),
            played=len(state.games),
            games=row.games,
            agreed=agreed.time if agreed else None,
            history=[e.line for e in (await timeline(uow, row.id, audit=False))[-10:]],
        )
        await self._alert(
            uow,
            alert,
            now=firing.now,
            key=notice.deadline(NoticeKind.MATCH_OVERDUE, firing.deadline.id, row.id),
            extra=_late_note(firing),
        )

    # --- games ----------------------------------------------------------------------------

    async def on_match_changed(
        self, uow: UnitOfWork, match_id: int, outcome: Outcome | None
    ) -> None:
        """After a counted game: pauses (rules 6.1, 6.2, 6.4), deadlines, and the result."""
        now = self.clock.now()
        row = await uow.matches.get(match_id)
        if row is None or row.black_first is None:
            return
        try:
            loaded = await load(uow, self.config.rules, match_id)
        except OperationError:
            loaded = None
        if loaded is not None:
            await self._review_pauses(uow, loaded, now=now)
            # one read of the match's deadline rows for both (the replan adds none of the
            # pause check's kind)
            rows = await uow.weekly.deadlines(row.id)
            rules = self.config.rules
            await replan_deadlines(uow, rules, row, loaded.negotiation, now=now, deadlines=rows)
            await plan_pause_check(uow, rules, row, loaded.events, now=now, deadlines=rows)
        if outcome is not None and outcome.value in DECIDED:
            await self.announcements.result(uow, row, now=now)

    async def on_pause_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 6.1, 6.4: the pause after the last game has overrun and no game has started:
        the TDs hear of it and the opponent of whoever took it (a break, a game left) may claim,
        at once."""
        loaded = await self._loaded(uow, firing)
        if loaded is None or is_decided(loaded.row):
            return
        games = await uow.games.for_match(loaded.row.id, counted_only=False)
        if any(g.status is GameStatus.STARTED for g in games):
            return  # the next game is on
        due = pause_check_due(
            game_spans(games), break_calls(loaded.events), conduct=self.config.rules.conduct
        )
        if due is None or due > firing.now:
            return  # a later game or break moved the moment: its own check comes
        await self._review_pauses(uow, loaded, now=firing.now, ongoing=True)

    async def _review_pauses(
        self, uow: UnitOfWork, loaded: Loaded, *, now: dt.datetime, ongoing: bool = False
    ) -> None:
        row = loaded.row
        games = await uow.games.for_match(row.id)
        review = review_pauses(
            game_spans(games),
            break_calls(loaded.events),
            match_id=MatchId(row.id),
            players=loaded.negotiation.players,
            conduct=self.config.rules.conduct,
            now=now if ongoing else None,
        )
        rights, _ = claim_rights(loaded.events)
        for violation in review.violations:
            pause = violation.pause
            await self._alert(
                uow,
                td_pause_alert(violation),
                now=now,
                key=notice.pause(row.id, row.week, pause.after_game, pause.kind.value),
                extra="",
            )
            claim = violation.claim
            if claim is None or any(
                r.claimant == claim.claimant and r.reason is claim.reason for r in rights
            ):
                continue
            await _record_claim_right(uow, row, claim, now=now, via="games")
            rights.append(claim)
            await self.notifier.dm(
                uow,
                now=now,
                to=claim.claimant,
                text=claim_open(
                    violation,
                    break_length=self.config.rules.conduct.break_length,
                    words=await words_of(uow, claim.claimant),
                ),
                key=notice.pause_claim(row.id, row.week, pause.after_game),
            )
