"""The pure intake decision: which games belong to a match, and which the TDs must see."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.core.model import Colour, Game, GameId, GameStatus, Match, MatchId, PlayerId, StageKind
from rules.core.ruleset import DEFAULT_RULESET
from rules.week.intake import (
    Accepted,
    Alert,
    MatchContext,
    RefusalReason,
    Refused,
    classify_game,
)

ALICE, BOB, CAROL = PlayerId("alice"), PlayerId("bob"), PlayerId("carol")
OPEN = dt.datetime(2021, 10, 12, 0, 0, tzinfo=dt.UTC)
CLOSE = dt.datetime(2021, 10, 18, 23, 59, tzinfo=dt.UTC)
AGREED = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
MATCH = Match(
    id=MatchId(7),
    stage=StageKind.QUALIFICATION,
    round=1,
    white_first=ALICE,
    black_first=BOB,
    format=DEFAULT_RULESET.formats.qualification,
)
CONTEXT = MatchContext(match=MATCH, window_start=OPEN, window_end=CLOSE)

GOOD = Game(
    id=GameId("gAme0001"),
    white=ALICE,
    black=BOB,
    status=GameStatus.VARIANT_END,
    winner=Colour.WHITE,
    variant="antichess",
    rated=True,
    clock_limit=120,
    clock_increment=5,
    created_at=AGREED,
    last_move_at=AGREED + dt.timedelta(minutes=6),
    source="friend",
)
ANTICHESS_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w - - 0 1"


def game(**changes: Any) -> Game:
    return replace(GOOD, **changes)


REFUSALS = [
    ("a third player", game(black=CAROL), CONTEXT, RefusalReason.OTHER_PLAYERS, False),
    ("one player twice", game(black=ALICE), CONTEXT, RefusalReason.OTHER_PLAYERS, False),
    (
        "before the pairing was published",
        game(created_at=OPEN - dt.timedelta(minutes=1)),
        CONTEXT,
        RefusalReason.BEFORE_WINDOW,
        False,
    ),
    (
        "after the Monday deadline",
        game(created_at=CLOSE + dt.timedelta(minutes=1)),
        CONTEXT,
        RefusalReason.AFTER_WINDOW,
        True,
    ),
    (
        "aborted",
        game(status=GameStatus.ABORTED, winner=None),
        CONTEXT,
        RefusalReason.ABORTED,
        False,
    ),
    (
        "never started",
        game(status=GameStatus.NO_START, winner=Colour.BLACK),
        CONTEXT,
        RefusalReason.NOT_STARTED,
        False,
    ),
    ("standard chess", game(variant="standard"), CONTEXT, RefusalReason.WRONG_VARIANT, True),
    ("3+0", game(clock_limit=180, clock_increment=0), CONTEXT, RefusalReason.WRONG_CLOCK, True),
    ("2+0", game(clock_increment=0), CONTEXT, RefusalReason.WRONG_CLOCK, True),
    (
        "correspondence",
        game(clock_limit=None, clock_increment=None),
        CONTEXT,
        RefusalReason.WRONG_CLOCK,
        True,
    ),
    ("casual", game(rated=False), CONTEXT, RefusalReason.CASUAL, True),
    (
        "after the match was decided",
        GOOD,
        replace(CONTEXT, is_complete=True),
        RefusalReason.MATCH_COMPLETE,
        True,
    ),
    ("ended for cheating", game(status=GameStatus.CHEAT), CONTEXT, RefusalReason.CHEAT, True),
    *[
        (f"a {source} game", game(source=source), CONTEXT, RefusalReason.WRONG_SOURCE, True)
        for source in ("lobby", "arena", "swiss", "simul", "pool", "ai", "import", "position")
    ],
    (
        "a finished game Lichess gave no source for",
        game(source=None),
        CONTEXT,
        RefusalReason.UNKNOWN_SOURCE,
        True,
    ),
    (
        "from a custom position",
        game(initial_fen=ANTICHESS_FEN),
        CONTEXT,
        RefusalReason.FROM_POSITION,
        True,
    ),
    ("colours swapped", game(white=BOB, black=ALICE), CONTEXT, RefusalReason.WRONG_COLOURS, True),
    (
        "game 2 with game 1's colours",
        GOOD,
        replace(CONTEXT, next_game=2),
        RefusalReason.WRONG_COLOURS,
        True,
    ),
    (
        "the bot's challenge for game 2 played as game 1",
        GOOD,
        replace(CONTEXT, challenges={GOOD.id: 2}),
        RefusalReason.WRONG_COLOURS,
        True,
    ),
    (
        "unknown finish",
        game(status=GameStatus.UNKNOWN_FINISH, winner=None),
        CONTEXT,
        RefusalReason.UNKNOWN_FINISH,
        True,
    ),
]


@pytest.mark.parametrize(
    ("case", "candidate", "context", "reason", "alert"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
def test_refused_games(
    case: str, candidate: Game, context: MatchContext, reason: RefusalReason, alert: bool
) -> None:
    decision = classify_game(candidate, context, ruleset=DEFAULT_RULESET)
    assert decision == Refused(candidate, reason, alert_td=alert)


ACCEPTANCES = [
    ("a normal win", GOOD, CONTEXT, (), True),
    (
        "game 2, colours swapped",
        game(white=BOB, black=ALICE),
        replace(CONTEXT, next_game=2),
        (),
        True,
    ),
    (
        "the bot's challenge, from the stream (no source)",
        game(source=None),
        replace(CONTEXT, challenges={GOOD.id: 1}),
        (),
        True,
    ),
    (
        "a started game of unknown source",
        game(source=None, status=GameStatus.STARTED, winner=None),
        CONTEXT,
        (),
        False,
    ),
    ("a draw", game(status=GameStatus.DRAW, winner=None), CONTEXT, (), True),
    ("lost on time", game(status=GameStatus.OUTOFTIME), CONTEXT, (), True),
    ("in progress", game(status=GameStatus.STARTED, winner=None), CONTEXT, (), False),
    ("at the window's first minute", game(created_at=OPEN), CONTEXT, (), True),
    ("at the deadline itself", game(created_at=CLOSE), CONTEXT, (), True),
    (
        "a claimed win after the opponent left",
        game(status=GameStatus.TIMEOUT),
        CONTEXT,
        (Alert.TIMEOUT_CLAIM,),
        True,
    ),
    (
        "a rematch after a break",
        GOOD,
        replace(CONTEXT, previous_game_ended_at=AGREED - dt.timedelta(minutes=10)),
        (),
        True,
    ),
    (
        "a rematch after more than a break",
        GOOD,
        replace(CONTEXT, previous_game_ended_at=AGREED - dt.timedelta(minutes=11)),
        (Alert.LONG_GAP,),
        True,
    ),
]


@pytest.mark.parametrize(
    ("case", "candidate", "context", "alerts", "final"),
    ACCEPTANCES,
    ids=[a[0] for a in ACCEPTANCES],
)
def test_accepted_games(
    case: str, candidate: Game, context: MatchContext, alerts: tuple[Alert, ...], final: bool
) -> None:
    decision = classify_game(candidate, context, ruleset=DEFAULT_RULESET)
    assert decision == Accepted(candidate, alerts)
    assert isinstance(decision, Accepted)
    assert decision.is_final is final
    assert decision.alert_td is bool(alerts)


def test_time_control_comes_from_the_ruleset() -> None:
    blitz = replace(
        DEFAULT_RULESET,
        time_control=replace(DEFAULT_RULESET.time_control, limit_seconds=180, increment_seconds=2),
    )
    three_two = game(clock_limit=180, clock_increment=2)
    assert isinstance(classify_game(three_two, CONTEXT, ruleset=blitz), Accepted)
    assert classify_game(GOOD, CONTEXT, ruleset=blitz) == Refused(
        GOOD, RefusalReason.WRONG_CLOCK, alert_td=True
    )


@given(
    status=st.sampled_from(GameStatus),
    rated=st.booleans(),
    variant=st.sampled_from(["antichess", "standard", "atomic"]),
    minutes=st.integers(min_value=-20000, max_value=20000),
    complete=st.booleans(),
)
def test_every_game_gets_exactly_one_decision_and_aborted_games_never_count(
    status: GameStatus, rated: bool, variant: str, minutes: int, complete: bool
) -> None:
    candidate = game(
        status=status,
        rated=rated,
        variant=variant,
        created_at=AGREED + dt.timedelta(minutes=minutes),
    )
    decision = classify_game(
        candidate, replace(CONTEXT, is_complete=complete), ruleset=DEFAULT_RULESET
    )
    assert isinstance(decision, Accepted | Refused)
    assert decision.game is candidate
    if isinstance(decision, Accepted):
        assert candidate.variant == "antichess"
        assert candidate.rated
        assert not complete
        assert OPEN <= candidate.created_at <= CLOSE
        assert status not in (GameStatus.ABORTED, GameStatus.NO_START)
