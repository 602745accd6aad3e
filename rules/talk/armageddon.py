"""The words of a tied knockout match: the repeat week (rules 3.viii.3-4) and the armageddon
procedure (rules 3.ix): the bidding, rock-paper-scissors, the colours, the clock and the game."""

from __future__ import annotations

import datetime as dt

from rules.core.model import PlayerId
from rules.core.ruleset import Ruleset
from rules.core.words import ENGLISH, N_, Words
from rules.stages.armageddon import ArmageddonProcedure, Phase, format_clock
from rules.stages.formats import stage_name
from rules.week.calendar import label_time

__all__ = [
    "NO_ARMAGEDDON",
    "bid_sealed",
    "bidding_opened",
    "clock_statement",
    "game_after_armageddon",
    "game_before_colours",
    "game_needs_a_look",
    "game_wrong_increment",
    "knockout_repeat",
    "phase_reply",
    "rps_round",
    "rps_sealed",
    "white_named",
    "winner_of",
]


def _at(when: dt.datetime, words: Words = ENGLISH) -> str:
    return f"{when:%a %d %b %H:%M} UTC" if words is ENGLISH else label_time(when, words)


def knockout_repeat(
    stage: str, *, week: int, match_id: int, white_first: str, words: Words = ENGLISH
) -> str:
    """A knockout match tied after ``week`` is played again next week (rules 3.viii.3-4)."""
    return words.gettext(
        "Your %(stage)s match is tied after week %(week)s: it is played again next week (rules "
        "3.viii.3-4), match %(match)s, %(white)s with White in game 1."
    ) % {
        "stage": stage_name(stage, words).lower(),
        "week": week,
        "match": match_id,
        "white": white_first,
    }


def clock_statement(proc: ArmageddonProcedure, ruleset: Ruleset, words: Words = ENGLISH) -> str:
    """How the armageddon game is set up on Lichess, which gives both sides one clock."""
    assert proc.white is not None
    assert proc.black is not None
    assert proc.white_seconds is not None
    return words.gettext(
        "Armageddon (rules 3.ix): %(white)s plays White with %(white_clock)s, %(black)s plays "
        "Black with %(black_clock)s and draw odds (a draw is a win for Black), increment "
        "%(inc)s. Lichess cannot give the two sides different clocks: create a rated "
        "%(variant)s game at %(black_clock)s+%(inc)s with %(white)s as White; White has "
        "%(white_clock)s of it and loses if they use more. The TDs check the time use."
    ) % {
        "white": proc.white,
        "black": proc.black,
        "white_clock": format_clock(proc.white_seconds),
        "black_clock": format_clock(proc.black_seconds),
        "inc": ruleset.armageddon.increment_seconds,
        "variant": ruleset.time_control.variant,
    }


def phase_reply(proc: ArmageddonProcedure, who: PlayerId, words: Words = ENGLISH) -> str:
    """Where the procedure stands, as ``who`` reads it after their bid or choice."""
    view = proc.view(who)
    if view.phase is Phase.DECIDED:
        assert view.white is not None
        assert view.white_seconds is not None
        values = {
            "white": view.white,
            "black": view.black,
            "white_clock": format_clock(view.white_seconds),
            "black_clock": format_clock(view.black_seconds),
        }
        return (
            words.gettext(
                "Colours decided: %(white)s plays White with %(white_clock)s, %(black)s plays "
                "Black with %(black_clock)s and draw odds. You play White."
            )
            if view.white == who
            else words.gettext(
                "Colours decided: %(white)s plays White with %(white_clock)s, %(black)s plays "
                "Black with %(black_clock)s and draw odds. You play Black."
            )
        ) % values
    if view.phase is Phase.RPS:
        return words.gettext(
            "The offers were equal: rock-paper-scissors round %(round)s decides who plays "
            "White. Send `rps rock`, `rps paper` or `rps scissors`."
        ) % {"round": view.rps_round}
    return words.gettext(
        "Neither player chose in rock-paper-scissors: the TDs decide who plays White."
    )


