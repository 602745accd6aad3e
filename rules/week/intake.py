"""Does a Lichess game belong to a match? The pure decision behind game intake.

The games stream reports every game between two watched players: friendly games, games of the
wrong time control, aborted games, games of another pairing, arena or lobby games, games from a
custom position. :func:`classify_game` says whether a game is a game of this match (rules 3.i:
rated, 2+5, antichess; between the paired players, started inside the match window; a challenge
game from the standard start, with the colours the match's order gives) and which facts the TDs
must look at. Each strict check is a pure function returning its refusal reason or ``None``
(:func:`settings_refusal`, :func:`origin_refusal`, :func:`colour_refusal`). It reads no clock:
the window, the match's state and the bot's own challenges come in ``MatchContext``.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from rules.core.model import Game, GameId, GameStatus, Match
from rules.core.ruleset import Ruleset, TimeControl

__all__ = [
    "CHALLENGE_SOURCES",
    "Accepted",
    "Alert",
    "IntakeDecision",
    "MatchContext",
    "RefusalReason",
    "Refused",
    "classify_game",
    "colour_refusal",
    "origin_refusal",
    "settings_refusal",
]

CHALLENGE_SOURCES = frozenset({"friend"})
"""The ``source`` Lichess gives a game made from a challenge, open or addressed (lila's
``ChallengeJoiner`` makes every challenge game with ``Source.Friend``). Every other source (lobby,
pool, arena, swiss, simul, ai, import, position...) is not a match game."""


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
    WRONG_SOURCE = "wrong_source"  # not a challenge game: lobby, arena, Swiss, simul, pool, AI...
    UNKNOWN_SOURCE = "unknown_source"  # Lichess did not say how the game was made
    FROM_POSITION = "from_position"  # started from a custom position, not the variant's start
    WRONG_COLOURS = "wrong_colours"  # colours not as the match's order gives them

    @property
    def label(self) -> str:
        """The reason in a few words, for TDs and the demo's figures."""
        return _LABELS.get(self, self.value.replace("_", " "))


_LABELS = {
    RefusalReason.OTHER_PLAYERS: "not the two paired players",
    RefusalReason.BEFORE_WINDOW: "started before the match window",
    RefusalReason.AFTER_WINDOW: "started after the match window",
    RefusalReason.NOT_STARTED: "never started",
    RefusalReason.CASUAL: "casual, not rated",
    RefusalReason.MATCH_COMPLETE: "the match was already complete",
    RefusalReason.WRONG_SOURCE: "not a challenge game",
    RefusalReason.UNKNOWN_SOURCE: "Lichess did not say how the game was made",
    RefusalReason.FROM_POSITION: "from a custom position",
    RefusalReason.WRONG_COLOURS: "colours not as the match's order gives them",
}


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
    ended, if any (long-gap alert). ``next_game``: the number of the match's next game (1 when
    none counted yet), whose White the match's order names. ``challenges``: the games of the
    bot's own challenges for this match, by id (a challenge's game has the challenge's id), with
    the number of the game each was made for.
    """

    match: Match
    window_start: dt.datetime
    window_end: dt.datetime
    is_complete: bool = False
    previous_game_ended_at: dt.datetime | None = None
    next_game: int = 1
    challenges: Mapping[GameId, int] = field(default_factory=dict)


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
    4.5); aborted or never started (quietly); then, each with a TD alert, the game's settings
    (variant, clock, rated, standard start: rules 3.i), its origin (a challenge game, rules
    3.i), the match already complete, and the colours of the match's order. A game
    of one of the bot's own challenges is known by its id: its origin needs no check. A
    ``cheat`` ending is refused with an alert: its result waits for the TDs (rules 7). An
    accepted game carries alerts for a ``timeout`` claim (rules 6.4 gives a player who left 10
    minutes) and a gap longer than a break since the previous game (rules 6.1-6.2). Never
    raises.
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
    strict = (
        settings_refusal(game, ruleset.time_control)
        or origin_refusal(game, context)
        or (RefusalReason.MATCH_COMPLETE if context.is_complete else None)
        or colour_refusal(game, context)
    )
    if strict is not None:
        return Refused(game, strict, alert_td=True)
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


def settings_refusal(game: Game, control: TimeControl) -> RefusalReason | None:
    """Rules 3.i: the variant, the clock, rated, and the variant's own start position."""
    if game.variant != control.variant:
        return RefusalReason.WRONG_VARIANT
    if not has_time_control(game, control):
        return RefusalReason.WRONG_CLOCK
    if game.rated != control.rated:
        return RefusalReason.CASUAL
    if game.initial_fen is not None:
        return RefusalReason.FROM_POSITION
    return None


def origin_refusal(game: Game, context: MatchContext) -> RefusalReason | None:
    """A match game is a challenge game: one of the bot's own (known by id), or any game Lichess
    made from a challenge. A game whose source is not known yet is refused only once it is over
    (a started one is evidence that both players showed up, nothing more)."""
    if game.id in context.challenges:
        return None
    if game.source is None:
        return RefusalReason.UNKNOWN_SOURCE if game.status.is_finished else None
    if game.source not in CHALLENGE_SOURCES:
        return RefusalReason.WRONG_SOURCE
    return None


def colour_refusal(game: Game, context: MatchContext) -> RefusalReason | None:
    """White in the game the bot challenged for (or else the match's next game) is
    the player the match's order names."""
    number = context.challenges.get(game.id, context.next_game)
    if game.white != context.match.white_in_game(max(1, number)):
        return RefusalReason.WRONG_COLOURS
    return None


def has_time_control(game: Game, control: TimeControl) -> bool:
    """The game's clock is the championship's (rules 3.i: 2+5)."""
    return (
        game.clock_limit == control.limit_seconds
        and game.clock_increment == control.increment_seconds
    )
