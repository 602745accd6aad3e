"""Times in a player's text (rules 5.3): all UTC, dates resolved inside the match week.

A time may carry ``utc``, ``gmt``, ``ut`` or ``z`` (or a zero offset such as ``+00:00``); any other
zone is refused, never converted, and the refusal names the UTC equivalent. 12-hour times are
read and printed back in 24 h. Dates: ``2021-10-14``, ``14 oct``, ``oct 14``, ``14th october
2021``, weekday names (inside the match week), ``today``, ``tomorrow``, and numeric ``14/10`` when
only one reading is a date. Every refusal is a :class:`~rules.talk.errors.CommandError`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rules.core.errors import RulesError, Value, refusal
from rules.core.words import N_, Words
from rules.talk.errors import MAX_TIMES, CommandError, CommandErrorReason
from rules.week.calendar import UTC, MatchWeek, label_day

__all__ = ["format_time", "parse_one_time", "parse_times"]


def format_time(when: dt.datetime) -> str:
    """The canonical form of a time, ``2021-10-14 18:00`` (UTC, 24 h); it parses back to itself.

    Raises ``ValueError`` for a naive datetime (its zone would be the machine's).
    """
    if when.tzinfo is None:
        raise ValueError("format_time needs an aware datetime")
    utc = when.astimezone(UTC)
    return f"{utc:%Y-%m-%d %H:%M}"


_WEEKDAYS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        ("mon", "monday"),
        ("tue", "tues", "tuesday"),
        ("wed", "weds", "wednesday"),
        ("thu", "thur", "thurs", "thursday"),
        ("fri", "friday"),
        ("sat", "saturday"),
        ("sun", "sunday"),
    )
):
    for _name in _names:
        _WEEKDAYS[_name] = _number

_MONTHS: dict[str, int] = {}
for _number, _name in enumerate(
    (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ),
    start=1,
):
    _MONTHS[_name] = _number
    _MONTHS[_name[:3]] = _number
_MONTHS["sept"] = 9

_UTC_WORDS = frozenset({"utc", "gmt", "ut", "z"})
_FILLER = frozenset({"on", "at", "the", "of"})
# Standard offsets (minutes east of UTC) of zone names players are likely to type.
_ZONES: dict[str, int] = {
    "wet": 0,
    "west": 60,
    "bst": 60,
    "cet": 60,
    "cest": 120,
    "met": 60,
    "mest": 120,
    "eet": 120,
    "eest": 180,
    "msk": 180,
    "trt": 180,
    "ist": 330,
    "pkt": 300,
    "ict": 420,
    "wib": 420,
    "hkt": 480,
    "sgt": 480,
    "awst": 480,
    "jst": 540,
    "kst": 540,
    "acst": 570,
    "aest": 600,
    "aedt": 660,
    "nzst": 720,
    "nzdt": 780,
    "brt": -180,
    "art": -180,
    "ast": -240,
    "adt": -180,
    "est": -300,
    "edt": -240,
    "cst": -360,
    "cdt": -300,
    "mst": -420,
    "mdt": -360,
    "pst": -480,
    "pdt": -420,
    "akst": -540,
    "akdt": -480,
    "hst": -600,
}

_TOKEN = re.compile(
    r"""
      (?P<iso>\d{4}-\d{1,2}-\d{1,2})(?:t(?=\d))?
    | (?P<numdate>\d{1,2}[/.]\d{1,2}(?:[/.]\d{1,4})?)(?![\d:])
    | (?P<clock>\d{1,2}:\d{2})(?!\d)
    | (?P<offset>[+-]\d{1,2}(?::?\d{2})?)(?!\d)
    | (?P<num>\d+)(?P<suffix>st|nd|rd|th|am|pm)?
    | (?P<word>[a-z]+)
    | (?P<other>\S)
    """,
    re.VERBOSE | re.ASCII,
)

_SEPARATOR = re.compile(r"[,;\n]|\band\b")
_FORMS = N_("e.g. `2021-10-14 18:00`, `thu 18:00` or `14 oct 6pm`")


def _forms(words: Words) -> str:
    return words.gettext(_FORMS)


def _error(reason: CommandErrorReason, template: str, **values: Value) -> RulesError:
    """The refusal ``template`` (marked with ``N_``), in English and in a reader's words."""
    return refusal(CommandError, reason, template, **values)


def _day_label(day: dt.date) -> Callable[[Words], str]:
    """``Thu 14 Oct 2021``, in the reader's words."""
    return lambda words: label_day(day, words, year=True)


def _weekday_name(weekday: int) -> Callable[[Words], str]:
    """``Thursday``, in the reader's words."""
    return lambda words: (
        words.pgettext("weekday name", "Monday"),
        words.pgettext("weekday name", "Tuesday"),
        words.pgettext("weekday name", "Wednesday"),
        words.pgettext("weekday name", "Thursday"),
        words.pgettext("weekday name", "Friday"),
        words.pgettext("weekday name", "Saturday"),
        words.pgettext("weekday name", "Sunday"),
    )[weekday]


def _day_month(day: dt.date) -> Callable[[Words], str]:
    """``14 October``, in the reader's words."""
    return lambda words: (
        words.gettext("%(day)s %(month)s")
        % {
            "day": day.day,
            "month": (
                words.pgettext("month name", "January"),
                words.pgettext("month name", "February"),
                words.pgettext("month name", "March"),
                words.pgettext("month name", "April"),
                words.pgettext("month name", "May"),
                words.pgettext("month name", "June"),
                words.pgettext("month name", "July"),
                words.pgettext("month name", "August"),
                words.pgettext("month name", "September"),
                words.pgettext("month name", "October"),
                words.pgettext("month name", "November"),
                words.pgettext("month name", "December"),
            )[day.month - 1],
        }
    )


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    value: str = ""


def _tokens(item: str) -> list[_Token]:
    out: list[_Token] = []
    for m in _TOKEN.finditer(item):
        kind = m.lastgroup or "other"
        if kind == "suffix":  # pragma: no cover - suffix only appears with num
            kind = "num"
        if kind == "num":
            out.append(_Token("num", m.group("num"), m.group("suffix") or ""))
        else:
            out.append(_Token(kind, m.group(kind)))
    return out


def _make_date(year: int, month: int, day: int, shown: str) -> dt.date:
    if not 2000 <= year <= 2199:
        raise _error(
            CommandErrorReason.BAD_DATE,
            N_("%(shown)s: the year %(year)s is not accepted."),
            shown=shown,
            year=year,
        )
    try:
        return dt.date(year, month, day)
    except ValueError:
        raise _error(
            CommandErrorReason.BAD_DATE,
            N_("%(shown)s is not a date; write dates as 2021-10-14, 14 oct or thu."),
            shown=shown,
        ) from None


def _infer_year(month: int, day: int, week: MatchWeek, shown: str) -> dt.date:
    """A date written without a year: the year that puts it inside the match week."""
    years = sorted({week.start.year, week.end.year})
    candidates: list[dt.date] = []
    for year in years:
        try:
            candidates.append(dt.date(year, month, day))
        except ValueError:
            continue
    if not candidates:
        raise _error(
            CommandErrorReason.BAD_DATE,
            N_("%(shown)s is not a date; write dates as 2021-10-14, 14 oct or thu."),
            shown=shown,
        )
    dates = set(week.dates())
    for candidate in candidates:
        if candidate in dates:
            return candidate
    start = week.start.date()
    return min(candidates, key=lambda d: (abs((d - start).days), d))


def _weekday_date(weekday: int, *, now: dt.datetime, week: MatchWeek) -> dt.date:
    today = now.astimezone(UTC).date()
    for day in week.dates():
        if day.weekday() == weekday and day >= today:
            return day
    passed = [d for d in week.dates() if d.weekday() == weekday]
    first, last = week.dates()[0], week.dates()[-1]
    values: dict[str, Value] = {
        "name": _weekday_name(weekday),
        "first": _day_label(first),
        "last": _day_label(last),
        "example": format_time(now)[:10],
    }
    if not passed:
        raise _error(
            CommandErrorReason.WEEKDAY_PASSED,
            N_(
                "%(name)s has passed in this match week (%(first)s to %(last)s); give a date "
                "such as %(example)s."
            ),
            **values,
        )
    raise _error(
        CommandErrorReason.WEEKDAY_PASSED,
        N_(
            "%(name)s (%(day)s) has passed in this match week (%(first)s to %(last)s); give a "
            "date such as %(example)s."
        ),
        day=_day_label(passed[0]),
        **values,
    )


def _numeric_date(text: str, week: MatchWeek) -> dt.date:
    parts = re.split(r"[/.]", text)
    a, b = int(parts[0]), int(parts[1])
    year_text = parts[2] if len(parts) == 3 else None
    readings: list[tuple[int, int]] = []  # (month, day)
    if 1 <= b <= 12 and 1 <= a <= 31:
        readings.append((b, a))  # day/month
    if 1 <= a <= 12 and 1 <= b <= 31 and a != b:
        readings.append((a, b))  # month/day
    if not readings:
        raise _error(
            CommandErrorReason.BAD_DATE,
            N_(
                "%(shown)s is not a date; write dates as 2021-10-14, 14 oct or thu (and times as "
                "18:00)."
            ),
            shown=text,
        )

    def resolve(month: int, day: int) -> dt.date:
        if year_text is None:
            return _infer_year(month, day, week, text)
        year = int(year_text)
        if len(year_text) <= 2:
            year += 2000
        return _make_date(year, month, day, text)

    if len(readings) == 2:
        first = resolve(*readings[0])
        second = resolve(*readings[1])
        raise _error(
            CommandErrorReason.AMBIGUOUS_DATE,
            N_(
                "%(shown)s is ambiguous: it could be %(first)s or %(second)s; write %(first_iso)s "
                "or %(second_iso)s."
            ),
            shown=text,
            first=_day_month(first),
            second=_day_month(second),
            first_iso=first.isoformat(),
            second_iso=second.isoformat(),
        )
    return resolve(*readings[0])


def _offset_minutes(text: str) -> int:
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    if len(digits) <= 2:
        hours, minutes = int(digits), 0
    else:
        hours, minutes = int(digits[:-2]), int(digits[-2:])
    if hours > 14 or minutes > 59:
        raise _error(
            CommandErrorReason.NOT_UTC, N_("%(shown)s is not a time zone offset."), shown=text
        )
    return sign * (hours * 60 + minutes)


def _offset_label(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _hour_12(hour: int, minute: int, meridiem: str, shown: str) -> dt.time:
    if not 1 <= hour <= 12:
        raise _error(
            CommandErrorReason.BAD_TIME,
            N_(
                "%(shown)s: with am/pm the hour must be 1 to 12; or write 24-hour time such as "
                "18:00."
            ),
            shown=shown,
        )
    hour = hour % 12 + (12 if meridiem == "pm" else 0)
    return dt.time(hour, minute)


@dataclass(slots=True)
class _Parts:
    """What one time item names, read token by token (see :func:`_parse_time_item`)."""

    shown: str
    dates: list[dt.date] = field(default_factory=list)
    times: list[dt.time] = field(default_factory=list)
    weekdays: list[int] = field(default_factory=list)
    months: list[int] = field(default_factory=list)
    numbers: list[_Token] = field(default_factory=list)
    zone: tuple[str, int] | None = None  # (label as typed, minutes east of UTC)


def _clock_time(tok: _Token, meridiem: str) -> dt.time:
    """A clock token such as ``18:00``, or ``6:30`` when followed by ``meridiem`` am or pm."""
    hour, minute = (int(p) for p in tok.text.split(":"))
    if minute > 59:
        raise _error(
            CommandErrorReason.BAD_TIME,
            N_("%(shown)s is not a time of day."),
            shown=tok.text,
        )
    if meridiem in ("am", "pm"):
        return _hour_12(hour, minute, meridiem, f"{tok.text} {meridiem}")
    if hour > 23:
        raise _error(
            CommandErrorReason.BAD_TIME,
            N_("%(shown)s is not a time of day; use 00:00 to 23:59."),
            shown=tok.text,
        )
    return dt.time(hour, minute)


def _offset_zone(prev: _Token | None, tok: _Token, shown: str) -> tuple[str, int]:
    """The zone of an offset token such as ``+02:00``, which must follow a time or ``utc``."""
    follows_time = prev is not None and (
        prev.kind == "clock"
        or (prev.kind == "num" and prev.value in ("am", "pm"))
        or (prev.kind == "word" and prev.text in (*_UTC_WORDS, "am", "pm"))
    )
    if not follows_time:
        raise _error(
            CommandErrorReason.UNRECOGNISED_WORD,
            N_("I can't read '%(word)s' in '%(shown)s'; %(forms)s."),
            word=tok.text,
            shown=shown,
            forms=_forms,
        )
    minutes = _offset_minutes(tok.text)
    label = tok.text
    if prev is not None and prev.kind == "word" and prev.text in _UTC_WORDS:
        label = f"{prev.text.upper()}{tok.text}"
    return (label, minutes)


def _read_word(word: str, parts: _Parts, *, now: dt.datetime) -> None:
    """A weekday, month, ``today``/``tomorrow``, zone or filler word into ``parts``."""
    if word in _WEEKDAYS:
        parts.weekdays.append(_WEEKDAYS[word])
    elif word in _MONTHS:
        parts.months.append(_MONTHS[word])
    elif word == "today":
        parts.dates.append(now.astimezone(UTC).date())
    elif word == "tomorrow":
        parts.dates.append(now.astimezone(UTC).date() + dt.timedelta(days=1))
    elif word in _UTC_WORDS:
        if parts.zone is None:
            parts.zone = (word.upper(), 0)
    elif word in _ZONES:
        parts.zone = (word.upper(), _ZONES[word])
    elif word in _FILLER:
        pass
    elif word in ("am", "pm"):
        raise _error(
            CommandErrorReason.BAD_TIME,
            N_("'%(word)s' in '%(shown)s' must follow an hour, as in 6pm or 6:30 pm."),
            word=word,
            shown=parts.shown,
        )
    else:
        raise _error(
            CommandErrorReason.UNRECOGNISED_WORD,
            N_("I don't understand '%(word)s' in '%(shown)s'; %(forms)s."),
            word=word,
            shown=parts.shown,
            forms=_forms,
        )


def _read_token(
    tokens: list[_Token], i: int, parts: _Parts, *, now: dt.datetime, week: MatchWeek
) -> int:
    """``tokens[i]`` read into ``parts``: how many tokens it took (2 for an hour and its am/pm)."""
    tok = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    meridiem = nxt.text if nxt is not None and nxt.kind == "word" else ""
    if tok.kind == "iso":
        y, m, d = (int(p) for p in tok.text.split("-"))
        parts.dates.append(_make_date(y, m, d, tok.text))
    elif tok.kind == "numdate":
        parts.dates.append(_numeric_date(tok.text, week))
    elif tok.kind == "clock":
        parts.times.append(_clock_time(tok, meridiem))
        return 2 if meridiem in ("am", "pm") else 1
    elif tok.kind == "num" and tok.value in ("am", "pm"):
        parts.times.append(_hour_12(int(tok.text), 0, tok.value, tok.text + tok.value))
    elif tok.kind == "num" and meridiem in ("am", "pm") and not tok.value:
        parts.times.append(_hour_12(int(tok.text), 0, meridiem, f"{tok.text} {meridiem}"))
        return 2
    elif tok.kind == "num":
        parts.numbers.append(tok)
    elif tok.kind == "offset":
        parts.zone = _offset_zone(tokens[i - 1] if i > 0 else None, tok, parts.shown)
    elif tok.kind == "word":
        _read_word(tok.text, parts, now=now)
    else:
        raise _error(
            CommandErrorReason.UNRECOGNISED_WORD,
            N_("I can't read '%(word)s' in '%(shown)s'; %(forms)s."),
            word=tok.text,
            shown=parts.shown,
            forms=_forms,
        )
    return 1


def _read_numbers(parts: _Parts, week: MatchWeek) -> None:
    """A month name with its day (and year) numbers, as a date; numbers without one refused."""
    shown, months, numbers = parts.shown, parts.months, parts.numbers
    if months:
        if len(months) > 1:
            raise _error(
                CommandErrorReason.TWO_DATES,
                N_("'%(shown)s' names two months; %(forms)s."),
                shown=shown,
                forms=_forms,
            )
        days = [n for n in numbers if len(n.text) <= 2]
        years = [n for n in numbers if len(n.text) == 4 and not n.value]
        rest = [n for n in numbers if n not in days and n not in years]
        if len(days) != 1 or len(years) > 1 or rest:
            raise _error(
                CommandErrorReason.BAD_DATE,
                N_("'%(shown)s': write a month with one day number, as in 14 oct or oct 14 2021."),
                shown=shown,
            )
        month, day = months[0], int(days[0].text)
        label = f"{day} {_month_abbr(month)}"
        if years:
            parts.dates.append(_make_date(int(years[0].text), month, day, label))
        else:
            parts.dates.append(_infer_year(month, day, week, label))
    elif numbers:
        raise _error(
            CommandErrorReason.UNRECOGNISED_WORD,
            N_(
                "I can't tell what '%(word)s' means in '%(shown)s': write times as 18:00 and "
                "dates as 2021-10-14, 14 oct or thu."
            ),
            word=numbers[0].text,
            shown=shown,
        )


def _day_and_time(parts: _Parts, *, now: dt.datetime, week: MatchWeek) -> tuple[dt.date, dt.time]:
    """The one date (a weekday's inside the match week) and the one time ``parts`` name."""
    shown, dates, times, weekdays = parts.shown, parts.dates, parts.times, parts.weekdays
    if len(weekdays) > 1:
        raise _error(
            CommandErrorReason.TWO_DATES,
            N_("'%(shown)s' names two weekdays; %(forms)s."),
            shown=shown,
            forms=_forms,
        )
    if len(dates) > 1:
        raise _error(
            CommandErrorReason.TWO_DATES,
            N_(
                "'%(shown)s' names two dates; one date and one time per offer, several offers "
                "separated by commas."
            ),
            shown=shown,
        )
    if weekdays and dates and dates[0].weekday() != weekdays[0]:
        actual = dates[0]
        raise _error(
            CommandErrorReason.WEEKDAY_MISMATCH,
            N_("%(date)s is a %(actual)s, not a %(named)s; check the date."),
            date=actual.isoformat(),
            actual=_weekday_name(actual.weekday()),
            named=_weekday_name(weekdays[0]),
        )
    if weekdays and not dates:
        dates.append(_weekday_date(weekdays[0], now=now, week=week))
    if len(times) > 1:
        raise _error(
            CommandErrorReason.TWO_TIMES,
            N_(
                "'%(shown)s' has two times; one time per offer, several offers separated by commas."
            ),
            shown=shown,
        )
    if not dates and not times:
        raise _error(
            CommandErrorReason.NO_TIME, N_("Give a day and a time, %(forms)s."), forms=_forms
        )
    if not dates:
        raise _error(
            CommandErrorReason.NO_DATE,
            N_("'%(shown)s': on which day? Add a date or weekday, %(forms)s."),
            shown=shown,
            forms=_forms,
        )
    if not times:
        raise _error(
            CommandErrorReason.NO_TIME,
            N_("'%(shown)s': at what time? Add a UTC time such as 18:00, %(forms)s."),
            shown=shown,
            forms=_forms,
        )
    return dates[0], times[0]


def _check_utc(when: dt.datetime, zone: tuple[str, int] | None) -> None:
    """Refuses a time given in a zone other than UTC, naming its UTC equivalent (rules 5.3)."""
    if zone is not None and zone[1] != 0:
        zone_text, minutes = zone
        in_utc = when - dt.timedelta(minutes=minutes)
        raise _error(
            CommandErrorReason.NOT_UTC,
            N_(
                "Times must be in UTC (rules 5.3). %(given)s %(zone)s (%(offset)s) is %(utc)s "
                "UTC: write that instead."
            ),
            given=f"{when:%a %d %b %H:%M}",
            zone=zone_text,
            offset=_offset_label(minutes),
            utc=format_time(in_utc),
        )
    if zone is not None and zone[0] in {z.upper() for z in _ZONES}:
        raise _error(
            CommandErrorReason.NOT_UTC,
            N_(
                "Times must be in UTC (rules 5.3), not %(zone)s; write %(utc)s UTC if that is "
                "what you mean."
            ),
            zone=zone[0],
            utc=format_time(when),
        )


def _parse_time_item(item: str, *, now: dt.datetime, week: MatchWeek) -> dt.datetime:
    """One time such as ``thu 18:00`` or ``14 oct 6pm utc``."""
    parts = _Parts(item.strip())
    tokens = _tokens(item)
    i = 0
    while i < len(tokens):
        i += _read_token(tokens, i, parts, now=now, week=week)
    _read_numbers(parts, week)
    day, time = _day_and_time(parts, now=now, week=week)
    when = dt.datetime.combine(day, time, tzinfo=UTC)
    _check_utc(when, parts.zone)
    return when


def _month_abbr(month: int) -> str:
    return dt.date(2021, month, 1).strftime("%b")


def parse_times(rest: str, *, now: dt.datetime, week: MatchWeek) -> tuple[dt.datetime, ...]:
    text = rest.lower().replace("a.m.", "am").replace("p.m.", "pm")
    items = [part for part in _SEPARATOR.split(text) if part.strip()]
    if not items:
        raise _error(
            CommandErrorReason.MISSING_ARGUMENT, N_("Which time? %(forms)s."), forms=_forms
        )
    if len(items) > MAX_TIMES:
        raise _error(
            CommandErrorReason.TOO_MANY_TIMES,
            N_("At most %(limit)s times in one command; you gave %(count)s."),
            limit=MAX_TIMES,
            count=len(items),
        )
    return tuple(_parse_time_item(item, now=now, week=week) for item in items)


def parse_one_time(verb: str, rest: str, *, now: dt.datetime, week: MatchWeek) -> dt.datetime:
    times = parse_times(rest, now=now, week=week)
    if len(times) != 1:
        raise _error(
            CommandErrorReason.TWO_TIMES,
            N_("`%(verb)s` takes one time, e.g. `%(verb)s 2021-10-14 18:00`."),
            verb=verb,
        )
    return times[0]
