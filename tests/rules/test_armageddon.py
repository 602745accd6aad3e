"""Armageddon (rules 3.ix): sealed offers, rock-paper-scissors, and checking the game."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.core.colour import Colour
from rules.core.model import Game, GameStatus, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.stages.armageddon import (
    ArmageddonError,
    ArmageddonErrorReason,
    ArmageddonProcedure,
    Decision,
    EventKind,
    Phase,
    Rps,
    commitment,
    format_clock,
    parse_bid,
)
from rules.stages.armageddon_game import (
    FindingKind,
    Severity,
    armageddon_result,
    verify_armageddon_game,
)
from tests.rules.stage_helpers import game, pid

R = DEFAULT_RULESET
NOW = dt.datetime(2021, 12, 7, 12, 0, tzinfo=dt.UTC)
A, B = pid("alice"), pid("bob")
LATER = NOW + dt.timedelta(hours=1)
AFTER = NOW + dt.timedelta(hours=24, seconds=1)


def started() -> ArmageddonProcedure:
    proc, events = ArmageddonProcedure.start((A, B), now=NOW, ruleset=R)
    assert [e.kind for e in events] == [EventKind.STARTED]
    return proc


def kinds(events: tuple[object, ...]) -> list[EventKind]:
    return [e.kind for e in events]  # type: ignore[attr-defined]


# --- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"), [("0:01", 1), ("1:30", 90), ("3:00", 180), (" 2:05 ", 125), ("0:59", 59)]
)
def test_bid_parses_minutes_and_seconds(text: str, seconds: int) -> None:
    assert parse_bid(text, ruleset=R) == seconds


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("0:00", ArmageddonErrorReason.BID_TOO_LOW),
        ("3:01", ArmageddonErrorReason.BID_TOO_HIGH),
        ("10:00", ArmageddonErrorReason.BID_TOO_HIGH),
        ("1:60", ArmageddonErrorReason.BAD_BID_FORMAT),
        ("90", ArmageddonErrorReason.BAD_BID_FORMAT),
        ("1:5", ArmageddonErrorReason.BAD_BID_FORMAT),
        ("-1:00", ArmageddonErrorReason.BAD_BID_FORMAT),
        ("", ArmageddonErrorReason.BAD_BID_FORMAT),
        ("one thirty", ArmageddonErrorReason.BAD_BID_FORMAT),
    ],
)
def test_bad_bids_are_refused_with_a_reason(text: str, reason: ArmageddonErrorReason) -> None:
    with pytest.raises(ArmageddonError) as err:
        parse_bid(text, ruleset=R)
    assert err.value.reason is reason
    assert "3:00" in str(err.value) or "0:01" in str(err.value)


def test_format_clock() -> None:
    assert format_clock(90) == "1:30"
    assert format_clock(5) == "0:05"


# --- bidding ---------------------------------------------------------------------------------


def test_lower_offer_plays_white_with_that_time() -> None:
    proc = started()
    proc, e1 = proc.submit_bid(A, "1:30", salt="s1", now=LATER)
    assert proc.phase is Phase.BIDDING
    proc, e2 = proc.submit_bid(B, "2:00", salt="s2", now=LATER)
    assert kinds(e1) == [EventKind.BID_SEALED]
    assert kinds(e2) == [
        EventKind.BID_SEALED,
        EventKind.BID_REVEALED,
        EventKind.BID_REVEALED,
        EventKind.COLOURS_DECIDED,
    ]
    assert proc.phase is Phase.DECIDED
    assert (proc.white, proc.black, proc.white_seconds) == (A, B, 90)
    assert proc.decided_by is Decision.LOWER_BID


def test_sealed_events_carry_commitments_that_the_reveal_proves() -> None:
    proc = started()
    proc, e1 = proc.submit_bid(A, "1:30", salt="pepper", now=LATER)
    assert e1[0].seconds is None
    assert e1[0].salt is None
    _, e2 = proc.submit_bid(B, "0:45", salt="salt", now=LATER)
    sealed = {e.player: e.commitment for e in (*e1, *e2) if e.kind is EventKind.BID_SEALED}
    for e in e2:
        if e.kind is EventKind.BID_REVEALED:
            assert e.salt is not None
            assert commitment(str(e.seconds), e.salt) == sealed[e.player]


def test_offers_stay_secret_until_both_are_in() -> None:
    proc, _ = started().submit_bid(A, "1:30", salt="s", now=LATER)
    mine, theirs, public = proc.view(A), proc.view(B), proc.view(None)
    assert mine.own_bid == 90
    assert theirs.own_bid is None
    assert mine.bids is None
    assert theirs.bids is None
    assert public.bids is None
    assert public.bids_in == (True, False)
    with pytest.raises(ArmageddonError) as err:
        proc.reveal(now=LATER)
    assert err.value.reason is ArmageddonErrorReason.TOO_EARLY
    proc, _ = proc.submit_bid(B, "2:00", salt="t", now=LATER)
    assert proc.view(None).bids == (90, 120)


def test_missing_offer_at_the_deadline_loses_the_bidding() -> None:
    proc, _ = started().submit_bid(B, "2:30", salt="s", now=LATER)
    with pytest.raises(ArmageddonError) as err:
        proc.submit_bid(A, "0:10", salt="s", now=AFTER)
    assert err.value.reason is ArmageddonErrorReason.DEADLINE_PASSED
    proc, events = proc.reveal(now=AFTER)
    assert kinds(events) == [
        EventKind.BID_MISSING,
        EventKind.BID_REVEALED,
        EventKind.COLOURS_DECIDED,
    ]
    assert (proc.white, proc.white_seconds, proc.decided_by) == (B, 150, Decision.OPPONENT_NO_BID)


def test_no_offers_at_all_goes_to_rps_at_blacks_time() -> None:
    proc, events = started().reveal(now=AFTER)
    assert kinds(events) == [EventKind.BID_MISSING, EventKind.BID_MISSING, EventKind.RPS_STARTED]
    assert proc.phase is Phase.RPS
    proc, _ = proc.submit_rps(A, Rps.PAPER, salt="x", now=AFTER)
    proc, _ = proc.submit_rps(B, Rps.ROCK, salt="y", now=AFTER)
    assert (proc.white, proc.white_seconds) == (A, 180)


@pytest.mark.parametrize(
    ("who", "bid", "reason"),
    [
        (PlayerId("carol"), "1:00", ArmageddonErrorReason.NOT_A_PLAYER),
        (A, "1:00", ArmageddonErrorReason.ALREADY_SUBMITTED),
        (B, "0:00", ArmageddonErrorReason.BID_TOO_LOW),
    ],
)
def test_bid_refusals_change_nothing(
    who: PlayerId, bid: str, reason: ArmageddonErrorReason
) -> None:
    proc, _ = started().submit_bid(A, "1:30", salt="s", now=LATER)
    before = proc
    with pytest.raises(ArmageddonError) as err:
        proc.submit_bid(who, bid, salt="s", now=LATER)
    assert err.value.reason is reason
    assert proc == before
    assert proc.view(A).own_bid == 90


def test_empty_salt_and_naive_time_are_refused() -> None:
    with pytest.raises(ArmageddonError) as err:
        started().submit_bid(A, "1:00", salt="", now=LATER)
    assert err.value.reason is ArmageddonErrorReason.BAD_SALT
    with pytest.raises(ArmageddonError) as err:
        started().submit_bid(A, "1:00", salt="s", now=LATER.replace(tzinfo=None))
    assert err.value.reason is ArmageddonErrorReason.NAIVE_DATETIME
    with pytest.raises(ArmageddonError) as err:
        ArmageddonProcedure.start((A, A), now=NOW, ruleset=R)
    assert err.value.reason is ArmageddonErrorReason.SAME_PLAYER


@given(st.integers(1, 180), st.integers(1, 180))
def test_white_always_gets_the_lower_offer(a: int, b: int) -> None:
    proc = started()
    proc, _ = proc.submit_bid(A, format_clock(a), salt="s", now=LATER)
    proc, _ = proc.submit_bid(B, format_clock(b), salt="t", now=LATER)
    if a == b:
        assert proc.phase is Phase.RPS
        assert proc.white is None
    else:
        assert proc.white == (A if a < b else B)
        assert proc.white_seconds == min(a, b)


# --- rock-paper-scissors ---------------------------------------------------------------------


def tied() -> ArmageddonProcedure:
    proc = started()
    proc, _ = proc.submit_bid(A, "1:00", salt="s", now=LATER)
    proc, events = proc.submit_bid(B, "1:00", salt="t", now=LATER)
    assert kinds(events)[-1] is EventKind.RPS_STARTED
    return proc


@pytest.mark.parametrize(
    ("a", "b", "white"),
    [
        (Rps.ROCK, Rps.SCISSORS, A),
        (Rps.SCISSORS, Rps.PAPER, A),
        (Rps.PAPER, Rps.ROCK, A),
        (Rps.SCISSORS, Rps.ROCK, B),
        (Rps.PAPER, Rps.SCISSORS, B),
        (Rps.ROCK, Rps.PAPER, B),
    ],
)
def test_rps_winner_plays_white_with_the_tied_offer(a: Rps, b: Rps, white: PlayerId) -> None:
    proc, _ = tied().submit_rps(A, a, salt="x", now=LATER)
    proc, events = proc.submit_rps(B, b, salt="y", now=LATER)
    assert kinds(events)[-1] is EventKind.COLOURS_DECIDED
    assert (proc.white, proc.white_seconds, proc.decided_by) == (white, 60, Decision.RPS)


def test_rps_draw_is_replayed_with_a_new_deadline() -> None:
    proc, _ = tied().submit_rps(A, "Rock", salt="x", now=LATER)
    later = LATER + dt.timedelta(hours=2)
    proc, events = proc.submit_rps(B, "rock", salt="y", now=later)
    assert kinds(events)[-2:] == [EventKind.RPS_DRAWN, EventKind.RPS_STARTED]
    assert proc.rps_round == 2
    assert proc.rps_deadline == later + R.armageddon.bid_window
    assert proc.view(None).rps_history == ((Rps.ROCK, Rps.ROCK),)
    assert proc.view(A).own_choice is None
    proc, _ = proc.submit_rps(B, "paper", salt="z", now=later)
    proc, _ = proc.submit_rps(A, "scissors", salt="w", now=later)
    assert proc.white == A


def test_rps_choices_are_sealed() -> None:
    proc, events = tied().submit_rps(A, Rps.PAPER, salt="x", now=LATER)
    assert events[0].choice is None
    assert events[0].commitment == commitment("paper", "x")
    assert proc.view(A).own_choice is Rps.PAPER
    assert proc.view(B).own_choice is None
    assert proc.view(B).choices_in == (True, False)
    with pytest.raises(ArmageddonError) as err:
        proc.reveal(now=LATER)
    assert err.value.reason is ArmageddonErrorReason.TOO_EARLY


def test_missing_rps_choice_loses_the_round() -> None:
    proc, _ = tied().submit_rps(B, Rps.PAPER, salt="x", now=LATER)
    proc, events = proc.reveal(now=LATER + dt.timedelta(hours=25))
    assert EventKind.RPS_MISSING in kinds(events)
    assert (proc.white, proc.decided_by) == (B, Decision.OPPONENT_NO_RPS)


def test_no_rps_choices_at_all_goes_to_the_tds() -> None:
    proc, events = tied().reveal(now=LATER + dt.timedelta(hours=25))
    assert kinds(events)[-1] is EventKind.TD_NEEDED
    assert proc.phase is Phase.NEEDS_TD
    proc, events = proc.td_decide(B, now=LATER + dt.timedelta(hours=26))
    assert (proc.white, proc.white_seconds, proc.decided_by) == (B, 60, Decision.TD)


def test_steps_out_of_phase_are_refused() -> None:
    proc = started()
    with pytest.raises(ArmageddonError) as err:
        proc.submit_rps(A, Rps.ROCK, salt="x", now=LATER)
    assert err.value.reason is ArmageddonErrorReason.WRONG_PHASE
    with pytest.raises(ArmageddonError) as err:
        proc.td_decide(A, now=LATER)
    assert err.value.reason is ArmageddonErrorReason.WRONG_PHASE
    proc, _ = proc.submit_bid(A, "1:00", salt="s", now=LATER)
    proc, _ = proc.submit_bid(B, "2:00", salt="s", now=LATER)
    with pytest.raises(ArmageddonError) as err:
        proc.reveal(now=AFTER)
    assert err.value.reason is ArmageddonErrorReason.WRONG_PHASE


def test_bad_rps_choice_is_refused() -> None:
    with pytest.raises(ArmageddonError) as err:
        tied().submit_rps(A, "lizard", salt="x", now=LATER)
    assert err.value.reason is ArmageddonErrorReason.BAD_CHOICE


# --- the game --------------------------------------------------------------------------------


def arm(**kw: Any) -> Game:
    base: dict[str, Any] = {"limit": 180, "increment": 0}
    base.update(kw)
    white = str(base.pop("white", "alice"))
    black = str(base.pop("black", "bob"))
    return game(white, black, Colour.WHITE, **base)


def findings(g: Game, white_seconds: int = 90) -> list[tuple[FindingKind, Severity]]:
    out = verify_armageddon_game(g, A, B, white_seconds, R)
    return [(f.kind, f.severity) for f in out]


def test_proper_game_with_even_clocks_flags_only_whites_bid_time() -> None:
    assert findings(arm()) == [(FindingKind.WHITE_TIME_UNVERIFIABLE, Severity.UNVERIFIABLE)]
    assert findings(arm(), white_seconds=180) == []


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"white": "bob", "black": "alice"}, FindingKind.COLOURS_SWAPPED),
        ({"black": "carol"}, FindingKind.WRONG_PLAYERS),
        ({"variant": "standard"}, FindingKind.WRONG_VARIANT),
        ({"increment": 2}, FindingKind.INCREMENT),
        ({"limit": 90}, FindingKind.BLACK_TIME),
        ({"limit": 120, "increment": 5}, FindingKind.BLACK_TIME),
        ({"limit": None, "increment": None}, FindingKind.NO_CLOCK),
        ({"status": GameStatus.ABORTED}, FindingKind.NOT_PLAYED),
        ({"status": GameStatus.STARTED}, FindingKind.NOT_FINISHED),
        ({"status": GameStatus.CHEAT}, FindingKind.CHEAT_FLAG),
        ({"status": GameStatus.TIMEOUT}, FindingKind.CLAIMED_WIN),
    ],
)
def test_game_problems_are_found(kw: dict[str, Any], expected: FindingKind) -> None:
    assert expected in [kind for kind, _ in findings(arm(**kw), white_seconds=180)]


def test_findings_have_readable_messages() -> None:
    out = verify_armageddon_game(arm(limit=90), A, B, 90, R)
    assert any("3:00" in f.message and f.severity is Severity.WRONG for f in out)


@pytest.mark.parametrize(("winner", "expected"), [(Colour.WHITE, A), (None, B), (Colour.BLACK, B)])
def test_armageddon_result_gives_draws_to_black(winner: Colour | None, expected: PlayerId) -> None:
    proc, _ = started().submit_bid(A, "1:30", salt="s", now=LATER)
    proc, _ = proc.submit_bid(B, "2:00", salt="t", now=LATER)
    played = game("alice", "bob", winner, limit=180, increment=0)
    who, found = armageddon_result(proc, played, ruleset=R)
    assert who == expected
    assert [f.kind for f in found] == [FindingKind.WHITE_TIME_UNVERIFIABLE]


def test_armageddon_result_needs_decided_colours() -> None:
    with pytest.raises(ArmageddonError) as err:
        armageddon_result(started(), game("alice", "bob", None), ruleset=R)
    assert err.value.reason is ArmageddonErrorReason.WRONG_PHASE
