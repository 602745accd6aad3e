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
from collections.abc import Callable
from dataclasses import dataclass

from rules.core.errors import RulesError, Value, refusal
from rules.core.words import N_
from rules.talk.errors import (
    MAX_LENGTH,
    MAX_OFFER_NUMBER,
    MAX_TIMES,
    CommandError,
    CommandErrorReason,
)
from rules.talk.help import HELP_TOPICS, VERBS
from rules.talk.times import format_time, parse_one_time, parse_times
from rules.week.calendar import MatchWeek

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
    "parse",
]

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


def format_command(command: Command) -> str:  # noqa: C901 (one case a command of the grammar)
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


def _error(reason: CommandErrorReason, template: str, **values: Value) -> RulesError:
    """The refusal ``template`` (marked with ``N_``), in English and in a reader's words."""
    return refusal(CommandError, reason, template, **values)


def _parse_index(verb: str, words: list[str]) -> int:
    text = words[0].lstrip("#") if len(words) == 1 else ""
    if not text.isascii() or not text.isdigit() or len(text) > 4:
        raise _error(
            CommandErrorReason.BAD_NUMBER,
            N_("`%(verb)s` needs an offer number from `status`, e.g. `%(verb)s 2`."),
            verb=verb,
        )
    number = int(text)
    if not 1 <= number <= MAX_OFFER_NUMBER:
        raise _error(
            CommandErrorReason.BAD_NUMBER,
            N_("Offers are numbered from 1; %(number)s is not one."),
            number=number,
        )
    return number


def _no_arguments(verb: str, rest: str, command: Command) -> Command:
    if rest.strip():
        raise _error(
            CommandErrorReason.UNEXPECTED_ARGUMENT,
            N_("`%(verb)s` takes nothing after it; send just `%(command)s`."),
            verb=verb,
            command=format_command(command),
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
            N_("That message is %(length)s characters long; send at most %(limit)s."),
            length=len(text),
            limit=MAX_LENGTH,
        )
    stripped = text.strip().lstrip("/!").strip()
    if not stripped:
        raise _error(CommandErrorReason.EMPTY, N_("Send a command, e.g. `status` or `help`."))
    head, *tail = re.split(r"\s+", stripped, maxsplit=1)
    rest = tail[0] if tail else ""
    verb = head.lower()
    words = rest.lower().split()
    read = _READERS.get(verb)
    if read is None:
        raise _unknown_command(head)
    return read(_Said(verb, rest, words, now, week))


@dataclass(frozen=True, slots=True)
class _Said:
    """The words after a command's verb, and what its times are read against."""

    verb: str
    rest: str
    words: list[str]
    now: dt.datetime
    week: MatchWeek


def _read_offer(said: _Said) -> Command:
    return Offer(parse_times(said.rest, now=said.now, week=said.week))


def _read_accept(said: _Said) -> Command:
    rest, words = said.rest, said.words
    if words == ["change"]:
        return AcceptChange()
    if not words:
        raise _error(
            CommandErrorReason.MISSING_ARGUMENT,
            N_(
                "Accept which offer? Send `accept 2` (the number in `status`) "
                "or `accept thu 18:00`."
            ),
        )
    if words[0] == "offer":
        words = words[1:]
        rest = re.sub(r"^\s*offer\b", "", rest, flags=re.IGNORECASE)
    if len(words) == 1 and re.fullmatch(r"#?\d+", words[0], re.ASCII):
        return Accept(index=_parse_index(said.verb, words))
    return Accept(time=parse_one_time(said.verb, rest, now=said.now, week=said.week))


def _read_withdraw(said: _Said) -> Command:
    words = said.words
    if words == ["change"]:
        return DeclineChange()
    if words and words[0] == "offer":
        words = words[1:]
    if not words:
        raise _error(
            CommandErrorReason.MISSING_ARGUMENT,
            N_("Withdraw which offer? Send `withdraw offer 1` (the number in `status`)."),
        )
    return WithdrawOffer(_parse_index(said.verb, words))


def _read_change(said: _Said) -> Command:
    return ProposeChange(parse_one_time(said.verb, said.rest, now=said.now, week=said.week))


def _read_decline(said: _Said) -> Command:
    if said.words != ["change"]:
        raise _error(
            CommandErrorReason.MISSING_ARGUMENT,
            N_("Send `decline change` to refuse a proposed new time."),
        )
    return DeclineChange()


def _read_choose(said: _Said) -> Command:
    return ChooseTime(parse_one_time(said.verb, said.rest, now=said.now, week=said.week))


def _read_status(said: _Said) -> Command:
    return _no_arguments(said.verb, said.rest, Status())


def _read_help(said: _Said) -> Command:
    words = said.words
    if not words:
        return Help()
    topic = words[0]
    if len(words) > 1 or topic not in HELP_TOPICS:
        raise _error(
            CommandErrorReason.UNKNOWN_COMMAND,
            N_("No help on that; topics: %(topics)s."),
            topics=", ".join(sorted(HELP_TOPICS)),
        )
    return Help(topic)


def _read_claim(said: _Said) -> Command:
    if said.words != ["win"]:
        raise _error(
            CommandErrorReason.MISSING_ARGUMENT, N_("To claim the match send `claim win`.")
        )
    return ClaimWin()


def _read_break(said: _Said) -> Command:
    return _no_arguments(said.verb, said.rest, Break())


def _read_report(said: _Said) -> Command:
    body = " ".join(said.rest.split())
    if not body:
        raise _error(
            CommandErrorReason.MISSING_ARGUMENT,
            N_("Write what you want to tell the TDs after `report`; it stays private."),
        )
    return Report(body)


def _read_bid(said: _Said) -> Command:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", "".join(said.words), re.ASCII)
    if m is None or int(m.group(2)) > 59 or int(m.group(1)) * 60 + int(m.group(2)) == 0:
        raise _error(
            CommandErrorReason.BAD_BID,
            N_("Write your bid as minutes:seconds for White, e.g. `bid 1:30`."),
        )
    return Bid(int(m.group(1)) * 60 + int(m.group(2)))


def _read_rps(said: _Said) -> Command:
    words = said.words
    hands = {hand.value: hand for hand in Hand}
    if len(words) != 1 or words[0] not in hands:
        raise _error(
            CommandErrorReason.BAD_HAND, N_("Send `rps rock`, `rps paper` or `rps scissors`.")
        )
    return Rps(hands[words[0]])


def _unknown_command(head: str) -> RulesError:
    """The refusal of a text whose first word ``head`` is no verb of the grammar."""
    shown = head if len(head) <= 20 else head[:20] + "…"
    return _error(
        CommandErrorReason.UNKNOWN_COMMAND,
        N_(
            "I don't know the command '%(command)s'. Commands: %(verbs)s; send `help` for examples."
        ),
        command=shown,
        verbs=", ".join(sorted(VERBS)),
    )


_READERS: dict[str, Callable[[_Said], Command]] = {
    "offer": _read_offer,
    "accept": _read_accept,
    "withdraw": _read_withdraw,
    "change": _read_change,
    "decline": _read_decline,
    "choose": _read_choose,
    "status": _read_status,
    "help": _read_help,
    "claim": _read_claim,
    "break": _read_break,
    "report": _read_report,
    "bid": _read_bid,
    "rps": _read_rps,
}
"""Each verb's reader of the words after it."""
