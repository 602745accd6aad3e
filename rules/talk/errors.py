"""The refusals of the command grammar: a reason and a sentence the player can read."""

from __future__ import annotations

import enum

from rules.core.errors import RulesError

__all__ = ["MAX_LENGTH", "MAX_OFFER_NUMBER", "MAX_TIMES", "CommandError", "CommandErrorReason"]

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
