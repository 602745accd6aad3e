"""The words of a match game on Lichess: its time control written out, its challenge's name, and
the message that hands both players the link of the game the bot challenged them to."""

from __future__ import annotations

import datetime as dt

from rules.core.model import PlayerId
from rules.core.ruleset import StageKind, TimeControl
from rules.stages.formats import stage_name
from rules.talk.notices import Audience, Notice, fit
from rules.week.calendar import label_time

__all__ = [
    "BULK_GAME_MESSAGE",
    "broadcast_description",
    "challenge_missing",
    "challenge_name",
    "game_link",
    "room_link_line",
    "time_control_text",
]


def _minutes(seconds: int) -> str:
    return str(seconds // 60) if seconds % 60 == 0 else f"{seconds / 60:g}"


def time_control_text(control: TimeControl) -> str:
    """``2+5 rated antichess``: minutes plus increment seconds, as Lichess writes them."""
    rated = "rated" if control.rated else "casual"
    clock = f"{_minutes(control.limit_seconds)}+{control.increment_seconds}"
    return f"{clock} {rated} {control.variant}"


def challenge_name(
    *, event: str, stage: StageKind, round: int, white: str, black: str, game: int | None
) -> str:
    """The challenge's name the players see on Lichess: ``ACWC 2021 Qualification R3: A vs B,
    game 1`` (``game`` None: the armageddon)."""
    which = "armageddon" if game is None else f"game {game}"
    return f"{event} {stage_name(stage)} R{round}: {white} vs {black}, {which}"


def game_link(
    *,
    white: PlayerId,
    black: PlayerId,
    names: tuple[str, str],
    game: int | None,
    url: str,
    control: TimeControl,
    expires_at: dt.datetime,
    room_url: str,
) -> tuple[Notice, ...]:
    """Both players' message with game ``game``'s link (None: the armageddon game): who has
    White (``names``: White's and Black's usernames), the time control, and when the challenge
    lapses."""
    which = "The armageddon game" if game is None else f"Game {game}"
    text = (
        f"{which} of your ACWC match, {names[0]} (White) - {names[1]} (Black), "
        f"{time_control_text(control)}: {url}\n"
        "Only you two can join this game; open the link at the agreed time. "
        f"It lapses at {label_time(expires_at)}. Your match room: {room_url}"
    )
    return tuple(Notice(Audience.PLAYER, p, fit(text)) for p in (white, black))


def challenge_missing(
    *,
    names: tuple[str, str],
    game: int | None,
    control: TimeControl,
    room_url: str,
    will_retry: bool,
) -> str:
    """What the players read when Lichess did not make game ``game``'s challenge (None: the
    armageddon game): who has White (``names``: White's and Black's usernames), the time
    control to challenge each other with, and the room."""
    which = "the armageddon game" if game is None else f"game {game}"
    later = " It sends the link when Lichess takes it." if will_retry else ""
    return (
        f"The bot could not create {which}'s challenge on Lichess.{later} Meanwhile play it "
        f"from your match room, {room_url}, which shows its settings: {names[0]} (White) "
        f"challenges {names[1]} (Black) on Lichess to {time_control_text(control)}."
    )


def room_link_line(room_url: str) -> str:
    """The agreed time's DM's last line when it carries no game link."""
    return f"Your match room: {room_url}"


def broadcast_description(stage_title: str, championship: str, control: str) -> str:
    """A stage's Lichess broadcast, in its own words (markdown)."""
    return (
        f"The {stage_title} of the {championship}, {control}: every game of the week's "
        "players, live."
    )


BULK_GAME_MESSAGE = "{name}: your game is ready: {{game}}"
"""What Lichess writes each player when it creates a bulk-paired game (``{name}``: the
challenge's name; ``{game}``: lila's link)."""
