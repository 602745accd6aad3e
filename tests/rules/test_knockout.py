"""Knockout: semifinals (rules 3.vi.5, 3.vii), finals (3.viii), withdrawals (8.iii-iv)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.colour import Colour
from rules.core.model import GameStatus, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, StageKind
from rules.core.scoring import MatchScore
from rules.stages.knockout import (
    Bracket,
    KnockoutError,
    KnockoutErrorReason,
    KnockoutStatus,
    Slot,
    knockout_state,
    next_week_pairing,
    pair_finals,
    rebuild_after_withdrawal,
    record_final,
    record_semifinal,
    start_bracket,
)
from tests.rules.stage_helpers import game, games_for, make_match, pid

UPPER = tuple(PlayerId(f"u{i}") for i in range(1, 7))
LOWER = tuple(PlayerId(f"l{i}") for i in range(1, 7))
SEMI = DEFAULT_RULESET.formats.semifinal
FINAL = DEFAULT_RULESET.formats.final


def pair(bracket: Bracket, slot: Slot) -> tuple[str, str]:
    pairing = {p.slot: p for p in bracket.pairings()}[slot]
    return (pairing.white_first, pairing.black_first)


def bracket_after_semis(sf1_winner: str = "u1", sf2_winner: str = "l1", seed: int = 0) -> Bracket:
    b = start_bracket(UPPER, LOWER)
    b = record_semifinal(b, Slot.SF1, pid(sf1_winner))
    b = record_semifinal(b, Slot.SF2, pid(sf2_winner))
    return pair_finals(b, rng=random.Random(seed))


# --- pairing ---------------------------------------------------------------------------------


def test_pool_winners_meet_the_other_pools_second_with_white_in_game_one() -> None:
    b = start_bracket(UPPER, LOWER)
    assert pair(b, Slot.SF1) == ("u1", "l2")
    assert pair(b, Slot.SF2) == ("l1", "u2")
    assert b.semifinals[0].white_source == "1st upper pool"
    assert b.semifinals[1].black_source == "2nd upper pool"
    assert b.semifinals[0].stage is StageKind.SEMIFINAL
    assert b.final is None
    assert b.placement() == (None, None, None, None)


@pytest.mark.parametrize(
    ("upper", "lower", "reason"),
    [
        (UPPER[:1], LOWER, KnockoutErrorReason.POOL_TOO_SMALL),
        (UPPER, (UPPER[0], *LOWER), KnockoutErrorReason.DUPLICATE_PLAYER),
    ],
)
def test_bad_seeds_are_refused(
    upper: tuple[PlayerId, ...], lower: tuple[PlayerId, ...], reason: KnockoutErrorReason
) -> None:
    with pytest.raises(KnockoutError) as err:
        start_bracket(upper, lower)
    assert err.value.reason is reason


def test_semifinal_winners_play_the_final_and_losers_the_third_place() -> None:
    b = bracket_after_semis("l2", "l1")
    assert b.final is not None
    assert b.third_place is not None
    assert b.final.players == {"l2", "l1"}
    assert b.third_place.players == {"u1", "u2"}
    assert b.final.stage is StageKind.FINAL
    assert b.third_place.stage is StageKind.THIRD_PLACE
    assert {b.final.white_source, b.final.black_source} == {"winner SF1", "winner SF2"}


def test_final_colours_are_drawn_by_lot_and_reproducible() -> None:
    whites = {bracket_after_semis(seed=s).final.white_first for s in range(20)}  # type: ignore[union-attr]
    assert whites == {"u1", "l1"}
    assert bracket_after_semis(seed=3) == bracket_after_semis(seed=3)


def test_finals_wait_for_both_semifinals() -> None:
    b = record_semifinal(start_bracket(UPPER, LOWER), Slot.SF1, pid("u1"))
    with pytest.raises(KnockoutError) as err:
        pair_finals(b, rng=random.Random(1))
    assert err.value.reason is KnockoutErrorReason.SEMIFINALS_UNDECIDED
    with pytest.raises(KnockoutError) as err:
        record_final(b, Slot.FINAL, pid("u1"))
    assert err.value.reason is KnockoutErrorReason.FINALS_NOT_PAIRED


def test_semifinal_result_checks() -> None:
    b = start_bracket(UPPER, LOWER)
    with pytest.raises(KnockoutError) as err:
        record_semifinal(b, Slot.SF1, pid("l1"))
    assert err.value.reason is KnockoutErrorReason.NOT_IN_MATCH
    with pytest.raises(KnockoutError) as err:
        record_semifinal(b, Slot.FINAL, pid("u1"))
    assert err.value.reason is KnockoutErrorReason.WRONG_SLOT
    b = record_semifinal(b, Slot.SF1, pid("u1"))
    with pytest.raises(KnockoutError) as err:
        record_semifinal(b, Slot.SF1, pid("l2"))
    assert err.value.reason is KnockoutErrorReason.ALREADY_DECIDED


def test_placement_one_to_four() -> None:
    b = bracket_after_semis("u1", "l1")
    b = record_final(b, Slot.FINAL, pid("l1"))
    assert b.placement() == ("l1", "u1", None, None)
    b = record_final(b, Slot.THIRD_PLACE, pid("u2"))
    assert b.placement() == ("l1", "u1", "u2", "l2")
    with pytest.raises(KnockoutError) as err:
        record_final(b, Slot.FINAL, pid("u1"))
    assert err.value.reason is KnockoutErrorReason.ALREADY_DECIDED
    with pytest.raises(KnockoutError) as err:
        record_final(b, Slot.SF1, pid("u1"))
    assert err.value.reason is KnockoutErrorReason.WRONG_SLOT


# --- one match over weeks --------------------------------------------------------------------


def test_semifinal_decided_at_five_and_a_half() -> None:
    m = make_match("a", "b", StageKind.SEMIFINAL)
    state = knockout_state([(m, games_for(m, 5, 1, 0))], fmt=SEMI)
    assert state.status is KnockoutStatus.DECIDED
    assert (state.winner, state.loser) == ("a", "b")
    assert not state.by_armageddon


def test_semifinal_in_progress_then_armageddon_when_level_after_ten() -> None:
    m = make_match("a", "b", StageKind.SEMIFINAL)
    games = games_for(m, 4, 2, 4)
    assert knockout_state([(m, games[:9])], fmt=SEMI).status is KnockoutStatus.IN_PROGRESS
    state = knockout_state([(m, games)], fmt=SEMI)
    assert state.status is KnockoutStatus.ARMAGEDDON_DUE
    assert state.scores == (MatchScore(first=5, second=5, games_played=10),)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("winner", "expected"),
    [(Colour.WHITE, "b"), (None, "a"), (Colour.BLACK, "a")],
    ids=["white-wins", "draw-goes-to-black", "black-wins"],
)
def test_armageddon_decides_a_level_semifinal(winner: Colour | None, expected: str) -> None:
    m = make_match("a", "b", StageKind.SEMIFINAL)
    arm = game("b", "a", winner, limit=180, increment=0)
    state = knockout_state([(m, games_for(m, 4, 2, 4))], fmt=SEMI, armageddon=arm)
    assert state.status is KnockoutStatus.DECIDED
    assert state.winner == expected
    assert state.by_armageddon


def test_tied_final_repeats_for_three_weeks_then_armageddon() -> None:
    weeks = []
    for week in (1, 2, 3):
        m = make_match("a", "b", StageKind.FINAL, mid=week, week=week)
        weeks.append((m, games_for(m, 5, 2, 5)))
        state = knockout_state(weeks, fmt=FINAL)
        expected = KnockoutStatus.NEXT_WEEK if week < 3 else KnockoutStatus.ARMAGEDDON_DUE
        assert state.status is expected
        assert state.week == week


def test_final_decided_in_the_second_week() -> None:
    w1 = make_match("a", "b", StageKind.FINAL, mid=1)
    w2 = make_match("b", "a", StageKind.FINAL, mid=2, week=2)
    state = knockout_state([(w1, games_for(w1, 6, 0, 6)), (w2, games_for(w2, 7, 0, 0))], fmt=FINAL)
    assert state.status is KnockoutStatus.DECIDED
    assert state.winner == "b"


def test_next_week_swaps_game_one_colours() -> None:
    w = next_week_pairing(make_match("a", "b", StageKind.FINAL, week=2))
    assert (w.white_first, w.black_first, w.week) == ("b", "a", 3)


def test_not_started() -> None:
    assert knockout_state([], fmt=SEMI).status is KnockoutStatus.NOT_STARTED


def test_knockout_state_refusals() -> None:
    m = make_match("a", "b", StageKind.SEMIFINAL)
    level = games_for(m, 4, 2, 4)
    with pytest.raises(KnockoutError) as err:
        knockout_state([(m, games_for(m, 6, 0, 0))], fmt=SEMI, armageddon=game("a", "b", None))
    assert err.value.reason is KnockoutErrorReason.ARMAGEDDON_NOT_DUE
    with pytest.raises(KnockoutError) as err:
        knockout_state([(m, level)], fmt=SEMI, armageddon=game("a", "c", None))
    assert err.value.reason is KnockoutErrorReason.ARMAGEDDON_PLAYERS
    other = make_match("a", "c", StageKind.FINAL, mid=2, week=2)
    f1 = make_match("a", "b", StageKind.FINAL)
    with pytest.raises(KnockoutError) as err:
        knockout_state([(f1, games_for(f1, 6, 0, 6)), (other, [])], fmt=FINAL)
    assert err.value.reason is KnockoutErrorReason.BAD_WEEKS
    with pytest.raises(KnockoutError) as err:
        knockout_state([(m, level)], fmt=DEFAULT_RULESET.formats.candidates)
    assert err.value.reason is KnockoutErrorReason.BAD_FORMAT


def test_unplayed_armageddon_game_has_no_winner() -> None:
    m = make_match("a", "b", StageKind.SEMIFINAL)
    aborted = game("a", "b", None, status=GameStatus.ABORTED)
    with pytest.raises(ValueError, match="no result"):
        knockout_state([(m, games_for(m, 4, 2, 4))], fmt=SEMI, armageddon=aborted)


# --- withdrawals (rules 8.iii-iv) ------------------------------------------------------------


def test_upper_pool_winner_withdrawing_moves_the_whole_upper_pool_up() -> None:
    r = rebuild_after_withdrawal(start_bracket(UPPER, LOWER), pid("u1"))
    assert pair(r.bracket, Slot.SF1) == ("u2", "l2")
    assert pair(r.bracket, Slot.SF2) == ("l1", "u3")
    assert r.changed == (Slot.SF1, Slot.SF2)
    assert r.moved_up == ("u2", "u3")
    assert r.bracket.withdrawn == ("u1",)


def test_pool_second_withdrawing_changes_only_their_semifinal() -> None:
    r = rebuild_after_withdrawal(start_bracket(UPPER, LOWER), pid("l2"))
    assert pair(r.bracket, Slot.SF1) == ("u1", "l3")
    assert pair(r.bracket, Slot.SF2) == ("l1", "u2")
    assert r.changed == (Slot.SF1,)
    assert r.moved_up == ("l3",)


def test_decided_semifinal_keeps_its_players_when_others_move_up() -> None:
    b = record_semifinal(start_bracket(UPPER, LOWER), Slot.SF2, pid("u2"))
    r = rebuild_after_withdrawal(b, pid("u1"))
    assert pair(r.bracket, Slot.SF1) == ("u3", "l2")
    assert pair(r.bracket, Slot.SF2) == ("l1", "u2")
    assert r.changed == (Slot.SF1,)


def test_earlier_withdrawals_are_skipped_when_moving_up() -> None:
    b = rebuild_after_withdrawal(start_bracket(UPPER, LOWER), pid("u3")).bracket
    assert b.pairings() == start_bracket(UPPER, LOWER).pairings()
    r = rebuild_after_withdrawal(b, pid("u2"))
    assert pair(r.bracket, Slot.SF2) == ("l1", "u4")


def test_finalist_withdrawing_lifts_their_semifinal_opponent_and_their_pool() -> None:
    b = bracket_after_semis("u1", "l1", seed=0)
    final_before = b.final
    assert final_before is not None
    r = rebuild_after_withdrawal(b, pid("u1"))
    final = r.bracket.final
    third = r.bracket.third_place
    assert final is not None
    assert third is not None
    assert final.players == {"l2", "l1"}
    # l2 takes u1's colour in the final
    assert (final.white_first == "l2") == (final_before.white_first == "u1")
    assert third.players == {"u3", "u2"}
    assert r.changed == (Slot.FINAL, Slot.THIRD_PLACE)
    assert r.moved_up == ("l2", "u3")


def test_semifinal_loser_withdrawing_is_replaced_from_their_pool() -> None:
    b = bracket_after_semis("u1", "l1")
    r = rebuild_after_withdrawal(b, pid("l2"))
    assert r.bracket.third_place is not None
    assert r.bracket.third_place.players == {"l3", "u2"}
    assert r.bracket.final == b.final
    assert r.changed == (Slot.THIRD_PLACE,)


def test_finalist_withdrawing_before_the_final_is_paired() -> None:
    b = record_semifinal(start_bracket(UPPER, LOWER), Slot.SF1, pid("l2"))
    r = rebuild_after_withdrawal(b, pid("l2"))
    assert r.changed == ()
    b2 = record_semifinal(r.bracket, Slot.SF2, pid("u2"))
    b2 = pair_finals(b2, rng=random.Random(0))
    assert b2.final is not None
    assert b2.third_place is not None
    assert b2.final.players == {"u1", "u2"}
    assert b2.third_place.players == {"l3", "l1"}


def test_withdrawal_after_the_final_is_decided_is_for_the_tds() -> None:
    b = record_final(bracket_after_semis(), Slot.FINAL, pid("u1"))
    with pytest.raises(KnockoutError) as err:
        rebuild_after_withdrawal(b, pid("l1"))
    assert err.value.reason is KnockoutErrorReason.ALREADY_DECIDED
    # The third place match is still open, so its players can still be replaced.
    assert rebuild_after_withdrawal(b, pid("u2")).changed == (Slot.THIRD_PLACE,)


@pytest.mark.parametrize(
    ("who", "reason"),
    [("u1", KnockoutErrorReason.ALREADY_WITHDRAWN), ("x", KnockoutErrorReason.NOT_IN_MATCH)],
)
def test_withdrawal_refusals(who: str, reason: KnockoutErrorReason) -> None:
    b = rebuild_after_withdrawal(start_bracket(UPPER, LOWER), pid("u1")).bracket
    with pytest.raises(KnockoutError) as err:
        rebuild_after_withdrawal(b, pid(who))
    assert err.value.reason is reason


def test_no_replacement_left() -> None:
    b = start_bracket(UPPER[:2], LOWER[:2])
    with pytest.raises(KnockoutError) as err:
        rebuild_after_withdrawal(b, pid("u1"))
    assert err.value.reason is KnockoutErrorReason.NO_REPLACEMENT


@settings(max_examples=80, deadline=None)
@given(
    order=st.permutations([*UPPER, *LOWER]),
    count=st.integers(1, 6),
    decided=st.sampled_from(["none", "sf1", "sf2", "both"]),
)
def test_withdrawals_never_leave_a_withdrawn_or_repeated_player_paired(
    order: list[PlayerId], count: int, decided: str
) -> None:
    b = start_bracket(UPPER, LOWER)
    if decided in ("sf1", "both"):
        b = record_semifinal(b, Slot.SF1, b.semifinals[0].black_first)
    if decided in ("sf2", "both"):
        b = record_semifinal(b, Slot.SF2, b.semifinals[1].white_first)
    if decided == "both":
        b = pair_finals(b, rng=random.Random(1))
    for player in order[:count]:
        try:
            b = rebuild_after_withdrawal(b, player).bracket
        except KnockoutError as err:
            reason = err.reason
            assert reason is KnockoutErrorReason.NO_REPLACEMENT
            break
        # Who still has a match to play in each semifinal's line of the bracket.
        active: list[PlayerId] = []
        for pairing, result in zip(b.semifinals, b.results, strict=True):
            active += [result.winner, result.loser] if result else list(pairing.players)
        assert not set(active) & set(b.withdrawn)
        assert len(active) == len(set(active)) == 4
        if decided == "both":
            final, third = b.final, b.third_place
            assert final is not None
            assert third is not None
            assert final.players | third.players == set(active)


def test_second_withdrawal_in_the_finals_skips_the_player_already_moved_up() -> None:
    b = bracket_after_semis("u1", "l1")
    b = rebuild_after_withdrawal(b, pid("u1")).bracket  # l2 to the final, u3 to third place
    r = rebuild_after_withdrawal(b, pid("u2"))  # u2 lost SF2: replaced from the upper pool
    assert r.bracket.third_place is not None
    assert r.bracket.third_place.players == {"u3", "u4"}
