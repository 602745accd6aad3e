"""The help a player reads (``help``, ``help offer``): every number in it from the rule set, so a
TD who changes a setting never sends players the old regulations' figures."""

from __future__ import annotations

from rules.core.ruleset import Ruleset
from rules.core.words import ENGLISH, Words
from rules.week.calendar import label_duration
from rules.week.conduct import no_show_rule

__all__ = ["HELP_TOPICS", "VERBS", "help_text", "offer_duty"]

HELP_TOPICS = (
    "offer",
    "accept",
    "withdraw",
    "change",
    "choose",
    "status",
    "claim",
    "break",
    "report",
    "bid",
    "rps",
)
"""The commands ``help`` explains, one topic each."""

VERBS = (*HELP_TOPICS, "help", "decline")
"""Every word a command may start with."""


def _weekday_name(words: Words, number: int) -> str:
    return (
        words.gettext("Monday"),
        words.gettext("Tuesday"),
        words.gettext("Wednesday"),
        words.gettext("Thursday"),
        words.gettext("Friday"),
        words.gettext("Saturday"),
        words.gettext("Sunday"),
    )[number]


def offer_duty(ruleset: Ruleset, words: Words = ENGLISH) -> str:
    """Rules 5.1 and 5.4 in numbers: ``at least 3 by Friday 23:59 UTC, 3 hours apart, at most
    2 on one date``."""
    offers = ruleset.offers
    return words.gettext(
        "at least %(required)s by %(weekday)s %(time)s UTC, %(gap)s apart, at most "
        "%(per_date)s on one date"
    ) % {
        "required": offers.required_offers,
        "weekday": _weekday_name(words, offers.deadline_weekday),
        "time": f"{offers.deadline_time:%H:%M}",
        "gap": label_duration(offers.min_gap, words),
        "per_date": offers.max_per_date,
    }


def _topics(ruleset: Ruleset, words: Words) -> dict[str, str]:
    """Each command's help: its example, in the code's English (a command is English), and what
    it does, in ``words``."""
    conduct = ruleset.conduct
    return {
        "offer": "offer thu 18:00, 2021-10-15 21:00 - "
        + words.gettext("offer start times (UTC); %(duty)s (rules 5.1, 5.4)")
        % {"duty": offer_duty(ruleset, words)},
        "accept": "accept 2 - "
        + words.gettext("accept your opponent's offer number 2 (or: accept thu 18:00)"),
        "withdraw": "withdraw offer 1 - " + words.gettext("take back your offer number 1"),
        "change": "change fri 20:00 - "
        + words.gettext(
            "ask to move the agreed time; it moves only if your opponent sends "
            "`accept change` (`decline change` refuses)"
        ),
        "choose": "choose sat 16:00 - "
        + words.gettext("pick the time when your opponent missed the offers deadline"),
        "status": "status - " + words.gettext("your match, the offers and the deadlines"),
        "claim": "claim win - "
        + words.gettext("claim the match when your opponent has not shown up: %(rule)s")
        % {"rule": no_show_rule(conduct, words)},
        "break": "break - "
        + words.gettext("call your one break between two games, %(length)s at most (rules 6.1)")
        % {"length": label_duration(conduct.break_length, words)},
        "report": "report <text> - "
        + words.gettext(
            "a private message to the TDs, e.g. a suspicion of cheating (rules 7.1: never "
            "accuse anyone in public)"
        ),
        "bid": "bid 1:30 - "
        + words.gettext("armageddon: the time you would take as White (lowest bid plays White)"),
        "rps": "rps rock|paper|scissors - "
        + words.gettext("armageddon: decides White after identical bids"),
    }


def help_text(topic: str | None = None, *, ruleset: Ruleset, words: Words = ENGLISH) -> str:
    """The help for one command (one of :data:`HELP_TOPICS`), or a summary of all of them, in
    ``words`` (the commands themselves stay English).

    Raises ``KeyError`` for a topic that is not one."""
    topics = _topics(ruleset, words)
    if topic is not None:
        return topics[topic]
    lines = [words.gettext("Commands (all times UTC, e.g. `offer 2021-10-14 18:00`):")]
    lines.extend(f"- {topics[verb]}" for verb in sorted(topics))
    return "\n".join(lines)
