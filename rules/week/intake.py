"""Does a Lichess game belong to a match? The pure decision behind game intake.

The games stream reports every game between two watched players: friendly games, games of the
wrong time control, aborted games, games of another pairing. :func:`classify_game` says whether
a game is a game of this match (rules 3.i: rated, 2+5, antichess; between the paired players,
started inside the match window) and which facts the TDs must look at. It reads no clock: the
window and the match's state come in ``MatchContext``.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass
from typing import TypeAlias

from rules.core.model import Game, GameStatus, Match
from rules.core.ruleset import Ruleset, TimeControl

__all__ = [
    "Accepted",
    "Alert",
    "IntakeDecision",
    "MatchContext",
    "RefusalReason",
    "Refused",
    "classify_game",
]


class RefusalReason(enum.Enum):
    """Why a game is not recorded for a match."""

    OTHER_PLAYERS = "other_players"  # not the two paired players
    BEFORE_WINDOW = "before_window"  # started before the match window opened
    AFTER_WINDOW = "after_window"  # started after the match window closed (rules 4.5)
    ABORTED = "aborted"  # aborted on Lichess: never counts
    NOT_STARTED = "not_started"  # noStart: a player never moved (no-show evidence, not a game)
    UNKNOWN_FINISH = "unknown_finish"  # Lichess could not tell how it ended
    WRONG_VARIANT = "wrong_variant"  # rules 3.i: antichess
    WRONG_CLOCK = "wrong_clock"  # rules 3.i: 2+5
    CASUAL = "casual"  # rules 3.i: all games rated
    MATCH_COMPLETE = "match_complete"  # the match was already decided or played out
    CHEAT = "cheat"  # Lichess ended it for cheating: the TDs rule on it (rules 7)


class Alert(enum.Enum):
    """Facts about an accepted game that the TDs decide on."""

    TIMEOUT_CLAIM = "timeout_claim"  # a win claimed after the opponent left (rules 6.4: 10 min)
    LONG_GAP = "long_gap"  # started more than a break after the previous game (rules 6.1-6.2)


@dataclass(frozen=True, slots=True)
class MatchContext:
    """What intake knows about the match when a game arrives.

    ``window_start``/``window_end``: when the match's games may start (publication to the
    completion deadline, rules 4.4-4.5). ``is_complete``: the match is already decided or all
    its games are played. ``previous_game_ended_at``: when the match's latest accepted game
    ended, if any (long-gap alert).
    """

    match: Match
    window_start: dt.datetime
    window_end: dt.datetime
    is_complete: bool = False
    previous_game_ended_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class Accepted:
    """The game is one of the match's games.

    A game in progress (``started``) is accepted too, so intake can tell both players showed
    up (rules 6.3); only a finished game (``is_final``) has a result to record.
    """

    game: Game
    alerts: tuple[Alert, ...] = ()

    @property
    def is_final(self) -> bool:
        return self.game.status.is_played

    @property
    def alert_td(self) -> bool:
        return bool(self.alerts)


@dataclass(frozen=True, slots=True)
class Refused:
    """The game is not recorded; ``alert_td`` when the TDs should hear about it."""

    game: Game
    reason: RefusalReason
    alert_td: bool


IntakeDecision: TypeAlias = Accepted | Refused


def classify_game(game: Game, context: MatchContext, *, ruleset: Ruleset) -> IntakeDecision:
    """Decide whether ``game`` counts for ``context.match`` (rules 3.i, 4.5, 6, 7).

    Checks, in order: the two paired players (else refused quietly, it is someone else's or a
    friendly game); started inside the window (before it: quietly; after it: TDs alerted, rules
    4.5); aborted or never started (quietly); variant, clock and rated (TDs alerted, rules 3.i);
    the match already complete (TDs alerted). A ``cheat`` ending is refused with an alert: its
    result waits for the TDs (rules 7). An accepted game carries alerts for a ``timeout`` claim
    (rules 6.4 gives a player who left 10 minutes) and a gap longer than a break since the
    previous game (rules 6.1-6.2). Never raises.
    """
    match = context.match
    if {game.white, game.black} != set(match.players) or game.white == game.black:
        return Refused(game, RefusalReason.OTHER_PLAYERS, alert_td=False)
    if game.created_at < context.window_start:
        return Refused(game, RefusalReason.BEFORE_WINDOW, alert_td=False)
    if game.created_at > context.window_end:
        return Refused(game, RefusalReason.AFTER_WINDOW, alert_td=True)
    if game.status is GameStatus.ABORTED:
        return Refused(game, RefusalReason.ABORTED, alert_td=False)
    if game.status is GameStatus.NO_START:
        return Refused(game, RefusalReason.NOT_STARTED, alert_td=False)
    control = ruleset.time_control
    if game.variant != control.variant:
        return Refused(game, RefusalReason.WRONG_VARIANT, alert_td=True)
    if not has_time_control(game, control):
        return Refused(game, RefusalReason.WRONG_CLOCK, alert_td=True)
    if game.rated != control.rated:
        return Refused(game, RefusalReason.CASUAL, alert_td=True)
    if context.is_complete:
        return Refused(game, RefusalReason.MATCH_COMPLETE, alert_td=True)
    if game.status is GameStatus.UNKNOWN_FINISH:
        return Refused(game, RefusalReason.UNKNOWN_FINISH, alert_td=True)
    alerts: list[Alert] = []
    if game.status is GameStatus.CHEAT:
        return Refused(game, RefusalReason.CHEAT, alert_td=True)
    if game.status is GameStatus.TIMEOUT:
        alerts.append(Alert.TIMEOUT_CLAIM)
    previous_end = context.previous_game_ended_at
    if previous_end is not None and game.created_at - previous_end > ruleset.conduct.break_length:
        alerts.append(Alert.LONG_GAP)
    return Accepted(game, tuple(alerts))


def has_time_control(game: Game, control: TimeControl) -> bool:
    """The game's clock is the championship's (rules 3.i: 2+5)."""
    return (
        game.clock_limit == control.limit_seconds
        and game.clock_increment == control.increment_seconds
    )
