from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, Match, MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, MatchFormat, StageKind, Tiebreak
from rules.core.scoring import (
    Outcome,
    armageddon_winner,
    format_points,
    is_clinched,
    match_outcome,
    match_points,
    match_score,
)

A, B = PlayerId("alice"), PlayerId("bob")
T0 = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
F = DEFAULT_RULESET.formats


def game(
    n: int, white: PlayerId, winner: Colour | None, status: GameStatus = GameStatus.RESIGN
) -> Game:
    black = B if white == A else A
    if winner is None and status is GameStatus.RESIGN:
        status = GameStatus.DRAW
    return Game(
        id=GameId(f"g{n:07d}"),
        white=white,
        black=black,
        status=status,
        winner=winner,
        variant="antichess",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        created_at=T0 + dt.timedelta(minutes=10 * n),
    )


def play(match: Match, results: str) -> list[Game]:
    """``results`` from alice's view, one char a game: w(in), l(oss), d(raw); colours alternate."""
    games = []
    for i, r in enumerate(results, 1):
        white = match.white_in_game(i)
        alice_colour = Colour.WHITE if white == A else Colour.BLACK
        winner = {"w": alice_colour, "l": alice_colour.opposite, "d": None}[r]
        games.append(game(i, white, winner))
    return games


def make(fmt: MatchFormat, stage: StageKind = StageKind.QUALIFICATION, week: int = 1) -> Match:
    return Match(MatchId(1), stage, 1, A, B, fmt, week)


def test_colours_alternate_from_game_one() -> None:
    m = make(F.qualification)
    assert [m.white_in_game(i) for i in (1, 2, 3, 4)] == [A, B, A, B]
    with pytest.raises(ValueError, match="numbered from 1"):
        m.white_in_game(0)


@pytest.mark.parametrize(
    ("results", "score", "clinched"),
    [
        ("wwwwwd", (Fraction(11, 2), Fraction(1, 2)), True),  # 5.5 of 10 clinches
        ("wwwwwl", (Fraction(5), Fraction(1)), False),
        ("dddddddddd", (Fraction(5), Fraction(5)), False),  # a 5-5 tie never clinches
        ("ddddddddddd"[:10], (Fraction(5), Fraction(5)), False),
        ("wwwwdd", (Fraction(5), Fraction(1)), False),
        ("wwwwddd", (Fraction(11, 2), Fraction(3, 2)), True),
    ],
)
def test_qualification_score_and_clinch(
    results: str, score: tuple[Fraction, Fraction], clinched: bool
) -> None:
    m = make(F.qualification)
    s = match_score(m, play(m, results))
    assert (s.first, s.second) == score
    assert s.games_played == len(results)
    assert is_clinched(s, m.format) is clinched


def test_qualification_clinch_ends_the_match_when_players_stop() -> None:
    m = make(F.qualification)
    s = match_score(m, play(m, "wwwwwd"))
    assert match_outcome(s, m.format) is Outcome.FIRST_WINS
    assert match_outcome(s, m.format, stop_at_clinch=False) is Outcome.IN_PROGRESS


def test_tied_qualification_match_gives_half_a_match_point_each() -> None:
    m = make(F.qualification)
    s = match_score(m, play(m, "wlwlwlwlwl"))
    assert (s.first, s.second) == (Fraction(5), Fraction(5))
    outcome = match_outcome(s, m.format)
    assert outcome is Outcome.TIED
    assert match_points(outcome, first=True) == match_points(outcome, first=False) == Fraction(1, 2)


def test_final_clinches_at_six_and_a_half_of_twelve() -> None:
    m = make(F.final, StageKind.FINAL)
    s = match_score(m, play(m, "lwwwwwdw"))  # 6.5 after 8
    assert s.second == Fraction(3, 2)
    assert s.first == Fraction(13, 2)
    assert is_clinched(s, m.format)
    assert match_outcome(s, m.format) is Outcome.FIRST_WINS
    s6 = match_score(m, play(m, "wwwwwwl"))  # 6 of 12 is not enough
    assert not is_clinched(s6, m.format)