def white_named(match_id: int, proc: ArmageddonProcedure) -> str:
    """The TDs named White (rules 3.ix.1.3), as the desk says it back to them."""
    assert proc.white is not None
    assert proc.white_seconds is not None
    return (
        f"Armageddon of match {match_id}: {proc.white} plays White with "
        f"{format_clock(proc.white_seconds)}, {proc.black} Black with "
        f"{format_clock(proc.black_seconds)} and draw odds (named by the TDs, rules 3.ix.1.3)."
    )


def bidding_opened(match_id: int, proc: ArmageddonProcedure, words: Words = ENGLISH) -> str:
    """Both players of a tied match are asked for their sealed time offer for White."""
    return words.gettext(
        "Your match %(match)s is tied: an armageddon game decides it (rules 3.ix). Black has "
        "%(high)s and draw odds, no increment. Send your sealed time offer for White, "
        "`bid m:ss` between %(low)s and %(high)s, by %(deadline)s. The lower offer plays White "
        "with that time; equal offers go to rock-paper-scissors. A missing offer loses the "
        "bidding."
    ) % {
        "match": match_id,
        "low": format_clock(proc.min_white_seconds),
        "high": format_clock(proc.black_seconds),
        "deadline": _at(proc.bid_deadline, words),
    }


def rps_round(
    match_id: int, proc: ArmageddonProcedure, *, drawn: bool = False, words: Words = ENGLISH
) -> str:
    """A round of rock-paper-scissors is open: the offers were equal, or (``drawn``) the round
    before was drawn."""
    assert proc.rps_deadline is not None
    values = {
        "match": match_id,
        "clock": format_clock(proc.tied_seconds or 0),
        "round": proc.rps_round,
        "deadline": _at(proc.rps_deadline, words),
    }
    head = (
        words.gettext(
            "Armageddon of match %(match)s: the last round was drawn; rock-paper-scissors round "
            "%(round)s decides who plays White."
        )
        if drawn
        else words.gettext(
            "Armageddon of match %(match)s: equal offers of %(clock)s, so rock-paper-scissors "
            "round %(round)s decides who plays White."
        )
    )
    return (
        head
        + " "
        + words.gettext("Send `rps rock`, `rps paper` or `rps scissors` by %(deadline)s.")
    ) % values


def bid_sealed(seconds: int, *, deadline: dt.datetime, words: Words = ENGLISH) -> str:
    return words.gettext(
        "Your time offer of %(clock)s for White is sealed; it is revealed when your opponent's "
        "offer is in or the deadline passes (%(deadline)s)."
    ) % {"clock": format_clock(seconds), "deadline": _at(deadline, words)}


def rps_sealed(round_number: int, words: Words = ENGLISH) -> str:
    return words.gettext(
        "Your choice for round %(round)s is sealed; it is revealed when your opponent's choice "
        "is in or the deadline passes."
    ) % {"round": round_number}


def game_after_armageddon(link: str, match_id: int) -> str:
    return f"Game {link} came after the armageddon game of match {match_id}; not counted."


def game_wrong_increment(
    link: str, players: tuple[str, str], match_id: int, increment: int | None, ruleset: Ruleset
) -> str:
    return (
        f"Game {link} between {players[0]} and {players[1]} was played while match"
        f" {match_id} waits for its armageddon game, but with increment"
        f" {increment}; armageddon has"
        f" {ruleset.armageddon.increment_seconds or 'none'} (rules 3.ix.1.4)."
        " Not counted."
    )


def game_before_colours(link: str, match_id: int) -> str:
    return (
        f"Game {link} of match {match_id} was played before the armageddon colours"
        " were decided; not counted."
    )


def winner_of(winner: str, loser: str, link: str, match_id: int, words: Words = ENGLISH) -> str:
    return words.gettext(
        "%(winner)s wins the armageddon game %(link)s and match %(match)s against %(loser)s."
    ) % {"winner": winner, "link": link, "match": match_id, "loser": loser}


def game_needs_a_look(link: str, match_id: int, winner: str, facts: str) -> str:
    return f"Armageddon game {link} of match {match_id} ({winner} won) needs a look: {facts}"


NO_ARMAGEDDON = N_("Match %(match)s has no armageddon game to bid or choose for.")
"""A bid or a hand sent to a match that has no armageddon game (a refusal's template)."""
