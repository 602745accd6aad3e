"""The games a transaction read of each match, kept while it lasts (``GameRepository.for_match``).

A unit of work asks for one match's games several times (the intake, the match's state, the
match listeners): they are read once and the memo follows the games the transaction adds or
changes in place; it is forgotten when a game is deleted or moved, on a bulk statement touching
games, a commit or a rollback.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import ORMExecuteState, Session

from storage.models import GameRow

__all__ = ["games_memo", "writes_games"]

_GAMES_MEMO = "acwc.games_of_match"


def games_memo(session: Session) -> dict[int, tuple[GameRow, ...]]:
    memo: dict[int, tuple[GameRow, ...]] = session.info.setdefault(_GAMES_MEMO, {})
    return memo


def _forget_games(session: Session, *_args: Any) -> None:
    session.info.pop(_GAMES_MEMO, None)


def writes_games(session: Session, match_id: int) -> bool:
    """Game rows added, changed or deleted in the session and not flushed yet that may touch
    ``match_id``'s games (a batch's other matches' new rows wait for its commit)."""
    for o in (*session.new, *session.dirty, *session.deleted):
        if not isinstance(o, GameRow):
            continue
        if o in session.deleted or o.match_id == match_id:
            return True
        if o not in session.new and inspect(o).attrs.match_id.history.has_changes():
            return True  # moved: from this match, maybe
    return False


def _follow_game_writes(session: Session, _context: Any) -> None:
    """After a flush: the memo follows games changed in place and games added (the intake's),
    and is forgotten when a game was deleted or moved (its match or its time changed) or an
    added game's time ties with another's (the database orders those by id, in its own
    collation)."""
    memo: dict[int, tuple[GameRow, ...]] | None = session.info.get(_GAMES_MEMO)
    if not memo:
        return
    if any(isinstance(o, GameRow) for o in session.deleted):
        _forget_games(session)
        return
    for obj in session.dirty:
        if isinstance(obj, GameRow):
            state = inspect(obj)
            if any(state.attrs[k].history.has_changes() for k in ("id", "match_id", "created_at")):
                _forget_games(session)
                return
    for obj in session.new:
        if not isinstance(obj, GameRow) or obj.match_id not in memo:
            continue
        rows = memo[obj.match_id]
        if any(r.created_at == obj.created_at for r in rows):
            _forget_games(session)
            return
        memo[obj.match_id] = tuple(sorted((*rows, obj), key=lambda r: r.created_at))


def _forget_games_on_bulk(state: ORMExecuteState) -> None:
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    table = getattr(getattr(state.statement, "table", None), "name", None)
    if table in ("games", None):
        _forget_games(state.session)


# The memo lives as long as the session's transaction: a flush keeps it up to date (or forgets
# it), a bulk statement touching games, a commit or a rollback forgets it.
event.listen(Session, "after_flush", _follow_game_writes)
event.listen(Session, "do_orm_execute", _forget_games_on_bulk)
event.listen(Session, "after_commit", _forget_games)
event.listen(Session, "after_soft_rollback", _forget_games)
