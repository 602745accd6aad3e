"""The armageddon game as played, checked against what the procedure decided (rules 3.ix).

:func:`verify_armageddon_game` lists what a recorded game breaks of rules 3.ix, or what its record
cannot show (a TD then checks it); :func:`armageddon_result` gives the winner of a decided
:class:`~rules.stages.armageddon.ArmageddonProcedure`'s game with those findings.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.core.model import Game, GameStatus, PlayerId
from rules.core.ruleset import Ruleset
from rules.core.scoring import armageddon_winner
from rules.stages.armageddon import (
    ArmageddonError,
    ArmageddonErrorReason,
    ArmageddonProcedure,
    Phase,
    format_clock,
)

__all__ = ["Finding", "FindingKind", "Severity", "armageddon_result", "verify_armageddon_game"]


class Severity(enum.Enum):
    WRONG = "wrong"  # the game breaks rules 3.ix as recorded
    UNVERIFIABLE = "unverifiable"  # the record cannot show it; a TD must check


class FindingKind(enum.Enum):
    WRONG_PLAYERS = "wrong_players"
    COLOURS_SWAPPED = "colours_swapped"
    WRONG_VARIANT = "wrong_variant"
    NOT_FINISHED = "not_finished"
    NOT_PLAYED = "not_played"
    NO_CLOCK = "no_clock"
    INCREMENT = "increment"
    BLACK_TIME = "black_time"
    WHITE_TIME_UNVERIFIABLE = "white_time_unverifiable"
    CHEAT_FLAG = "cheat_flag"
    CLAIMED_WIN = "claimed_win"


@dataclass(frozen=True, slots=True)
class Finding:
    kind: FindingKind
    severity: Severity
    message: str


def verify_armageddon_game(
    game: Game,
    expected_white: PlayerId,
    expected_black: PlayerId,
    white_seconds: int,
    ruleset: Ruleset,
) -> list[Finding]:
    """Everything about ``game`` that is wrong or cannot be verified for rules 3.ix.

    An empty list means the record shows a proper armageddon game. Lichess cannot give the two
    sides different clocks through its API, so the usual record is ``black_seconds`` for both
    sides: then White's bid time cannot be checked and a finding says so for the TDs. A clock
    below Black's time is wrong (Black is owed their full time).
    """
    return [
        *_player_findings(game, expected_white, expected_black),
        *_game_findings(game, ruleset),
        *_clock_findings(game, white_seconds, ruleset),
        *_flag_findings(game),
    ]


def _player_findings(
    game: Game, expected_white: PlayerId, expected_black: PlayerId
) -> list[Finding]:
    """Whether the right two players played, each with the colour decided."""
    out: list[Finding] = []
    players = {game.white, game.black}
    if players != {expected_white, expected_black}:
        out.append(
            Finding(
                FindingKind.WRONG_PLAYERS,
                Severity.WRONG,
                f"Game {game.id} is {game.white} v {game.black}, not {expected_white} v"
                f" {expected_black}.",
            )
        )
    elif game.white != expected_white:
        out.append(
            Finding(
                FindingKind.COLOURS_SWAPPED,
                Severity.WRONG,
                f"{expected_white} should have had White in game {game.id} but had Black.",
            )
        )
    return out


def _game_findings(game: Game, ruleset: Ruleset) -> list[Finding]:
    """Whether the game is of the variant and was played to a result."""
    out: list[Finding] = []
    if game.variant != ruleset.time_control.variant:
        out.append(
            Finding(
                FindingKind.WRONG_VARIANT,
                Severity.WRONG,
                f"Game {game.id} is {game.variant}, not {ruleset.time_control.variant}.",
            )
        )
    if not game.status.is_finished:
        out.append(
            Finding(
                FindingKind.NOT_FINISHED,
                Severity.UNVERIFIABLE,
                f"Game {game.id} is not finished yet.",
            )
        )
    elif not game.status.is_played:
        out.append(
            Finding(
                FindingKind.NOT_PLAYED,
                Severity.WRONG,
                f"Game {game.id} ended without a result ({game.status.value}).",
            )
        )
    return out


def _clock_findings(game: Game, white_seconds: int, ruleset: Ruleset) -> list[Finding]:
    """Whether the clock was armageddon's (rules 3.ix.1.1, 3.ix.1.4), as far as the record shows."""
    rules = ruleset.armageddon
    out: list[Finding] = []
    if game.clock_limit is None or game.clock_increment is None:
        out.append(
            Finding(
                FindingKind.NO_CLOCK, Severity.WRONG, f"Game {game.id} was played without a clock."
            )
        )
    else:
        if game.clock_increment != rules.increment_seconds:
            out.append(
                Finding(
                    FindingKind.INCREMENT,
                    Severity.WRONG,
                    f"Game {game.id} had a {game.clock_increment}-second increment; armageddon"
                    f" has {rules.increment_seconds} (rules 3.ix.1.4).",
                )
            )
        if game.clock_limit != rules.black_seconds:
            out.append(
                Finding(
                    FindingKind.BLACK_TIME,
                    Severity.WRONG,
                    f"Game {game.id} started with {format_clock(game.clock_limit)} on the clock;"
                    f" Black is owed {format_clock(rules.black_seconds)} (rules 3.ix.1.1).",
                )
            )
        elif white_seconds != rules.black_seconds:
            out.append(
                Finding(
                    FindingKind.WHITE_TIME_UNVERIFIABLE,
                    Severity.UNVERIFIABLE,
                    f"Both clocks of game {game.id} started at {format_clock(game.clock_limit)};"
                    f" White's {format_clock(white_seconds)} cannot be checked from the game"
                    " record. A TD must check White's time use.",
                )
            )
    return out


def _flag_findings(game: Game) -> list[Finding]:
    """How Lichess ended the game, when a TD must look at it."""
    out: list[Finding] = []
    if game.status is GameStatus.CHEAT:
        out.append(
            Finding(
                FindingKind.CHEAT_FLAG,
                Severity.UNVERIFIABLE,
                f"Lichess ended game {game.id} for cheat detection; a TD must review it.",
            )
        )
    elif game.status is GameStatus.TIMEOUT:
        out.append(
            Finding(
                FindingKind.CLAIMED_WIN,
                Severity.UNVERIFIABLE,
                f"Game {game.id} was won by a claim after a player left; a TD must confirm it.",
            )
        )
    return out


def armageddon_result(
    procedure: ArmageddonProcedure, game: Game, *, ruleset: Ruleset
) -> tuple[PlayerId, list[Finding]]:
    """The winner of the armageddon game and what the TDs should check (rules 3.ix.1.1).

    White wins only by winning; a draw or a Black win gives Black the match
    (:func:`rules.core.scoring.armageddon_winner`). The findings come from
    :func:`verify_armageddon_game` against the colours and time the procedure decided.
    Raises :class:`ArmageddonError` (``WRONG_PHASE``) before the colours are decided and
    ``ValueError`` for a game without a result.
    """
    if procedure.phase is not Phase.DECIDED:
        raise ArmageddonError(
            ArmageddonErrorReason.WRONG_PHASE,
            "The armageddon game counts only after the colours are decided.",
        )
    white, black, seconds = procedure.white, procedure.black, procedure.white_seconds
    assert white is not None
    assert black is not None
    assert seconds is not None
    findings = verify_armageddon_game(game, white, black, seconds, ruleset)
    return armageddon_winner(game), findings
