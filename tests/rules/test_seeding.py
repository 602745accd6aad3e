"""Eligibility and seeding rating (rules 2.i, 2.ii.5, 3.v.3) from hand-made histories."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.core.model import GameId
from rules.core.ruleset import Eligibility
from rules.stages.seeding import (
    AccountFacts,
    RatedGame,
    Refusal,
    ReviewFlag,
    SeedingError,
    SeedingErrorReason,
    assess,
    seeding_rating,
)

UTC = dt.UTC
RULES = Eligibility()  # 2021: created before 1 March, 100 games before 1 September
OLD_ACCOUNT = AccountFacts(created_at=dt.datetime(2019, 5, 1, tzinfo=UTC))


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=UTC)


def game(n: int, when: dt.datetime, rating: int, diff: int | None) -> RatedGame:
    return RatedGame(game_id=GameId(f"g{n:07d}"), created_at=when, rating=rating, rating_diff=diff)


def filler(count: int) -> list[RatedGame]:
    """``count`` games a player drew at 1500 in the hours before 2021-01-01."""
    start = at(2021, 1, 1)
    return [game(10_000 + i, start - dt.timedelta(hours=i + 1), 1500, 0) for i in range(count)]


HISTORY = [
    game(1, at(2021, 1, 10), 1500, +20),  # before the window: 1520
    game(2, at(2021, 3, 5), 1520, +30),  # 1550
    game(3, at(2021, 5, 1), 1550, +60),  # 1610: the peak
    game(4, at(2021, 8, 31, 23, 59), 1610, -40),  # 1570: the last before the cut-off
    game(5, at(2021, 9, 1), 1570, +100),  # at the cut-off: does not count
]


def test_seed_is_the_average_of_cutoff_and_peak() -> None:
    assert seeding_rating(HISTORY, eligibility=RULES) == (1570, 1610, 1590)


def test_seed_rounds_half_up() -> None:
    history = [*HISTORY[:3], game(4, at(2021, 8, 31), 1610, -41)]  # 1569 and 1610
    assert seeding_rating(history, eligibility=RULES) == (1569, 1610, 1590)  # 1589.5 -> 1590


def test_rating_held_when_the_window_opens_counts_as_peak() -> None:
    history = [game(1, at(2021, 2, 1), 1500, +200), game(2, at(2021, 3, 10), 1700, -100)]
    assert seeding_rating(history, eligibility=RULES) == (1600, 1700, 1650)


def test_no_game_in_the_window_means_the_rating_held_throughout() -> None:
    history = [game(1, at(2021, 2, 1), 1500, +50)]
    assert seeding_rating(history, eligibility=RULES) == (1550, 1550, 1550)


def test_no_game_before_the_cutoff_gives_no_seed() -> None:
    history = [game(1, at(2021, 9, 2), 1500, +50)]
    assert seeding_rating(history, eligibility=RULES) == (None, None, None)


def test_game_order_does_not_depend_on_input_order() -> None:
    assert seeding_rating(reversed(HISTORY), eligibility=RULES) == (1570, 1610, 1590)


def test_eligible_player_gets_a_verdict_with_the_seed() -> None:
    verdict = assess(OLD_ACCOUNT, [*filler(96), *HISTORY], eligibility=RULES)
    assert verdict.eligible
    assert not verdict.needs_review
    assert verdict.rated_games_counted == 100  # 96 + 4 before the cut-off
    assert verdict.seed_rating == 1590


@pytest.mark.parametrize(("games", "counted", "eligible"), [(99, 99, False), (100, 100, True)])
def test_games_before_the_cutoff_must_reach_the_minimum(
    games: int, counted: int, eligible: bool
) -> None:
    verdict = assess(OLD_ACCOUNT, filler(games), eligibility=RULES)
    assert verdict.rated_games_counted == counted
    assert verdict.eligible is eligible
    assert (Refusal.TOO_FEW_RATED_GAMES in verdict.refusals) is not eligible


def test_games_count_stops_at_the_minimum() -> None:
    assert assess(OLD_ACCOUNT, filler(150), eligibility=RULES).rated_games_counted == 100


def test_games_at_or_after_the_cutoff_do_not_count() -> None:
    late = [game(i, at(2021, 9, 1) + dt.timedelta(minutes=i), 1500, 0) for i in range(10)]
    verdict = assess(OLD_ACCOUNT, [*filler(95), *late], eligibility=RULES)
    assert verdict.rated_games_counted == 95
    assert verdict.refusals == (Refusal.TOO_FEW_RATED_GAMES,)


@pytest.mark.parametrize(
    ("created", "refused"),
    [(at(2021, 2, 28, 23, 59), False), (at(2021, 3, 1), True), (at(2021, 6, 1), True)],
)
def test_account_must_be_created_before_the_deadline(created: dt.datetime, refused: bool) -> None:
    verdict = assess(AccountFacts(created_at=created), filler(100), eligibility=RULES)
    assert (Refusal.CREATED_TOO_LATE in verdict.refusals) is refused


def test_bot_accounts_are_refused() -> None:
    bot = AccountFacts(created_at=at(2019, 1, 1), title="BOT")
    assert assess(bot, filler(100), eligibility=RULES).refusals == (Refusal.BOT_ACCOUNT,)
    titled = AccountFacts(created_at=at(2019, 1, 1), title="GM")
    assert assess(titled, filler(100), eligibility=RULES).eligible


def test_tos_violation_and_closed_account_are_flags_not_refusals() -> None:
    marked = AccountFacts(created_at=at(2019, 1, 1), tos_violation=True, disabled=True)
    verdict = assess(marked, filler(100), eligibility=RULES)
    assert verdict.eligible
    assert verdict.flags == (ReviewFlag.TOS_VIOLATION, ReviewFlag.ACCOUNT_CLOSED)
    assert verdict.needs_review


def test_every_refusal_is_listed() -> None:
    late_bot = AccountFacts(created_at=at(2021, 4, 1), title="BOT")
    verdict = assess(late_bot, filler(3), eligibility=RULES)
    assert verdict.refusals == (
        Refusal.CREATED_TOO_LATE,
        Refusal.TOO_FEW_RATED_GAMES,
        Refusal.BOT_ACCOUNT,
    )


def test_naive_datetimes_are_refused() -> None:
    naive = AccountFacts(created_at=dt.datetime(2019, 1, 1))
    with pytest.raises(SeedingError) as info:
        assess(naive, [], eligibility=RULES)
    assert info.value.reason is SeedingErrorReason.NAIVE_DATETIME


def test_missing_rating_change_on_a_needed_game_is_refused() -> None:
    with pytest.raises(SeedingError) as info:
        seeding_rating([game(1, at(2021, 5, 1), 1500, None)], eligibility=RULES)
    assert info.value.reason is SeedingErrorReason.MISSING_RATING_DIFF


def test_window_that_ends_before_it_starts_is_refused() -> None:
    backwards = Eligibility(peak_window_start=at(2021, 9, 1), peak_window_end=at(2021, 3, 1))
    with pytest.raises(SeedingError) as info:
        seeding_rating(HISTORY, eligibility=backwards)
    assert info.value.reason is SeedingErrorReason.BAD_WINDOW
