"""Candidates: pools (rules 3.v.4, 3.vi.1-2), schedule (3.vi.3-4), standings (3.vi.6), 8.ii."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, Seeding, StageKind, Stages
from rules.core.scoring import Outcome
from rules.stages.candidates import (
    CandidatesError,
    CandidatesErrorReason,
    MatchResult,
    Pool,
    PoolEntry,
    PoolTable,
    SeededRole,
    assign_pools,
    berger_rounds,
    disregard_withdrawn,
    pool_schedule,
    qualifiers_needed,
    result_of,
)
from rules.stages.crosstable import crosstable
from rules.stages.pool_standings import Criterion, pool_standings
from tests.rules.stage_helpers import games_for, make_match, pid, res

R = DEFAULT_RULESET
BOTH = Seeding(title_holder="PepsiNGaming", runner_up="GrohochetGrom")
HOLDER_ONLY = Seeding(title_holder="PepsiNGaming", runner_up=None)
RUNNER_ONLY = Seeding(title_holder=None, runner_up="GrohochetGrom")
NEITHER = Seeding(title_holder=None, runner_up=None, previous_final_order=())
PLACEMENT = [PlayerId(f"q{i:02d}") for i in range(1, 16)]


def q(*places: int) -> set[PlayerId]:
    return {PlayerId(f"q{p:02d}") for p in places}


# --- pools -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("present", "needed"), [(2, 10), (1, 11), (0, 12)], ids=["both", "one", "neither"]
)
def test_qualifiers_needed_grows_per_absent_seeded_entrant(present: int, needed: int) -> None:
    assert qualifiers_needed(present, R) == needed


@pytest.mark.parametrize("present", [-1, 3])
def test_qualifiers_needed_refuses_impossible_seed_count(present: int) -> None:
    with pytest.raises(CandidatesError) as err:
        qualifiers_needed(present, R)
    assert err.value.reason is CandidatesErrorReason.BAD_SEED_COUNT


@pytest.mark.parametrize(
    ("seeding", "upper", "lower"),
    [
        # rules 3.vi.2.1
        (BOTH, q(9, 8, 5, 4, 2) | {"pepsingaming"}, q(10, 7, 6, 3, 1) | {"grohochetgrom"}),
        # rules 3.vi.2.2 + 3.vi.1: title holder starts upper
        (HOLDER_ONLY, q(10, 9, 6, 5, 3) | {"pepsingaming"}, q(11, 8, 7, 4, 2, 1)),
        # rules 3.vi.1: "If PepsiNGaming does not participate, GrohochetGrom starts upper"
        (RUNNER_ONLY, q(10, 9, 6, 5, 3) | {"grohochetgrom"}, q(11, 8, 7, 4, 2, 1)),
        # rules 3.vi.2.3
        (NEITHER, q(12, 9, 7, 6, 4, 1), q(11, 10, 8, 5, 3, 2)),
    ],
    ids=["both", "holder-only", "runner-up-only", "neither"],
)
def test_pools_follow_the_regulation_tables(
    seeding: Seeding, upper: set[str], lower: set[str]
) -> None:
    pools = assign_pools(PLACEMENT, ruleset=R, seeding=seeding)
    assert set(pools.players(Pool.UPPER)) == upper
    assert set(pools.players(Pool.LOWER)) == lower
    assert len(pools.upper) == len(pools.lower) == 6


def test_pool_order_is_seeded_first_then_qualification_place() -> None:
    pools = assign_pools(PLACEMENT, ruleset=R, seeding=BOTH)
    assert pools.players(Pool.UPPER) == ("pepsingaming", "q02", "q04", "q05", "q08", "q09")
    assert pools.players(Pool.LOWER) == ("grohochetgrom", "q01", "q03", "q06", "q07", "q10")
    assert pools.entry(pid("q07")) == PoolEntry(pid("q07"), Pool.LOWER, 7, None)
    assert pools.entry(pid("PepsiNGaming")).seeded is SeededRole.TITLE_HOLDER


def test_pools_use_ruleset_seeding_by_default() -> None:
    ruleset = dataclasses.replace(R, seeding=HOLDER_ONLY)
    pools = assign_pools(PLACEMENT, ruleset=ruleset)
    assert pools.pool_of(pid("pepsingaming")) is Pool.UPPER
    assert pools.pool_of(pid("q11")) is Pool.LOWER


def test_places_below_the_cut_do_not_qualify() -> None:
    pools = assign_pools(PLACEMENT, ruleset=R, seeding=BOTH)
    with pytest.raises(CandidatesError) as err:
        pools.entry(pid("q11"))
    assert err.value.reason is CandidatesErrorReason.UNKNOWN_PLAYER


@pytest.mark.parametrize(
    ("seeding", "count"), [(BOTH, 9), (HOLDER_ONLY, 10), (NEITHER, 11)], ids=["2", "1", "0"]
)
def test_too_few_qualifiers_is_refused(seeding: Seeding, count: int) -> None:
    with pytest.raises(CandidatesError) as err:
        assign_pools(PLACEMENT[:count], ruleset=R, seeding=seeding)
    assert err.value.reason is CandidatesErrorReason.TOO_FEW_QUALIFIERS
    assert str(count) in str(err.value)


def test_duplicate_in_placement_is_refused() -> None:
    with pytest.raises(CandidatesError) as err:
        assign_pools([*PLACEMENT[:5], PLACEMENT[0], *PLACEMENT[5:]], ruleset=R, seeding=BOTH)
    assert err.value.reason is CandidatesErrorReason.DUPLICATE_PLAYER


def test_seeded_entrant_in_qualification_placement_is_refused() -> None:
    with pytest.raises(CandidatesError) as err:
        assign_pools([PlayerId("PepsiNGaming"), *PLACEMENT], ruleset=R, seeding=BOTH)
    assert err.value.reason is CandidatesErrorReason.SEEDED_IN_QUALIFICATION


def test_other_pool_sizes_need_a_table() -> None:
    ruleset = dataclasses.replace(R, stages=Stages(qualifiers=6, pool_size=4))
    with pytest.raises(CandidatesError) as err:
        assign_pools(PLACEMENT, ruleset=ruleset, seeding=BOTH)
    assert err.value.reason is CandidatesErrorReason.UNSUPPORTED_POOL_SIZE
    table = PoolTable((2, 3, 6), (1, 4, 5), Pool.UPPER, Pool.LOWER)
    pools = assign_pools(PLACEMENT, ruleset=ruleset, seeding=BOTH, table=table)
    assert set(pools.players(Pool.UPPER)) == q(2, 3, 6) | {"pepsingaming"}


def test_custom_table_must_cover_every_place_once() -> None:
    ruleset = dataclasses.replace(R, stages=Stages(qualifiers=6, pool_size=4))
    table = PoolTable((2, 3, 3), (1, 4, 5), Pool.UPPER, Pool.LOWER)
    with pytest.raises(CandidatesError) as err:
        assign_pools(PLACEMENT, ruleset=ruleset, seeding=BOTH, table=table)
    assert err.value.reason is CandidatesErrorReason.BAD_POOL_TABLE


# --- schedule --------------------------------------------------------------------------------

SIX = [PlayerId(n) for n in "abcdef"]


def test_berger_table_for_six_is_the_fide_table() -> None:
    assert berger_rounds(6) == (
        ((1, 6), (2, 5), (3, 4)),
        ((6, 4), (5, 3), (1, 2)),
        ((2, 6), (3, 1), (4, 5)),
        ((6, 5), (1, 4), (2, 3)),
        ((3, 6), (4, 2), (5, 1)),
    )


@pytest.mark.parametrize("size", [0, 1, 5])
def test_berger_table_needs_an_even_size(size: int) -> None:
    with pytest.raises(CandidatesError):
        berger_rounds(size)


@pytest.mark.parametrize("meetings", [1, 2, 3])
def test_each_pair_meets_the_set_number_of_times(meetings: int) -> None:
    rounds = pool_schedule(SIX, ruleset=R, meetings=meetings)
    assert len(rounds) == 5 * meetings
    pairs = Counter(frozenset((p.white_first, p.black_first)) for r in rounds for p in r.pairings)
    assert len(pairs) == 15
    assert set(pairs.values()) == {meetings}


def test_each_player_has_one_match_per_round() -> None:
    for rnd in pool_schedule(SIX, ruleset=R, meetings=2):
        players = [p for m in rnd.pairings for p in (m.white_first, m.black_first)]
        assert sorted(players) == sorted(SIX)
        assert rnd.bye is None


def test_single_leg_gives_each_player_three_and_two_whites() -> None:
    whites = Counter(p.white_first for r in pool_schedule(SIX, ruleset=R) for p in r.pairings)
    assert sorted(whites[p] for p in SIX) == [2, 2, 2, 3, 3, 3]


def test_second_leg_swaps_colours_of_each_first_leg_match() -> None:
    rounds = pool_schedule(SIX, ruleset=R, meetings=2)
    first = {(p.white_first, p.black_first) for r in rounds[:5] for p in r.pairings}
    second = {(p.black_first, p.white_first) for r in rounds[5:] for p in r.pairings}
    assert first == second
    assert {p.leg for r in rounds[5:] for p in r.pairings} == {2}
    whites = Counter(p.white_first for r in rounds for p in r.pairings)
    assert set(whites.values()) == {5}


def test_meetings_default_comes_from_the_ruleset() -> None:
    ruleset = dataclasses.replace(R, stages=Stages(candidates_meetings=2))
    assert len(pool_schedule(SIX, ruleset=ruleset)) == 10


def test_odd_pool_gives_each_player_one_bye_per_leg() -> None:
    five = SIX[:5]
    rounds = pool_schedule(five, ruleset=R)
    assert len(rounds) == 5
    assert Counter(r.bye for r in rounds) == dict.fromkeys(five, 1)
    whites = Counter(p.white_first for r in rounds for p in r.pairings)
    assert all(whites[p] == 2 for p in five)


def test_drawing_lots_is_reproducible_and_still_a_round_robin() -> None:
    a = pool_schedule(SIX, ruleset=R, rng=random.Random(7))
    b = pool_schedule(list(reversed(SIX)), ruleset=R, rng=random.Random(7))
    assert a == b
    assert a != pool_schedule(SIX, ruleset=R)


@pytest.mark.parametrize(
    ("players", "meetings", "reason"),
    [
        (SIX[:1], 1, CandidatesErrorReason.POOL_TOO_SMALL),
        ([*SIX, SIX[0]], 1, CandidatesErrorReason.DUPLICATE_PLAYER),
        (SIX, 0, CandidatesErrorReason.BAD_MEETINGS),
    ],
)
def test_bad_schedule_requests_are_refused(
    players: list[PlayerId], meetings: int, reason: CandidatesErrorReason
) -> None:
    with pytest.raises(CandidatesError) as err:
        pool_schedule(players, ruleset=R, meetings=meetings)
    assert err.value.reason is reason


@settings(max_examples=30, deadline=None)
@given(size=st.integers(2, 14), meetings=st.integers(1, 3))
def test_schedule_invariants(size: int, meetings: int) -> None:
    players = [PlayerId(f"p{i}") for i in range(size)]
    rounds = pool_schedule(players, ruleset=R, meetings=meetings)
    pairs = Counter(frozenset((p.white_first, p.black_first)) for r in rounds for p in r.pairings)
    assert len(pairs) == size * (size - 1) // 2
    assert set(pairs.values()) == {meetings}
    whites = Counter(p.white_first for r in rounds for p in r.pairings)
    blacks = Counter(p.black_first for r in rounds for p in r.pairings)
    for p in players:
        assert abs(whites[p] - blacks[p]) <= 1
    for rnd in rounds:
        seen = [x for m in rnd.pairings for x in (m.white_first, m.black_first)]
        assert len(seen) == len(set(seen))


# --- results ---------------------------------------------------------------------------------


def test_result_of_counts_all_ten_games_and_ties_stand() -> None:
    match = make_match("a", "b", StageKind.CANDIDATES)
    games = games_for(match, 4, 2, 4)
    assert result_of(match, games[:9]).outcome is Outcome.IN_PROGRESS
    result = result_of(match, games)
    assert result.outcome is Outcome.TIED
    assert result.match_points_of(pid("a")) == Fraction(1, 2)
    assert result.game_points_of(pid("b")) == 5


def test_candidates_match_does_not_stop_at_five_and_a_half() -> None:
    match = make_match("a", "b", StageKind.CANDIDATES)
    result = result_of(match, games_for(match, 6, 0, 0))
    assert result.outcome is Outcome.IN_PROGRESS
    assert result.match_points_of(pid("a")) == 0
    assert result.game_points_of(pid("a")) == 6


# --- standings -------------------------------------------------------------------------------


def entries(*names: str, seeded: dict[str, SeededRole] | None = None) -> list[PoolEntry]:
    """Entries in qualification order: the n-th name placed n-th (seeded ones have no place)."""
    seeded = seeded or {}
    out = []
    place = 0
    for name in names:
        role = seeded.get(name)
        if role is None:
            place += 1
        out.append(PoolEntry(pid(name), Pool.UPPER, None if role else place, role))
    return out


def order(rows: tuple[object, ...]) -> list[str]:
    return [r.player for r in rows]  # type: ignore[attr-defined]


def test_match_points_come_first() -> None:
    # c wins more matches; a has more game points.
    results = [res("a", "b", 9), res("c", "a", 5.5), res("c", "b", 5.5)]
    rows = pool_standings(entries("a", "b", "c"), results)
    assert order(rows) == ["c", "a", "b"]
    assert [r.match_points for r in rows] == [2, 1, 0]
    assert rows[0].separated_by is Criterion.MATCH_POINTS
    assert rows[-1].separated_by is None
    assert rows[0].tiebreaks == ()


def test_cyclic_three_way_tie_goes_to_mutual_game_points() -> None:
    # a beat b, b beat c, c beat a: one match point each among the three.
    results = [res("a", "b", 5.5), res("b", "c", 9), res("c", "a", 6)]
    rows = pool_standings(entries("c", "b", "a"), results)
    # Mutual game points: a 5.5+4 = 9.5, b 4.5+9 = 13.5, c 1+6 = 7.
    assert order(rows) == ["b", "a", "c"]
    assert [r.separated_by for r in rows] == [Criterion.MUTUAL_GAME_POINTS] * 2 + [None]
    assert [r.mutual_match_points for r in rows] == [1, 1, 1]


def test_two_way_tie_is_decided_by_the_mutual_match() -> None:
    results = [
        res("a", "b", 5.5),
        res("c", "a", 10),
        res("a", "d", 5),
        res("b", "c", 5.5),
        res("b", "d", 5),
        res("c", "d", 10),
    ]
    rows = pool_standings(entries("c", "d", "b", "a"), results)
    assert order(rows) == ["c", "a", "b", "d"]
    a_row, b_row = rows[1], rows[2]
    assert a_row.match_points == b_row.match_points == Fraction(3, 2)
    assert b_row.game_points > a_row.game_points  # b would win on game points
    assert a_row.separated_by is Criterion.MUTUAL_MATCH_POINTS
    assert a_row.mutual_match_points == 1
    assert b_row.mutual_match_points == 0
    assert rows[0].mutual_match_points is None


def test_mutual_game_points_decide_a_pair_that_split_the_mutual_matches() -> None:
    # Two legs: a won 6.5-3.5, b won 5.5-4.5: one mutual match point each, a has 11 of 20.
    results = [res("a", "b", 6.5), res("b", "a", 5.5), res("b", "c", 10), res("c", "a", 0)]
    rows = pool_standings(entries("b", "a", "c"), results)
    assert order(rows)[:2] == ["a", "b"]
    assert rows[0].separated_by is Criterion.MUTUAL_GAME_POINTS
    assert rows[0].mutual_game_points == 11
    assert rows[1].mutual_game_points == 9


def test_overall_game_points_after_mutual_criteria() -> None:
    results = [
        res("a", "b", 5),  # mutual tied 5-5
        res("a", "c", 6),
        res("b", "c", 5.5),
        res("a", "d", 4.5),
        res("b", "d", 4.5),
    ]
    # a: 1.5 mp, 15.5 gp; b: 1.5 mp, 15 gp; b placed higher in the qualification.
    rows = pool_standings(entries("d", "b", "a", "c"), results)
    assert order(rows)[:3] == ["d", "a", "b"]
    assert rows[1].separated_by is Criterion.GAME_POINTS
    last = rows[1].tiebreaks[-1]
    assert (last.criterion, last.value, last.among) == (
        Criterion.GAME_POINTS,
        Fraction(31, 2),
        ("b", "a"),
    )
    assert rows[1].mutual_match_points == rows[2].mutual_match_points == Fraction(1, 2)


def tied_pair() -> list[MatchResult]:
    return [res("a", "b", 5), res("a", "c", 6), res("b", "c", 6)]


def test_previous_final_breaks_a_tie_when_both_played_it() -> None:
    rows = pool_standings(entries("a", "b", "c"), tied_pair(), previous_final_order=("X", "B", "A"))
    assert order(rows)[:2] == ["b", "a"]
    assert rows[0].separated_by is Criterion.PREVIOUS_FINAL
    assert rows[0].previous_final_place == 2


def test_previous_final_is_skipped_unless_every_tied_player_played_it() -> None:
    rows = pool_standings(entries("a", "b", "c"), tied_pair(), previous_final_order=("B", "X"))
    assert order(rows)[:2] == ["a", "b"]
    assert rows[0].separated_by is Criterion.QUALIFICATION
    assert all(t.criterion is not Criterion.PREVIOUS_FINAL for t in rows[0].tiebreaks)


def test_qualification_place_is_the_last_tiebreak_and_seeded_come_first() -> None:
    pool = entries(
        "q1",
        "holder",
        "q2",
        "runner",
        seeded={"holder": SeededRole.TITLE_HOLDER, "runner": SeededRole.RUNNER_UP},
    )
    rows = pool_standings(pool, [])
    assert order(rows) == ["holder", "runner", "q1", "q2"]
    assert {r.separated_by for r in rows[:-1]} == {Criterion.QUALIFICATION}
    assert rows[0].qualification_place is None
    assert rows[2].qualification_place == 1


def test_three_way_tie_splits_and_the_remaining_pair_uses_its_own_mutual_match() -> None:
    # Cyclic: x beat y 7-3, z beat x 6-4, y beat z 6.5-3.5. Mutual match points 1 each.
    # Mutual game points: x 11, y 9.5, z 9.5 -> x first; y and z are level again, and among
    # just the two of them y won their match, although z placed higher in the qualification.
    results = [res("x", "y", 7), res("z", "x", 6), res("y", "z", 6.5)]
    rows = pool_standings(entries("z", "x", "y"), results)
    assert order(rows) == ["x", "y", "z"]
    assert [r.separated_by for r in rows] == [
        Criterion.MUTUAL_GAME_POINTS,
        Criterion.MUTUAL_MATCH_POINTS,
        None,
    ]
    y = rows[1]
    assert [(t.criterion, t.value, len(t.among)) for t in y.tiebreaks] == [
        (Criterion.MUTUAL_MATCH_POINTS, 1, 3),
        (Criterion.MUTUAL_GAME_POINTS, Fraction(19, 2), 3),
        (Criterion.MUTUAL_MATCH_POINTS, 1, 2),
    ]


def test_unfinished_match_counts_game_points_but_no_match_points() -> None:
    running = dataclasses.replace(
        res("a", "b", 4), games_played=6, second_points=Fraction(2), outcome=Outcome.IN_PROGRESS
    )
    rows = pool_standings(entries("a", "b"), [running])
    table = [
        (str(r.player), int(r.match_points), int(r.game_points), r.matches_played) for r in rows
    ]
    assert table == [("a", 0, 4, 0), ("b", 0, 2, 0)]


def test_withdrawn_candidates_games_are_disregarded() -> None:
    results = [res("a", "w", 10), res("b", "w", 0), res("a", "b", 5)]
    assert disregard_withdrawn(results, [pid("w")]) == (results[2],)
    rows = pool_standings(entries("w", "b", "a"), results, withdrawn=[pid("w")])
    assert order(rows) == ["b", "a"]
    assert all(r.match_points == Fraction(1, 2) and r.game_points == 5 for r in rows)


def test_standings_refuse_a_match_with_a_stranger() -> None:
    with pytest.raises(CandidatesError) as err:
        pool_standings(entries("a", "b"), [res("a", "z", 5)])
    assert err.value.reason is CandidatesErrorReason.UNKNOWN_PLAYER


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=15, max_size=15))
def test_standings_are_a_total_order(scores: list[int]) -> None:
    names = list("abcdef")
    results = []
    k = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            results.append(res(a, b, scores[k] / 2, mid=k))
            k += 1
    rows = pool_standings(entries(*names), results)
    assert sorted(order(rows)) == names
    assert [r.rank for r in rows] == list(range(1, 7))
    assert all(rows[i].match_points >= rows[i + 1].match_points for i in range(5))
    assert all(r.separated_by is not None for r in rows[:-1])
    assert sum(r.match_points for r in rows) == 15
    assert sum(r.game_points for r in rows) == 150


def test_crosstable_shows_game_scores_per_meeting() -> None:
    results = [res("a", "b", 6.5, mid=1), res("b", "a", 5.5, mid=2), res("a", "c", 5, mid=3)]
    table = crosstable([pid("a"), pid("b"), pid("c")], results)
    assert table.cell(pid("a"), pid("b")).scores == (Fraction(13, 2), Fraction(9, 2))
    assert table.cell(pid("b"), pid("a")).scores == (Fraction(7, 2), Fraction(11, 2))
    assert table.cell(pid("a"), pid("a")).scores is None
    assert table.cell(pid("b"), pid("c")).scores == ()
    assert table.rows[0].game_points == 16
    assert table.rows[0].match_points == Fraction(3, 2)


def test_crosstable_ignores_players_outside_the_table() -> None:
    table = crosstable([pid("a"), pid("b")], [res("a", "w", 10, mid=MatchId(9))])
    assert table.rows[0].game_points == 0
