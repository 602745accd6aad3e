"""From one season's rules to the next's (rules 3.3, 3.4, 3.6.6.4, 4): pure."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.core.ruleset import DEFAULT_RULESET
from rules.core.seasons import (
    moved_with_calendar,
    next_season_rules,
    same_weekday_a_year_on,
    year_on,
)


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        (dt.date(2021, 10, 12), dt.date(2022, 10, 11)),  # the 2nd Tuesday of October
        (dt.date(2023, 10, 10), dt.date(2024, 10, 8)),
        (dt.date(2024, 10, 8), dt.date(2025, 10, 14)),  # no drift: back to the 14th
        (dt.date(2021, 10, 29), dt.date(2022, 10, 28)),  # a 5th Friday: October 2022's last
        (dt.date(2024, 2, 29), dt.date(2025, 2, 27)),  # a 5th Thursday of February: the last
    ],
)
def test_the_first_pairings_stay_on_the_same_weekday_of_the_same_week_of_the_month(
    day: dt.date, expected: dt.date
) -> None:
    moved = same_weekday_a_year_on(day)
    assert moved == expected
    assert moved.weekday() == day.weekday()
    assert moved.month == day.month


def test_twenty_years_on_the_season_still_starts_in_the_same_days_of_october() -> None:
    day = dt.date(2021, 10, 12)
    for _ in range(20):
        day = same_weekday_a_year_on(day)
        assert (day.weekday(), day.month) == (1, 10)
        assert 8 <= day.day <= 14


def test_the_next_season_seeds_the_final_s_top_two_and_keeps_its_order() -> None:
    final = ("Winner", "Second", "Third", "Fourth")
    nxt = next_season_rules(DEFAULT_RULESET, final)
    assert (nxt.seeding.title_holder, nxt.seeding.runner_up) == ("Winner", "Second")
    assert nxt.seeding.previous_final_order == final
    assert nxt.calendar.first_publication == dt.date(2022, 10, 11)
    elig = nxt.eligibility
    assert elig.games_before == dt.datetime(2022, 9, 1, tzinfo=dt.UTC)
    assert elig.account_created_before == dt.datetime(2022, 3, 1, tzinfo=dt.UTC)
    assert elig.cheat_one_since is None  # still a year before games_before
    assert nxt.formats == DEFAULT_RULESET.formats
    assert year_on(dt.date(2024, 2, 29)) == dt.date(2025, 2, 28)


def test_the_registration_window_moves_with_the_first_pairings_and_keeps_its_weekdays() -> None:
    before = DEFAULT_RULESET  # first pairings Tuesday 12 October 2021
    opens = dt.datetime(2021, 9, 1, tzinfo=dt.UTC)
    closes = dt.datetime(2021, 10, 10, 23, 59, tzinfo=dt.UTC)
    for _ in range(5):
        after = next_season_rules(before, ["a", "b"])
        moved = (
            moved_with_calendar(opens, before, after),
            moved_with_calendar(closes, before, after),
        )
        assert moved[0] is not None
        assert moved[1] is not None
        assert (moved[0].weekday(), moved[1].weekday()) == (opens.weekday(), closes.weekday())
        start = dt.datetime.combine(after.calendar.first_publication, dt.time(), dt.UTC)
        assert start - moved[1] == dt.timedelta(days=1, minutes=1)  # as far from round 1 as ever
        assert moved[1] - moved[0] == closes - opens
        before, opens, closes = after, moved[0], moved[1]
    assert moved_with_calendar(None, before, before) is None
