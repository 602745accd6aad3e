"""Match conduct: no-shows, breaks, leaving, forfeits and disqualification (rules 6)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest

from rules.core.model import GameId, MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, Conduct
from rules.week.calendar import UTC
from rules.week.conduct import (
    BreakCall,
    ClaimReason,
    ClaimRight,
    ConductError,
    ConductErrorReason,
    DisqualificationCase,
    Forfeit,
    ForfeitReason,
    GameSpan,
    NoShowAlert,
    NoShowStage,
    PauseKind,
    PauseReview,
    assess_no_show,
    check_break_call,
    check_claim,
    confirm_disqualification,
    disqualification_due,
    disqualifications_due,
    granted_claim_reason,
    no_show_forfeit,
    review_pauses,
)

RS = DEFAULT_RULESET
CONDUCT = RS.conduct
ALICE, BOB = PlayerId("alice"), PlayerId("bob")
PLAYERS = (ALICE, BOB)
MATCH = MatchId(3)
START = dt.datetime(2021, 10, 14, 18, 0, tzinfo=UTC)


def minutes(n: float) -> dt.timedelta:
    return dt.timedelta(minutes=n)


def refused(reason: ConductErrorReason) -> pytest.RaisesExc[ConductError]:
    return pytest.raises(ConductError, check=lambda e: e.reason is reason)


# --- no-shows ------------------------------------------------------------------------------------


def no_show(now: dt.datetime, seen: set[PlayerId], started: int = 0) -> NoShowAlert | None:
    return assess_no_show(
        match_id=MATCH,
        players=PLAYERS,
        scheduled=START,
        now=now,
        seen=seen,
        games_started=started,
        ruleset=RS,
    )


def test_no_show_walk_alerts_at_10_then_claim_at_20() -> None:
    with refused(ConductErrorReason.TOO_EARLY):
        no_show(START + minutes(9), {ALICE})
    first = assess_no_show(
        match_id=MATCH,
        players=PLAYERS,
        scheduled=START,
        now=START + minutes(10),
        seen={ALICE},
        games_started=0,
        ruleset=RS,
    )
    assert first is not None
    assert first.stage is NoShowStage.FIRST
    assert first.appeared == (ALICE,)
    assert first.absent == (BOB,)
    assert first.claim is None  # no claim before the second check
    second = assess_no_show(
        match_id=MATCH,
        players=PLAYERS,
        scheduled=START,
        now=START + minutes(20),
        seen={ALICE},
        games_started=0,
        ruleset=RS,
    )
    assert second is not None
    assert second.stage is NoShowStage.SECOND
    claim = second.claim
    assert claim is not None
    assert (claim.claimant, claim.against, claim.reason) == (ALICE, BOB, ClaimReason.NO_SHOW)
    assert check_claim([claim], ALICE, match_id=MATCH, conduct=DEFAULT_RULESET.conduct) == claim
    with refused(ConductErrorReason.NO_CLAIM):
        check_claim([claim], BOB, match_id=MATCH, conduct=DEFAULT_RULESET.conduct)
    assert no_show_forfeit(second) == Forfeit(BOB, MATCH, ForfeitReason.NO_SHOW, second.at)


def test_no_alert_once_a_game_started() -> None:
    assert no_show(START + minutes(10), {ALICE, BOB}, started=1) is None


def test_nobody_appearing_gives_no_claim() -> None:
    alert = assess_no_show(
        match_id=MATCH,
        players=PLAYERS,
        scheduled=START,
        now=START + minutes(25),
        seen=set(),
        games_started=0,
        ruleset=RS,
    )
    assert alert is not None
    assert alert.absent == PLAYERS
    assert alert.claim is None
    with refused(ConductErrorReason.NO_CLAIM):
        no_show_forfeit(alert)


# --- breaks --------------------------------------------------------------------------------------


def games_with_pauses(*pauses: float, game_minutes: float = 8) -> list[GameSpan]:
    """Games of ``game_minutes`` separated by the given pauses (in minutes)."""
    spans = []
    t = START
    for i in range(len(pauses) + 1):
        end = t + minutes(game_minutes)
        spans.append(GameSpan(GameId(f"g{i + 1:07d}"), t, end))
        if i < len(pauses):
            t = end + minutes(pauses[i])
    return spans


def review(
    games: list[GameSpan], calls: Sequence[BreakCall] = (), *, now: dt.datetime | None = None
) -> PauseReview:
    return review_pauses(games, calls, match_id=MATCH, players=PLAYERS, conduct=CONDUCT, now=now)


def test_immediate_rematches_are_short_pauses() -> None:
    result = review(games_with_pauses(1, 3, 0.5))
    assert [p.kind for p in result.pauses] == [PauseKind.SHORT] * 3
    assert result.violations == ()


def test_called_break_is_that_players_one_break() -> None:
    games = games_with_pauses(1, 8, 1)
    call = BreakCall(BOB, games[1].ended_at + minutes(1))
    result = review(games, [call])
    assert [p.kind for p in result.pauses] == [PauseKind.SHORT, PauseKind.BREAK, PauseKind.SHORT]
    assert result.pauses[1].taken_by == BOB
    assert result.has_used_break(BOB)
    assert not result.has_used_break(ALICE)
    assert result.violations == ()
    with refused(ConductErrorReason.BREAK_USED):
        check_break_call(result, games, player=BOB, players=PLAYERS, game_in_progress=False)
    check_break_call(result, games, player=ALICE, players=PLAYERS, game_in_progress=False)


def test_second_break_by_same_player_gives_opponent_a_claim() -> None:
    games = games_with_pauses(6, 5)
    calls = [BreakCall(BOB, games[0].ended_at), BreakCall(BOB, games[1].ended_at)]
    result = review(games, calls)
    assert [p.kind for p in result.pauses] == [PauseKind.BREAK, PauseKind.SECOND_BREAK]
    (violation,) = result.violations
    assert violation.offender == BOB
    assert violation.claim is not None
    assert violation.claim.claimant == ALICE
    assert violation.claim.reason is ClaimReason.SECOND_BREAK


def test_one_break_each_is_fine() -> None:
    games = games_with_pauses(6, 5)
    calls = [BreakCall(BOB, games[0].ended_at), BreakCall(ALICE, games[1].ended_at)]
    assert review(games, calls).violations == ()


def test_break_past_ten_minutes_is_an_overrun() -> None:
    games = games_with_pauses(10.5)
    result = review(games, [BreakCall(ALICE, games[0].ended_at + minutes(2))])
    (violation,) = result.violations
    assert violation.pause.kind is PauseKind.OVERRUN
    assert violation.claim is not None
    assert violation.claim.claimant == BOB
    assert violation.claim.reason is ClaimReason.BREAK_OVERRUN
    assert "10 min 30 s" in violation.explanation


def test_exactly_ten_minutes_is_still_a_break() -> None:
    games = games_with_pauses(10)
    assert review(games, [BreakCall(ALICE, games[0].ended_at)]).violations == ()


def test_ongoing_pause_overrun_shows_before_the_next_game() -> None:
    games = games_with_pauses(1)
    now = games[-1].ended_at + minutes(11)
    result = review(games, [BreakCall(ALICE, games[-1].ended_at)], now=now)
    assert result.pauses[-1].ongoing
    assert result.violations[0].pause.kind is PauseKind.OVERRUN
    assert "so far" in result.violations[0].explanation


def test_first_unannounced_long_pause_is_tolerated_second_goes_to_tds() -> None:
    result = review(games_with_pauses(5, 1, 6))
    assert [p.kind for p in result.pauses] == [
        PauseKind.UNANNOUNCED,
        PauseKind.SHORT,
        PauseKind.REPEATED,
    ]
    (violation,) = result.violations
    assert violation.offender is None  # Lichess cannot tell who; the TDs decide
    assert violation.claim is None
    assert "rules 6.2" in violation.explanation


def test_leaving_a_game_counts_as_the_leavers_break() -> None:
    games = games_with_pauses(4)
    games[0] = GameSpan(
        games[0].game_id, games[0].started_at, games[0].ended_at, abandoned_by=ALICE
    )
    result = review(games)
    assert result.pauses[0].kind is PauseKind.BREAK
    assert result.pauses[0].taken_by == ALICE


def test_leaver_not_back_in_ten_minutes_gives_opponent_a_claim() -> None:
    games = games_with_pauses(12)
    games[0] = GameSpan(
        games[0].game_id, games[0].started_at, games[0].ended_at, abandoned_by=ALICE
    )
    (violation,) = review(games).violations
    assert violation.claim is not None
    assert violation.claim.claimant == BOB


def test_long_pause_setting_is_respected() -> None:
    strict = Conduct(long_pause=minutes(1))
    games = games_with_pauses(2)
    result = review_pauses(games, [], match_id=MATCH, players=PLAYERS, conduct=strict)
    assert result.pauses[0].kind is PauseKind.UNANNOUNCED


def test_break_call_refusals() -> None:
    empty = review([])
    with refused(ConductErrorReason.NOT_STARTED):
        check_break_call(empty, [], player=ALICE, players=PLAYERS, game_in_progress=True)
    games = games_with_pauses()
    with refused(ConductErrorReason.GAME_IN_PROGRESS):
        check_break_call(review(games), games, player=ALICE, players=PLAYERS, game_in_progress=True)
    with refused(ConductErrorReason.NOT_A_PLAYER):
        check_break_call(
            review(games), games, player=PlayerId("eve"), players=PLAYERS, game_in_progress=False
        )


# --- forfeits ------------------------------------------------------------------------------------


def forfeit(player: PlayerId, match: int, day: int) -> Forfeit:
    return Forfeit(
        player, MatchId(match), ForfeitReason.NO_SHOW, dt.datetime(2021, 10, day, tzinfo=UTC)
    )


def test_second_forfeit_in_another_match_leads_to_disqualification_after_confirmation() -> None:
    forfeits = [forfeit(BOB, 1, 14)]
    assert disqualification_due(forfeits, BOB, conduct=CONDUCT) is None
    forfeits.append(forfeit(BOB, 2, 21))
    case = disqualification_due(forfeits, BOB, conduct=CONDUCT)
    assert case is not None
    assert case.matches == (MatchId(1), MatchId(2))
    dq = confirm_disqualification(
        case, confirmed_by="odmwnd", at=dt.datetime(2021, 10, 22, tzinfo=UTC), conduct=CONDUCT
    )
    assert dq.player == BOB


def test_two_forfeits_in_one_match_count_once() -> None:
    forfeits = [forfeit(BOB, 1, 14), forfeit(BOB, 1, 15)]
    assert disqualification_due(forfeits, BOB, conduct=CONDUCT) is None
    assert disqualifications_due(forfeits, conduct=CONDUCT) == ()


def test_disqualifications_due_lists_players_in_order() -> None:
    forfeits = [
        forfeit(BOB, 1, 14),
        forfeit(ALICE, 1, 14),
        forfeit(ALICE, 2, 21),
        forfeit(BOB, 3, 28),
    ]
    assert [c.player for c in disqualifications_due(forfeits, conduct=CONDUCT)] == [ALICE, BOB]


def test_confirming_a_case_that_does_not_hold_is_refused() -> None:
    with refused(ConductErrorReason.NOT_ENOUGH_FORFEITS):
        confirm_disqualification(
            DisqualificationCase(BOB, (forfeit(BOB, 1, 14),)),
            confirmed_by="odmwnd",
            at=dt.datetime(2021, 10, 22, tzinfo=UTC),
            conduct=CONDUCT,
        )


@pytest.mark.parametrize(
    ("reason", "forfeit"),
    [
        (ClaimReason.NO_SHOW, ForfeitReason.NO_SHOW),
        (ClaimReason.SECOND_BREAK, ForfeitReason.CONDUCT),
        (ClaimReason.BREAK_OVERRUN, ForfeitReason.CONDUCT),
    ],
)
def test_a_granted_claim_forfeits_for_its_reason(
    reason: ClaimReason, forfeit: ForfeitReason
) -> None:
    right = ClaimRight(MATCH, ALICE, BOB, reason, dt.datetime(2021, 10, 14, 18, 20, tzinfo=dt.UTC))
    assert granted_claim_reason(right) is forfeit


def test_a_claim_granted_without_an_open_right_is_the_tds_decision() -> None:
    assert granted_claim_reason(None) is ForfeitReason.TD
