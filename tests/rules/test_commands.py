"""The player command grammar (rules 5.3 times in UTC; one parser for every channel)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.core.ruleset import DEFAULT_RULESET
from rules.talk.commands import (
    MAX_LENGTH,
    Accept,
    AcceptChange,
    Bid,
    Break,
    ChooseTime,
    ClaimWin,
    CommandError,
    CommandErrorReason,
    DeclineChange,
    Hand,
    Help,
    Offer,
    ProposeChange,
    Report,
    Rps,
    Status,
    WithdrawOffer,
    format_command,
    format_time,
    parse,
)
from rules.talk.help import help_text
from rules.week.calendar import UTC, match_week

WEEK = match_week(dt.date(2021, 10, 12), DEFAULT_RULESET)
NOW = dt.datetime(2021, 10, 12, 9, 0, tzinfo=UTC)  # Tuesday morning, pairings just out
R = CommandErrorReason


def at(day: int, hour: int, minute: int = 0, month: int = 10, year: int = 2021) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("offer 2021-10-14 18:00", Offer((at(14, 18),))),
        ("offer 2021-10-14 18:00, 2021-10-15 21:00", Offer((at(14, 18), at(15, 21)))),
        ("offer thu 18:00", Offer((at(14, 18),))),
        ("offer Thursday 18:00", Offer((at(14, 18),))),
        ("offer 14 oct 18:00 utc", Offer((at(14, 18),))),
        ("offer oct 14 18:00", Offer((at(14, 18),))),
        ("offer 14th October 2021 6 p.m.", Offer((at(14, 18),))),
        ("offer 18:00 gmt thu", Offer((at(14, 18),))),
        ("offer 2021-10-14T18:00Z", Offer((at(14, 18),))),
        ("offer thu 18:00 UTC+0", Offer((at(14, 18),))),
        ("offer thu 18:00 +00:00", Offer((at(14, 18),))),
        ("offer thu 6pm", Offer((at(14, 18),))),
        ("offer thu 6:30 pm", Offer((at(14, 18, 30),))),
        ("offer thu 12am", Offer((at(14, 0),))),
        ("offer thu 12pm", Offer((at(14, 12),))),
        ("offer 14/10 18:00", Offer((at(14, 18),))),
        ("offer 10/14 18:00", Offer((at(14, 18),))),
        ("offer 05/05 18:00", Offer((at(5, 18, month=5),))),
        ("offer on thu at 18:00 and fri at 21:00", Offer((at(14, 18), at(15, 21)))),
        ("offer tomorrow 18:00; sat 9:00", Offer((at(13, 18), at(16, 9)))),
        ("OFFER  thu 18:00\nfri 21:00", Offer((at(14, 18), at(15, 21)))),
        ("offer fri 15 oct 20:00", Offer((at(15, 20),))),
        ("accept 2", Accept(index=2)),
        ("accept #2", Accept(index=2)),
        ("accept offer 2", Accept(index=2)),
        ("accept thu 18:00", Accept(time=at(14, 18))),
        ("accept change", AcceptChange()),
        ("decline change", DeclineChange()),
        ("withdraw change", DeclineChange()),
        ("withdraw offer 1", WithdrawOffer(1)),
        ("withdraw 1", WithdrawOffer(1)),
        ("change fri 20:00", ProposeChange(at(15, 20))),
        ("choose sat 16:00", ChooseTime(at(16, 16))),
        ("status", Status()),
        ("/status", Status()),
        ("help", Help()),
        ("help offer", Help("offer")),
        ("claim win", ClaimWin()),
        ("break", Break()),
        ("report Bob  used an Engine in game 3", Report("Bob used an Engine in game 3")),
        ("bid 1:30", Bid(90)),
        ("bid 0:05", Bid(5)),
        ("rps rock", Rps(Hand.ROCK)),
        ("rps Scissors", Rps(Hand.SCISSORS)),
    ],
)
def test_parses_each_command_form(text: str, expected: object) -> None:
    assert parse(text, now=NOW, week=WEEK) == expected


@pytest.mark.parametrize(
    ("text", "reason", "says"),
    [
        ("", R.EMPTY, "status"),
        ("   ", R.EMPTY, "help"),
        ("x" * (MAX_LENGTH + 1), R.TOO_LONG, "at most 500"),
        ("dance", R.UNKNOWN_COMMAND, "offer"),
        ("offer", R.MISSING_ARGUMENT, "Which time"),
        ("offer 18:00", R.NO_DATE, "which day"),
        ("offer thu", R.NO_TIME, "what time"),
        ("offer thu 18:00 19:00", R.TWO_TIMES, "one time per offer"),
        ("offer 2021-10-14 15 oct 18:00", R.TWO_DATES, "two dates"),
        ("offer 04/05 18:00", R.AMBIGUOUS_DATE, "4 May or 5 April"),
        ("offer 2021-02-30 18:00", R.BAD_DATE, "not a date"),
        ("offer thu 24:00", R.BAD_TIME, "00:00 to 23:59"),
        ("offer thu 18:61", R.BAD_TIME, "not a time"),
        ("offer thu 13pm", R.BAD_TIME, "1 to 12"),
        ("offer thu pm", R.BAD_TIME, "must follow an hour"),
        ("offer thu 1800", R.UNRECOGNISED_WORD, "18:00"),
        ("offer thu 18:00 soonish", R.UNRECOGNISED_WORD, "soonish"),
        ("offer fri 14 oct 18:00", R.WEEKDAY_MISMATCH, "is a Thursday, not a Friday"),
        ("offer thu 18:00 CET", R.NOT_UTC, "2021-10-14 17:00 UTC"),
        ("offer thu 18:00 CEST", R.NOT_UTC, "2021-10-14 16:00 UTC"),
        ("offer thu 18:00 EST", R.NOT_UTC, "2021-10-14 23:00 UTC"),
        ("offer thu 18:00 PST", R.NOT_UTC, "2021-10-15 02:00 UTC"),
        ("offer thu 18:00 BST", R.NOT_UTC, "2021-10-14 17:00 UTC"),
        ("offer thu 18:00 +02:00", R.NOT_UTC, "2021-10-14 16:00 UTC"),
        ("offer thu 18:00 -0500", R.NOT_UTC, "2021-10-14 23:00 UTC"),
        ("offer thu 18:00 UTC+2", R.NOT_UTC, "2021-10-14 16:00 UTC"),
        ("offer thu 18:00 WET", R.NOT_UTC, "not WET"),
        ("offer " + ", ".join(["thu 18:00"] * 11), R.TOO_MANY_TIMES, "At most 10"),
        ("accept", R.MISSING_ARGUMENT, "accept 2"),
        ("accept 0", R.BAD_NUMBER, "numbered from 1"),
        ("withdraw offer", R.MISSING_ARGUMENT, "withdraw offer 1"),
        ("withdraw offer one", R.BAD_NUMBER, "offer number"),
        ("status please", R.UNEXPECTED_ARGUMENT, "status"),
        ("claim", R.MISSING_ARGUMENT, "claim win"),
        ("report", R.MISSING_ARGUMENT, "private"),
        ("bid 90", R.BAD_BID, "1:30"),
        ("bid 1:75", R.BAD_BID, "1:30"),
        ("bid 0:00", R.BAD_BID, "1:30"),
        ("rps lizard", R.BAD_HAND, "rps rock"),
        ("help me", R.UNKNOWN_COMMAND, "topics"),
    ],
)
def test_refuses_bad_text_with_reason_and_advice(
    text: str, reason: CommandErrorReason, says: str
) -> None:
    with pytest.raises(CommandError) as info:
        parse(text, now=NOW, week=WEEK)
    assert info.value.reason is reason
    assert says in info.value.message


def test_weekday_that_has_passed_is_refused_with_its_date() -> None:
    saturday = dt.datetime(2021, 10, 16, 10, 0, tzinfo=UTC)
    with pytest.raises(CommandError) as info:
        parse("offer wed 18:00", now=saturday, week=WEEK)
    assert info.value.reason is R.WEEKDAY_PASSED
    assert "Wed 13 Oct 2021" in info.value.message


def test_weekday_resolves_to_today_when_today_is_that_day() -> None:
    thursday = dt.datetime(2021, 10, 14, 10, 0, tzinfo=UTC)
    assert parse("offer thu 18:00", now=thursday, week=WEEK) == Offer((at(14, 18),))


def test_year_is_inferred_across_new_year() -> None:
    week = match_week(dt.date(2021, 12, 28), DEFAULT_RULESET)
    now = dt.datetime(2021, 12, 28, 9, 0, tzinfo=UTC)
    assert parse("offer 2 jan 18:00", now=now, week=week) == Offer((at(2, 18, month=1, year=2022),))
    assert parse("offer sun 18:00", now=now, week=week) == Offer((at(2, 18, month=1, year=2022),))


def test_twelve_hour_input_prints_back_in_24_hours() -> None:
    command = parse("offer thu 6:30 pm", now=NOW, week=WEEK)
    assert format_command(command) == "offer 2021-10-14 18:30"


def test_help_lists_every_topic() -> None:
    text = help_text(ruleset=DEFAULT_RULESET)
    for topic in (
        "offer",
        "accept",
        "withdraw",
        "status",
        "claim",
        "break",
        "report",
        "bid",
        "rps",
    ):
        assert help_text(topic, ruleset=DEFAULT_RULESET).startswith(topic)
        assert topic in text


_COMMANDS = [
    Offer((at(14, 18), at(15, 21))),
    Accept(index=3),
    Accept(time=at(14, 18)),
    WithdrawOffer(2),
    ProposeChange(at(16, 10)),
    AcceptChange(),
    DeclineChange(),
    ChooseTime(at(17, 12)),
    Status(),
    Help(),
    Help("bid"),
    ClaimWin(),
    Break(),
    Report("suspicious moves in game 4"),
    Bid(95),
    Rps(Hand.PAPER),
]


@pytest.mark.parametrize("command", _COMMANDS, ids=lambda c: type(c).__name__)
def test_every_command_prints_back_to_itself(command: object) -> None:
    text = format_command(command)  # type: ignore[arg-type]
    assert parse(text, now=NOW, week=WEEK) == command


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=MAX_LENGTH + 20))
def test_no_text_crashes_the_parser(text: str) -> None:
    message = "parsed"
    try:
        parse(text, now=NOW, week=WEEK)
    except CommandError as error:
        message = error.message
    assert message


_DAY_WORDS = ["tue", "wed", "thu", "fri", "sat", "sun", "mon", "today", "tomorrow"]
_FRAGMENTS = st.sampled_from(
    [
        *_DAY_WORDS,
        "14",
        "oct",
        "october",
        "2021",
        "14th",
        "15/10",
        "10/15",
        "2021-10-16",
        "18:00",
        "6pm",
        "6:30",
        "pm",
        "am",
        "utc",
        "gmt",
        "z",
        "+00:00",
        "cest",
        "+2",
        ",",
        "and",
        "at",
        "on",
        "04/05",
        "12am",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_FRAGMENTS, min_size=1, max_size=8), st.integers(min_value=0, max_value=6 * 24))
def test_accepted_offer_printed_back_reparses_to_same_times(words: list[str], hours: int) -> None:
    now = WEEK.start + dt.timedelta(hours=hours)
    try:
        command = parse("offer " + " ".join(words), now=now, week=WEEK)
    except CommandError:
        return
    assert isinstance(command, Offer)
    again = parse(format_command(command), now=now, week=WEEK)
    assert again == command
    assert all(t.tzinfo is UTC and t.second == 0 for t in command.times)


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(
        min_value=dt.datetime(2000, 1, 1),
        max_value=dt.datetime(2199, 12, 31, 23, 59),
        timezones=st.just(UTC),
    )
)
def test_format_time_reparses_for_any_minute(when: dt.datetime) -> None:
    when = when.replace(second=0, microsecond=0)
    assert format_time(when) == when.strftime("%Y-%m-%d %H:%M")
    assert parse(f"offer {format_time(when)}", now=NOW, week=WEEK) == Offer((when,))


def test_help_takes_its_numbers_from_the_rule_set() -> None:
    offer = help_text("offer", ruleset=DEFAULT_RULESET)
    assert "at least 3 by Friday 23:59 UTC, 3 hours apart, at most 2 on one date" in offer
    changed = dataclasses.replace(
        DEFAULT_RULESET,
        offers=dataclasses.replace(
            DEFAULT_RULESET.offers,
            min_gap=dt.timedelta(hours=2),
            required_offers=4,
            deadline_weekday=3,
        ),
    )
    assert "at least 4 by Thursday 23:59 UTC, 2 hours apart" in help_text("offer", ruleset=changed)
