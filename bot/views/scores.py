"""A match's score and outcome, recomputed from its counted games every time (never stored)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.errors import OperationError
from rules.core.ruleset import StageKind
from rules.core.scoring import MatchScore, Outcome, match_outcome, match_score
from rules.core.states import DecidedBy
from rules.swiss.results import ExitKind
from storage.convert import to_game, to_match
from storage.models import GameRow, MatchRow
from storage.uow import UnitOfWork

__all__ = [
    "DECIDED_ELSEWHERE",
    "ScoredMatch",
    "decided_outcome",
    "engine_marked_loser",
    "match_state",
    "scored",
]

DECIDED_ELSEWHERE = ("forfeit", "td", "bye", "armageddon")
"""How a match can be decided other than by its games: its stored outcome stands."""


@dataclass(frozen=True, slots=True)
class ScoredMatch:
    """A stored match with its score recomputed from the counted games."""

    row: MatchRow
    games: tuple[GameRow, ...]
    score: MatchScore | None
    """The game points as they count: as played, or (rules 8.i.2) all to the opponent."""
    outcome: Outcome | None
    engine_adjudicated: bool = False
    """Rules 8.i.2: the loser was disqualified for an engine mark, so every finished game of
    this qualification match counts for the opponent."""


async def match_state(uow: UnitOfWork, match_id: int) -> ScoredMatch:
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    return await scored(uow, row)


async def scored(uow: UnitOfWork, row: MatchRow) -> ScoredMatch:
    """:func:`match_state` of a match row already read."""
    games = tuple(await uow.games.for_match(row.id))
    if row.black_first is None:
        return ScoredMatch(row, games, None, None)
    match = to_match(row)
    score = match_score(match, [to_game(g) for g in games])
    outcome = match_outcome(score, match.format, week=row.week)
    if await engine_marked_loser(uow, row) is not None and score.games_played:
        won = Fraction(score.games_played)
        first_won = row.outcome == Outcome.FIRST_WINS
        score = MatchScore(
            first=won if first_won else Fraction(0),
            second=Fraction(0) if first_won else won,
            games_played=score.games_played,
        )
        return ScoredMatch(row, games, score, outcome, engine_adjudicated=True)
    return ScoredMatch(row, games, score, outcome)


async def engine_marked_loser(uow: UnitOfWork, row: MatchRow) -> str | None:
    """The player who lost this qualification match by forfeit because they were disqualified
    for an engine mark (rules 8.i.2), else None."""
    if row.stage != StageKind.QUALIFICATION.value or row.decided_by != DecidedBy.FORFEIT:
        return None
    if row.outcome not in (Outcome.FIRST_WINS, Outcome.SECOND_WINS) or row.black_first is None:
        return None
    loser = row.black_first if row.outcome == Outcome.FIRST_WINS else row.white_first
    for exit_row in await uow.stages.exits(StageKind.QUALIFICATION.value):
        if exit_row.player_id == loser and ExitKind(exit_row.kind).reverses_finished_matches:
            return loser
    return None


async def decided_outcome(uow: UnitOfWork, row: MatchRow) -> Outcome | None:
    """Where a match stands: a stored decision (forfeit, TD, armageddon) or its games."""
    if row.decided_by in DECIDED_ELSEWHERE and row.outcome is not None:
        return Outcome(row.outcome)
    return (await match_state(uow, row.id)).outcome
