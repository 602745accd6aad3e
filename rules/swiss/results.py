"""What each entrant of the qualification Swiss got in each round (rules 3.v.1, 8.i).

A round of the qualification is a 10-game match; its result is counted in *match points* (win 1,
tied 5-5 1/2, loss 0) and, as extra information, in *game points*. A player's round is one
:class:`RoundResult`, whatever happened:

=============  ==========================================  ============================  =====
kind           what happened                               FIDE C.07 (2026) Art. 16.2    match
                                                                                         points
=============  ==========================================  ============================  =====
PLAYED         the match was played to a result            (a played round)              1/½/0
BYE            pairing-allocated bye                       16.2.1                        1 [*]_
FORFEIT_WIN    opponent did not play (no-show, forfeit,    16.2.2                        1
               withdrawal, engine adjudication)
FORFEIT_LOSS   the player did not play                     16.2.4                        0
ABSENT         not paired this round (a requested bye)     16.2.3 or 16.2.5              0 [+]_
WITHDRAWN      a round after withdrawal/disqualification   16.2.5 (16.1.1 note)          0
=============  ==========================================  ============================  =====

.. [*] ``Stages.bye_is_match_win`` (the default) makes the bye a match win; when it is False the
   bye counts as a tied match (½), which is this module's reading: the ruleset has no other value.

.. [+] ½ where the TDs grant a half-point bye at their discretion (rules 5.10); 0 otherwise.

A TD ruling that a match counts as a draw (rules 5.6, 5.9) is recorded as PLAYED with ½ each and
no games: the two players were paired and the ruling is their result.

Colour is who had White in game 1. Forfeits carry a colour only when games were played in the
match, because FIDE does not count a game that was not played for colour history.

This module also holds the exit (withdrawal / disqualification) value and the error tree of the
qualification, so that :mod:`rules.swiss.tiebreaks` and :mod:`rules.stages.qualification` share them
without importing each other.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.core.model import PlayerId

__all__ = [
    "Adjudication",
    "Entrant",
    "Exit",
    "ExitKind",
    "QualificationError",
    "QualificationErrorReason",
    "ResultKind",
    "RoundResult",
    "results_by_player",
    "rounds_in",
]

ZERO = Fraction(0)
HALF = Fraction(1, 2)
ONE = Fraction(1)
_MATCH_POINTS = (ZERO, HALF, ONE)


class QualificationErrorReason(enum.Enum):
    TOO_FEW_ENTRANTS = "too_few_entrants"
    DUPLICATE_PLAYER = "duplicate_player"
    UNKNOWN_PLAYER = "unknown_player"
    INVALID_RESULT = "invalid_result"
    DUPLICATE_RESULT = "duplicate_result"
    MISSING_RESULT = "missing_result"
    INCONSISTENT_RESULTS = "inconsistent_results"
    MATCH_NOT_FINISHED = "match_not_finished"
    INVALID_EXIT = "invalid_exit"
    NOT_SEEDED = "not_seeded"


class QualificationError(RulesError):
    """A request or a set of results that the qualification rules cannot accept."""

    def __init__(self, reason: QualificationErrorReason, message: str) -> None:
        super().__init__(reason, message)
        self.reason: QualificationErrorReason = reason


class ResultKind(enum.Enum):
    """What one player's round of the qualification was, for the standings and the tiebreaks
    (the Dutch engine's coarser view of a past round is :class:`rules.swiss.dutch.RoundKind`)."""

    PLAYED = "played"
    BYE = "bye"
    FORFEIT_WIN = "forfeit_win"
    FORFEIT_LOSS = "forfeit_loss"
    ABSENT = "absent"
    WITHDRAWN = "withdrawn"

    @property
    def is_played(self) -> bool:
        return self is ResultKind.PLAYED

    @property
    def has_opponent(self) -> bool:
        """A scheduled opponent exists: a played match or a forfeit."""
        return self in (ResultKind.PLAYED, ResultKind.FORFEIT_WIN, ResultKind.FORFEIT_LOSS)

    @property
    def is_requested_bye(self) -> bool:
        """C.07 16.1.1: a zero-point bye, including every round after a withdrawal."""
        return self in (ResultKind.ABSENT, ResultKind.WITHDRAWN)

    @property
    def is_voluntary_unplayed(self) -> bool:
        """C.07 16.1.2 (VUR): the player was not available: a requested bye or a forfeit loss."""
        return self.is_requested_bye or self is ResultKind.FORFEIT_LOSS


class Adjudication(enum.Enum):
    """Why a forfeit was decided by the rules rather than by a no-show."""

    NONE = "none"
    UNFINISHED_AT_EXIT = "unfinished_at_exit"  # rules 8.i.1
    ENGINE_MARK = "engine_mark"  # rules 8.i.2


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One player's result in one round of the qualification.

    ``match_points`` decide the standings; ``game_points`` (out of ``games`` played in the match)
    are shown as extra information only. Raises :class:`QualificationError` (``INVALID_RESULT``)
    when the fields contradict the kind.
    """

    player: PlayerId
    round: int
    kind: ResultKind
    match_points: Fraction
    opponent: PlayerId | None = None
    colour: Colour | None = None
    game_points: Fraction = ZERO
    games: int = 0
    adjudication: Adjudication = Adjudication.NONE

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise QualificationError(
                QualificationErrorReason.INVALID_RESULT,
                f"Round {self.round} result of {self.player} is not valid: {problem}.",
            )

    def _problem(self) -> str | None:  # noqa: C901 (one check a line of a result's fields)
        if self.round < 1:
            return "rounds are numbered from 1"
        if self.match_points not in _MATCH_POINTS:
            return "match points must be 1, 1/2 or 0"
        if self.games < 0 or not ZERO <= self.game_points <= self.games:
            return "game points must lie between 0 and the number of games played"
        if self.kind.has_opponent:
            if self.opponent is None or self.opponent == self.player:
                return "a match or a forfeit needs an opponent other than the player"
        elif self.opponent is not None or self.colour is not None:
            return "a bye, an absence or a withdrawal has no opponent and no colour"
        if self.kind is ResultKind.PLAYED and self.colour is None:
            return "a played match needs the colour of game 1"
        if self.kind is ResultKind.FORFEIT_WIN and self.match_points != ONE:
            return "a forfeit win is worth 1 match point"
        if self.kind is ResultKind.FORFEIT_LOSS and self.match_points != ZERO:
            return "a forfeit loss is worth 0 match points"
        if self.kind.is_requested_bye and self.games:
            return "an absence or a withdrawal has no games"
        if self.kind is ResultKind.ABSENT and self.match_points == ONE:
            return "an absence is worth 0 or 1/2 match points"
        if self.kind is ResultKind.WITHDRAWN and self.match_points != ZERO:
            return "a round after withdrawal is worth 0 match points"
        if self.adjudication is not Adjudication.NONE and self.kind not in (
            ResultKind.FORFEIT_WIN,
            ResultKind.FORFEIT_LOSS,
        ):
            return "only a forfeit can be adjudicated"
        return None


@dataclass(frozen=True, slots=True)
class Entrant:
    """A qualification entrant with their pairing number (1 = highest seed, rules 3.v.3)."""

    pairing_number: int
    player: PlayerId
    username: str
    seed_rating: int | None


class ExitKind(enum.Enum):
    """How a player leaves the qualification (rules 8.i)."""

    WITHDRAWAL = "withdrawal"
    DISQUALIFICATION = "disqualification"  # e.g. a booster mark or two forfeits (rules 6.5)
    ENGINE_DISQUALIFICATION = "engine_disqualification"  # rules 8.i.2 applies too

    @property
    def reverses_finished_matches(self) -> bool:
        return self is ExitKind.ENGINE_DISQUALIFICATION


@dataclass(frozen=True, slots=True)
class Exit:
    """A player leaves after ``last_round``: their pairings up to it stand, later ones do not.

    A player who leaves during round 4 with the match unfinished has ``last_round=4`` (that match
    goes to the opponent); one who leaves between rounds 3 and 4 has ``last_round=3``.
    """

    player: PlayerId
    kind: ExitKind
    last_round: int

    def __post_init__(self) -> None:
        if self.last_round < 0:
            raise QualificationError(
                QualificationErrorReason.INVALID_EXIT,
                f"{self.player} cannot leave after round {self.last_round}.",
            )


def _check_pair(mine: RoundResult, theirs: RoundResult) -> str | None:
    if theirs.kind.has_opponent and theirs.opponent == mine.player:
        if mine.kind is ResultKind.PLAYED:
            if theirs.kind is not ResultKind.PLAYED:
                return "one side played the match, the other did not"
            if mine.match_points + theirs.match_points != ONE:
                return "match points of a match must add up to 1"
            if mine.colour is None or theirs.colour is not mine.colour.opposite:
                return "the two players cannot both have had the same colour in game 1"
            if mine.games != theirs.games or mine.game_points + theirs.game_points > mine.games:
                return "the game points of the two players do not fit the games played"
            return None
        expected = {
            ResultKind.FORFEIT_WIN: ResultKind.FORFEIT_LOSS,
            ResultKind.FORFEIT_LOSS: ResultKind.FORFEIT_WIN,
        }
        if theirs.kind is not expected[mine.kind]:
            return "a forfeit win needs a forfeit loss on the other side"
        return None
    return "the opponent's result names someone else"


def results_by_player(
    players: Iterable[PlayerId], results: Iterable[RoundResult]
) -> dict[PlayerId, tuple[RoundResult, ...]]:
    """Group ``results`` per player, in round order, checking they form a consistent table.

    Every player must have exactly one result in each round 1..k, where k is the highest round in
    ``results``; every opponent must be a known player whose result in that round mirrors it.
    Raises :class:`QualificationError` naming the first problem found (players and rounds are
    checked in a fixed order, so the message does not depend on the input order).
    """
    known = sorted(set(players))
    table: dict[PlayerId, dict[int, RoundResult]] = {p: {} for p in known}
    rounds = 0
    for result in results:
        if result.player not in table:
            raise QualificationError(
                QualificationErrorReason.UNKNOWN_PLAYER,
                f"{result.player} has a result but is not an entrant.",
            )
        if result.opponent is not None and result.opponent not in table:
            raise QualificationError(
                QualificationErrorReason.UNKNOWN_PLAYER,
                f"{result.player} has {result.opponent} as an opponent, who is not an entrant.",
            )
        if result.round in table[result.player]:
            raise QualificationError(
                QualificationErrorReason.DUPLICATE_RESULT,
                f"{result.player} has two results in round {result.round}.",
            )
        table[result.player][result.round] = result
        rounds = max(rounds, result.round)
    for player in known:
        for rnd in range(1, rounds + 1):
            if rnd not in table[player]:
                raise QualificationError(
                    QualificationErrorReason.MISSING_RESULT,
                    f"{player} has no result in round {rnd}.",
                )
            mine = table[player][rnd]
            if mine.opponent is not None:
                problem = _check_pair(mine, table[mine.opponent][rnd])
                if problem is not None:
                    raise QualificationError(
                        QualificationErrorReason.INCONSISTENT_RESULTS,
                        f"Round {rnd}, {player} against {mine.opponent}: {problem}.",
                    )
    return {p: tuple(table[p][r] for r in range(1, rounds + 1)) for p in known}


def rounds_in(table: Mapping[PlayerId, tuple[RoundResult, ...]]) -> int:
    """The number of rounds a table from :func:`results_by_player` covers."""
    return max((len(rs) for rs in table.values()), default=0)
