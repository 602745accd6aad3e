"""The one grammar for a player's text, whatever door it came through (web box, button, TD relay).

``parse(text, now=..., week=...)`` turns a line such as ``offer thu 18:00, 2021-10-15 21:00`` into a
frozen command value, or raises :class:`CommandError` with a reason and a sentence that says what
was wrong and what would be accepted. Nothing here checks the regulations beyond the shape of the
text: whether an offered time is allowed is :mod:`rules.week.negotiation`'s business.

Times (rules 5.3) are UTC. Decisions:

* A time may carry ``utc``, ``gmt``, ``ut`` or ``z`` (or a zero offset such as ``+00:00``); any
  other zone (``CEST``, ``EST``, ``+02:00``, ``UTC+2``...) is refused, never converted, and the
  refusal names the UTC equivalent so the player can resend it.
* 12-hour times (``6pm``, ``6:30 pm``, ``6 p.m.``) are accepted and always printed back in 24 h
  (``18:00``, ``18:30``); ``12am`` is 00:00 and ``12pm`` is 12:00.
* Dates: ``2021-10-14``, ``14 oct``, ``oct 14``, ``14th october 2021``, ``thu``/``thursday`` (that
  weekday inside the match week, if it has not passed), ``today``, ``tomorrow``, and numeric
  ``14/10`` when only one reading is a date. ``04/05`` is refused with both readings spelled out.
  A weekday given together with a date must agree with it.
* One offer may list several times separated by commas, semicolons, new lines or ``and``.
* Input is bounded (:data:`MAX_LENGTH` characters) and every refusal is a :class:`CommandError`.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from dataclasses import dataclass

from rules.core.errors import RulesError
from rules.week.calendar import UTC, MatchWeek

__all__ = [
    "MAX_LENGTH",
    "MAX_TIMES",
    "Accept",
    "AcceptChange",
    "Bid",
    "Break",
    "ChooseTime",
    "ClaimWin",
    "Command",
    "CommandError",
    "CommandErrorReason",
    "DeclineChange",
    "Hand",
    "Help",
    "Offer",
    "ProposeChange",
    "Report",
    "Rps",
    "Status",
    "WithdrawOffer",
    "format_command",
    "format_time",
    "help_text",
    "parse",
]

MAX_LENGTH = 500
"""Longest text accepted, in characters."""

MAX_TIMES = 10
"""Most times one ``offer`` command may list."""

MAX_OFFER_NUMBER = 9999


class CommandErrorReason(enum.Enum):
    EMPTY = "empty"
    TOO_LONG = "too_long"
    UNKNOWN_COMMAND = "unknown_command"
    MISSING_ARGUMENT = "missing_argument"
    UNEXPECTED_ARGUMENT = "unexpected_argument"
    BAD_NUMBER = "bad_number"
    TOO_MANY_TIMES = "too_many_times"
    UNRECOGNISED_WORD = "unrecognised_word"
    NO_DATE = "no_date"
    NO_TIME = "no_time"
    TWO_DATES = "two_dates"
    TWO_TIMES = "two_times"
    BAD_DATE = "bad_date"
    BAD_TIME = "bad_time"
    AMBIGUOUS_DATE = "ambiguous_date"
    WEEKDAY_PASSED = "weekday_passed"
    WEEKDAY_MISMATCH = "weekday_mismatch"
    NOT_UTC = "not_utc"
    BAD_BID = "bad_bid"
    BAD_HAND = "bad_hand"


class CommandError(RulesError):
    """A text that is not a valid command; ``reason`` is a :class:`CommandErrorReason`."""

    reason: CommandErrorReason

    def __init__(self, reason: CommandErrorReason, message: str) -> None:
        super().__init__(reason, message)


# --- commands ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Offer:
    """Offer one or more start times (rules 5.1)."""

    times: tuple[dt.datetime, ...]


@dataclass(frozen=True, slots=True)
class Accept:
    """Accept the opponent's offer by its number in ``status``, or by its time (rules 5.7)."""

    index: int | None = None
    time: dt.datetime | None = None

    def __post_init__(self) -> None:
        if (self.index is None) == (self.time is None):
            raise ValueError("Accept needs exactly one of index and time")


