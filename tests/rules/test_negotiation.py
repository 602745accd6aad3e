"""Match negotiations over whole weeks with a fake clock (rules 5)."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, OfferRules, Ruleset
from rules.talk.commands import Offer, parse
from rules.week.calendar import UTC, match_week
from rules.week.faults import (
    VerdictKind,
    apply_verdict,
    assess_offer_deadline,
    assess_weekend,
    awaiting_reply,
    has_met_offer_duty,
    offers_counted,
)
from rules.week.negotiation import (
    AgreementKind,
    FaultRuled,
    Negotiation,
    NegotiationError,
    NegotiationErrorReason,
    OfferMade,
    OfferWithdrawn,
    Phase,
    RulingKind,
    TimeAgreed,
    accept_change,
    accept_offer,
    choose_time,
    decline_change,
    make_offers,
    propose_change,
    start_negotiation,
    td_decide,
    validate_offer,
    withdraw_offer,
)

R = NegotiationErrorReason
RS = DEFAULT_RULESET
WEEK = match_week(dt.date(2021, 10, 12), RS)
ALICE = PlayerId("alice")
BOB = PlayerId("bob")
MATCH = MatchId(7)


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


def fresh() -> Negotiation:
    return start_negotiation(MATCH, (ALICE, BOB), WEEK)


def offer(n: Negotiation, player: PlayerId, *times: dt.datetime, now: dt.datetime) -> Negotiation:
    return make_offers(n, times, player=player, now=now, ruleset=RS).negotiation


def refused(reason: NegotiationErrorReason) -> pytest.RaisesExc[NegotiationError]:
    return pytest.raises(NegotiationError, check=lambda e: e.reason is reason)


# --- an ordinary week -----------------------------------------------------------------------------


def test_ordinary_week_offers_counter_offer_and_acceptance() -> None:
    n = fresh()
    # Tuesday: alice offers three times through the one grammar.
    tue = at(12, 10)
    command = parse("offer wed 18:00, thu 18:00, fri 20:00", now=tue, week=WEEK)
    assert isinstance(command, Offer)
    step = make_offers(n, command.times, player=ALICE, now=tue, ruleset=RS)
    n = step.negotiation
    assert [e.number for e in step.events if isinstance(e, OfferMade)] == [1, 2, 3]
    assert all(isinstance(e, OfferMade) and e.counts for e in step.events)
    assert awaiting_reply(n)[0].player == BOB
    # Wednesday: bob counters (a reply, rules 5.7) ...
    n = offer(n, BOB, at(14, 21), now=at(13, 9))
    assert [p.player for p in awaiting_reply(n)] == [ALICE]
    # ... then accepts alice's Thursday offer by its number.
    step = accept_offer(n, player=BOB, number=2, now=at(13, 12))
    n = step.negotiation
    assert n.phase is Phase.AGREED
    assert n.agreement is not None
    assert n.agreement.time == at(14, 18)
    assert n.agreement.kind is AgreementKind.ACCEPTED
    assert step.events == (TimeAgreed(MATCH, n.agreement),)
    # bob made only one offer, but an accepted offer discharges the duty (rules 5.1).
    assert has_met_offer_duty(n, BOB, ruleset=RS)
    verdict = assess_offer_deadline(n, now=WEEK.offers_close, ruleset=RS)
    assert verdict.kind is VerdictKind.AGREED
    assert apply_verdict(n, verdict, now=WEEK.offers_close).negotiation == n
    assert not assess_weekend(n, now=WEEK.offers_close, ruleset=RS).needs_td
    assert awaiting_reply(n) == ()


def test_accept_by_time_finds_the_opponents_offer() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    n = accept_offer(n, player=BOB, time=at(14, 18), now=at(12, 11)).negotiation
    assert n.agreement is not None
    assert n.agreement.offer_number == 1


def test_agreed_time_is_final_unless_both_agree_to_change() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    n = accept_offer(n, player=BOB, number=1, now=at(12, 11)).negotiation
    with refused(R.ALREADY_AGREED):
        offer(n, BOB, at(15, 18), now=at(12, 12))
    n = propose_change(n, at(15, 18), player=BOB, now=at(12, 12), ruleset=RS).negotiation
    assert n.agreement is not None
    assert n.agreement.time == at(14, 18)  # unchanged until alice agrees
    with refused(R.OWN_PROPOSAL):
        accept_change(n, player=BOB, now=at(12, 13))
    with refused(R.CHANGE_PENDING):
        propose_change(n, at(16, 18), player=ALICE, now=at(12, 13), ruleset=RS)
    declined = decline_change(n, player=ALICE, now=at(12, 14)).negotiation
    assert declined.change is None
    assert declined.agreement == n.agreement
    step = accept_change(n, player=ALICE, now=at(12, 14))
    assert step.negotiation.agreement is not None
    assert step.negotiation.agreement.time == at(15, 18)
    assert step.negotiation.agreement.kind is AgreementKind.CHANGED
    assert step.events == (TimeAgreed(MATCH, step.negotiation.agreement, previous=at(14, 18)),)


def test_change_refusals() -> None:
    n = fresh()
    with refused(R.NOT_AGREED):
        propose_change(n, at(15, 18), player=ALICE, now=at(12, 10), ruleset=RS)
    with refused(R.NO_CHANGE):
        accept_change(n, player=ALICE, now=at(12, 10))
    with refused(R.NO_CHANGE):
        decline_change(n, player=ALICE, now=at(12, 10))
    n = offer(n, ALICE, at(14, 18), now=at(12, 10))
    n = accept_offer(n, player=BOB, number=1, now=at(12, 11)).negotiation
    with refused(R.SAME_TIME):
        propose_change(n, at(14, 18), player=ALICE, now=at(12, 12), ruleset=RS)
    with refused(R.OUTSIDE_WEEK):
        propose_change(n, at(19, 18), player=ALICE, now=at(12, 12), ruleset=RS)


# --- rules 5.4 refusals ---------------------------------------------------------------------------


def test_offers_exactly_three_hours_apart_are_accepted() -> None:
    n = offer(fresh(), ALICE, at(14, 15), at(14, 18), now=at(12, 10))
    assert [o.time for o in n.offers_by(ALICE)] == [at(14, 15), at(14, 18)]


def test_offer_two_hours_59_minutes_from_another_is_refused() -> None:
    n = offer(fresh(), ALICE, at(14, 15), now=at(12, 10))
    with refused(R.TOO_CLOSE) as info:
        offer(n, ALICE, at(14, 17, 59), now=at(12, 11))
    assert "2 hours 59 minutes" in info.value.message
    assert "rules 5.4" in info.value.message


def test_gap_counts_across_midnight() -> None:
    n = offer(fresh(), ALICE, at(14, 23), now=at(12, 10))
    with refused(R.TOO_CLOSE):
        offer(n, ALICE, at(15, 1), now=at(12, 11))


def test_third_offer_on_one_date_is_refused() -> None:
    n = offer(fresh(), ALICE, at(14, 9), at(14, 15), now=at(12, 10))
    with refused(R.DATE_FULL) as info:
        offer(n, ALICE, at(14, 21), now=at(12, 11))
    assert "at most 2" in info.value.message


def test_duplicate_offer_is_refused_and_counted_once() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    with refused(R.DUPLICATE):
        offer(n, ALICE, at(14, 18), now=at(12, 11))
    with refused(R.DUPLICATE):
        make_offers(fresh(), [at(14, 18), at(14, 18)], player=ALICE, now=at(12, 10), ruleset=RS)
    assert offers_counted(n, ALICE) == 1


@pytest.mark.parametrize(
    ("when", "now", "reason"),
    [
        (at(11, 18), at(11, 10), R.OUTSIDE_WEEK),  # Monday before publication
        (at(19, 0), at(12, 10), R.OUTSIDE_WEEK),  # Tuesday after the week
        (at(12, 9), at(12, 10), R.IN_THE_PAST),
        (at(12, 10), at(12, 10), R.IN_THE_PAST),
        (at(14, 18, 30).replace(second=30), at(12, 10), R.NOT_WHOLE_MINUTE),
        (dt.datetime(2021, 10, 14, 18, 0), at(12, 10), R.NOT_UTC),
    ],
)
def test_offer_must_be_a_future_minute_inside_the_week(
    when: dt.datetime, now: dt.datetime, reason: NegotiationErrorReason
) -> None:
    with refused(reason):
        validate_offer(when, fresh(), player=ALICE, now=now, ruleset=RS)


def test_last_minute_of_the_week_is_inside() -> None:
    validate_offer(at(18, 23, 59), fresh(), player=ALICE, now=at(12, 10), ruleset=RS)


def test_offer_of_opponents_time_points_to_accept() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    with refused(R.OPPONENTS_TIME) as info:
        offer(n, BOB, at(14, 18), now=at(12, 11))
    assert "accept 1" in info.value.message


def test_refused_offer_changes_nothing_even_in_a_batch() -> None:
    n = fresh()
    with refused(R.TOO_CLOSE):
        make_offers(
            n, [at(14, 18), at(15, 18), at(15, 19)], player=ALICE, now=at(12, 10), ruleset=RS
        )
    assert n.offers == ()


def test_stranger_cannot_offer() -> None:
    with refused(R.NOT_A_PLAYER):
        validate_offer(at(14, 18), fresh(), player=PlayerId("carol"), now=at(12, 10), ruleset=RS)


def test_limits_come_from_the_ruleset() -> None:
    loose = Ruleset(offers=OfferRules(min_gap=dt.timedelta(hours=1), max_per_date=3))
    n = make_offers(
        fresh(), [at(14, 9), at(14, 10), at(14, 11)], player=ALICE, now=at(12, 10), ruleset=loose
    ).negotiation
    assert len(n.offers_by(ALICE)) == 3


# --- accepting and withdrawing --------------------------------------------------------------------


def test_accept_refusals() -> None:
    n = offer(fresh(), ALICE, at(13, 18), at(14, 18), now=at(12, 10))
    with refused(R.OWN_OFFER):
        accept_offer(n, player=ALICE, number=1, now=at(12, 11))
    with refused(R.NO_SUCH_OFFER):
        accept_offer(n, player=BOB, number=9, now=at(12, 11))
    with refused(R.NO_SUCH_OFFER):
        accept_offer(n, player=BOB, time=at(15, 18), now=at(12, 11))
    with refused(R.OFFER_PASSED):
        accept_offer(n, player=BOB, number=1, now=at(13, 18))
    n = withdraw_offer(n, 2, player=ALICE, now=at(12, 12)).negotiation
    with refused(R.OFFER_WITHDRAWN):
        accept_offer(n, player=BOB, number=2, now=at(12, 13))


def test_withdraw_refusals_and_numbering_is_stable() -> None:
    n = offer(fresh(), ALICE, at(13, 18), now=at(12, 10))
    with refused(R.NO_SUCH_OFFER):
        withdraw_offer(n, 1, player=BOB, now=at(12, 11))
    step = withdraw_offer(n, 1, player=ALICE, now=at(12, 11))
    assert step.events == (OfferWithdrawn(MATCH, ALICE, 1, at(12, 11)),)
    with refused(R.OFFER_WITHDRAWN):
        withdraw_offer(step.negotiation, 1, player=ALICE, now=at(12, 12))
    n = offer(step.negotiation, ALICE, at(13, 18), now=at(12, 12))  # same time again is fine
    assert [o.number for o in n.offers] == [1, 2]


# --- the Friday deadline: rules 5.5 and 5.6 -------------------------------------------------------


def three_offers(n: Negotiation, player: PlayerId, hour: int) -> Negotiation:
    return offer(n, player, at(13, hour), at(14, hour), at(15, hour), now=at(12, 10))


def test_player_without_three_offers_is_at_fault_and_opponent_chooses() -> None:
    n = three_offers(fresh(), ALICE, 18)
    n = offer(n, BOB, at(16, 12), at(16, 16), now=at(15, 23, 59))  # only 2, the last in the minute
    assert offers_counted(n, BOB) == 2
    with refused(R.TOO_EARLY):
        assess_offer_deadline(n, now=at(15, 23, 59), ruleset=RS)
    saturday = WEEK.offers_close
    verdict = assess_offer_deadline(n, now=saturday, ruleset=RS)
    assert verdict.kind is VerdictKind.PLAYER_AT_FAULT
    assert verdict.at_fault == (BOB,)
    assert verdict.chooser == ALICE
    assert dict(verdict.offers) == {ALICE: 3, BOB: 2}
    step = apply_verdict(n, verdict, now=saturday)
    n = step.negotiation
    assert n.phase is Phase.AWAITING_CHOICE
    assert isinstance(step.events[0], FaultRuled)
    assert step.events[0].ruling.kind is RulingKind.OFFERS_ONE_AT_FAULT
    # bob can no longer steer; alice picks.
    with refused(R.CHOOSER_DECIDES):
        offer(n, BOB, at(17, 18), now=saturday)
    with refused(R.CHOOSER_DECIDES):
        accept_offer(n, player=BOB, number=1, now=saturday)
    with refused(R.NOT_CHOOSER):
        choose_time(n, BOB, at(17, 18), now=saturday, ruleset=RS)
    with refused(R.OUTSIDE_WEEK):
        choose_time(n, ALICE, at(19, 18), now=saturday, ruleset=RS)
    with refused(R.IN_THE_PAST):
        choose_time(n, ALICE, at(15, 18), now=saturday, ruleset=RS)
    with refused(R.ALREADY_RULED):
        apply_verdict(n, verdict, now=saturday)
    step = choose_time(n, ALICE, at(17, 18), now=saturday, ruleset=RS)
    assert step.negotiation.agreement is not None
    assert step.negotiation.agreement.kind is AgreementKind.CHOSEN
    assert step.negotiation.agreement.time == at(17, 18)


def test_chooser_may_pick_an_offer_on_the_table() -> None:
    n = three_offers(fresh(), ALICE, 18)
    n = offer(n, BOB, at(17, 12), now=at(13, 10))
    verdict = assess_offer_deadline(n, now=WEEK.offers_close, ruleset=RS)
    n = apply_verdict(n, verdict, now=WEEK.offers_close).negotiation
    n = accept_offer(n, player=ALICE, number=4, now=WEEK.offers_close).negotiation
    assert n.agreement is not None
    assert n.agreement.kind is AgreementKind.CHOSEN


def test_both_without_three_offers_is_a_tied_match_with_two_forfeits() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    n = offer(n, BOB, at(14, 12), now=at(13, 10))
    verdict = assess_offer_deadline(n, now=WEEK.offers_close, ruleset=RS)
    assert verdict.kind is VerdictKind.BOTH_AT_FAULT
    n = apply_verdict(n, verdict, now=WEEK.offers_close).negotiation
    assert n.phase is Phase.TIED
    assert n.ruling is not None
    assert n.ruling.forfeits == (ALICE, BOB)
    assert n.ruling.kind is RulingKind.OFFERS_BOTH_AT_FAULT
    with refused(R.MATCH_RULED):
        offer(n, ALICE, at(17, 18), now=WEEK.offers_close)
    with refused(R.MATCH_RULED):
        choose_time(n, ALICE, at(17, 18), now=WEEK.offers_close, ruleset=RS)


def test_offers_after_the_deadline_are_allowed_but_do_not_count() -> None:
    n = three_offers(fresh(), ALICE, 18)
    step = make_offers(n, [at(16, 12)], player=BOB, now=WEEK.offers_close, ruleset=RS)
    made = step.events[0]
    assert isinstance(made, OfferMade)
    assert not made.counts
    assert offers_counted(step.negotiation, BOB) == 0


def test_offer_withdrawn_before_deadline_stops_counting_but_not_after() -> None:
    n = three_offers(fresh(), ALICE, 18)
    early = withdraw_offer(n, 1, player=ALICE, now=at(12, 11)).negotiation
    late = withdraw_offer(n, 3, player=ALICE, now=WEEK.offers_close).negotiation
    assert offers_counted(early, ALICE) == 2
    assert offers_counted(late, ALICE) == 3


def test_offers_whose_time_passed_still_count() -> None:
    n = offer(fresh(), ALICE, at(12, 18), at(13, 18), at(14, 18), now=at(12, 10))
    verdict = assess_offer_deadline(n, now=WEEK.offers_close, ruleset=RS)
    assert dict(verdict.offers)[ALICE] == 3


def test_agreement_after_deadline_means_no_fault_is_recorded() -> None:
    n = offer(fresh(), ALICE, at(17, 18), now=at(12, 10))
    late = at(16, 0, 0) + dt.timedelta(seconds=30)
    n = accept_offer(n, player=BOB, number=1, now=late).negotiation
    verdict = assess_offer_deadline(n, now=late, ruleset=RS)
    assert verdict.kind is VerdictKind.BOTH_AT_FAULT  # the duty was not met in time ...
    assert apply_verdict(n, verdict, now=late).negotiation == n  # ... but the match is scheduled


# --- the weekend: rules 5.8 and 5.9 ---------------------------------------------------------------


def both_offered_no_agreement() -> Negotiation:
    n = three_offers(fresh(), ALICE, 9)
    return three_offers(n, BOB, 18)


def test_both_offered_three_without_agreement_needs_the_tds() -> None:
    n = both_offered_no_agreement()
    verdict = assess_offer_deadline(n, now=WEEK.offers_close, ruleset=RS)
    assert verdict.kind is VerdictKind.NOBODY_AT_FAULT
    assert apply_verdict(n, verdict, now=WEEK.offers_close).events == ()
    with refused(R.TOO_EARLY):
        assess_weekend(n, now=at(15, 23), ruleset=RS)
    weekend = assess_weekend(n, now=WEEK.offers_close, ruleset=RS)
    assert weekend.needs_td
    assert dict(weekend.offers) == {ALICE: 3, BOB: 3}


def test_td_rules_a_player_at_fault_and_the_other_chooses() -> None:
    n = both_offered_no_agreement()
    step = td_decide(n, BOB, now=at(16, 10))
    n = step.negotiation
    assert n.ruling is not None
    assert n.ruling.kind is RulingKind.TD_PLAYER_AT_FAULT
    assert n.ruling.chooser == ALICE
    assert n.ruling.forfeits == ()
    n = choose_time(n, ALICE, at(17, 15), now=at(16, 11), ruleset=RS).negotiation
    assert n.phase is Phase.AGREED
    with refused(R.ALREADY_AGREED):
        td_decide(n, None, now=at(16, 12))


def test_td_rules_nobody_at_fault_and_the_match_is_tied() -> None:
    n = td_decide(both_offered_no_agreement(), None, now=at(16, 10)).negotiation
    assert n.phase is Phase.TIED
    assert n.ruling is not None
    assert n.ruling.kind is RulingKind.TD_NOBODY_AT_FAULT
    assert n.ruling.forfeits == ()


def test_td_cannot_fault_a_stranger() -> None:
    with refused(R.NOT_A_PLAYER):
        td_decide(both_offered_no_agreement(), PlayerId("carol"), now=at(16, 10))


# --- invariants -----------------------------------------------------------------------------------

_HOURS = st.integers(min_value=0, max_value=6 * 24 - 1)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _HOURS), max_size=25))
def test_recorded_offers_always_obey_rules_5_4(moves: list[tuple[bool, int]]) -> None:
    n = fresh()
    now = at(12, 1)
    for is_alice, hour in moves:
        player = ALICE if is_alice else BOB
        when = WEEK.start + dt.timedelta(hours=hour + 2)
        try:
            n = make_offers(n, [when], player=player, now=now, ruleset=RS).negotiation
        except NegotiationError:
            continue
    for player in (ALICE, BOB):
        times = sorted(o.time for o in n.offers_by(player))
        assert all(b - a >= RS.offers.min_gap for a, b in itertools.pairwise(times))
        for day in {t.date() for t in times}:
            assert sum(t.date() == day for t in times) <= RS.offers.max_per_date
    assert [o.number for o in n.offers] == list(range(1, len(n.offers) + 1))


_ACTIONS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=9),
        st.booleans(),
        st.integers(min_value=0, max_value=7 * 24 * 4),
        st.integers(min_value=1, max_value=8),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(_ACTIONS)
def test_any_sequence_of_requests_only_raises_negotiation_errors(
    actions: list[tuple[int, bool, int, int]],
) -> None:
    n = fresh()
    now = WEEK.start
    for kind, is_alice, quarter, number in actions:
        player = ALICE if is_alice else BOB
        now += dt.timedelta(minutes=37)
        when = WEEK.start + dt.timedelta(minutes=15 * quarter)
        before = n
        try:
            if kind <= 1:
                n = make_offers(n, [when], player=player, now=now, ruleset=RS).negotiation
            elif kind == 2:
                n = accept_offer(n, player=player, now=now, number=number).negotiation
            elif kind == 3:
                n = withdraw_offer(n, number, player=player, now=now).negotiation
            elif kind == 4:
                n = propose_change(n, when, player=player, now=now, ruleset=RS).negotiation
            elif kind == 5:
                n = accept_change(n, player=player, now=now).negotiation
            elif kind == 6:
                n = decline_change(n, player=player, now=now).negotiation
            elif kind == 7:
                verdict = assess_offer_deadline(n, now=now, ruleset=RS)
                n = apply_verdict(n, verdict, now=now).negotiation
            elif kind == 8:
                n = choose_time(n, player, when, now=now, ruleset=RS).negotiation
            else:
                n = td_decide(n, player if number % 3 else None, now=now).negotiation
        except NegotiationError:
            assert n is before  # a refusal changes nothing
        if n.agreement is not None:
            assert WEEK.contains(n.agreement.time)
