"""The words of a match's conduct (rules 6): a break called, a claim of the match win sent,
dismissed or open to a player, and a disqualification for forfeits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from rules.core.words import ENGLISH, N_, Words
from rules.stages.formats import stage_name
from rules.week.calendar import label_time
from rules.week.conduct import PauseKind, PauseViolation, minutes_text

__all__ = [
    "account_mark_evidence",
    "account_marked",
    "awarded_after_exit",
    "break_started",
    "claim_dismissed",
    "claim_made_before",
    "claim_open",
    "claim_sent",
    "disqualification_proposed",
    "disqualified",
    "disregarded_after_exit",
    "game_forfeited",
    "mark_words",
    "open_match_awarded",
    "paired_again_after_exit",
]


def claim_made_before(words: Words = ENGLISH) -> str:
    """The reply to a second ``claim win`` of the same player."""
    return words.gettext("You have already claimed the win; the TDs decide and will tell you.")


def break_started(
    player: str,
    *,
    until: dt.datetime,
    words: Words = ENGLISH,
    opponent_words: Words = ENGLISH,
) -> tuple[str, str]:
    """Rules 6.1: what the player who called their break, and their opponent, are told (each
    in their words)."""
    mine = words.gettext(
        "Your one break of this match (rules 6.1) has started: the next game must start by "
        "%(until)s."
    ) % {"until": label_time(until, words)}
    theirs = opponent_words.gettext(
        "%(player)s called their one break (rules 6.1): the next game starts by %(until)s at "
        "the latest."
    ) % {"player": player, "until": label_time(until, opponent_words)}
    return mine, theirs


def claim_sent(against: str, words: Words = ENGLISH) -> str:
    """Rules 6.3, 6.4: what a player who claimed the match win is told."""
    return words.gettext(
        "Your claim of the match win against %(against)s went to the TDs; they decide "
        "(rules 6.3, 6.4) and you will be told."
    ) % {"against": against}


def claim_open(
    violation: PauseViolation, *, break_length: dt.timedelta, words: Words = ENGLISH
) -> str:
    """A pause (rules 6.1, 6.4) gave the player the right to claim the match win: their
    opponent overran a break or took a second one."""
    pause = violation.pause
    values = {
        "game": pause.after_game,
        "length": minutes_text(pause.length),
        "break": minutes_text(break_length),
        "by": pause.taken_by,
    }
    if pause.kind is PauseKind.SECOND_BREAK:
        what = words.gettext(
            "%(by)s took a second break after game %(game)s (%(length)s); each player has one "
            "(rules 6.1)."
        )
    elif pause.ongoing:
        what = words.gettext(
            "The pause after game %(game)s has lasted %(length)s so far, longer than the "
            "%(break)s a break may last (rules 6.1, 6.4); taken by %(by)s."
        )
    else:
        what = words.gettext(
            "The pause after game %(game)s lasted %(length)s, longer than the %(break)s a break "
            "may last (rules 6.1, 6.4); taken by %(by)s."
        )
    claim = words.gettext(
        "You may send `claim win` in your match room; the TDs decide (rules 6.1, 6.4)."
    )
    return f"{what % values} {claim}"


def claim_dismissed(match_id: int, reason: str, words: Words = ENGLISH) -> str:
    """The TDs dismissed the claims of match ``match_id`` (``reason``: the TDs' words)."""
    return words.gettext(
        "The TDs dismissed the claim in match %(match)s: %(reason)s. The match goes on."
    ) % {"match": match_id, "reason": reason}


def disqualified(
    forfeit_limit: int, match_ids: Iterable[int], reason: str, words: Words = ENGLISH
) -> str:
    """Rules 6.5: what a player disqualified for their forfeits is told."""
    return words.gettext(
        "You are disqualified from the ACWC: you were forfeited in %(limit)s different matches "
        "(rules 6.5; matches %(matches)s). TD note: %(reason)s"
    ) % {
        "limit": forfeit_limit,
        "matches": ", ".join(str(i) for i in match_ids),
        "reason": reason,
    }


UNFINISHED_AT_EXIT = N_("rules 8.1.1: unfinished when the opponent left")
ENGINE_MARK_AT_EXIT = N_("rules 8.1.2: adjudicated after an engine mark")
"""Why a match was awarded after a player left: the audit keeps the English, the player reads
it in their words."""


def awarded_after_exit(
    match_id: int, round_number: int, *, left: str, why: str, words: Words = ENGLISH
) -> str:
    """Rules 8.i: a qualification match awarded to the player whose opponent ``left``."""
    return words.gettext(
        "Your qualification match %(match)s (round %(round)s) is awarded to you: %(left)s left "
        "the championship (%(why)s)."
    ) % {"match": match_id, "round": round_number, "left": left, "why": words.gettext(why)}


def paired_again_after_exit(
    slot: str,
    *,
    left: str,
    match_id: int,
    white: str | None,
    black: str | None,
    words: Words = ENGLISH,
) -> str:
    """Rules 8.iii-iv: a knockout match paired again after a player ``left``."""
    return words.gettext(
        "The %(slot)s was paired again after %(left)s left the championship (rules 8.iii-iv): "
        "match %(match)s, %(white)s v %(black)s."
    ) % {
        "slot": _slot(slot, words),
        "left": left,
        "match": match_id,
        "white": white,
        "black": black,
    }


def _slot(slot: str, words: Words) -> str:
    """A knockout slot's name (``sf1``: ``first semifinal``)."""
    names = {
        "sf1": words.gettext("first semifinal"),
        "sf2": words.gettext("second semifinal"),
        "final": words.gettext("final"),
        "third_place": words.gettext("match for third place"),
    }
    return names.get(slot, slot.replace("_", " "))


def disregarded_after_exit(
    match_id: int, round_number: int, *, left: str, words: Words = ENGLISH
) -> str:
    """Rules 8.2: a Candidates match not to be played, its opponent ``left``."""
    return words.gettext(
        "Your Candidates match %(match)s (round %(round)s) will not be played: %(left)s left the "
        "championship, and all their Candidates games are disregarded (rules 8.2)."
    ) % {"match": match_id, "round": round_number, "left": left}


def open_match_awarded(
    stage: str, match_id: int, *, left: str, why: str, words: Words = ENGLISH
) -> str:
    """Rules 8.1.1: a match in play awarded to the player whose opponent ``left`` (``stage``:
    its kind, ``play_in``)."""
    return words.gettext(
        "Your %(stage)s match %(match)s is awarded to you: %(left)s left the championship "
        "(%(why)s)."
    ) % {
        "stage": stage_name(stage, words),
        "match": match_id,
        "left": left,
        "why": words.gettext(why),
    }


def game_forfeited(
    match_id: int, game: int, *, player: str, reason: str, words: Words = ENGLISH
) -> str:
    """Rules 6.2: the TDs recorded a game as forfeited by ``player``."""
    return words.gettext(
        "The TDs recorded game %(game)s of match %(match)s as forfeited by %(player)s (rules "
        "6.2: the rematch must be offered and accepted at once): %(reason)s"
    ) % {"game": game, "match": match_id, "player": player, "reason": reason}


_MARKS = {
    "tos_violation": "marked on Lichess for breaking its terms (an engine or booster mark)",
    "account_closed": "closed on Lichess",
    "cheat_detected": 'named in games Lichess ended as "cheat detected", grounds under rules 2.2.3',
}


def mark_words(marks: list[str]) -> str:
    """An account's marks (rules 7.3) in words: ``tos_violation``, ``account_closed``,
    ``cheat_detected`` (rules 2.2.3)."""
    return " and ".join(_MARKS.get(m, m) for m in marks)


def account_marked(username: str, marks: list[str]) -> str:
    """Rules 7.3: the daily look found a player's account marked or closed, or their new
    "cheat detected" games make the grounds of rules 2.2.3."""
    return (
        f"The daily look (rules 7.3): {username}'s account is {mark_words(marks)}. A player "
        "marked during the championship is disqualified (rules 7.3); the TD desk has the "
        "one-click disqualification, or dismiss it."
    )


def disqualification_proposed(proposal: str) -> str:
    """The TDs' alert of a disqualification the forfeits call for (rules 6.5)."""
    return f"{proposal} Confirm it, or waive a forfeit, on the TD desk."


def account_mark_evidence(username: str, games: dict[str, str]) -> tuple[str, ...]:
    """A marked account's evidence: its page, and its "cheat detected" games (id: created)."""
    return (
        f"https://lichess.org/@/{username}",
        *(f"https://lichess.org/{g} (created {at[:10]})" for g, at in games.items()),
    )
