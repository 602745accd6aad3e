"""Standings and tie-breaks of the qualification (rules 3.v.5, FIDE C.07 Art. 16)."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.swiss.results import (
    Entrant,
    Exit,
    ExitKind,
    QualificationError,
    QualificationErrorReason,
    ResultKind,
    RoundResult,
    results_by_player,
)
from rules.swiss.tiebreaks import (
    C07Edition,
    PlayerStatus,
    Standings,
    UnplayedCategory,
    adjusted_score,
    buchholz_contributions,
    compute_standings,
    cut_contributions,
    progressive_score,
)
from tests.rules.swiss_fixtures import (
    FIDE_BH_2024,
    FIDE_BH_C1_2024,
    FIDE_EXERCISE,
    FIDE_SCORES,
    RoundSpec,
    crosstable,
    entrants,
    pid,
)

F = Fraction
EXERCISE_EXITS = (Exit(pid(12), ExitKind.WITHDRAWAL, last_round=3),)


def exercise(edition: C07Edition) -> Standings:
    return compute_standings(
        entrants(16), crosstable(FIDE_EXERCISE), exits=EXERCISE_EXITS, edition=edition
    )


# --- the published FIDE exercise (2024 text: no dummy cap) ---------------------------------


def test_exercise_crosstable_gives_the_published_scores() -> None:
    table = exercise(C07Edition.E2024)
    assert {n: table.row(pid(n)).match_points for n in FIDE_SCORES} == {
        n: F(v) for n, v in FIDE_SCORES.items()
    }


def test_buchholz_matches_the_published_exercise_under_the_2024_text() -> None:
    table = exercise(C07Edition.E2024)
    assert {n: table.row(pid(n)).buchholz for n in FIDE_BH_2024} == {
        n: F(v) for n, v in FIDE_BH_2024.items()
    }


def test_buchholz_cut1_matches_the_published_exercise_under_the_2024_text() -> None:
    table = exercise(C07Edition.E2024)
    got = {}
    for n in FIDE_BH_C1_2024:
        kept, _ = cut_contributions(table.row(pid(n)).contributions, low=1, high=0)
        got[n] = sum((c.value for c in kept), F(0))
    assert got == {n: F(v) for n, v in FIDE_BH_C1_2024.items()}


# --- the same crosstable under the 2026 text (hand-computed) -------------------------------

# Art. 16.4 now caps the dummy. Only three players' Buchholz change:
#   #4  round 2 half-point bye: own 3.5 capped at 1/2 x 5 rounds = 2.5  -> 15 - 1 = 14
#   #6  round 3 PAB: own 3 capped at 2.5                               -> 12 - 0.5 = 11.5
#   #11 round 4 forfeit win v #9: own 2.5 capped at #9's adjusted 1.5  -> 13.5 - 1 = 12.5
BH_2026 = {**{n: F(v) for n, v in FIDE_BH_2024.items()}, 4: F(14), 6: F(23, 2), 11: F(25, 2)}


def test_buchholz_under_the_2026_text_caps_the_dummy() -> None:
    table = exercise(C07Edition.E2026)
    assert {n: table.row(pid(n)).buchholz for n in BH_2026} == BH_2026


@pytest.mark.parametrize(
    ("player", "median"),
    [
        (2, F(17, 2)),  # 1, 1.5, 3.5, 3.5, 3.5: cut 1 and 3.5
        (4, F(8)),  # 3, [2.5 VUR], 1.5, 3.5, 3.5: the VUR 2.5 goes, not the 1.5 (Art. 16.5)
        (6, F(7)),  # 2, 3.5, 2.5, 1, 2.5: cut 1 and 3.5
        (9, F(4)),  # 3.5, 1, [1.5 VUR], [1.5 VUR], 1.5: cut a VUR 1.5 and 3.5
        (11, F(15, 2)),  # 3.5, 3.5, 2.5, 1.5 (forfeit win: not a VUR), 1.5: cut 1.5, 3.5
        (12, F(6)),  # 3.5, 2, 2, [2 W], [2 W]: cut a W round and 3.5
        (14, F(6)),  # 3, 2.5, [2 FL], [2 ZPB], 1.5: the VUR 2 goes, not the 1.5
    ],
)
def test_median_buchholz_hand_computed_under_2026(player: int, median: Fraction) -> None:
    assert exercise(C07Edition.E2026).row(pid(player)).buchholz_median == median


def test_median_cut_prefers_the_voluntary_unplayed_round_over_the_lowest_opponent() -> None:
    row = exercise(C07Edition.E2026).row(pid(14))
    assert [c.round for c in row.cut] == [3, 1]  # round 3 forfeit loss, then the highest (3)
    assert [c.round for c in row.contributions if c not in row.cut] == [2, 4, 5]


def test_full_ranking_of_the_exercise_under_2026_is_hand_computed() -> None:
    # 4; then 3.5: #3 (M1 9), #4 (8), #1 and #16 (M1 7: PS 11 v 10.5); 3; 2.5: #8 (8.5), #11
    # (7.5), #5 (5); 2: #15 (7.5), #12 and #14 (M1 6: PS 7 v 6); 1.5: #13 and #7 (M1 8.5:
    # PS 7 v 6), #9 (4); 1.
    expected = [2, 3, 4, 1, 16, 6, 8, 11, 5, 15, 12, 14, 13, 7, 9, 10]
    assert exercise(C07Edition.E2026).ranking == tuple(pid(n) for n in expected)


def test_withdrawn_player_lends_half_a_point_per_missed_round_to_opponents() -> None:
    table = results_by_player((e.player for e in entrants(16)), crosstable(FIDE_EXERCISE))
    assert adjusted_score(table[pid(12)]) == F(3)  # 0 + 1 (PAB) + 1 (FW) + 1/2 + 1/2
    assert table[pid(12)][3].kind is ResultKind.WITHDRAWN


def test_exercise_standings_mark_the_withdrawn_player() -> None:
    table = exercise(C07Edition.E2026)
    assert table.row(pid(12)).status is PlayerStatus.WITHDRAWN
    assert table.row(pid(1)).status is PlayerStatus.ACTIVE


# --- unplayed rounds, one kind at a time, in small hand-worked events ---------------------


def test_pairing_allocated_bye_is_a_dummy_capped_at_half_the_rounds() -> None:
    # Two rounds, three players: R1 1-2 1-0, 3 bye; R2 3-1 =, 2 bye.
    results = crosstable(((((1, 2, "1-0"),), {3: "PAB"}), (((3, 1, "="),), {2: "PAB"})))
    table = compute_standings(entrants(3), results)
    # #3: bye dummy = own 1.5 capped at 1/2 x 2 = 1, plus #1's 1.5.
    assert table.row(pid(3)).buchholz == F(5, 2)
    assert table.row(pid(3)).contributions[0].category is UnplayedCategory.PAIRING_BYE
    # #2: bye dummy = own 1 (under the cap), plus #1's 1.5.
    assert table.row(pid(2)).buchholz == F(5, 2)
    old = compute_standings(entrants(3), results, edition=C07Edition.E2024)
    assert old.row(pid(3)).buchholz == F(3)


FORFEITS: tuple[RoundSpec, ...] = (
    (((1, 2, "1-0"), (3, 4, "+-")), {}),
    (((1, 3, "="), (2, 4, "1-0")), {}),
    (((4, 1, "0-1"), (3, 2, "0-1")), {}),
)


def test_forfeit_win_dummy_is_capped_at_the_no_show_opponents_adjusted_score() -> None:
    table = compute_standings(entrants(4), crosstable(FORFEITS))
    row = table.row(pid(3))  # 1.5 points: FW v #4 (0 points), = v #1 (2.5), L v #2 (2)
    assert [c.value for c in row.contributions] == [F(0), F(5, 2), F(2)]
    assert row.buchholz == F(9, 2)
    assert row.buchholz_median == F(2)  # a forfeit win is no VUR: plain cuts of 0 and 2.5


def test_forfeit_loss_is_a_voluntary_unplayed_round_cut_first() -> None:
    table = compute_standings(entrants(4), crosstable(FORFEITS))
    row = table.row(pid(4))  # 0 points: FL v #3, L v #2 (2), L v #1 (2.5)
    assert row.contributions[0].category is UnplayedCategory.FORFEIT_LOSS
    assert [c.value for c in row.contributions] == [F(0), F(2), F(5, 2)]
    assert row.buchholz_median == F(2)
    assert row.cut[0].round == 1


# R1 1-2 1-0, 3-4 0-1; R2 1-4 =, 3 PAB, 2 absent; R3 2-3 1-0, 1 PAB, 4 withdrawn.
ABSENCE_AND_WITHDRAWAL: tuple[RoundSpec, ...] = (
    (((1, 2, "1-0"), (3, 4, "0-1")), {}),
    (((1, 4, "="),), {3: "PAB", 2: "ZPB"}),
    (((2, 3, "1-0"),), {1: "PAB", 4: "W"}),
)
WITHDRAWAL_EXIT = (Exit(pid(4), ExitKind.WITHDRAWAL, last_round=2),)


def absence_table(edition: C07Edition = C07Edition.E2026) -> Standings:
    return compute_standings(
        entrants(4), crosstable(ABSENCE_AND_WITHDRAWAL), exits=WITHDRAWAL_EXIT, edition=edition
    )


def test_absence_followed_by_a_played_round_counts_as_awarded_for_opponents() -> None:
    row = absence_table().row(pid(2))  # 1 point: L v #1 (2.5), absent, W v #3 (1)
    assert row.contributions[1].category is UnplayedCategory.REQUESTED_BYE_FOLLOWED
    assert [c.value for c in row.contributions] == [F(5, 2), F(1), F(1)]
    assert row.buchholz == F(9, 2)
    assert row.buchholz_median == F(1)


def test_withdrawal_mid_event_counts_as_a_draw_for_past_opponents() -> None:
    table = absence_table()
    four = table.row(pid(4))  # 1.5 points: W v #3, = v #1, withdrawn in round 3
    assert four.contributions[2].category is UnplayedCategory.REQUESTED_BYE_FINAL
    assert [c.value for c in four.contributions] == [F(1), F(5, 2), F(3, 2)]
    assert four.buchholz_median == F(1)  # the withdrawn round (VUR) and 2.5 are cut
    assert four.status is PlayerStatus.WITHDRAWN
    # #1 met #4 in round 2: #4's adjusted score is 1 + 1/2 + 1/2 (round 3 as a draw) = 2.
    one = table.row(pid(1))
    assert [c.value for c in one.contributions] == [F(1), F(2), F(3, 2)]  # bye capped at 1.5
    assert one.buchholz == F(9, 2)
    assert absence_table(C07Edition.E2024).row(pid(1)).buchholz == F(11, 2)


def test_progressive_score_adds_running_totals_including_unplayed_rounds() -> None:
    table = absence_table()
    assert [table.row(pid(n)).progressive for n in (1, 2, 3, 4)] == [F(5), F(1), F(2), F(4)]


# --- every tie-break step decides a case ---------------------------------------------------


def test_match_points_decide_first() -> None:
    assert absence_table().ranking[:2] == (pid(1), pid(4))


def test_median_buchholz_decides_equal_match_points() -> None:
    table = exercise(C07Edition.E2026)
    three, four = table.row(pid(3)), table.row(pid(4))
    assert three.match_points == four.match_points
    assert three.buchholz_median > four.buchholz_median
    assert three.rank < four.rank


def test_progressive_score_decides_equal_match_points_and_median() -> None:
    table = absence_table()
    two, three = table.row(pid(2)), table.row(pid(3))
    assert (two.match_points, two.buchholz_median) == (three.match_points, three.buchholz_median)
    assert three.progressive > two.progressive
    assert three.rank < two.rank


def test_seed_decides_when_everything_else_is_equal() -> None:
    seeded = (
        Entrant(pairing_number=2, player=pid(1), username="P01", seed_rating=1900),
        Entrant(pairing_number=1, player=pid(2), username="P02", seed_rating=2000),
    )
    table = compute_standings(seeded, crosstable(((((1, 2, "="),), {}),)))
    assert table.ranking == (pid(2), pid(1))
    assert [row.seed for row in table.rows] == [1, 2]


def test_no_rounds_ranks_by_seed() -> None:
    table = compute_standings(entrants(3), ())
    assert table.ranking == (pid(1), pid(2), pid(3))
    assert table.rounds == 0


# --- bad input ------------------------------------------------------------------------------


def test_missing_result_is_refused() -> None:
    results = crosstable(((((1, 2, "1-0"),), {}),))
    with pytest.raises(QualificationError) as info:
        compute_standings(entrants(3), results)
    assert info.value.reason is QualificationErrorReason.MISSING_RESULT


def test_mismatched_match_points_are_refused() -> None:
    one, two = crosstable(((((1, 2, "1-0"),), {}),))
    wrong = RoundResult(two.player, 1, ResultKind.PLAYED, F(1), one.player, two.colour)
    with pytest.raises(QualificationError) as info:
        compute_standings(entrants(2), (one, wrong))
    assert info.value.reason is QualificationErrorReason.INCONSISTENT_RESULTS


def test_result_after_exit_is_refused() -> None:
    results = crosstable(FORFEITS)
    with pytest.raises(QualificationError) as info:
        compute_standings(entrants(4), results, exits=(Exit(pid(4), ExitKind.WITHDRAWAL, 1),))
    assert info.value.reason is QualificationErrorReason.INVALID_EXIT


@pytest.mark.parametrize(
    "build",
    [
        lambda: RoundResult(pid(1), 0, ResultKind.BYE, F(1)),
        lambda: RoundResult(pid(1), 1, ResultKind.BYE, F(1, 3)),
        lambda: RoundResult(pid(1), 1, ResultKind.PLAYED, F(1), None),
        lambda: RoundResult(pid(1), 1, ResultKind.FORFEIT_WIN, F(0), pid(2)),
        lambda: RoundResult(pid(1), 1, ResultKind.WITHDRAWN, F(1, 2)),
        lambda: RoundResult(pid(1), 1, ResultKind.BYE, F(1), pid(2)),
    ],
)
def test_contradictory_round_result_is_refused(build: Callable[[], RoundResult]) -> None:
    with pytest.raises(QualificationError) as info:
        build()
    assert info.value.reason is QualificationErrorReason.INVALID_RESULT


# --- invariants -----------------------------------------------------------------------------


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[tuple[Entrant, ...], tuple[RoundResult, ...]]:
    count = draw(st.integers(min_value=2, max_value=9))
    rounds = draw(st.integers(min_value=0, max_value=5))
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    spec = []
    for _ in range(rounds):
        players = list(range(1, count + 1))
        rng.shuffle(players)
        unpaired = {}
        for _ in range(rng.randint(0, 1)):
            unpaired[players.pop()] = rng.choice(["ZPB", "HPB"])
        if len(players) % 2:
            unpaired[players.pop()] = "PAB"
        pairings = [
            (players[i], players[i + 1], rng.choice(["1-0", "0-1", "=", "+-", "-+"]))
            for i in range(0, len(players), 2)
        ]
        spec.append((tuple(pairings), unpaired))
    return entrants(count), crosstable(spec)


@settings(max_examples=60, deadline=None)
@given(tournaments(), st.randoms(use_true_random=False))
def test_standings_are_a_total_order_independent_of_input_order(
    event: tuple[tuple[Entrant, ...], tuple[RoundResult, ...]], rng: random.Random
) -> None:
    people, results = event
    table = compute_standings(people, results)
    keys = [row.sort_key for row in table.rows]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
    assert [row.rank for row in table.rows] == list(range(1, len(people) + 1))
    shuffled_people, shuffled_results = list(people), list(results)
    rng.shuffle(shuffled_people)
    rng.shuffle(shuffled_results)
    assert compute_standings(shuffled_people, shuffled_results) == table


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_median_never_exceeds_buchholz_and_progressive_matches_running_totals(
    event: tuple[tuple[Entrant, ...], tuple[RoundResult, ...]],
) -> None:
    people, results = event
    table = compute_standings(people, results)
    by_player = results_by_player((p.player for p in people), results)
    for row in table.rows:
        assert row.buchholz_median <= row.buchholz
        assert len(row.cut) == min(2, table.rounds)
        assert row.progressive == progressive_score(by_player[row.player])
        values = buchholz_contributions(
            by_player[row.player],
            {p: adjusted_score(rs) for p, rs in by_player.items()},
        )
        assert values == row.contributions
