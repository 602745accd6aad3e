"""The words of a registration (rules 2): what keeps a player from registering on their own,
each reason an account may not play, and what the registration check reports to the TDs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from rules.core.words import ENGLISH, N_, Words
from rules.week.calendar import label_date, label_time

__all__ = [
    "LICHESS_ERROR",
    "NO_ACCOUNT",
    "NO_CREATION_DATE",
    "REASONS",
    "cannot_assess",
    "check_stopped",
    "gone",
    "not_a_team_member",
    "read_back",
    "reason",
    "refused_by_tds",
    "token_lacks",
    "unreachable",
    "unreachable_during",
    "window_closed",
]

REASONS = {
    "created_too_late": N_("the account was created too late (rules 2.i)"),
    "too_few_rated_games": N_("too few rated games before the cut-off (rules 2.i)"),
    "bot_account": N_("a BOT account cannot play (rules 2.ii.5)"),
    "cheat_detected": N_(
        "Lichess ended games of the account as cheat detected: one since the first cut-off or "
        "two since the second bar the entry (rules 2.2.3)"
    ),
    "tos_violation": N_("the account is marked for breaking the Lichess terms (rules 2.ii)"),
    "account_closed": N_("the account is closed (rules 2.ii)"),
}
"""Each refusal and review flag in words a player reads (English; the page shows each in its
reader's words, ``words.gettext``)."""

NO_ACCOUNT = N_("no such Lichess account")
NO_CREATION_DATE = N_("Lichess gave no account creation date")
LICHESS_ERROR = N_("Lichess error: %(error)s")
UNREACHABLE = N_("Lichess could not be reached: %(error)s")
CANNOT_ASSESS = N_("cannot assess: %(error)s")
CHECK_STOPPED = N_("the check stopped: %(error)s")
WITH_AN_ERROR = (LICHESS_ERROR, UNREACHABLE, CANNOT_ASSESS, CHECK_STOPPED)
"""Why a check could not be made, around what Lichess (or the check) answered: kept in English
in the check's state like the reasons, and read back in the reader's words (:func:`read_back`)."""


def read_back(text: str, words: Words = ENGLISH) -> str:
    """A reason or a check's problem kept in English, in ``words``: a fixed one as the catalogue
    has it, one around an error with the error as it came (Lichess's words)."""
    for template in WITH_AN_ERROR:
        head = template.split("%(error)s")[0]
        if text.startswith(head):
            return words.gettext(template) % {"error": text[len(head) :]}
    return words.gettext(text) if text else text


def reason(
    code: str,
    *,
    cheat_one_cutoff: dt.date,
    cheat_two_cutoff: dt.date,
    words: Words = ENGLISH,
) -> str:
    """A refusal or review flag in words a player reads, with the settings' dates."""
    if code == "cheat_detected":
        return words.gettext(
            "Lichess ended games of the account as cheat detected: one since %(one)s or two "
            "since %(two)s bar the entry (rules 2.2.3)"
        ) % {"one": label_date(cheat_one_cutoff, words), "two": label_date(cheat_two_cutoff, words)}
    return words.gettext(REASONS[code]) if code in REASONS else code


def gone(status: str, status_reason: str | None, words: Words = ENGLISH) -> str:
    """To a player who left the championship (withdrawn, disqualified) and registers again."""
    said = {
        "withdrawn": words.gettext("You withdrew from this championship"),
        "disqualified": words.gettext("You are disqualified from this championship"),
    }.get(str(status), words.gettext("You left this championship"))
    if status_reason:
        said += f" ({status_reason})"
    return said + words.gettext(
        "; you cannot register again. Write to the TDs if you think this is wrong."
    )


def refused_by_tds(why: str, words: Words = ENGLISH) -> str:
    """To a player the TDs refused by hand (rules 2.2.4), who registers again."""
    return words.gettext(
        "The TDs refused your registration (%(why)s); only they can change that. Write to them "
        "if you think this is wrong."
    ) % {"why": why}


def window_closed(
    opens: dt.datetime | None, closes: dt.datetime | None, words: Words = ENGLISH
) -> str:
    """To a player who registers outside the registration window."""
    if opens is None or closes is None:
        return words.gettext("You cannot register now: registration is closed.")
    return words.gettext(
        "You cannot register now: registration is open from %(opens)s to %(closes)s."
    ) % {"opens": label_time(opens, words), "closes": label_time(closes, words)}


def unreachable(error: object) -> str:
    """Why an account could not be checked: Lichess gave no answer (English, kept)."""
    return UNREACHABLE % {"error": error}


def cannot_assess(error: object) -> str:
    """Why an account could not be checked: what Lichess said of it made no sense."""
    return CANNOT_ASSESS % {"error": error}


def check_stopped(error: BaseException) -> str:
    """Why a player's own check did not finish (it is tried again later)."""
    return CHECK_STOPPED % {"error": f"{error.__class__.__name__}: {error}"}


def not_a_team_member() -> str:
    """The TDs' check: a registered player outside the team."""
    return "not a team member (DMs to them count against the bot's daily limit)"


def token_lacks(user: str | None, missing: Iterable[str]) -> str:
    """The TDs' check refused: the bot's token lacks a scope it needs."""
    who = "an unknown or revoked token" if user is None else f"the token of {user}"
    return f"{who} lacks the scope {', '.join(missing)}: give the bot a token with it"


def unreachable_during(username: str, problem: str | None) -> str:
    """The TDs' check refused: Lichess went away while it ran."""
    return (
        f"Lichess could not be reached while checking {username} ({problem}): nothing was changed"
    )
