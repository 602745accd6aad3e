"""A match's result: recomputed from its games, recorded or corrected by a TD, adjudicated.

:func:`refresh_match` is the one place that moves a match along from its games. Whatever changes
a result (game intake, a TD's hand) then calls the :class:`MatchListeners` built in
``bot/app.py`` (the result notices, a tied knockout match's repeat week or armageddon), in the
same transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol

from bot.errors import OperationError
from bot.views.scores import DECIDED_ELSEWHERE, ScoredMatch, match_state
from rules.core.colour import Colour
from rules.core.model import GameStatus, normalise_username
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState
from storage.convert import to_match
from storage.models import GameRow, MatchRow
from storage.uow import UnitOfWork

__all__ = [
    "RESULTS",
    "MatchChanged",
    "MatchListeners",
    "Results",
    "parse_result",
    "refresh_match",
]


class MatchChanged(Protocol):
    """Told, inside the transaction, that a game or a TD changed a match; ``outcome`` is the
    new outcome when it changed, else ``None``."""

    async def __call__(self, uow: UnitOfWork, match_id: int, outcome: Outcome | None) -> None: ...


class MatchListeners:
    """Every :class:`MatchChanged` listener, called in order."""

    def __init__(self, listeners: Sequence[MatchChanged]) -> None:
        self.listeners = tuple(listeners)

    async def __call__(self, uow: UnitOfWork, match_id: int, outcome: Outcome | None) -> None:
        for listener in self.listeners:
            await listener(uow, match_id, outcome)


async def refresh_match(uow: UnitOfWork, match_id: int, *, now: dt.datetime) -> ScoredMatch:
    """Recompute a match's state from its games (the one place that moves a match along).

    A match decided by forfeit, by a TD or by its armageddon game keeps that decision; one decided
    by games follows them, so a corrected game can reopen or re-decide it.
    """
    state = await match_state(uow, match_id)
    row = state.row
    if row.decided_by in DECIDED_ELSEWHERE or state.outcome is None:
        return state
    if state.outcome is Outcome.IN_PROGRESS:
        row.state, row.outcome, row.decided_by, row.completed_at = (
            MatchState.SCHEDULED,
            None,
            None,
            None,
        )
    else:
        if row.outcome is not state.outcome:
            row.completed_at = now
        row.state = (
            MatchState.COMPLETE
            if state.outcome in (Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.TIED)
            else MatchState(state.outcome.value)
        )
        row.outcome = state.outcome
        row.decided_by = DecidedBy.GAMES
    await uow.flush()
    return state


RESULTS = {
    "1-0": (GameStatus.RESIGN, Colour.WHITE),
    "0-1": (GameStatus.RESIGN, Colour.BLACK),
    "1/2-1/2": (GameStatus.DRAW, None),
    "½-½": (GameStatus.DRAW, None),
    "draw": (GameStatus.DRAW, None),
}


def parse_result(text: str) -> tuple[GameStatus, Colour | None]:
    try:
        return RESULTS[text.strip().lower()]
    except KeyError:
        raise OperationError(
            f"result {text!r} is not one of 1-0, 0-1, 1/2-1/2 (White's view)"
        ) from None


class Results:
    """The TDs' hand on results (rules 1.3, 4.5); ``on_change``: the match listeners."""

    def __init__(self, on_change: MatchChanged) -> None:
        self.on_change = on_change

    async def record(
        self,
        uow: UnitOfWork,
        match_id: int,
        *,
        game_number: int,
        result: str,
        reason: str,
        now: dt.datetime,
        actor: str,
    ) -> ScoredMatch:
        """A TD records game ``game_number`` of a match by hand or corrects it (rules 1.3).

        The match listeners run as for a game from Lichess (result notices, knockout repeats).
        """
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        status, winner = parse_result(result)
        state = await match_state(uow, match_id)
        row = state.row
        if row.black_first is None:
            raise OperationError(f"match {match_id} is a bye; it has no games")
        if not 1 <= game_number <= min(len(state.games) + 1, row.games):
            raise OperationError(
                f"match {match_id} has {len(state.games)} counted games of {row.games}: "
                f"give a game number from 1 to {min(len(state.games) + 1, row.games)}"
            )
        match = to_match(row)
        if game_number <= len(state.games):
            game = state.games[game_number - 1]
            before = {"status": game.status, "winner": game.winner}
            game.status, game.winner = status, None if winner is None else winner.value
            action = "result.correct"
        else:
            white = match.white_in_game(game_number)
            game = await uow.games.add(
                GameRow(
                    id=f"td-{match_id}-{game_number}-w{row.week}",
                    match_id=row.id,
                    white=white,
                    black=match.opponent_of(white),
                    status=status,
                    winner=None if winner is None else winner.value,
                    variant="antichess",
                    rated=True,
                    clock_limit=None,
                    clock_increment=None,
                    created_at=now,
                    last_move_at=now,
                    counted=True,
                    refusal=None,
                    source="td",
                    recorded_at=now,
                )
            )
            before = None
            action = "result.record"
        await uow.flush()
        outcome_before = row.outcome
        new_state = await refresh_match(uow, match_id, now=now)
        changed = new_state.outcome if row.outcome != outcome_before else None
        await self.on_change(uow, match_id, changed)
        await uow.audit.record(
            at=now,
            actor=actor,
            action=action,
            reason=reason,
            match_id=match_id,
            details={
                "game": game.id,
                "number": game_number,
                "result": result,
                "before": before,
                "score": str(new_state.score),
                "outcome": None if new_state.outcome is None else new_state.outcome.value,
            },
        )
        return new_state

    async def adjudicate(
        self,
        uow: UnitOfWork,
        match_id: int,
        *,
        winner: str | None,
        reason: str,
        now: dt.datetime,
        actor: str,
    ) -> MatchRow:
        """A TD decides an unfinished match (rules 1.3, 4.5): ``winner`` or, with None, a tie."""
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        row = await uow.matches.get(match_id)
        if row is None:
            raise OperationError(f"there is no match {match_id}")
        if row.black_first is None:
            raise OperationError(f"match {match_id} is a bye")
        if winner is None:
            outcome = Outcome.TIED
        else:
            pid = normalise_username(winner)
            if pid not in (row.white_first, row.black_first):
                raise OperationError(f"{winner} does not play match {match_id}")
            outcome = Outcome.FIRST_WINS if pid == row.white_first else Outcome.SECOND_WINS
        before = {"state": row.state, "outcome": row.outcome, "decided_by": row.decided_by}
        row.state, row.outcome, row.decided_by = MatchState.COMPLETE, outcome, DecidedBy.TD
        row.completed_at = now
        await uow.audit.record(
            at=now,
            actor=actor,
            action="match.adjudicate",
            reason=reason,
            match_id=match_id,
            details={"before": before, "outcome": outcome},
        )
        await uow.flush()
        await self.on_change(uow, match_id, outcome)
        return row
