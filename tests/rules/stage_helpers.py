"""Small builders shared by the stage tests (candidates, knockout, armageddon, stages)."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, Match, MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, StageKind
from rules.core.scoring import Outcome
from rules.stages.candidates import MatchResult

T0 = dt.datetime(2021, 11, 2, 18, 0, tzinfo=dt.UTC)

_ids = iter(range(1, 1_000_000))


def pid(name: str) -> PlayerId:
    return PlayerId(name.lower())


def res(first: str, second: str, first_points: float, *, mid: int | None = None) -> MatchResult:
    """A finished 10-game Candidates match where ``first`` scored ``first_points``."""
    a = Fraction(first_points).limit_denominator(2)
    b = 10 - a
    outcome = Outcome.FIRST_WINS if a > b else Outcome.SECOND_WINS if b > a else Outcome.TIED
    return MatchResult(
        match_id=MatchId(mid if mid is not None else next(_ids)),
        first=pid(first),
        second=pid(second),
        first_points=a,
        second_points=b,
        games_played=10,
        outcome=outcome,
    )


def game(
    white: str,
    black: str,
    winner: Colour | None,
    *,
    n: int = 0,
    status: GameStatus = GameStatus.MATE,
    variant: str = "antichess",
    limit: int | None = 120,
    increment: int | None = 5,
    rated: bool = True,
) -> Game:
    return Game(
        id=GameId(f"g{next(_ids):07d}"),
        white=pid(white),
        black=pid(black),
        status=status if winner is not None or status is not GameStatus.MATE else GameStatus.DRAW,
        winner=winner,
        variant=variant,
        rated=rated,
        clock_limit=limit,
        clock_increment=increment,
        created_at=T0 + dt.timedelta(minutes=10 * n),
    )


def games_for(match: Match, first_wins: int, draws: int, second_wins: int) -> list[Game]:
    """Games of ``match`` in order, colours alternating from game 1."""
    outcomes = ["first"] * first_wins + ["draw"] * draws + ["second"] * second_wins
    out: list[Game] = []
    for i, who in enumerate(outcomes, start=1):
        white = match.white_in_game(i)
        black = match.opponent_of(white)
        if who == "draw":
            winner = None
        else:
            winning = match.white_first if who == "first" else match.black_first
            winner = Colour.WHITE if winning == white else Colour.BLACK
        out.append(game(white, black, winner, n=i))
    return out


def make_match(
    a: str, b: str, stage: StageKind, *, mid: int = 1, round_: int = 1, week: int = 1
) -> Match:
    return Match(
        id=MatchId(mid),
        stage=stage,
        round=round_,
        white_first=pid(a),
        black_first=pid(b),
        format=DEFAULT_RULESET.formats.for_stage(stage),
        week=week,
    )
