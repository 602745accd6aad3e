"""The match room's words about its week: the ruling on the offers, a request to move the agreed
time, rules 6.3 once the agreed time has passed with no game, and the refusals of a text sent
to a match that is not the sender's to act in."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from rules.core.ruleset import Conduct
from rules.core.words import ENGLISH, Words
from rules.talk.notices import describe_time
from rules.week.calendar import label_time
from rules.week.conduct import claim_opens, no_show_rule
from rules.week.negotiation import RulingKind

__all__ = [
    "NoShowCheckSeen",
    "bye_match",
    "change_asked_line",
    "match_not_published",
    "match_over",
    "no_show_lines",
    "no_such_match",
    "not_your_match",
    "result_recorded",
    "ruling_line",
]


def _ruling(kind: RulingKind, words: Words) -> str:
    return {
        RulingKind.OFFERS_ONE_AT_FAULT: words.gettext(
            "%(f)s made too few offers by the deadline (rules 5.5); %(c)s chooses the time"
        ),
        RulingKind.OFFERS_BOTH_AT_FAULT: words.gettext(
            "neither player made the required offers (rules 5.6): tied match, a forfeit each"
        ),
        RulingKind.TD_PLAYER_AT_FAULT: words.gettext(
            "the TDs found %(f)s at fault (rules 5.9); %(c)s chooses the time"
        ),
        RulingKind.TD_NOBODY_AT_FAULT: words.gettext(
            "the TDs found nobody at fault (rules 5.9): tied match"
        ),
    }[kind]


def ruling_line(
    kind: RulingKind, *, at_fault: Iterable[str], chooser: str | None, words: Words = ENGLISH
) -> str:
    """The ruling on the offers in words; ``at_fault`` and ``chooser`` as the room names them."""
    return _ruling(kind, words) % {"f": ", ".join(at_fault), "c": chooser}


def change_asked_line(
    by: str, time: dt.datetime, *, now: dt.datetime, words: Words = ENGLISH
) -> str:
    """A pending request of ``by`` to move the agreed time to ``time``."""
    return words.gettext("%(by)s asks to move the match to %(time)s") % {
        "by": by,
        "time": describe_time(time, now=now, words=words),
    }


@dataclass(frozen=True, slots=True)
class NoShowCheckSeen:
    """What one of the bot's checks after the agreed time saw (names as the room spells them)."""

    at: dt.datetime
    appeared: tuple[str, ...]
    absent: tuple[str, ...]


def no_show_lines(
    conduct: Conduct,
    agreed: dt.datetime,
    checks: Iterable[NoShowCheckSeen],
    *,
    now: dt.datetime,
    words: Words = ENGLISH,
) -> tuple[str, ...]:
    """Rules 6.3 in the room: the one rule's wording, when a claim opens, what the checks saw."""
    opens = claim_opens(conduct, agreed)
    when = {"time": describe_time(opens, now=now, words=words)}
    lines = [
        words.gettext("No game has started yet. The rule: %(rule)s.")
        % {"rule": no_show_rule(conduct, words)},
        words.gettext("A no-show can be claimed from %(time)s.") % when
        if now < opens
        else words.gettext("A no-show can be claimed since %(time)s.") % when,
    ]
    both = words.gettext(" and ")
    for check in checks:
        at = label_time(check.at, words)
        if not check.appeared:
            lines.append(
                words.gettext("Check at %(time)s: neither player was seen online.") % {"time": at}
            )
        elif check.absent:
            lines.append(
                words.gettext("Check at %(time)s: %(seen)s was seen online; %(absent)s was not.")
                % {"time": at, "seen": both.join(check.appeared), "absent": both.join(check.absent)}
            )
        else:
            lines.append(
                words.gettext("Check at %(time)s: %(seen)s was seen online.")
                % {"time": at, "seen": both.join(check.appeared)}
            )
    return tuple(lines)


def no_such_match(match_id: int, words: Words = ENGLISH) -> str:
    return words.gettext("There is no match %(match)s.") % {"match": match_id}


def bye_match(match_id: int, words: Words = ENGLISH) -> str:
    return words.gettext("Match %(match)s is a bye; there is nothing to schedule.") % {
        "match": match_id
    }


def not_your_match(
    player: str, match_id: int, players: tuple[str, str | None], words: Words = ENGLISH
) -> str:
    return words.gettext(
        "%(player)s does not play match %(match)s (%(first)s - %(second)s); you can act only in "
        "your own match room."
    ) % {"player": player, "match": match_id, "first": players[0], "second": players[1]}


def match_not_published(match_id: int, words: Words = ENGLISH) -> str:
    return words.gettext(
        "The pairing of match %(match)s is not published yet; wait for the pairings."
    ) % {"match": match_id}


def _outcome(outcome: str | None, words: Words) -> str:
    said = {
        "first_wins": words.gettext("won by the first player"),
        "second_wins": words.gettext("won by the second player"),
        "tied": words.gettext("tied"),
        "repeat": words.gettext("tied: replayed next week"),
        "armageddon": words.gettext("tied: armageddon decides"),
    }
    return said.get(outcome or "", str(outcome))


def _decided_by(decided_by: str | None, words: Words) -> str:
    said = {
        "games": words.gettext("by the games"),
        "forfeit": words.gettext("by forfeit"),
        "td": words.gettext("by the TDs"),
        "armageddon": words.gettext("by the armageddon"),
        "bye": words.gettext("a bye"),
    }
    return said.get(decided_by or "", str(decided_by))


def match_over(match_id: int, outcome: str | None, words: Words = ENGLISH) -> str:
    return words.gettext("Match %(match)s is over (%(outcome)s); nothing is left to schedule.") % {
        "match": match_id,
        "outcome": _outcome(outcome, words),
    }


def result_recorded(outcome: str | None, decided_by: str | None, words: Words = ENGLISH) -> str:
    """The ``status`` reply's last line once the match is decided."""
    return words.gettext("Result recorded: %(outcome)s (%(how)s).") % {
        "outcome": _outcome(outcome, words),
        "how": _decided_by(decided_by, words),
    }
