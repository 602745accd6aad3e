"""From one season to the next: the dates a year on, on the same weekdays (rules 4), and the
seeded entrants from the season before's final (rules 3.3, 3.4, 3.6.6.4)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Any

from rules.core.ruleset import Eligibility, Ruleset, Seeding

__all__ = ["moved_with_calendar", "next_season_rules", "same_weekday_a_year_on", "year_on"]


def same_weekday_a_year_on(day: dt.date) -> dt.date:
    """The same weekday of the same week of the month a year later: the second Tuesday of
    October stays the second Tuesday of October (rules 4.3: the first pairings on a Tuesday),
    so the season starts in the same days of the month every year rather than a day or two
    earlier each year. A fifth weekday of the month becomes the month's last."""
    nth = (day.day - 1) // 7  # 0: the month's first such weekday
    first = day.replace(year=day.year + 1, day=1)
    found = first + dt.timedelta(days=(day.weekday() - first.weekday()) % 7 + 7 * nth)
    while found.month != first.month:
        found -= dt.timedelta(weeks=1)
    return found


def year_on(day: dt.date) -> dt.date:
    """The same date a year later (29 February: the 28th)."""
    try:
        return day.replace(year=day.year + 1)
    except ValueError:
        return day.replace(year=day.year + 1, day=28)


def _year_on_moment(when: dt.datetime | None) -> dt.datetime | None:
    if when is None:
        return None
    return dt.datetime.combine(year_on(when.date()), when.timetz())


def next_season_rules(ruleset: Ruleset, final_order: Sequence[str]) -> Ruleset:
    """``ruleset`` a season on: its calendar on the same weekdays a year later, its eligibility
    dates a year later, and its seeded entrants the season's champion and second, with its final
    placement (champion first) for the Candidates tiebreak."""
    cal = ruleset.calendar
    elig = ruleset.eligibility
    return dataclasses.replace(
        ruleset,
        calendar=dataclasses.replace(
            cal, first_publication=same_weekday_a_year_on(cal.first_publication)
        ),
        eligibility=_eligibility_a_year_on(elig),
        seeding=Seeding(
            title_holder=final_order[0] if final_order else None,
            runner_up=final_order[1] if len(final_order) > 1 else None,
            previous_final_order=tuple(final_order),
        ),
    )


def _eligibility_a_year_on(elig: Eligibility) -> Eligibility:
    moved: dict[str, Any] = {
        f.name: _year_on_moment(getattr(elig, f.name))
        for f in dataclasses.fields(elig)
        if isinstance(getattr(elig, f.name), dt.datetime)
    }
    return dataclasses.replace(elig, **moved)


def moved_with_calendar(
    when: dt.datetime | None, before: Ruleset, after: Ruleset
) -> dt.datetime | None:
    """A moment of one season (its registration window's ends) moved as its calendar moved to
    ``after``'s: by as many days as the first pairings moved, so the window keeps its weekday
    and its distance to the first pairings (rules 4.3) rather than drifting a day a year."""
    if when is None:
        return None
    return when + (after.calendar.first_publication - before.calendar.first_publication)
