"""The player's next step and what they may do, in every state of a match."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from rules.core.model import GameId, MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.week.calendar import UTC, match_week
from rules.week.conduct import BreakCall, ClaimReason, ClaimRight, GameSpan
from rules.week.negotiation import (
    Negotiation,
    accept_offer,
    make_offers,
    propose_change,
    start_negotiation,
    td_decide,
)
from rules.week.next_step import MatchMoment, StepKind, player_options

RS = DEFAULT_RULESET
WEEK = match_week(dt.date(2021, 10, 12), RS)
ALICE, BOB = PlayerId("alice"), PlayerId("bob")
MATCH = MatchId(7)
K = StepKind


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


def fresh() -> Negotiation:
    return start_negotiation(MATCH, (ALICE, BOB), WEEK)


def offered(n: Negotiation, by: PlayerId, *times: dt.datetime, now: dt.datetime) -> Negotiation:
    return make_offers(n, times, player=by, now=now, ruleset=RS).negotiation


def bob_offers() -> Negotiation:
    return offered(fresh(), BOB, at(14, 18), at(15, 18), at(16, 12), now=at(12, 13))


def agreed() -> Negotiation:
    return accept_offer(bob_offers(), player=ALICE, number=1, now=at(12, 14)).negotiation


def moment(n: Negotiation | None, now: dt.datetime, **facts: object) -> MatchMoment:
    base = MatchMoment(
        me=ALICE,
        negotiation=n,
        now=now,
        decided=False,
        required_offers=RS.offers.required_offers,
        conduct=RS.conduct,
        games_total=10,
    )
    return dataclasses.replace(base, **facts)  # type: ignore[arg-type]


def span(number: int, start: dt.datetime) -> GameSpan:
    return GameSpan(GameId(f"g{number}"), start, start + dt.timedelta(minutes=8))


GAME1 = span(1, at(14, 18))
RIGHT = ClaimRight(MATCH, ALICE, BOB, ClaimReason.NO_SHOW, at(14, 18, 20))

CASES: dict[str, tuple[MatchMoment, StepKind, str | None]] = {
    "not published": (moment(None, at(12, 12)), K.WAIT_PUBLICATION, None),
    "nothing offered yet": (moment(fresh(), at(12, 12)), K.MAKE_OFFERS, "offer"),
    "the opponent offered": (moment(bob_offers(), at(12, 13)), K.ANSWER_OFFER, "accept"),
    "my offers made": (
        moment(
            offered(fresh(), ALICE, at(14, 18), at(15, 18), at(16, 12), now=at(12, 13)), at(12, 14)
        ),
        K.WAIT_ANSWER,
        None,
    ),
    "offers deadline passed": (moment(fresh(), at(16, 9)), K.WAIT_TDS, None),
    "I choose the time": (
        moment(td_decide(fresh(), BOB, now=at(16, 9)).negotiation, at(16, 10)),
        K.CHOOSE_TIME,
        "choose",
    ),
    "the opponent chooses": (
        moment(td_decide(fresh(), ALICE, now=at(16, 9)).negotiation, at(16, 10)),
        K.WAIT_CHOICE,
        None,
    ),
    "tied by the TDs": (
        moment(td_decide(fresh(), None, now=at(16, 9)).negotiation, at(16, 10)),
        K.WAIT_TDS,
        None,
    ),
    "agreed, time to come": (moment(agreed(), at(13, 9)), K.PLAY_AT, "join"),
    "agreed time reached": (moment(agreed(), at(14, 18, 1)), K.PLAY_NOW, "join"),
    "the opponent asks a change": (
        moment(
            propose_change(agreed(), at(15, 20), player=BOB, now=at(13, 9), ruleset=RS).negotiation,
            at(13, 10),
        ),
        K.ANSWER_CHANGE,
        "accept change",
    ),
    "my change asked": (
        moment(
            propose_change(
                agreed(), at(15, 20), player=ALICE, now=at(13, 9), ruleset=RS
            ).negotiation,
            at(13, 10),
        ),
        K.WAIT_CHANGE,
        None,
    ),
    "a game in progress": (
        moment(agreed(), at(14, 18, 3), game_in_progress=True),
        K.GAME_IN_PROGRESS,
        None,
    ),
    "between games": (
        moment(agreed(), at(14, 18, 9), games_played=1, spans=(GAME1,)),
        K.PLAY_NOW,
        "join",
    ),
    "on a break": (
        moment(
            agreed(),
            at(14, 18, 10),
            games_played=1,
            spans=(GAME1,),
            breaks=(BreakCall(BOB, at(14, 18, 9)),),
        ),
        K.ON_BREAK,
        None,
    ),
    "a no-show to claim": (
        moment(agreed(), at(14, 18, 21), rights=(RIGHT,)),
        K.CLAIM,
        "claim win",
    ),
    "claimed: the TDs decide": (
        moment(agreed(), at(14, 18, 22), rights=(RIGHT,), claimed=frozenset({"alice"})),
        K.WAIT_TDS,
        None,
    ),
    "armageddon": (
        moment(agreed(), at(18, 9), games_played=10, armageddon=True),
        K.ARMAGEDDON,
        "bid",
    ),
    "all games played": (moment(agreed(), at(18, 9), games_played=10), K.WAIT_TDS, None),
    "decided": (moment(agreed(), at(18, 9), games_played=6, decided=True), K.DONE, None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_state_of_a_match_has_its_step_and_button(case: str) -> None:
    m, kind, button = CASES[case]
    step = player_options(m).step
    assert (step.kind, step.button) == (kind, button)


def test_every_step_kind_is_reached() -> None:
    assert {kind for _, kind, _ in CASES.values()} == set(StepKind)


def test_the_card_answers_the_earliest_open_offer_by_its_time() -> None:
    step = player_options(moment(bob_offers(), at(12, 13))).step
    assert step.offer == 1
    assert step.deadline == at(14, 18)
    assert "offer" in step.also  # countering stays possible


def test_deadlines_of_the_steps() -> None:
    assert player_options(moment(fresh(), at(12, 12))).step.deadline == WEEK.offer_deadline
    assert player_options(moment(agreed(), at(13, 9))).step.deadline == at(14, 18)
    on_break = moment(
        agreed(),
        at(14, 18, 10),
        games_played=1,
        spans=(GAME1,),
        breaks=(BreakCall(BOB, at(14, 18, 9)),),
    )
    step = player_options(on_break).step
    assert step.deadline == at(14, 18, 9) + RS.conduct.break_length
    assert step.game == 2
    armageddon = moment(agreed(), at(18, 9), games_played=10, armageddon=True)
    assert player_options(armageddon).step.deadline == WEEK.end  # no procedure yet
    bids_due = dataclasses.replace(armageddon, armageddon_due=at(19, 9))
    assert player_options(bids_due).step.deadline == at(19, 9)  # the bids' own deadline


def test_a_break_is_offered_between_games_once() -> None:
    between = moment(agreed(), at(14, 18, 9), games_played=1, spans=(GAME1,))
    options = player_options(between)
    assert "break" in options.actions
    assert options.step.also == ("break",)
    used = dataclasses.replace(
        between,
        now=at(14, 18, 40),
        games_played=2,
        spans=(GAME1, span(2, at(14, 18, 30))),
        breaks=(BreakCall(ALICE, at(14, 18, 9)),),
    )
    assert "break" not in player_options(used).actions
    assert (
        "break"
        not in player_options(moment(agreed(), at(14, 18, 3), game_in_progress=True)).actions
    )


def test_what_a_player_may_send_by_phase() -> None:
    assert player_options(moment(None, at(12, 12))).actions == ()
    assert player_options(moment(bob_offers(), at(12, 13))).actions == (
        "status",
        "help",
        "report",
        "offer",
        "accept",
    )
    assert "change" in player_options(moment(agreed(), at(13, 9))).actions
    decided = player_options(moment(agreed(), at(18, 9), decided=True)).actions
    assert decided == ("status", "help", "report")
    claim = player_options(moment(agreed(), at(14, 18, 21), rights=(RIGHT,))).actions
    assert "claim win" in claim
