"""The words of a match game on Lichess: its time control written out, its challenge's name, and
the message that hands both players the link of the game the bot challenged them to."""

from __future__ import annotations

import datetime as dt

from rules.core.model import PlayerId
from rules.core.ruleset import StageKind, TimeControl
from rules.core.words import ENGLISH, EVERYONE_IN_ENGLISH, Readers, Words
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


def time_control_text(control: TimeControl, words: Words = ENGLISH) -> str:
    """``2+5 rated antichess``: minutes plus increment seconds, as Lichess writes them."""
    clock = f"{_minutes(control.limit_seconds)}+{control.increment_seconds}"
    if control.rated:
        said = words.gettext("%(clock)s rated %(variant)s")
    else:
        said = words.gettext("%(clock)s casual %(variant)s")
    return said % {"clock": clock, "variant": control.variant}


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
    readers: Readers = EVERYONE_IN_ENGLISH,
) -> tuple[Notice, ...]:
    """Both players' message with game ``game``'s link (None: the armageddon game): who has
    White (``names``: White's and Black's usernames), the time control, and when the challenge
    lapses."""
    out = []
    for p in (white, black):
        words = readers.of(p)
        values = {
            "white": names[0],
            "black": names[1],
            "control": time_control_text(control, words),
            "url": url,
            "lapses": label_time(expires_at, words),
            "room": room_url,
            "game": game,
        }
        text = (
            words.gettext(
                "The armageddon game of your ACWC match, %(white)s (White) - %(black)s (Black), "
                "%(control)s: %(url)s\nOnly you two can join this game; open the link at the "
                "agreed time. It lapses at %(lapses)s. Your match room: %(room)s"
            )
            if game is None
            else words.gettext(
                "Game %(game)s of your ACWC match, %(white)s (White) - %(black)s (Black), "
                "%(control)s: %(url)s\nOnly you two can join this game; open the link at the "
                "agreed time. It lapses at %(lapses)s. Your match room: %(room)s"
            )
        ) % values
        out.append(Notice(Audience.PLAYER, p, fit(text, words=words)))
    return tuple(out)


def challenge_missing(
    *,
    names: tuple[str, str],
    game: int | None,
    control: TimeControl,
    room_url: str,
    will_retry: bool,
    words: Words = ENGLISH,
) -> str:
    """What the players read when Lichess did not make game ``game``'s challenge (None: the
    armageddon game): who has White (``names``: White's and Black's usernames), the time
    control to challenge each other with, and the room."""
    head = (
        words.gettext("The bot could not create the armageddon game's challenge on Lichess.")
        if game is None
        else words.gettext("The bot could not create game %(game)s's challenge on Lichess.")
        % {"game": game}
    )
    if will_retry:
        head += " " + words.gettext("It sends the link when Lichess takes it.")
    return (
        head
        + " "
        + words.gettext(
            "Meanwhile play it from your match room, %(room)s, which shows its settings: "
            "%(white)s (White) challenges %(black)s (Black) on Lichess to %(control)s."
        )
        % {
            "room": room_url,
            "white": names[0],
            "black": names[1],
            "control": time_control_text(control, words),
        }
    )


def room_link_line(room_url: str, words: Words = ENGLISH) -> str:
    """The agreed time's DM's last line when it carries no game link."""
    return words.gettext("Your match room: %(room)s") % {"room": room_url}


def broadcast_description(stage_title: str, championship: str, control: str) -> str:
    """A stage's Lichess broadcast, in its own words (markdown)."""
    return (
        f"The {stage_title} of the {championship}, {control}: every game of the week's "
        "players, live."
    )


BULK_GAME_MESSAGE = "{name}: your game is ready: {{game}}"
"""What Lichess writes each player when it creates a bulk-paired game (``{name}``: the
challenge's name; ``{game}``: lila's link)."""
