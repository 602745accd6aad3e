"""What the match room shows of a week, decided in rules/week/room.py: where each offer stands,
which offers count towards rules 5.1, the next game; and the room's words (rules/talk/room.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.talk.room import NoShowCheckSeen, no_show_lines, ruling_line
from rules.week.calendar import UTC, match_week
from rules.week.faults import counts_towards_duty, offers_counted
from rules.week.negotiation import (
    Negotiation,
    RulingKind,
    accept_offer,
    make_offers,
    start_negotiation,
    td_decide,
    withdraw_offer,
)
from rules.week.room import OfferState, next_game, offer_state

RS = DEFAULT_RULESET
WEEK = match_week(dt.date(2021, 10, 12), RS)
ALICE, BOB = PlayerId("alice"), PlayerId("bob")


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


def bob_offers() -> Negotiation:
    n = start_negotiation(MatchId(7), (ALICE, BOB), WEEK)
    times = (at(14, 18), at(15, 18), at(16, 12))
    return make_offers(n, times, player=BOB, now=at(12, 13), ruleset=RS).negotiation


def states(n: Negotiation, *, now: dt.datetime, decided: bool = False) -> list[OfferState]:
    return [offer_state(n, o, decided=decided, now=now) for o in n.offers]


def test_offers_are_open_until_their_time_passes() -> None:
    n = bob_offers()
    assert states(n, now=at(13, 12)) == [OfferState.OPEN] * 3
    assert states(n, now=at(14, 18)) == [OfferState.PASSED, OfferState.OPEN, OfferState.OPEN]


def test_an_agreement_accepts_one_offer_and_closes_the_others() -> None:
    n = accept_offer(bob_offers(), player=ALICE, number=2, now=at(12, 14)).negotiation
    assert states(n, now=at(13, 12)) == [OfferState.CLOSED, OfferState.ACCEPTED, OfferState.CLOSED]


def test_a_decided_match_closes_every_offer_and_a_withdrawn_one_says_so() -> None:
    n = withdraw_offer(bob_offers(), 1, player=BOB, now=at(12, 14)).negotiation
    assert states(n, now=at(13, 12), decided=True) == [
        OfferState.WITHDRAWN,
        OfferState.CLOSED,
        OfferState.CLOSED,
    ]


def test_the_opponent_of_a_player_at_fault_may_still_accept_an_offer() -> None:
    n = td_decide(bob_offers(), ALICE, now=at(16, 1)).negotiation
    assert states(n, now=at(16, 2)) == [OfferState.PASSED, OfferState.PASSED, OfferState.OPEN]
    tied = td_decide(bob_offers(), None, now=at(16, 1)).negotiation
    assert states(tied, now=at(16, 2))[2] is OfferState.CLOSED


def test_an_offer_withdrawn_before_the_deadline_stops_counting() -> None:
    n = withdraw_offer(bob_offers(), 3, player=BOB, now=at(13, 9)).negotiation
    assert [counts_towards_duty(n, o) for o in n.offers] == [True, True, False]
    assert offers_counted(n, BOB) == 2
    assert offers_counted(n, ALICE) == 0


def test_the_next_game_follows_the_counted_ones_until_the_match_is_over() -> None:
    assert next_game(played=0, total=10, decided=False) == 1
    assert next_game(played=9, total=10, decided=False) == 10
    assert next_game(played=10, total=10, decided=False) is None
    assert next_game(played=3, total=10, decided=True) is None


def test_a_ruling_names_the_player_at_fault_and_the_chooser() -> None:
    line = ruling_line(RulingKind.TD_PLAYER_AT_FAULT, at_fault=["Alice"], chooser="Bob")
    assert line == "the TDs found Alice at fault (rules 5.9); Bob chooses the time"


@pytest.mark.parametrize(("now", "word"), [(at(14, 18, 5), "from"), (at(14, 18, 40), "since")])
def test_the_no_show_lines_say_when_a_claim_opens_and_what_the_checks_saw(
    now: dt.datetime, word: str
) -> None:
    checks = [
        NoShowCheckSeen(at(14, 18, 10), ("Alice",), ("Bob",)),
        NoShowCheckSeen(at(14, 18, 20), (), ("Alice", "Bob")),
    ]
    lines = no_show_lines(RS.conduct, at(14, 18), checks, now=now)
    assert lines[1].startswith(f"A no-show can be claimed {word} ")
    assert lines[2] == "Check at Thu 14 Oct 18:10 UTC: Alice was seen online; Bob was not."
    assert lines[3] == "Check at Thu 14 Oct 18:20 UTC: neither player was seen online."
