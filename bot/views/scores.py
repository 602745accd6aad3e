"""A match's score and outcome, recomputed from its counted games every time (never stored)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import OperationError
from rules.core.scoring import MatchScore, Outcome, match_outcome, match_score
from storage.convert import to_game, to_match
from storage.models import GameRow, MatchRow
from storage.uow import UnitOfWork

__all__ = ["DECIDED_ELSEWHERE", "ScoredMatch", "decided_outcome", "match_state"]

DECIDED_ELSEWHERE = ("forfeit", "td", "bye", "armageddon")
"""How a match can be decided other than by its games: its stored outcome stands."""


@dataclass(frozen=True, slots=True)
class ScoredMatch:
    """A stored match with its score recomputed from the counted games."""

    row: MatchRow
    games: tuple[GameRow, ...]
    score: MatchScore | None
    outcome: Outcome | None


async def match_state(uow: UnitOfWork, match_id: int) -> ScoredMatch:
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    games = tuple(await uow.games.for_match(row.id))
    if row.black_first is None:
        return ScoredMatch(row, games, None, None)
    match = to_match(row)
    score = match_score(match, [to_game(g) for g in games])
    return ScoredMatch(row, games, score, match_outcome(score, match.format, week=row.week))


async def decided_outcome(uow: UnitOfWork, row: MatchRow) -> Outcome | None:
    """Where a match stands: a stored decision (forfeit, TD, armageddon) or its games."""
    if row.decided_by in DECIDED_ELSEWHERE and row.outcome is not None:
        return Outcome(row.outcome)
    return (await match_state(uow, row.id)).outcome
