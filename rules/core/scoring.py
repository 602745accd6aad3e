"""Match scores, clinch, completion and armageddon (rules 3.v.1, 3.vi.3-4, 3.vii.2, 3.viii, 3.ix).

Scores are :class:`fractions.Fraction` so that half points add up exactly.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import Game, Match, PlayerId
from rules.core.ruleset import MatchFormat, Tiebreak

HALF = Fraction(1, 2)


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Game points of the two players of a match, in the match's player order."""

    first: Fraction
    second: Fraction
    games_played: int

    def of(self, match: Match, player: PlayerId) -> Fraction:
        if player == match.white_first:
            return self.first
        if player == match.black_first:
            return self.second
        raise ValueError(f"{player} does not play match {match.id}")

    def __str__(self) -> str:
        return f"{format_points(self.first)}-{format_points(self.second)}"


def format_points(points: Fraction) -> str:
    """``Fraction(11, 2)`` -> ``"5.5"``; ``Fraction(5)`` -> ``"5"``."""
    if points.denominator == 1:
        return str(points.numerator)
    return f"{float(points):g}"


def match_score(match: Match, games: Iterable[Game]) -> MatchScore:
    """Sum the counted games of ``match`` (win 1, draw 1/2, loss 0).

    ``games`` must be the games already accepted for this match; unplayed ones are ignored.
    Raises ``ValueError`` if a game is not between the match's players.
    """
    first = second = Fraction(0)
    played = 0
    for game in games:
        if not game.status.is_played:
            continue
        if {game.white, game.black} != set(match.players):
            raise ValueError(f"game {game.id} is not between the players of match {match.id}")
        first += game.points_of(match.white_first)
        second += game.points_of(match.black_first)
        played += 1
    return MatchScore(first, second, played)


def is_clinched(score: MatchScore, fmt: MatchFormat) -> bool:
    """True when a player has reached the clinch score (rules 3.v.1: 5.5 of 10).

    Formats that need every game (candidates, rules 3.vi.4) never clinch.
    """
    if fmt.clinch_at is None:
        return False
    return max(score.first, score.second) >= fmt.clinch_at


class Outcome(enum.StrEnum):
    IN_PROGRESS = "in_progress"
    FIRST_WINS = "first_wins"  # white_first won the match
    SECOND_WINS = "second_wins"
    TIED = "tied"  # a tied match that stands: ½ match point each
    REPEAT = "repeat"  # tied final: play the match again next week (rules 3.viii.3-4)
    ARMAGEDDON = "armageddon"  # tied: one armageddon game decides (rules 3.vii.2, 3.viii.5)


def match_outcome(
    score: MatchScore, fmt: MatchFormat, *, week: int = 1, stop_at_clinch: bool = True
) -> Outcome:
    """Where the match stands after ``score``.

    A clinched match is decided when the players stop at the clinch (``stop_at_clinch``, the
    usual choice; rules 3.v.1 allows it); otherwise a match is decided when all games are played.
    A level match is ``TIED`` where ties stand, ``REPEAT`` while a final has weeks left, and
    ``ARMAGEDDON`` otherwise.
    """
    if score.games_played > fmt.games:
        raise ValueError(f"{score.games_played} games played in a {fmt.games}-game match")
    done = score.games_played == fmt.games or (stop_at_clinch and is_clinched(score, fmt))
    if not done:
        return Outcome.IN_PROGRESS
    if score.first > score.second:
        return Outcome.FIRST_WINS
    if score.second > score.first:
        return Outcome.SECOND_WINS
    if fmt.tiebreak is Tiebreak.NONE:
        return Outcome.TIED
    if fmt.tiebreak is Tiebreak.REPEAT_THEN_ARMAGEDDON and week < fmt.max_weeks:
        return Outcome.REPEAT
    return Outcome.ARMAGEDDON


def match_points(outcome: Outcome, *, first: bool) -> Fraction:
    """Match points of a finished match: win 1, tied ½, loss 0 (rules 3.v.1, 3.vi.6).

    Raises ``ValueError`` for a match that has no standing result yet.
    """
    if outcome is Outcome.TIED:
        return HALF
    if outcome is Outcome.FIRST_WINS:
        return Fraction(1) if first else Fraction(0)
    if outcome is Outcome.SECOND_WINS:
        return Fraction(0) if first else Fraction(1)
    raise ValueError(f"a match that is {outcome.value} has no match points yet")


def armageddon_winner(game: Game) -> PlayerId:
    """Rules 3.ix.1.1: White wins only by winning; a draw or a Black win gives Black the match."""
    if not game.status.is_played:
        raise ValueError(f"armageddon game {game.id} has no result ({game.status.value})")
    return game.white if game.winner is Colour.WHITE else game.black