@dataclass(frozen=True, slots=True)
class WithdrawOffer:
    index: int


@dataclass(frozen=True, slots=True)
class ProposeChange:
    """Ask to move an agreed time; it moves only if the opponent agrees (rules 5.2)."""

    time: dt.datetime


@dataclass(frozen=True, slots=True)
class AcceptChange:
    pass


@dataclass(frozen=True, slots=True)
class DeclineChange:
    """Decline the opponent's change proposal, or withdraw one's own."""


@dataclass(frozen=True, slots=True)
class ChooseTime:
    """The opponent of a player at fault picks the time (rules 5.5, 5.9)."""

    time: dt.datetime


@dataclass(frozen=True, slots=True)
class Status:
    pass


@dataclass(frozen=True, slots=True)
class Help:
    topic: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimWin:
    """Claim the match after a no-show or an overlong break (rules 6.3, 6.4)."""


@dataclass(frozen=True, slots=True)
class Break:
    """Call the one break of the match (rules 6.1)."""


@dataclass(frozen=True, slots=True)
class Report:
    """A private report to the TDs, e.g. of suspected cheating (rules 7.1). Never public."""

    text: str


@dataclass(frozen=True, slots=True)
class Bid:
    """An armageddon time bid for White, in seconds (rules 3.ix.1.2)."""

    seconds: int


class Hand(enum.Enum):
    ROCK = "rock"
    PAPER = "paper"
    SCISSORS = "scissors"


@dataclass(frozen=True, slots=True)
class Rps:
    """Rock-paper-scissors for White after identical bids (rules 3.ix.1.3)."""

    hand: Hand


Command = (
    Offer
    | Accept
    | WithdrawOffer
    | ProposeChange
    | AcceptChange
    | DeclineChange
    | ChooseTime
    | Status
    | Help
    | ClaimWin
    | Break
    | Report
    | Bid
    | Rps
)

# --- formatting ----------------------------------------------------------------------------------


def format_time(when: dt.datetime) -> str:
    """The canonical form of a time, ``2021-10-14 18:00`` (UTC, 24 h); it parses back to itself.

    Raises ``ValueError`` for a naive datetime (its zone would be the machine's).
    """
    if when.tzinfo is None:
        raise ValueError("format_time needs an aware datetime")
    utc = when.astimezone(UTC)
    return f"{utc:%Y-%m-%d %H:%M}"


def format_command(command: Command) -> str:
    """The canonical text of ``command``; :func:`parse` reads it back to an equal command."""
    match command:
        case Offer(times):
            return "offer " + ", ".join(format_time(t) for t in times)
        case Accept(index, time):
            return f"accept {index}" if time is None else f"accept {format_time(time)}"
        case WithdrawOffer(index):
            return f"withdraw offer {index}"
        case ProposeChange(time):
            return f"change {format_time(time)}"
        case AcceptChange():
            return "accept change"
        case DeclineChange():
            return "decline change"
        case ChooseTime(time):
            return f"choose {format_time(time)}"
        case Status():
            return "status"
        case Help(topic):
            return "help" if topic is None else f"help {topic}"
        case ClaimWin():
            return "claim win"
        case Break():
            return "break"
        case Report(text):
            return f"report {text}"
        case Bid(seconds):
            return f"bid {seconds // 60}:{seconds % 60:02d}"
        case Rps(hand):
            return f"rps {hand.value}"
    raise TypeError(f"not a command: {command!r}")  # pragma: no cover


# --- help ----------------------------------------------------------------------------------------

_HELP: dict[str, str] = {
    "offer": "offer thu 18:00, 2021-10-15 21:00 - offer start times (UTC); "
    "at least 3 by Friday 23:59 UTC, 3 hours apart, at most 2 on one date (rules 5.1, 5.4)",
    "accept": "accept 2 - accept your opponent's offer number 2 (or: accept thu 18:00)",
    "withdraw": "withdraw offer 1 - take back your offer number 1",
    "change": "change fri 20:00 - ask to move the agreed time; it moves only if your opponent "
    "sends `accept change` (`decline change` refuses)",
    "choose": "choose sat 16:00 - pick the time when your opponent missed the offers deadline",
    "status": "status - your match, the offers and the deadlines",
    "claim": "claim win - claim the match when your opponent did not show up (rules 6.3)",
    "break": "break - call your one break between two games, 10 minutes at most (rules 6.1)",
    "report": "report <text> - a private message to the TDs, e.g. a suspicion of cheating "
    "(rules 7.1: never accuse anyone in public)",
    "bid": "bid 1:30 - armageddon: the time you would take as White (lowest bid plays White)",
    "rps": "rps rock|paper|scissors - armageddon: decides White after identical bids",
}
_VERBS = (*_HELP, "help", "decline")


