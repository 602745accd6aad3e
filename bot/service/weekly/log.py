"""A match's current week, loaded for a change, and the events a change appends (rules 5)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from bot.errors import OperationError
from rules.core.model import GameStatus
from rules.core.ruleset import Ruleset
from rules.core.states import MatchState
from rules.week.negotiation import Negotiation
from storage.match_log import replay
from storage.models import GameRow, MatchRow
from storage.models_weekly import MatchEventRow
from storage.uow import UnitOfWork

__all__ = ["Loaded", "append", "games_started", "is_decided", "load"]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A match row with its current week's negotiation and events (in order)."""

    row: MatchRow
    negotiation: Negotiation
    events: tuple[MatchEventRow, ...]


async def load(uow: UnitOfWork, ruleset: Ruleset, match_id: int) -> Loaded:
    """The match and its current week; :class:`OperationError` if unknown or unpublished."""
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    events = tuple(await uow.weekly.events(row.id, week=row.week))
    try:
        negotiation = replay(events, ruleset)
    except LookupError:
        raise OperationError(f"match {match_id}: its pairing is not published yet") from None
    return Loaded(row, negotiation, events)


async def append(
    uow: UnitOfWork,
    row: MatchRow,
    *,
    at: dt.datetime,
    actor: str,
    kind: str,
    data: dict[str, Any] | None = None,
    via: str | None = None,
) -> MatchEventRow:
    """Append one event to the match's current week."""
    return await uow.weekly.append(
        row.id, week=row.week, at=at, actor=actor, kind=kind, data=data, via=via
    )


def is_decided(row: MatchRow) -> bool:
    """Decided, or void (replaced or disregarded after an exit, rules 8): nothing to play."""
    return row.outcome is not None or row.state == MatchState.VOID


async def games_started(uow: UnitOfWork, row: MatchRow, since: dt.datetime) -> int:
    """Games of the match begun since ``since``: counted ones and ones in progress. A game
    Lichess made by bulk pairing is "started" from its creation, whether or not the players
    came: it counts only once a move was made (rules 6.3: it is no evidence of presence)."""
    games = await uow.games.for_match(row.id, counted_only=False)
    bulk: set[str] = set()
    if any(not g.counted and g.status is GameStatus.STARTED for g in games):
        # (only a game in progress asks: most matches changed have none, and it was a query)
        bulk = await uow.tokens.bulk_game_ids(row.white_first, row.black_first or row.white_first)

    def begun(g: GameRow) -> bool:
        if g.counted:
            return True
        if g.status is not GameStatus.STARTED:
            return False
        return g.id not in bulk or (g.last_move_at is not None and g.last_move_at > g.created_at)

    return sum(1 for g in games if g.created_at >= since and begun(g))
