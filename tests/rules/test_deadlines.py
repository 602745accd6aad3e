"""Deadlines as data: planning a match's deadlines and re-planning as a diff (rules 4.5, 5, 6.3)."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, Calendar, OfferRules, Ruleset
from rules.week.calendar import UTC, MatchWeek
from rules.week.deadlines import (
    Deadline,
    DeadlineKind,
    MatchFacts,
    diff_deadlines,
    match_week,
    plan_deadlines,
)
from rules.week.faults import apply_verdict, assess_offer_deadline
from rules.week.negotiation import (
    Negotiation,
    accept_change,
    accept_offer,
    make_offers,
    propose_change,
    start_negotiation,
    td_decide,
)

K = DeadlineKind
RS = DEFAULT_RULESET
WEEK = match_week(dt.date(2021, 10, 12), RS)
ALICE, BOB = PlayerId("alice"), PlayerId("bob")


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


def fresh() -> Negotiation:
    return start_negotiation(MatchId(1), (ALICE, BOB), WEEK)


def offer(n: Negotiation, player: PlayerId, *times: dt.datetime, now: dt.datetime) -> Negotiation:
    return make_offers(n, times, player=player, now=now, ruleset=RS).negotiation


def kinds(plan: list[Deadline]) -> list[DeadlineKind]:
    return [d.kind for d in plan]


def test_match_week_runs_tuesday_to_monday_2359() -> None:
    assert MatchWeek(start=at(12, 0), end=at(18, 23, 59), offer_deadline=at(15, 23, 59)) == WEEK
    assert WEEK.offers_close == at(16, 0)
    assert WEEK.closes == at(19, 0)
    assert len(WEEK.dates()) == 7


def test_match_week_refuses_a_non_publication_day() -> None:
    with pytest.raises(ValueError, match="weekday"):
        match_week(dt.date(2021, 10, 13), RS)


def test_match_week_follows_the_calendar_settings() -> None:
    rules = Ruleset(
        calendar=Calendar(publish_weekday=0, complete_weekday=6),
        offers=OfferRules(deadline_weekday=3),
    )
    week = match_week(dt.date(2021, 10, 11), rules)
    assert week.end == at(17, 23, 59)
    assert week.offer_deadline == at(14, 23, 59)


def test_fresh_pairing_has_offers_check_and_completion_check() -> None:
    plan = plan_deadlines(MatchFacts(fresh()), ruleset=RS)
    assert plan == [
        Deadline(K.OFFERS_CHECK, at(16, 0)),
        Deadline(K.COMPLETION_CHECK, at(19, 0)),
    ]


def test_unanswered_offer_gets_a_reminder_24_hours_later() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    plan = plan_deadlines(MatchFacts(n), ruleset=RS)
    assert Deadline(K.REPLY_REMINDER, at(13, 10), "bob") in plan
    # bob answers with an offer of his own: his reminder goes, alice now owes a reply.
    n2 = offer(n, BOB, at(15, 18), now=at(12, 20))
    diff = diff_deadlines(plan, plan_deadlines(MatchFacts(n2), ruleset=RS))
    assert diff.removed == (Deadline(K.REPLY_REMINDER, at(13, 10), "bob"),)
    assert diff.added == (Deadline(K.REPLY_REMINDER, at(13, 20), "alice"),)


def test_weekend_check_is_planned_when_both_made_three_offers() -> None:
    n = offer(fresh(), ALICE, at(13, 9), at(14, 9), at(15, 9), now=at(12, 10))
    n = offer(n, BOB, at(13, 18), at(14, 18), at(15, 18), now=at(12, 11))
    plan = plan_deadlines(MatchFacts(n), ruleset=RS)
    same_instant = [d.kind for d in plan if d.due == at(16, 0)]
    assert same_instant == [K.OFFERS_CHECK, K.WEEKEND_CHECK]  # offers check fires first


def test_agreement_replaces_offer_checks_with_no_show_checks() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    old = plan_deadlines(MatchFacts(n), ruleset=RS)
    n = accept_offer(n, player=BOB, number=1, now=at(12, 12)).negotiation
    new = plan_deadlines(MatchFacts(n), ruleset=RS)
    assert kinds(new) == [K.NO_SHOW_FIRST, K.NO_SHOW_SECOND, K.COMPLETION_CHECK]
    assert new[0].due == at(14, 18, 10)
    assert new[1].due == at(14, 18, 20)
    diff = diff_deadlines(old, new)
    assert {d.kind for d in diff.removed} == {K.OFFERS_CHECK, K.REPLY_REMINDER}
    assert diff.kept == (Deadline(K.COMPLETION_CHECK, at(19, 0)),)
    # moving the time by consent moves the no-show checks.
    n = propose_change(n, at(15, 20), player=ALICE, now=at(13, 9), ruleset=RS).negotiation
    n = accept_change(n, player=BOB, now=at(13, 10)).negotiation
    moved = diff_deadlines(new, plan_deadlines(MatchFacts(n), ruleset=RS))
    assert [d.due for d in moved.added] == [at(15, 20, 10), at(15, 20, 20)]
    assert [d.due for d in moved.removed] == [at(14, 18, 10), at(14, 18, 20)]


def test_started_match_drops_no_show_checks_and_completed_drops_all() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    n = accept_offer(n, player=BOB, number=1, now=at(12, 12)).negotiation
    assert kinds(plan_deadlines(MatchFacts(n, started=True), ruleset=RS)) == [K.COMPLETION_CHECK]
    assert plan_deadlines(MatchFacts(n, started=True, completed=True), ruleset=RS) == []


def test_fault_ruling_drops_the_offers_check() -> None:
    n = offer(fresh(), ALICE, at(13, 9), at(14, 9), at(15, 9), now=at(12, 10))
    verdict = assess_offer_deadline(n, now=at(16, 0), ruleset=RS)
    n = apply_verdict(n, verdict, now=at(16, 0)).negotiation
    assert kinds(plan_deadlines(MatchFacts(n), ruleset=RS)) == [K.COMPLETION_CHECK]


def test_tied_ruling_leaves_no_deadlines() -> None:
    n = td_decide(fresh(), None, now=at(16, 1)).negotiation
    assert plan_deadlines(MatchFacts(n), ruleset=RS) == []


def test_reminder_after_the_week_is_not_planned() -> None:
    n = offer(fresh(), ALICE, at(18, 22), now=at(18, 1))
    assert K.REPLY_REMINDER not in kinds(plan_deadlines(MatchFacts(n), ruleset=RS))


def test_diff_of_equal_plans_is_empty() -> None:
    plan = plan_deadlines(MatchFacts(fresh()), ruleset=RS)
    assert diff_deadlines(plan, list(reversed(plan))).is_empty
