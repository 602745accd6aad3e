"""Whole weeks driven by a fake clock: player text -> commands -> rules -> deadlines -> notices.

A small driver stands in for the service: it keeps the planned deadlines, fires the ones that are
due in plan order, and re-plans after every change, as the scheduler will.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.talk.commands import Accept, ChooseTime, ClaimWin, Offer, parse
from rules.talk.notices import (
    Notice,
    TDAlert,
    deadline_missed,
    reply_reminder,
    td_claim_alert,
    td_no_show_alert,
    td_offers_verdict_alert,
    td_weekend_alert,
    time_agreed,
)
from rules.week.calendar import UTC, match_week
from rules.week.conduct import ClaimRight, assess_no_show, check_claim
from rules.week.deadlines import Deadline, DeadlineKind, MatchFacts, diff_deadlines, plan_deadlines
from rules.week.faults import (
    VerdictKind,
    apply_verdict,
    assess_offer_deadline,
    assess_weekend,
    awaiting_reply,
)
from rules.week.negotiation import (
    Negotiation,
    Phase,
    accept_offer,
    choose_time,
    make_offers,
    start_negotiation,
)

RS = DEFAULT_RULESET
WEEK = match_week(dt.date(2021, 10, 12), RS)
ALICE, BOB = PlayerId("alice"), PlayerId("bob")


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


@dataclass
class Service:
    negotiation: Negotiation
    now: dt.datetime
    started: bool = False
    plan: list[Deadline] = field(default_factory=list)
    fired: set[Deadline] = field(default_factory=set)
    notices: list[Notice] = field(default_factory=list)
    alerts: list[TDAlert] = field(default_factory=list)
    claims: list[ClaimRight] = field(default_factory=list)
    seen: set[PlayerId] = field(default_factory=set)

    def replan(self) -> None:
        new = plan_deadlines(MatchFacts(self.negotiation, started=self.started), ruleset=RS)
        diff = diff_deadlines(self.plan, new)
        self.plan = [*diff.kept, *diff.added]

    def say(self, player: PlayerId, text: str) -> None:
        command = parse(text, now=self.now, week=self.negotiation.week)
        n = self.negotiation
        if isinstance(command, Offer):
            step = make_offers(n, command.times, player=player, now=self.now, ruleset=RS)
        elif isinstance(command, Accept):
            step = accept_offer(
                n, player=player, now=self.now, number=command.index, time=command.time
            )
        elif isinstance(command, ChooseTime):
            step = choose_time(n, player, command.time, now=self.now, ruleset=RS)
        elif isinstance(command, ClaimWin):
            right = check_claim(
                self.claims, player, match_id=n.match_id, conduct=DEFAULT_RULESET.conduct
            )
            self.alerts.append(td_claim_alert(right, ruleset=DEFAULT_RULESET))
            return
        else:  # pragma: no cover - not used in these walks
            raise AssertionError(command)
        self.negotiation = step.negotiation
        if self.negotiation.agreement is not None and n.agreement is None:
            self.notices.extend(
                time_agreed(self.negotiation, now=self.now, ruleset=DEFAULT_RULESET)
            )
        self.replan()

    def advance_to(self, when: dt.datetime) -> list[Deadline]:
        fired: list[Deadline] = []
        while True:
            due = [d for d in self.plan if d.due <= when and d not in self.fired]
            if not due:
                break
            deadline = min(due, key=lambda d: d.sort_key)
            self.now = deadline.due
            self.fired.add(deadline)
            fired.append(deadline)
            self.fire(deadline)
            self.replan()
        self.now = when
        return fired

    def fire(self, deadline: Deadline) -> None:
        n = self.negotiation
        if deadline.kind is DeadlineKind.REPLY_REMINDER:
            for pending in awaiting_reply(n):
                if pending.player == deadline.subject:
                    self.notices.append(reply_reminder(n, pending, now=self.now))
        elif deadline.kind is DeadlineKind.OFFERS_CHECK:
            verdict = assess_offer_deadline(n, now=self.now, ruleset=RS)
            step = apply_verdict(n, verdict, now=self.now)
            self.negotiation = step.negotiation
            if step.events and self.negotiation.ruling is not None:
                self.alerts.append(td_offers_verdict_alert(n, verdict))
                self.notices.extend(
                    deadline_missed(self.negotiation, self.negotiation.ruling, now=self.now)
                )
        elif deadline.kind is DeadlineKind.WEEKEND_CHECK:
            weekend = assess_weekend(n, now=self.now, ruleset=RS)
            if weekend.needs_td:
                self.alerts.append(td_weekend_alert(n, weekend))
        elif deadline.kind in (DeadlineKind.NO_SHOW_FIRST, DeadlineKind.NO_SHOW_SECOND):
            assert n.agreement is not None
            alert = assess_no_show(
                match_id=n.match_id,
                players=n.players,
                scheduled=n.agreement.time,
                now=self.now,
                seen=self.seen,
                games_started=int(self.started),
                ruleset=RS,
            )
            if alert is not None:
                self.alerts.append(td_no_show_alert(alert, ruleset=DEFAULT_RULESET))
                if alert.claim is not None:
                    self.claims.append(alert.claim)


def service() -> Service:
    s = Service(start_negotiation(MatchId(11), (ALICE, BOB), WEEK), now=at(12, 9))
    s.replan()
    return s


def test_ordinary_week_ends_with_the_game_started_on_time() -> None:
    s = service()
    s.say(ALICE, "offer wed 18:00, thu 18:00, fri 20:00")
    assert s.advance_to(at(12, 20)) == []
    s.say(BOB, "offer thu 21:00")
    s.say(BOB, "accept 2")
    assert s.negotiation.phase is Phase.AGREED
    assert [n.recipient for n in s.notices] == [ALICE, BOB, None]
    s.seen = {ALICE, BOB}
    s.started = True  # the first game starts at 18:02
    s.replan()
    fired = s.advance_to(at(19, 0))
    assert [d.kind for d in fired] == [DeadlineKind.COMPLETION_CHECK]
    assert s.alerts == []


def test_silent_opponent_is_reminded_then_at_fault_then_does_not_show() -> None:
    s = service()
    s.say(ALICE, "offer wed 18:00, thu 18:00, fri 20:00")
    fired = s.advance_to(at(13, 10))
    assert [d.kind for d in fired] == [DeadlineKind.REPLY_REMINDER]
    assert s.notices[-1].recipient == BOB
    s.say(BOB, "offer sat 12:00, sat 16:00")  # two offers only, both on Saturday
    fired = s.advance_to(at(16, 0))
    assert [d.kind for d in fired] == [DeadlineKind.REPLY_REMINDER, DeadlineKind.OFFERS_CHECK]
    assert s.negotiation.phase is Phase.AWAITING_CHOICE
    assert "acwc fault decide 11" in (s.alerts[-1].command or "")
    s.say(ALICE, "choose sun 15:00")
    assert s.negotiation.agreement is not None
    assert s.negotiation.agreement.time == at(17, 15)
    s.seen = {ALICE}
    s.advance_to(at(17, 15, 20))
    first, second = s.alerts[-2:]
    assert "alice is there" in first.text
    assert "acwc claim decide 11 --winner alice|--dismiss" in (second.command or "")
    s.say(ALICE, "claim win")
    assert "alice claims the match win" in s.alerts[-1].text


def test_both_silent_week_is_a_tied_match_with_forfeits() -> None:
    s = service()
    fired = s.advance_to(at(16, 0))
    assert [d.kind for d in fired] == [DeadlineKind.OFFERS_CHECK]
    assert s.negotiation.phase is Phase.TIED
    assert s.negotiation.ruling is not None
    assert s.negotiation.ruling.forfeits == (ALICE, BOB)
    assert s.plan == []  # a tied match needs no further deadlines


def test_both_offered_but_disagreed_week_goes_to_the_tds() -> None:
    s = service()
    s.say(ALICE, "offer wed 9:00, thu 9:00, fri 9:00")
    s.say(BOB, "offer wed 21:00, thu 21:00, fri 21:00")
    fired = s.advance_to(at(16, 0))
    assert [d.kind for d in fired][-2:] == [DeadlineKind.OFFERS_CHECK, DeadlineKind.WEEKEND_CHECK]
    verdict = assess_offer_deadline(s.negotiation, now=at(16, 0), ruleset=RS)
    assert verdict.kind is VerdictKind.NOBODY_AT_FAULT
    assert s.alerts[-1].command == "acwc fault decide 11 --at-fault alice|bob|--nobody"
