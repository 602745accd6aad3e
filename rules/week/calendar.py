"""The match week: from Tuesday's publication to Monday 23:59 UTC (rules 4.1, 4.3-4.5).

A deadline written in the regulations as "by Friday 23:59 UTC" covers the whole minute 23:59:
anything done strictly before Saturday 00:00:00 UTC is in time. :func:`minute_end` turns such a
stated deadline into the instant at which it has passed; deadline rows fire at that instant.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from rules.core.ruleset import Ruleset
from rules.core.words import ENGLISH, Words

UTC = dt.UTC
MINUTE = dt.timedelta(minutes=1)

__all__ = [
    "UTC",
    "MatchWeek",
    "label_date",
    "label_day",
    "label_duration",
    "label_time",
    "match_week",
    "minute_end",
]


def minute_end(stated: dt.datetime) -> dt.datetime:
    """The instant a deadline stated to the minute (``23:59``) has passed: the next minute."""
    return stated.replace(second=0, microsecond=0) + MINUTE


@dataclass(frozen=True, slots=True)
class MatchWeek:
    """One match week (rules 4.1, 4.5).

    ``start`` is the publication (Tuesday 00:00 UTC of the publication date); ``end`` is the stated
    completion deadline, Monday 23:59 UTC. ``offer_deadline`` is the stated offers deadline,
    Friday 23:59 UTC (rules 5.1). All three are aware UTC datetimes.
    """

    start: dt.datetime
    end: dt.datetime
    offer_deadline: dt.datetime

    def __post_init__(self) -> None:
        for name in ("start", "end", "offer_deadline"):
            value: dt.datetime = getattr(self, name)
            if value.tzinfo is None or value.utcoffset() != dt.timedelta(0):
                raise ValueError(f"MatchWeek.{name} must be an aware UTC datetime")
        if not self.start <= self.offer_deadline <= self.end:
            raise ValueError("a match week needs start <= offer deadline <= end")

    @property
    def closes(self) -> dt.datetime:
        """The instant the week is over (Tuesday 00:00 UTC after the stated Monday 23:59)."""
        return minute_end(self.end)

    @property
    def offers_close(self) -> dt.datetime:
        """The instant the offers deadline has passed (Saturday 00:00 UTC)."""
        return minute_end(self.offer_deadline)

    def contains(self, when: dt.datetime) -> bool:
        """True when ``when`` is inside the week, the stated Monday 23:59 included."""
        return self.start <= when < self.closes

    def dates(self) -> tuple[dt.date, ...]:
        """Every UTC date of the week, in order."""
        first = self.start.date()
        days = (self.end.date() - first).days + 1
        return tuple(first + dt.timedelta(days=i) for i in range(days))


def _next_weekday(day: dt.date, weekday: int) -> dt.date:
    return day + dt.timedelta(days=(weekday - day.weekday()) % 7)


def match_week(publication_date: dt.date, ruleset: Ruleset) -> MatchWeek:
    """The match week of pairings published on ``publication_date`` (rules 4.3-4.5, 5.1).

    The week runs from the publication date 00:00 UTC to the next ``calendar.complete_weekday``
    (Monday) at ``calendar.complete_time`` (23:59); the offers deadline is the next
    ``offers.deadline_weekday`` (Friday) at ``offers.deadline_time``. Raises ``ValueError`` when
    the date is not a publication weekday (Tuesday).
    """
    cal = ruleset.calendar
    if publication_date.weekday() != cal.publish_weekday:
        raise ValueError(
            f"pairings are published on weekday {cal.publish_weekday}; "
            f"{publication_date.isoformat()} is weekday {publication_date.weekday()}"
        )
    start = dt.datetime.combine(publication_date, dt.time(0, 0), tzinfo=UTC)
    end_day = _next_weekday(publication_date + dt.timedelta(days=1), cal.complete_weekday)
    end = dt.datetime.combine(end_day, cal.complete_time, tzinfo=UTC)
    deadline_day = _next_weekday(publication_date, ruleset.offers.deadline_weekday)
    deadline = dt.datetime.combine(deadline_day, ruleset.offers.deadline_time, tzinfo=UTC)
    return MatchWeek(start=start, end=end, offer_deadline=deadline)


def _weekday(words: Words, weekday: int) -> str:
    return (
        words.pgettext("weekday", "Mon"),
        words.pgettext("weekday", "Tue"),
        words.pgettext("weekday", "Wed"),
        words.pgettext("weekday", "Thu"),
        words.pgettext("weekday", "Fri"),
        words.pgettext("weekday", "Sat"),
        words.pgettext("weekday", "Sun"),
    )[weekday]


def _month(words: Words, month: int) -> str:
    return (
        words.pgettext("month", "Jan"),
        words.pgettext("month", "Feb"),
        words.pgettext("month", "Mar"),
        words.pgettext("month", "Apr"),
        words.pgettext("month", "May"),
        words.pgettext("month", "Jun"),
        words.pgettext("month", "Jul"),
        words.pgettext("month", "Aug"),
        words.pgettext("month", "Sep"),
        words.pgettext("month", "Oct"),
        words.pgettext("month", "Nov"),
        words.pgettext("month", "Dec"),
    )[month - 1]


def label_day(day: dt.date, words: Words = ENGLISH, *, year: bool = False) -> str:
    """A day as players read it: ``Thu 14 Oct`` (``year``: ``Thu 14 Oct 2021``)."""
    values = {
        "weekday": _weekday(words, day.weekday()),
        "day": day.day,
        "month": _month(words, day.month),
        "year": day.year,
    }
    if year:
        return words.gettext("%(weekday)s %(day)s %(month)s %(year)s") % values
    return words.gettext("%(weekday)s %(day)s %(month)s") % values


def label_time(when: dt.datetime, words: Words = ENGLISH) -> str:
    """A time as players read it: ``Thu 14 Oct 18:00 UTC`` (in ``words``' language)."""
    utc = when.astimezone(UTC)
    return words.gettext("%(weekday)s %(day)d %(month)s %(time)s UTC") % {
        "weekday": _weekday(words, utc.weekday()),
        "day": utc.day,
        "month": _month(words, utc.month),
        "time": f"{utc:%H:%M}",
    }


def label_date(day: dt.date, words: Words = ENGLISH) -> str:
    """A date as players read it: ``05 Nov 2021`` (in ``words``' language)."""
    return words.gettext("%(day)s %(month)s %(year)d") % {
        "day": f"{day.day:02d}",
        "month": _month(words, day.month),
        "year": day.year,
    }


def label_duration(delta: dt.timedelta, words: Words = ENGLISH) -> str:
    """A duration in words, to the minute, largest two units: ``2 days 3 hours``, ``59 minutes``."""
    minutes = int(abs(delta).total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [
        text % {"n": value}
        for value, text in (
            (days, words.ngettext("%(n)d day", "%(n)d days", days)),
            (hours, words.ngettext("%(n)d hour", "%(n)d hours", hours)),
            (mins, words.ngettext("%(n)d minute", "%(n)d minutes", mins)),
        )
        if value
    ]
    if not parts:
        return words.ngettext("%(n)d minute", "%(n)d minutes", 0) % {"n": 0}
    return " ".join(parts[:2])