def help_text(topic: str | None = None) -> str:
    """The help for one command, or a summary of all of them. All times are UTC."""
    if topic is not None:
        return _HELP[topic]
    lines = ["Commands (all times UTC, e.g. `offer 2021-10-14 18:00`):"]
    lines.extend(f"- {_HELP[verb]}" for verb in sorted(_HELP))
    return "\n".join(lines)


# --- time parsing --------------------------------------------------------------------------------

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
_FORMS = "e.g. `2021-10-14 18:00`, `thu 18:00` or `14 oct 6pm`"


def _error(reason: CommandErrorReason, message: str) -> CommandError:
    return CommandError(reason, message)


def _day_label(day: dt.date) -> str:
    return f"{day:%a} {day.day} {day:%b} {day.year}"


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
        raise _error(CommandErrorReason.BAD_DATE, f"{shown}: the year {year} is not accepted.")
    try:
        return dt.date(year, month, day)
    except ValueError:
        raise _error(
            CommandErrorReason.BAD_DATE,
            f"{shown} is not a date; write dates as 2021-10-14, 14 oct or thu.",
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
            f"{shown} is not a date; write dates as 2021-10-14, 14 oct or thu.",
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
    name = dt.date(2021, 10, 11 + weekday).strftime("%A")  # 2021-10-11 was a Monday
    first, last = week.dates()[0], week.dates()[-1]
    when = f" ({_day_label(passed[0])})" if passed else ""
    raise _error(
        CommandErrorReason.WEEKDAY_PASSED,
        f"{name}{when} has passed in this match week ({_day_label(first)} to {_day_label(last)}); "
        f"give a date such as {format_time(now)[:10]}.",
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
            f"{text} is not a date; write dates as 2021-10-14, 14 oct or thu (and times as 18:00).",
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
            f"{text} is ambiguous: it could be {first.day} {first:%B} or "
            f"{second.day} {second:%B}; write {first.isoformat()} or {second.isoformat()}.",
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
        raise _error(CommandErrorReason.NOT_UTC, f"{text} is not a time zone offset.")
    return sign * (hours * 60 + minutes)


def _offset_label(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _hour_12(hour: int, minute: int, meridiem: str, shown: str) -> dt.time:
    if not 1 <= hour <= 12:
        raise _error(
            CommandErrorReason.BAD_TIME,
            f"{shown}: with am/pm the hour must be 1 to 12; or write 24-hour time such as 18:00.",
        )
    hour = hour % 12 + (12 if meridiem == "pm" else 0)
    return dt.time(hour, minute)


def _parse_time_item(item: str, *, now: dt.datetime, week: MatchWeek) -> dt.datetime:
    """One time such as ``thu 18:00`` or ``14 oct 6pm utc``."""
    shown = item.strip()
    tokens = _tokens(item)
    dates: list[dt.date] = []
    times: list[dt.time] = []
    weekdays: list[int] = []
    months: list[int] = []
    numbers: list[_Token] = []
    zone: tuple[str, int] | None = None  # (label as typed, minutes east of UTC)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        meridiem = nxt.text if nxt is not None and nxt.kind == "word" else ""
        if tok.kind == "iso":
            y, m, d = (int(p) for p in tok.text.split("-"))
            dates.append(_make_date(y, m, d, tok.text))
        elif tok.kind == "numdate":
            dates.append(_numeric_date(tok.text, week))
        elif tok.kind == "clock":
            hour, minute = (int(p) for p in tok.text.split(":"))
            if minute > 59:
                raise _error(CommandErrorReason.BAD_TIME, f"{tok.text} is not a time of day.")
            if meridiem in ("am", "pm"):
                times.append(_hour_12(hour, minute, meridiem, f"{tok.text} {meridiem}"))
                i += 1
            else:
                if hour > 23:
                    raise _error(
                        CommandErrorReason.BAD_TIME,
                        f"{tok.text} is not a time of day; use 00:00 to 23:59.",
                    )
                times.append(dt.time(hour, minute))
        elif tok.kind == "num" and tok.value in ("am", "pm"):
            times.append(_hour_12(int(tok.text), 0, tok.value, tok.text + tok.value))
        elif tok.kind == "num" and meridiem in ("am", "pm") and not tok.value:
            times.append(_hour_12(int(tok.text), 0, meridiem, f"{tok.text} {meridiem}"))
            i += 1
        elif tok.kind == "num":
            numbers.append(tok)
        elif tok.kind == "offset":
            prev = tokens[i - 1] if i > 0 else None
            follows_time = prev is not None and (
                prev.kind == "clock"
                or (prev.kind == "num" and prev.value in ("am", "pm"))
                or (prev.kind == "word" and prev.text in (*_UTC_WORDS, "am", "pm"))
            )
            if not follows_time:
                raise _error(
                    CommandErrorReason.UNRECOGNISED_WORD,
                    f"I can't read '{tok.text}' in '{shown}'; {_FORMS}.",
                )
            minutes = _offset_minutes(tok.text)
            label = tok.text
            if prev is not None and prev.kind == "word" and prev.text in _UTC_WORDS:
                label = f"{prev.text.upper()}{tok.text}"
            zone = (label, minutes)
        elif tok.kind == "word":
            word = tok.text
            if word in _WEEKDAYS:
                weekdays.append(_WEEKDAYS[word])
            elif word in _MONTHS:
                months.append(_MONTHS[word])
            elif word == "today":
                dates.append(now.astimezone(UTC).date())
            elif word == "tomorrow":
                dates.append(now.astimezone(UTC).date() + dt.timedelta(days=1))
            elif word in _UTC_WORDS:
                if zone is None:
                    zone = (word.upper(), 0)
            elif word in _ZONES:
                zone = (word.upper(), _ZONES[word])
            elif word in _FILLER:
                pass
            elif word in ("am", "pm"):
                raise _error(
                    CommandErrorReason.BAD_TIME,
                    f"'{word}' in '{shown}' must follow an hour, as in 6pm or 6:30 pm.",
                )
            else:
                raise _error(
                    CommandErrorReason.UNRECOGNISED_WORD,
                    f"I don't understand '{word}' in '{shown}'; {_FORMS}.",
                )
        else:
            raise _error(
                CommandErrorReason.UNRECOGNISED_WORD,
                f"I can't read '{tok.text}' in '{shown}'; {_FORMS}.",
            )
        i += 1

    if months:
        if len(months) > 1:
            raise _error(CommandErrorReason.TWO_DATES, f"'{shown}' names two months; {_FORMS}.")
        days = [n for n in numbers if len(n.text) <= 2]
        years = [n for n in numbers if len(n.text) == 4 and not n.value]
        rest = [n for n in numbers if n not in days and n not in years]
        if len(days) != 1 or len(years) > 1 or rest:
            raise _error(
                CommandErrorReason.BAD_DATE,
                f"'{shown}': write a month with one day number, as in 14 oct or oct 14 2021.",
            )
        month, day = months[0], int(days[0].text)
        label = f"{day} {_month_abbr(month)}"
        if years:
            dates.append(_make_date(int(years[0].text), month, day, label))
        else:
            dates.append(_infer_year(month, day, week, label))
    elif numbers:
        raise _error(
            CommandErrorReason.UNRECOGNISED_WORD,
            f"I can't tell what '{numbers[0].text}' means in '{shown}': write times as 18:00 "
            f"and dates as 2021-10-14, 14 oct or thu.",
        )

    if len(weekdays) > 1:
        raise _error(CommandErrorReason.TWO_DATES, f"'{shown}' names two weekdays; {_FORMS}.")
    if len(dates) > 1:
        raise _error(
            CommandErrorReason.TWO_DATES,
            f"'{shown}' names two dates; one date and one time per offer, several offers "
            "separated by commas.",
        )
    if weekdays and dates and dates[0].weekday() != weekdays[0]:
        actual = dates[0]
        named = dt.date(2021, 10, 11 + weekdays[0]).strftime("%A")
        raise _error(
            CommandErrorReason.WEEKDAY_MISMATCH,
            f"{actual.isoformat()} is a {actual:%A}, not a {named}; check the date.",
        )
    if weekdays and not dates:
        dates.append(_weekday_date(weekdays[0], now=now, week=week))
    if len(times) > 1:
        raise _error(
            CommandErrorReason.TWO_TIMES,
            f"'{shown}' has two times; one time per offer, several offers separated by commas.",
        )
    if not dates and not times:
        raise _error(CommandErrorReason.NO_TIME, f"Give a day and a time, {_FORMS}.")
    if not dates:
        raise _error(
            CommandErrorReason.NO_DATE,
            f"'{shown}': on which day? Add a date or weekday, {_FORMS}.",
        )
    if not times:
        raise _error(
            CommandErrorReason.NO_TIME,
            f"'{shown}': at what time? Add a UTC time such as 18:00, {_FORMS}.",
        )
    when = dt.datetime.combine(dates[0], times[0], tzinfo=UTC)
    if zone is not None and zone[1] != 0:
        zone_text, minutes = zone
        in_utc = when - dt.timedelta(minutes=minutes)
        raise _error(
            CommandErrorReason.NOT_UTC,
            f"Times must be in UTC (rules 5.3). {when:%a %d %b %H:%M} {zone_text} "
            f"({_offset_label(minutes)}) is {format_time(in_utc)} UTC: write that instead.",
        )
    if zone is not None and zone[0] in {z.upper() for z in _ZONES}:
        raise _error(
            CommandErrorReason.NOT_UTC,
            f"Times must be in UTC (rules 5.3), not {zone[0]}; write {format_time(when)} UTC "
            "if that is what you mean.",
        )
    return when


def _month_abbr(month: int) -> str:
    return dt.date(2021, month, 1).strftime("%b")


def _parse_times(rest: str, *, now: dt.datetime, week: MatchWeek) -> tuple[dt.datetime, ...]:
    text = rest.lower().replace("a.m.", "am").replace("p.m.", "pm")
    items = [part for part in _SEPARATOR.split(text) if part.strip()]
    if not items:
        raise _error(CommandErrorReason.MISSING_ARGUMENT, f"Which time? {_FORMS}.")
    if len(items) > MAX_TIMES:
        raise _error(
            CommandErrorReason.TOO_MANY_TIMES,
            f"At most {MAX_TIMES} times in one command; you gave {len(items)}.",
        )
    return tuple(_parse_time_item(item, now=now, week=week) for item in items)


def _parse_one_time(verb: str, rest: str, *, now: dt.datetime, week: MatchWeek) -> dt.datetime:
    times = _parse_times(rest, now=now, week=week)
    if len(times) != 1:
        raise _error(
            CommandErrorReason.TWO_TIMES,
            f"`{verb}` takes one time, e.g. `{verb} 2021-10-14 18:00`.",
        )
    return times[0]


def _parse_index(verb: str, words: list[str]) -> int:
    text = words[0].lstrip("#") if len(words) == 1 else ""
    if not text.isascii() or not text.isdigit() or len(text) > 4:
        raise _error(
            CommandErrorReason.BAD_NUMBER,
            f"`{verb}` needs an offer number from `status`, e.g. `{verb} 2`.",
        )
    number = int(text)
    if not 1 <= number <= MAX_OFFER_NUMBER:
        raise _error(
            CommandErrorReason.BAD_NUMBER, f"Offers are numbered from 1; {number} is not one."
        )
    return number


def _no_arguments(verb: str, rest: str, command: Command) -> Command:
    if rest.strip():
        raise _error(
            CommandErrorReason.UNEXPECTED_ARGUMENT,
            f"`{verb}` takes nothing after it; send just `{format_command(command)}`.",
        )
    return command


# --- the parser ----------------------------------------------------------------------------------


def parse(text: str, *, now: dt.datetime, week: MatchWeek) -> Command:
    """Read one command from a player's text.

    ``now`` resolves ``today``/``tomorrow``/weekday names; ``week`` picks the year and the weekday
    inside the match week. Raises :class:`CommandError` for anything that is not a command, and
    ``ValueError`` when ``now`` is naive (a programming error, not a player's).
    """
    if now.tzinfo is None:
        raise ValueError("parse needs an aware `now`")
    if len(text) > MAX_LENGTH:
        raise _error(
            CommandErrorReason.TOO_LONG,
            f"That message is {len(text)} characters long; send at most {MAX_LENGTH}.",
        )
    stripped = text.strip().lstrip("/!").strip()
    if not stripped:
        raise _error(CommandErrorReason.EMPTY, "Send a command, e.g. `status` or `help`.")
    head, *tail = re.split(r"\s+", stripped, maxsplit=1)
    rest = tail[0] if tail else ""
    verb = head.lower()
    words = rest.lower().split()

    if verb == "offer":
        return Offer(_parse_times(rest, now=now, week=week))
    if verb == "accept":
        if words == ["change"]:
            return AcceptChange()
        if not words:
            raise _error(
                CommandErrorReason.MISSING_ARGUMENT,
                "Accept which offer? Send `accept 2` (the number in `status`) "
                "or `accept thu 18:00`.",
            )
        if words[0] == "offer":
            words = words[1:]
            rest = re.sub(r"^\s*offer\b", "", rest, flags=re.IGNORECASE)
        if len(words) == 1 and re.fullmatch(r"#?\d+", words[0], re.ASCII):
            return Accept(index=_parse_index(verb, words))
        return Accept(time=_parse_one_time(verb, rest, now=now, week=week))
    if verb == "withdraw":
        if words == ["change"]:
            return DeclineChange()
        if words and words[0] == "offer":
            words = words[1:]
        if not words:
            raise _error(
                CommandErrorReason.MISSING_ARGUMENT,
                "Withdraw which offer? Send `withdraw offer 1` (the number in `status`).",
            )
        return WithdrawOffer(_parse_index(verb, words))
    if verb == "change":
        return ProposeChange(_parse_one_time(verb, rest, now=now, week=week))
    if verb == "decline":
        if words != ["change"]:
            raise _error(
                CommandErrorReason.MISSING_ARGUMENT,
                "Send `decline change` to refuse a proposed new time.",
            )
        return DeclineChange()
    if verb == "choose":
        return ChooseTime(_parse_one_time(verb, rest, now=now, week=week))
    if verb == "status":
        return _no_arguments(verb, rest, Status())
    if verb == "help":
        if not words:
            return Help()
        topic = words[0]
        if len(words) > 1 or topic not in _HELP:
            raise _error(
                CommandErrorReason.UNKNOWN_COMMAND,
                f"No help on that; topics: {', '.join(sorted(_HELP))}.",
            )
        return Help(topic)
    if verb == "claim":
        if words != ["win"]:
            raise _error(
                CommandErrorReason.MISSING_ARGUMENT, "To claim the match send `claim win`."
            )
        return ClaimWin()
    if verb == "break":
        return _no_arguments(verb, rest, Break())
    if verb == "report":
        body = " ".join(rest.split())
        if not body:
            raise _error(
                CommandErrorReason.MISSING_ARGUMENT,
                "Write what you want to tell the TDs after `report`; it stays private.",
            )
        return Report(body)
    if verb == "bid":
        m = re.fullmatch(r"(\d{1,2}):(\d{2})", "".join(words), re.ASCII)
        if m is None or int(m.group(2)) > 59 or int(m.group(1)) * 60 + int(m.group(2)) == 0:
            raise _error(
                CommandErrorReason.BAD_BID,
                "Write your bid as minutes:seconds for White, e.g. `bid 1:30`.",
            )
        return Bid(int(m.group(1)) * 60 + int(m.group(2)))
    if verb == "rps":
        hands = {hand.value: hand for hand in Hand}
        if len(words) != 1 or words[0] not in hands:
            raise _error(
                CommandErrorReason.BAD_HAND, "Send `rps rock`, `rps paper` or `rps scissors`."
            )
        return Rps(hands[words[0]])
    shown = head if len(head) <= 20 else head[:20] + "…"
    raise _error(
        CommandErrorReason.UNKNOWN_COMMAND,
        f"I don't know the command '{shown}'. Commands: {', '.join(sorted(_VERBS))}; "
        "send `help` for examples.",
    )
