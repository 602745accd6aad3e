"""The words of a tied knockout match: the repeat week (rules 3.viii.3-4) and the armageddon
procedure (rules 3.ix): the bidding, rock-paper-scissors, the colours, the clock and the game."""

from __future__ import annotations

import datetime as dt

from rules.core.model import PlayerId
from rules.core.ruleset import Ruleset
from rules.stages.armageddon import ArmageddonProcedure, Phase, format_clock

__all__ = [
    "bid_sealed",
    "bidding_opened",
    "clock_statement",
    "game_after_armageddon",
    "game_before_colours",
    "game_needs_a_look",
    "game_wrong_increment",
    "knockout_repeat",
    "no_armageddon",
    "phase_reply",
    "rps_round",
    "rps_sealed",
    "white_named",
    "winner_of",
]


def _at(when: dt.datetime) -> str:
    return f"{when:%a %d %b %H:%M} UTC"


def knockout_repeat(stage: str, *, week: int, match_id: int, white_first: str) -> str:
    """A knockout match tied after ``week`` is played again next week (rules 3.viii.3-4)."""
    return (
        f"Your {stage.replace('_', ' ')} match is tied after week {week}: it is played again "
        f"next week (rules 3.viii.3-4), match {match_id}, {white_first} with White in game 1."
    )


def clock_statement(proc: ArmageddonProcedure, ruleset: Ruleset) -> str:
    """How the armageddon game is set up on Lichess, which gives both sides one clock."""
    assert proc.white is not None
    assert proc.black is not None
    assert proc.white_seconds is not None
    black = format_clock(proc.black_seconds)
    white = format_clock(proc.white_seconds)
    inc = ruleset.armageddon.increment_seconds
    return (
        f"Armageddon (rules 3.ix): {proc.white} plays White with {white}, {proc.black} plays"
        f" Black with {black} and draw odds (a draw is a win for Black), increment {inc}."
        f" Lichess cannot give the two sides different clocks: create a rated"
        f" {ruleset.time_control.variant} game at {black}+{inc} with {proc.white} as White;"
        f" White has {white} of it and loses if they use more. The TDs check the time use."
    )


def phase_reply(proc: ArmageddonProcedure, who: PlayerId) -> str:
    """Where the procedure stands, as ``who`` reads it after their bid or choice."""
    view = proc.view(who)
    if view.phase is Phase.DECIDED:
        assert view.white is not None
        assert view.white_seconds is not None
        colour = "White" if view.white == who else "Black"
        return (
            f"Colours decided: {view.white} plays White with {format_clock(view.white_seconds)},"
            f" {view.black} plays Black with {format_clock(view.black_seconds)} and draw odds."
            f" You play {colour}."
        )
    if view.phase is Phase.RPS:
        return (
            f"The offers were equal: rock-paper-scissors round {view.rps_round} decides who plays"
            " White. Send `rps rock`, `rps paper` or `rps scissors`."
        )
    return "Neither player chose in rock-paper-scissors: the TDs decide who plays White."


def white_named(match_id: int, proc: ArmageddonProcedure) -> str:
    """The TDs named White (rules 3.ix.1.3), as the desk says it back to them."""
    assert proc.white is not None
    assert proc.white_seconds is not None
    return (
        f"Armageddon of match {match_id}: {proc.white} plays White with "
        f"{format_clock(proc.white_seconds)}, {proc.black} Black with "
        f"{format_clock(proc.black_seconds)} and draw odds (named by the TDs, rules 3.ix.1.3)."
    )


def bidding_opened(match_id: int, proc: ArmageddonProcedure) -> str:
    """Both players of a tied match are asked for their sealed time offer for White."""
    low = format_clock(proc.min_white_seconds)
    high = format_clock(proc.black_seconds)
    return (
        f"Your match {match_id} is tied: an armageddon game decides it (rules 3.ix). Black"
        f" has {high} and draw odds, no increment. Send your sealed time offer for White,"
        f" `bid m:ss` between {low} and {high}, by {_at(proc.bid_deadline)}."
        " The lower offer plays White with that time; equal offers go to"
        " rock-paper-scissors. A missing offer loses the bidding."
    )


def rps_round(match_id: int, what: str, *, deadline: dt.datetime) -> str:
    """A round of rock-paper-scissors is open (``what``: how it came to it)."""
    return (
        f"Armageddon of match {match_id}: {what} Send `rps rock`, `rps paper`"
        f" or `rps scissors` by {_at(deadline)}."
    )


def bid_sealed(seconds: int, *, deadline: dt.datetime) -> str:
    return (
        f"Your time offer of {format_clock(seconds)} for White is sealed; it"
        " is revealed when your opponent's offer is in or the deadline passes"
        f" ({_at(deadline)})."
    )


def rps_sealed(round_number: int) -> str:
    return (
        f"Your choice for round {round_number} is sealed; it is revealed when your"
        " opponent's choice is in or the deadline passes."
    )


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


def winner_of(winner: str, loser: str, link: str, match_id: int) -> str:
    return f"{winner} wins the armageddon game {link} and match {match_id} against {loser}."


def game_needs_a_look(link: str, match_id: int, winner: str, facts: str) -> str:
    return f"Armageddon game {link} of match {match_id} ({winner} won) needs a look: {facts}"


def no_armageddon(match_id: int) -> str:
    """A bid or a hand sent to a match that has no armageddon game."""
    return f"Match {match_id} has no armageddon game to bid or choose for."