def test_candidates_need_every_game_even_after_a_clinch_score() -> None:
    m = make(F.candidates, StageKind.CANDIDATES)
    s = match_score(m, play(m, "wwwwww"))
    assert not is_clinched(s, m.format)
    assert match_outcome(s, m.format) is Outcome.IN_PROGRESS
    done = match_score(m, play(m, "wwwwwwllll"))
    assert match_outcome(done, m.format) is Outcome.FIRST_WINS


def test_tied_semifinal_goes_to_armageddon() -> None:
    m = make(F.semifinal, StageKind.SEMIFINAL)
    s = match_score(m, play(m, "dddddddddd"))
    assert match_outcome(s, m.format) is Outcome.ARMAGEDDON
    with pytest.raises(ValueError, match="no match points"):
        match_points(Outcome.ARMAGEDDON, first=True)


@pytest.mark.parametrize(
    ("week", "expected"), [(1, Outcome.REPEAT), (2, Outcome.REPEAT), (3, Outcome.ARMAGEDDON)]
)
def test_tied_final_repeats_for_three_weeks_then_armageddon(week: int, expected: Outcome) -> None:
    m = make(F.final, StageKind.FINAL, week)
    s = match_score(m, play(m, "wl" * 6))
    assert match_outcome(s, m.format, week=week) is expected


def test_draws_score_half_a_point() -> None:
    m = make(F.qualification)
    s = match_score(m, play(m, "ddd"))
    assert (s.first, s.second) == (Fraction(3, 2), Fraction(3, 2))
    assert str(s) == "1.5-1.5"


def test_unplayed_games_do_not_count() -> None:
    m = make(F.qualification)
    games = [
        *play(m, "w"),
        game(2, B, None, GameStatus.ABORTED),
        game(3, B, None, GameStatus.NO_START),
    ]
    s = match_score(m, games)
    assert s.games_played == 1
    assert (s.first, s.second) == (Fraction(1), Fraction(0))


def test_a_game_between_other_players_is_refused() -> None:
    m = make(F.qualification)
    stranger = Game(
        GameId("x"),
        A,
        PlayerId("carol"),
        GameStatus.MATE,
        Colour.WHITE,
        "antichess",
        True,
        120,
        5,
        T0,
    )
    with pytest.raises(ValueError, match="not between the players"):
        match_score(m, [stranger])


def test_more_games_than_the_match_length_is_an_error() -> None:
    m = make(F.qualification)
    s = match_score(m, play(m, "d" * 11))
    with pytest.raises(ValueError, match="11 games played in a 10-game match"):
        match_outcome(s, m.format)


@pytest.mark.parametrize(
    ("winner", "status", "expected"),
    [
        (Colour.WHITE, GameStatus.VARIANT_END, A),
        (Colour.BLACK, GameStatus.VARIANT_END, B),
        (None, GameStatus.DRAW, B),  # draw odds: a draw is a Black win (rules 3.ix.1.1)
        (None, GameStatus.STALEMATE, B),
    ],
)
def test_armageddon_draw_goes_to_black(
    winner: Colour | None, status: GameStatus, expected: PlayerId
) -> None:
    assert armageddon_winner(game(1, A, winner, status)) == expected


def test_armageddon_needs_a_finished_game() -> None:
    with pytest.raises(ValueError, match="no result"):
        armageddon_winner(game(1, A, None, GameStatus.STARTED))


def test_custom_format_without_clinch_never_clinches() -> None:
    fmt = MatchFormat(games=4, clinch_at=None, tiebreak=Tiebreak.NONE)
    m = make(fmt)
    assert not is_clinched(match_score(m, play(m, "www")), fmt)


@pytest.mark.parametrize(
    ("value", "text"), [(Fraction(11, 2), "5.5"), (Fraction(5), "5"), (Fraction(0), "0")]
)
def test_format_points(value: Fraction, text: str) -> None:
    assert format_points(value) == text
