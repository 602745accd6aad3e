"""Entrants, rounds, results, qualifiers and exits of the qualification (rules 3.v, 8.i)."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, Match, MatchId, Player, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, Seeding, StageKind, Stages
from rules.stages.qualification import (
    Adjudication,
    Exit,
    ExitKind,
    QualificationError,
    QualificationErrorReason,
    ResultKind,
    absent_result,
    adjust_for_exit,
    bye_result,
    exit_report,
    forfeit_results,
    number_of_rounds,
    played_results,
    qualifier_count,
    qualifiers,
    rank_entrants,
    withdrawn_result,
)
from rules.swiss.tiebreaks import PlayerStatus, compute_standings
from tests.rules.swiss_fixtures import FIDE_EXERCISE, crosstable, entrants, pid

F = Fraction
UTC = dt.UTC
SEEDING_2021 = Seeding(title_holder="PepsiNGaming", runner_up="GrohochetGrom")


# --- number of rounds (rules 3.v.2) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("entrants_count", "rounds"),
    [(2, 3), (3, 3), (4, 4), (31, 6), (32, 7), (63, 7), (64, 8), (127, 8), (128, 9)],
)
def test_number_of_rounds_is_floor_log2_plus_two(entrants_count: int, rounds: int) -> None:
    assert number_of_rounds(entrants_count) == rounds


@pytest.mark.parametrize("entrants_count", [1, 0, -3])
def test_number_of_rounds_refuses_fewer_than_two_entrants(entrants_count: int) -> None:
    with pytest.raises(QualificationError) as info:
        number_of_rounds(entrants_count)
    assert info.value.reason is QualificationErrorReason.TOO_FEW_ENTRANTS


# --- entrants (rules 3.v.1, 3.v.3) ----------------------------------------------------------


def player(name: str, rating: int | None) -> Player:
    return Player(id=PlayerId(name.lower()), username=name, seed_rating=rating)


def test_entrants_leave_out_the_seeded_players_case_insensitively() -> None:
    registered = [player("pepsingaming", 2600), player("GROHOCHETGROM", 2550), player("Ann", 2000)]
    ranked = rank_entrants(registered, seeding=SEEDING_2021)
    assert [e.player for e in ranked] == ["ann"]


def test_entrants_are_ranked_by_seeding_rating_with_ties_by_user_id() -> None:
    registered = [
        player("Zed", 2100),
        player("bob", 2200),
        player("Amy", 2100),
        player("Norating", None),
        player("Another", None),
        player("Low", 1500),
    ]
    ranked = rank_entrants(registered, seeding=SEEDING_2021)
    assert [(e.pairing_number, e.player) for e in ranked] == [
        (1, "bob"),
        (2, "amy"),
        (3, "zed"),
        (4, "low"),
        (5, "another"),
        (6, "norating"),
    ]
    assert ranked[1].username == "Amy"


def test_ineligible_players_are_not_entrants() -> None:
    registered = [player("Ann", 2000), player("Bot", 2500)]
    ranked = rank_entrants(registered, seeding=SEEDING_2021, ineligible={PlayerId("bot")})
    assert [e.player for e in ranked] == ["ann"]


def test_a_player_registered_twice_is_refused() -> None:
    with pytest.raises(QualificationError) as info:
        rank_entrants([player("Ann", 1), player("ANN", 2)], seeding=SEEDING_2021)
    assert info.value.reason is QualificationErrorReason.DUPLICATE_PLAYER


# --- qualifiers (rules 3.v.4) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("participating", "count"),
    [
        (("PepsiNGaming", "GrohochetGrom"), 10),
        (("pepsingaming",), 11),
        (("GrohochetGrom",), 11),
        ((), 12),
    ],
)
def test_one_more_qualifier_per_absent_seeded_player(
    participating: tuple[str, ...], count: int
) -> None:
    got = qualifier_count(stages=Stages(), seeding=SEEDING_2021, seeded_participants=participating)
    assert got == count


def test_an_unfilled_seeded_slot_counts_as_absent() -> None:
    assert qualifier_count(stages=Stages(), seeding=Seeding(title_holder="Champ")) == 12
    assert (
        qualifier_count(
            stages=Stages(), seeding=Seeding(title_holder="Champ"), seeded_participants=["champ"]
        )
        == 11
    )


def test_a_participant_who_is_not_seeded_is_refused() -> None:
    with pytest.raises(QualificationError) as info:
        qualifier_count(stages=Stages(), seeding=SEEDING_2021, seeded_participants=["Ann"])
    assert info.value.reason is QualificationErrorReason.NOT_SEEDED


def test_qualifiers_skip_withdrawn_players() -> None:
    table = compute_standings(
        entrants(16),
        crosstable(FIDE_EXERCISE),
        exits=(Exit(pid(12), ExitKind.WITHDRAWAL, last_round=3),),
    )
    assert table.row(pid(12)).rank == 11
    chosen = qualifiers(table, count=11)
    assert pid(12) not in chosen
    assert chosen[-1] == pid(14)  # 12th in the table moves up
    assert chosen[:3] == (pid(2), pid(3), pid(4))


# --- results of a round (rules 3.v.1) -------------------------------------------------------


def match(round_: int, first: int, second: int) -> Match:
    return Match(
        id=MatchId(round_ * 100 + first),
        stage=StageKind.QUALIFICATION,
        round=round_,
        white_first=pid(first),
        black_first=pid(second),
        format=DEFAULT_RULESET.formats.qualification,
    )


def games_of(m: Match, outcomes: str) -> list[Game]:
    """``outcomes``: one letter per game: F (first player wins), S (second wins), D (draw)."""
    out = []
    for number, letter in enumerate(outcomes, start=1):
        white = m.white_in_game(number)
        black = m.opponent_of(white)
        winner_id = {"F": m.white_first, "S": m.black_first, "D": None}[letter]
        winner = None
        if winner_id is not None:
            winner = Colour.WHITE if winner_id == white else Colour.BLACK
        out.append(
            Game(
                id=GameId(f"g{m.id}-{number}"),
                white=white,
                black=black,
                status=GameStatus.DRAW if winner is None else GameStatus.RESIGN,
                winner=winner,
                variant="antichess",
                rated=True,
                clock_limit=120,
                clock_increment=5,
                created_at=dt.datetime(2021, 10, 13, 18, number, tzinfo=UTC),
            )
        )
    return out


def test_a_clinched_match_is_a_match_win() -> None:
    m = match(1, 1, 2)
    first, second = played_results(m, games_of(m, "FFFFFD"))
    assert (first.match_points, second.match_points) == (F(1), F(0))
    assert (first.game_points, second.game_points, first.games) == (F(11, 2), F(1, 2), 6)
    assert (first.colour, second.colour) == (Colour.WHITE, Colour.BLACK)
    assert first.kind is ResultKind.PLAYED
    assert first.opponent == pid(2)


def test_a_five_all_match_is_half_a_point_each() -> None:
    m = match(2, 3, 4)
    first, second = played_results(m, games_of(m, "FSFSFSFSFS"))
    assert (first.match_points, second.match_points) == (F(1, 2), F(1, 2))
    assert first.round == 2


def test_a_match_in_progress_has_no_result_yet() -> None:
    m = match(1, 1, 2)
    with pytest.raises(QualificationError) as info:
        played_results(m, games_of(m, "FFS"))
    assert info.value.reason is QualificationErrorReason.MATCH_NOT_FINISHED


def test_a_game_between_other_players_is_refused() -> None:
    m = match(1, 1, 2)
    with pytest.raises(QualificationError) as info:
        played_results(m, games_of(match(1, 3, 4), "F"))
    assert info.value.reason is QualificationErrorReason.INVALID_RESULT


@pytest.mark.parametrize(("bye_is_match_win", "points"), [(True, F(1)), (False, F(1, 2))])
def test_bye_is_worth_what_the_ruleset_says(bye_is_match_win: bool, points: Fraction) -> None:
    result = bye_result(pid(1), 3, stages=Stages(bye_is_match_win=bye_is_match_win))
    assert (result.kind, result.match_points, result.opponent) == (ResultKind.BYE, points, None)


def test_absence_scores_nothing_unless_a_half_point_bye_is_granted() -> None:
    assert absent_result(pid(1), 2).match_points == 0
    assert absent_result(pid(1), 2, half_point=True).match_points == F(1, 2)
    assert withdrawn_result(pid(1), 2).kind is ResultKind.WITHDRAWN


def test_forfeit_gives_the_winner_the_match_and_no_colour_without_games() -> None:
    won, lost = forfeit_results(match(1, 1, 2), winner=pid(2))
    assert (won.player, won.kind, won.match_points) == (pid(2), ResultKind.FORFEIT_WIN, Fraction(1))
    assert (lost.player, lost.kind, lost.match_points) == (
        pid(1),
        ResultKind.FORFEIT_LOSS,
        Fraction(0),
    )
    assert won.colour is None
    assert lost.colour is None


def test_forfeit_winner_must_play_the_match() -> None:
    with pytest.raises(QualificationError) as info:
        forfeit_results(match(1, 1, 2), winner=pid(3))
    assert info.value.reason is QualificationErrorReason.INVALID_RESULT


# --- withdrawal and disqualification (rules 8.i) --------------------------------------------

# #4 beats #3 and draws with #1; in round 3 #4 v #2 is unfinished when #4 leaves.
BEFORE_EXIT = crosstable(
    (
        (((1, 2, "1-0"), (3, 4, "0-1")), {}),
        (((4, 1, "="), (2, 3, "1-0")), {}),
        (((1, 3, "1-0"),), {}),
    )
)
UNFINISHED = match(3, 4, 2)


def leave(kind: ExitKind) -> Exit:
    return Exit(pid(4), kind, last_round=3)


def test_unfinished_match_goes_to_the_opponent_on_withdrawal() -> None:
    report = exit_report(
        entrants(4), BEFORE_EXIT, leave(ExitKind.WITHDRAWAL), unfinished=UNFINISHED
    )
    assert report.before.rounds == 2
    assert report.after.rounds == 3
    added = {new.player: new for old, new in report.changed if old is None}
    assert added[pid(2)].kind is ResultKind.FORFEIT_WIN
    assert added[pid(2)].adjudication is Adjudication.UNFINISHED_AT_EXIT
    assert added[pid(4)].kind is ResultKind.FORFEIT_LOSS
    assert len(report.changed) == 2
    after = report.after
    assert [after.row(pid(n)).match_points for n in (1, 2, 3, 4)] == [F(5, 2), F(2), 0, F(3, 2)]
    assert after.row(pid(4)).status is PlayerStatus.WITHDRAWN
    assert report.before.row(pid(4)).match_points == F(3, 2)


def test_engine_mark_turns_every_finished_match_into_an_opponent_win() -> None:
    report = exit_report(
        entrants(4),
        BEFORE_EXIT,
        leave(ExitKind.ENGINE_DISQUALIFICATION),
        unfinished=UNFINISHED,
    )
    results = {(r.player, r.round): r for r in report.results}
    three_r1, one_r2 = results[(pid(3), 1)], results[(pid(1), 2)]
    assert (three_r1.kind, three_r1.match_points) == (ResultKind.FORFEIT_WIN, Fraction(1))
    assert three_r1.adjudication is Adjudication.ENGINE_MARK
    assert (three_r1.game_points, three_r1.games) == (Fraction(10), 10)  # every game goes to #3
    assert (one_r2.kind, one_r2.game_points) == (ResultKind.FORFEIT_WIN, Fraction(10))
    assert results[(pid(4), 1)].game_points == 0
    assert results[(pid(2), 3)].adjudication is Adjudication.UNFINISHED_AT_EXIT
    assert results[(pid(1), 3)].kind is ResultKind.PLAYED  # not #4's match: untouched
    after = report.after
    assert [after.row(pid(n)).match_points for n in (1, 2, 3, 4)] == [3, 2, 1, 0]
    assert after.row(pid(4)).status is PlayerStatus.DISQUALIFIED
    # #1's round-2 Buchholz value is now a forfeit-win dummy capped at #4's adjusted score, 0.
    assert after.row(pid(1)).contributions[1].value == 0
    assert len(report.changed) == 6


def test_booster_disqualification_leaves_finished_matches_standing() -> None:
    report = exit_report(
        entrants(4), BEFORE_EXIT, leave(ExitKind.DISQUALIFICATION), unfinished=UNFINISHED
    )
    results = {(r.player, r.round): r for r in report.results}
    assert results[(pid(4), 1)].kind is ResultKind.PLAYED
    assert results[(pid(4), 1)].match_points == 1
    assert report.after.row(pid(4)).match_points == F(3, 2)
    assert report.after.row(pid(4)).status is PlayerStatus.DISQUALIFIED


def test_rounds_after_leaving_are_filled_as_withdrawn() -> None:
    stored = crosstable(
        (
            (((1, 2, "1-0"), (3, 4, "0-1")), {}),
            (((1, 3, "="),), {2: "PAB"}),
        )
    )
    stored = tuple(r for r in stored if r.player != pid(4) or r.round == 1)
    adjusted = adjust_for_exit(stored, Exit(pid(4), ExitKind.WITHDRAWAL, last_round=1))
    four = [r for r in adjusted if r.player == pid(4)]
    assert [r.kind for r in four] == [ResultKind.PLAYED, ResultKind.WITHDRAWN]
    assert adjusted == tuple(sorted(adjusted, key=lambda r: (r.round, r.player)))


def test_unfinished_match_that_already_has_a_result_is_refused() -> None:
    finished = (*BEFORE_EXIT, *forfeit_results(UNFINISHED, winner=pid(2)))
    with pytest.raises(QualificationError) as info:
        adjust_for_exit(finished, leave(ExitKind.WITHDRAWAL), unfinished=UNFINISHED)
    assert info.value.reason is QualificationErrorReason.INVALID_EXIT


def test_unfinished_match_of_someone_else_is_refused() -> None:
    with pytest.raises(QualificationError) as info:
        adjust_for_exit(BEFORE_EXIT, leave(ExitKind.WITHDRAWAL), unfinished=match(3, 1, 2))
    assert info.value.reason is QualificationErrorReason.INVALID_EXIT


def test_a_played_result_after_leaving_is_refused() -> None:
    with pytest.raises(QualificationError) as info:
        adjust_for_exit(BEFORE_EXIT, Exit(pid(4), ExitKind.WITHDRAWAL, last_round=1))
    assert info.value.reason is QualificationErrorReason.INVALID_EXIT


def test_leaving_twice_is_refused() -> None:
    first = leave(ExitKind.WITHDRAWAL)
    with pytest.raises(QualificationError) as info:
        exit_report(entrants(4), BEFORE_EXIT, first, unfinished=UNFINISHED, earlier_exits=[first])
    assert info.value.reason is QualificationErrorReason.INVALID_EXIT


def test_exit_report_does_not_change_its_input() -> None:
    stored = tuple(BEFORE_EXIT)
    exit_report(entrants(4), stored, leave(ExitKind.ENGINE_DISQUALIFICATION), unfinished=UNFINISHED)
    assert stored == BEFORE_EXIT
