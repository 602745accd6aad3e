"""The words of the TDs' alerts and notes that are not about a match week's negotiation: a game
that did not count or needs a look, an armageddon nobody chose colours for, a notice that could
not be delivered, and a forfeit in a disqualification's evidence."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from rules.core.model import Game
from rules.week.calendar import label_time

__all__ = [
    "DIGEST_FOLDED_HEAD",
    "armageddon_undecided",
    "data_removal_asked",
    "digest_head",
    "digest_line",
    "forfeit_line",
    "game_flagged",
    "game_refused",
    "lichess_unreachable",
    "missed_notice",
    "note_label",
    "undelivered",
]


def _link(game: Game) -> str:
    return f"https://lichess.org/{game.id}"


def game_refused(game: Game, *, match_id: int, reason: str) -> str:
    """A game of a paired couple that does not count for their match, and why (``reason``)."""
    rated = "rated" if game.rated else "casual"
    return (
        f"Game {_link(game)} between {game.white} and {game.black} does not count for match "
        f"{match_id}: {reason} ({game.variant}, {rated}, "
        f"{game.clock_limit}+{game.clock_increment}, source {game.source or 'unknown'}). "
        "If it should count: its card on the TD desk counts it (Count it: 1-0, 0-1 or draw)."
    )


def game_flagged(game: Game, *, match_id: int, facts: Sequence[str]) -> str:
    """A game that counted but shows ``facts`` the TDs should look at."""
    return (
        f"Game {_link(game)} of match {match_id} ({game.white} - {game.black}) counted, but "
        f"needs a look: {', '.join(facts)}. To change it: Record or correct a result on the TD "
        f"desk (match {match_id})."
    )


def armageddon_undecided(match_id: int, players: tuple[str, str]) -> str:
    """Neither player of an armageddon chose in rock-paper-scissors: the TDs give White."""
    return (
        f"Armageddon of match {match_id} ({players[0]} v {players[1]}): neither player chose in "
        "rock-paper-scissors. Decide who plays White with the buttons of its card on the TD desk."
    )


def data_removal_asked(name: str) -> str:
    """A player asks that their data be removed: a TD confirms it, or keeps it with a reason."""
    return (
        f"{name} asks that their data be removed. Confirm it, or keep it with a reason, with "
        "the buttons of its card on the TD desk: their results stay on record either way."
    )


def undelivered(recipient: str, *, why: str, missed: Sequence[str]) -> str:
    """The notices to ``recipient`` (``missed``: what each was) that no DM could carry."""
    return (
        f"A notice to {recipient} could not be delivered by DM: {why}. "
        f'They missed: {"; ".join(missed)}. It is in their match room under "your notices"; '
        "please reach them another way."
    )


def forfeit_line(match_id: int, kind: str, reason: str, at: dt.datetime) -> str:
    """One forfeit in the evidence of a disqualification the TDs confirm (rules 6.5)."""
    return f"forfeit in match {match_id} ({kind}, {reason}) on {label_time(at)}"


def missed_notice(label: str, match_id: int | None) -> str:
    """What one undelivered notice was, in a few words: its kind and match."""
    return label if match_id is None else f"{label} (match {match_id})"


def lichess_unreachable(since: dt.datetime, waiting: int) -> str:
    """The TDs' note of an outage: the waiting messages will be late, not lost."""
    return (
        f"Lichess has not been reachable since {since:%a %d %b %H:%M} UTC: {waiting} "
        "message(s) to players and TDs wait and go out as soon as it is back. They will "
        "be late, not lost; nothing needs doing."
    )


DIGEST_FOLDED_HEAD = "Also since the last digest (nothing here needs a decision):"
"""The line before the notes a decision's alert carries (the desk shows the alert without them)."""


def digest_head(day: dt.date) -> str:
    """The TDs' daily digest's first line."""
    return f"ACWC daily digest, {day:%a %d %b %Y} (nothing here needs a decision)."


def note_label(label: str, match_id: int | None) -> str:
    """A note's kind (``label``) and its match, as the digest names it."""
    return f"{label}, match {match_id}" if match_id is not None else label


def digest_line(label: str, first: str) -> str:
    """One note as a line of the digest: its label and its first line."""
    return f"- {label}: {first}"
