"""The deadlines a match should have, as data (rules 4.5, 5.1, 5.7, 5.8, 6.3).

:func:`plan_deadlines` computes, from the match's state alone, every deadline it should have now.
After any change the service plans again and applies :func:`diff_deadlines` between the old and
new plans: rows to add, rows to drop. A deadline that has already fired stays in the database as
history; the plan does not know about firing, only about what the state calls for.

Times:

* offers check: when the Friday deadline has passed, Saturday 00:00 UTC (rules 5.1: "by Friday
  23:59 UTC" includes that minute);
* weekend check (rules 5.8): the weekend begins at that same instant; it is planned only while both
  players have made their counted offers and nothing is agreed, and fires after the offers check;
* reply reminder (rules 5.7): 24 hours after the oldest offer the player has not answered;
* no-show checks (rules 6.3): 10 and 20 minutes after the agreed time, until a game starts;
* completion check (rules 4.5): when Monday 23:59 UTC has passed (Tuesday 00:00 UTC).
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable
from dataclasses import dataclass

from rules.core.ruleset import Ruleset
from rules.week.calendar import MatchWeek, match_week
from rules.week.faults import awaiting_reply, offers_counted
from rules.week.negotiation import Negotiation, Phase

__all__ = [
    "Deadline",
    "DeadlineDiff",
    "DeadlineKind",
    "MatchFacts",
    "MatchWeek",
    "diff_deadlines",
    "match_week",
    "plan_deadlines",
]


class DeadlineKind(enum.Enum):
    """In the order deadlines due at the same instant should fire."""

    REPLY_REMINDER = "reply_reminder"  # rules 5.7
    OFFERS_CHECK = "offers_check"  # rules 5.1, 5.5, 5.6
    WEEKEND_CHECK = "weekend_check"  # rules 5.8
    NO_SHOW_FIRST = "no_show_first"  # rules 6.3, +10 minutes
    NO_SHOW_SECOND = "no_show_second"  # rules 6.3, +20 minutes
    COMPLETION_CHECK = "completion_check"  # rules 4.5

    @property
    def rank(self) -> int:
        return list(DeadlineKind).index(self)


@dataclass(frozen=True, slots=True)
class Deadline:
    """One deadline of a match.

    ``subject`` tells deadlines of one kind apart: the player to remind for a reply reminder, the
    agreed time (ISO 8601) for the no-show checks, empty otherwise. The firing handler re-checks
    the state; a deadline is a reason to look, not a verdict.
    """

    kind: DeadlineKind
    due: dt.datetime
    subject: str = ""

    @property
    def sort_key(self) -> tuple[dt.datetime, int, str]:
        return (self.due, self.kind.rank, self.subject)


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What the planner needs: the negotiation, and whether play has begun or ended."""

    negotiation: Negotiation
    started: bool = False  # a match game has started
    completed: bool = False  # the match has a result


def _sorted(deadlines: Iterable[Deadline]) -> list[Deadline]:
    return sorted(deadlines, key=lambda d: d.sort_key)


def plan_deadlines(state: MatchFacts, *, ruleset: Ruleset) -> list[Deadline]:
    """Every deadline ``state`` calls for, sorted by due time then :class:`DeadlineKind` order."""
    n = state.negotiation
    week = n.week
    if state.completed or n.phase is Phase.TIED:
        return []
    plan: list[Deadline] = [Deadline(DeadlineKind.COMPLETION_CHECK, week.closes)]
    phase = n.phase
    if phase is Phase.OPEN and n.ruling is None:
        plan.append(Deadline(DeadlineKind.OFFERS_CHECK, week.offers_close))
    if phase is Phase.OPEN and all(
        offers_counted(n, p) >= ruleset.offers.required_offers for p in n.players
    ):
        plan.append(Deadline(DeadlineKind.WEEKEND_CHECK, week.offers_close))
    for pending in awaiting_reply(n):
        due = pending.since + ruleset.offers.reply_within
        if due < week.closes:
            plan.append(Deadline(DeadlineKind.REPLY_REMINDER, due, pending.player))
    if n.agreement is not None and not state.started:
        when = n.agreement.time
        subject = when.isoformat()
        conduct = ruleset.conduct
        plan.append(Deadline(DeadlineKind.NO_SHOW_FIRST, when + conduct.no_show_grace, subject))
        plan.append(
            Deadline(DeadlineKind.NO_SHOW_SECOND, when + conduct.no_show_second_alert, subject)
        )
    return _sorted(plan)


@dataclass(frozen=True, slots=True)
class DeadlineDiff:
    """How to go from one plan to the next: rows to insert, rows to drop, rows to leave alone."""

    added: tuple[Deadline, ...]
    removed: tuple[Deadline, ...]
    kept: tuple[Deadline, ...]

    @property
    def is_empty(self) -> bool:
        return not self.added and not self.removed


def diff_deadlines(old: Iterable[Deadline], new: Iterable[Deadline]) -> DeadlineDiff:
    """Compare two plans; a deadline is the same when kind, due time and subject are equal."""
    before, after = set(old), set(new)
    return DeadlineDiff(
        added=tuple(_sorted(after - before)),
        removed=tuple(_sorted(before - after)),
        kept=tuple(_sorted(before & after)),
    )
