"""Repositories: the only place that writes SQL. One per aggregate, all on one session."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    and_,
    bindparam,
    func,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from rules.core.model import Game, PlayerId
from rules.core.states import MatchState
from storage.convert import game_row_values
from storage.games_memo import games_memo, writes_games
from storage.models import (
    AuditRow,
    DeadlineRow,
    ForbiddenPairRow,
    GameRow,
    MatchRow,
    PlayerExitRow,
    RoundRow,
    SettingRow,
    StageEntrantRow,
    StageRow,
    TournamentRow,
)
from storage.models_weekly import MatchEventRow
from storage.repo_seasons import current_season, in_open_season, of_season

_GAME_ORDER = (GameRow.created_at, GameRow.id)

# The statements the service runs for every game, message and deadline, built once with bound
# parameters: building a statement and its cache key costs about as much as running it on
# SQLite, and a statement object built once keeps its cache key.
_GAMES_OF_MATCH = (
    select(GameRow).where(GameRow.match_id == bindparam("match_id")).order_by(*_GAME_ORDER)
)
_DEADLINES_DUE = (
    select(DeadlineRow)
    .where(
        DeadlineRow.fired_at.is_(None),
        DeadlineRow.cancelled_at.is_(None),
        DeadlineRow.due_at <= bindparam("now"),
    )
    .order_by(DeadlineRow.due_at, DeadlineRow.id)
)
_MATCHES_OF_ROUND = (
    select(MatchRow).where(MatchRow.round_id == bindparam("round_id")).order_by(MatchRow.board)
)
_MATCHES_BETWEEN = (
    select(MatchRow, RoundRow)
    .join(RoundRow, RoundRow.id == MatchRow.round_id)
    .where(
        or_(
            and_(MatchRow.white_first == bindparam("a"), MatchRow.black_first == bindparam("b")),
            and_(MatchRow.white_first == bindparam("b"), MatchRow.black_first == bindparam("a")),
        )
    )
    .order_by(MatchRow.id.desc())
)
_PAIR = tuple_(MatchRow.white_first, MatchRow.black_first)
_MATCHES_BETWEEN_ANY = (
    select(MatchRow, RoundRow).join(RoundRow, RoundRow.id == MatchRow.round_id)
).order_by(MatchRow.id.desc())
_MATCH_WITH_ROUND = (
    select(MatchRow, RoundRow)
    .join(RoundRow, RoundRow.id == MatchRow.round_id)
    .where(MatchRow.id == bindparam("match_id"))
)
_DEADLINES_NEXT = select(func.min(DeadlineRow.due_at)).where(
    DeadlineRow.fired_at.is_(None), DeadlineRow.cancelled_at.is_(None)
)
_DEADLINE_CLAIM_NEXT = (
    update(DeadlineRow)
    .where(
        DeadlineRow.id
        == _DEADLINES_DUE.with_only_columns(DeadlineRow.id).limit(1).scalar_subquery(),
        DeadlineRow.fired_at.is_(None),
        DeadlineRow.cancelled_at.is_(None),
    )
    .values(fired_at=bindparam("fired_at"))
    .returning(DeadlineRow)
    .execution_options(synchronize_session=False)
)


_DEADLINE_CLAIM_ROW = (
    update(DeadlineRow)
    .where(
        DeadlineRow.id == bindparam("row_id"),
        DeadlineRow.fired_at.is_(None),
        DeadlineRow.cancelled_at.is_(None),
    )
    .values(fired_at=bindparam("fired_at"))
    .returning(DeadlineRow)
    .execution_options(synchronize_session=False, populate_existing=True)
)


class _Repository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session


class TournamentRepository(_Repository):
    async def current(self) -> TournamentRow | None:
        """The season in play (a draft or an archived one is never current)."""
        result = await self.session.execute(current_season())
        return result.scalars().first()

    async def add(self, row: TournamentRow) -> TournamentRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def stages(self, tournament_id: int) -> Sequence[StageRow]:
        result = await self.session.execute(
            select(StageRow).where(StageRow.tournament_id == tournament_id).order_by(StageRow.id)
        )
        return result.scalars().all()

    async def stage(self, tournament_id: int, kind: str) -> StageRow | None:
        result = await self.session.execute(
            select(StageRow).where(StageRow.tournament_id == tournament_id, StageRow.kind == kind)
        )
        return result.scalars().first()

    async def stage_by_id(self, stage_id: int) -> StageRow | None:
        return await self.session.get(StageRow, stage_id)

    async def add_stage(self, row: StageRow) -> StageRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def rounds(self, stage_id: int) -> Sequence[RoundRow]:
        result = await self.session.execute(
            select(RoundRow).where(RoundRow.stage_id == stage_id).order_by(RoundRow.number)
        )
        return result.scalars().all()

    async def round_numbers(self, round_ids: Iterable[int]) -> dict[int, int]:
        """The number of each round in ``round_ids``."""
        result = await self.session.execute(
            select(RoundRow.id, RoundRow.number).where(RoundRow.id.in_(list(round_ids)))
        )
        return {rid: number for rid, number in result.all()}

    async def all_rounds(self) -> Sequence[RoundRow]:
        """The open season's rounds."""
        result = await self.session.execute(
            select(RoundRow).where(in_open_season(RoundRow.id)).order_by(RoundRow.id)
        )
        return result.scalars().all()

    async def round(self, round_id: int) -> RoundRow | None:
        return await self.session.get(RoundRow, round_id)

    async def add_round(self, row: RoundRow) -> RoundRow:
        self.session.add(row)
        await self.session.flush()
        return row


class MatchRepository(_Repository):
    async def get(self, match_id: int) -> MatchRow | None:
        return await self.session.get(MatchRow, match_id)

    async def with_round(self, match_id: int) -> tuple[MatchRow, RoundRow] | None:
        """The match and its round, in one query."""
        result = await self.session.execute(_MATCH_WITH_ROUND, {"match_id": match_id})
        found = result.first()
        return None if found is None else (found[0], found[1])

    async def add(self, row: MatchRow) -> MatchRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def delete(self, rows: Iterable[MatchRow]) -> None:
        """Delete matches that were only proposed (a proposal paired again)."""
        for row in rows:
            await self.session.delete(row)
        await self.session.flush()

    async def for_round(self, round_id: int) -> Sequence[MatchRow]:
        result = await self.session.execute(_MATCHES_OF_ROUND, {"round_id": round_id})
        return result.scalars().all()

    async def round_has_other(self, round_id: int, states: Iterable[MatchState]) -> bool:
        """Whether a match of the round is in none of ``states`` (one row read at most: the
        question every match change asks of its round, whose matches grow with the field)."""
        found = await self.session.scalar(
            select(MatchRow.id)
            .where(MatchRow.round_id == round_id, MatchRow.state.not_in(list(states)))
            .limit(1)
        )
        return found is not None

    async def for_player(self, player_id: str) -> Sequence[MatchRow]:
        result = await self.session.execute(
            select(MatchRow)
            .where(
                or_(MatchRow.white_first == player_id, MatchRow.black_first == player_id),
                in_open_season(MatchRow.round_id),
            )
            .order_by(MatchRow.id)
        )
        return result.scalars().all()

    async def between(self, a: str, b: str) -> Sequence[tuple[MatchRow, RoundRow]]:
        """Every match of the pair with its round, newest first (one statement, built once:
        the intake asks this for every game the stream delivers)."""
        result = await self.session.execute(_MATCHES_BETWEEN, {"a": a, "b": b})
        return [(m, r) for m, r in result.all()]

    async def between_pairs(
        self, pairs: Iterable[tuple[str, str]]
    ) -> dict[frozenset[str], list[tuple[MatchRow, RoundRow]]]:
        """:meth:`between` for many pairs at once (a burst's games), by pair."""
        wanted = {frozenset(p) for p in pairs if p[0] != p[1]}
        out: dict[frozenset[str], list[tuple[MatchRow, RoundRow]]] = {p: [] for p in wanted}
        keys = [(a, b) for a, b in (sorted(p) for p in wanted) for a, b in ((a, b), (b, a))]
        if keys:
            query = _MATCHES_BETWEEN_ANY.where(_PAIR.in_(keys))
            for m, r in (await self.session.execute(query)).all():
                out[frozenset((m.white_first, m.black_first or ""))].append((m, r))
        return out

    async def active_players(self) -> list[PlayerId]:
        """Players of matches that are neither finished nor only proposed, sorted."""
        result = await self.session.execute(
            select(MatchRow.white_first, MatchRow.black_first).where(
                MatchRow.state.not_in((MatchState.COMPLETE, MatchState.PROPOSED))
            )
        )
        players = {p for row in result.all() for p in row if p is not None}
        return sorted(PlayerId(p) for p in players)

    async def active_pairs(self) -> list[tuple[PlayerId, PlayerId]]:
        """The two players of each match that is neither finished nor only proposed."""
        result = await self.session.execute(
            select(MatchRow.white_first, MatchRow.black_first).where(
                MatchRow.state.not_in((MatchState.COMPLETE, MatchState.PROPOSED)),
                MatchRow.black_first.is_not(None),
            )
        )
        return [(PlayerId(a), PlayerId(b)) for a, b in result.all() if b is not None]

    async def open_matches(self, states: Sequence[str]) -> Sequence[MatchRow]:
        """Matches (not byes) in one of ``states``, by id."""
        result = await self.session.execute(
            select(MatchRow)
            .where(MatchRow.state.in_(list(states)), MatchRow.black_first.is_not(None))
            .order_by(MatchRow.id)
        )
        return result.scalars().all()

    async def open_versions(self, states: Sequence[str]) -> list[tuple[Any, ...]]:
        """For each match (not a bye) in one of ``states``: (id, state, outcome, week, agreed
        time, its event log's last seq), read as plain columns: what a reader that caches per
        match compares to know whether the match changed."""
        last_seq = (
            select(func.max(MatchEventRow.seq))
            .where(MatchEventRow.match_id == MatchRow.id)
            .scalar_subquery()
        )
        result = await self.session.execute(
            select(
                MatchRow.id,
                MatchRow.state,
                MatchRow.outcome,
                MatchRow.week,
                MatchRow.agreed_time,
                last_seq,
            )
            .where(MatchRow.state.in_(list(states)), MatchRow.black_first.is_not(None))
            .order_by(MatchRow.id)
        )
        return [tuple(row) for row in result.all()]

    async def count_by_stage_and_state(self) -> list[tuple[str, str, int]]:
        """(stage, state, how many) of the matches that are neither byes nor void."""
        result = await self.session.execute(
            select(MatchRow.stage, MatchRow.state, func.count())
            .where(
                MatchRow.black_first.is_not(None),
                MatchRow.state != MatchState.VOID,
                in_open_season(MatchRow.round_id),
            )
            .group_by(MatchRow.stage, MatchRow.state)
        )
        return [(stage, state, int(n)) for stage, state, n in result.all()]

    async def count_for_player(self, player_id: str) -> int:
        result = await self.session.execute(
            select(func.count())
            .select_from(MatchRow)
            .where(
                or_(MatchRow.white_first == player_id, MatchRow.black_first == player_id),
                in_open_season(MatchRow.round_id),
            )
        )
        return int(result.scalar_one())

    async def all(self) -> Sequence[MatchRow]:
        """The open season's matches."""
        result = await self.session.execute(
            select(MatchRow).where(in_open_season(MatchRow.round_id)).order_by(MatchRow.id)
        )
        return result.scalars().all()


class GameRepository(_Repository):
    """Games by Lichess id and by match.

    A unit of work asks for one match's games several times (the intake, the match's state,
    the match listeners), so :meth:`for_match` reads all of a match's games once and answers
    from them for the rest of the transaction, following the games the transaction adds or
    changes in place (it reads again after a game is deleted or moved, or a bulk statement);
    :meth:`preload` does that for many matches in one query.
    """

    async def get(self, game_id: str) -> GameRow | None:
        return await self.session.get(GameRow, game_id)

    async def get_many(self, game_ids: Iterable[str]) -> dict[str, GameRow]:
        """The stored rows of those of ``game_ids`` that are stored, in one query."""
        result = await self.session.execute(select(GameRow).where(GameRow.id.in_(list(game_ids))))
        return {row.id: row for row in result.scalars()}

    async def add(self, row: GameRow) -> GameRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def store(
        self,
        game: Game,
        *,
        match_id: int,
        counted: bool,
        refusal: str | None,
        source: str,
        now: dt.datetime,
        stored: GameRow | Literal["unread"] | None = "unread",
        flush: bool = True,
    ) -> GameRow:
        """Add ``game`` to the match, or bring its stored row up to date (by Lichess id);
        ``stored``: the row the caller read by that id in this transaction (``None``: there is
        none), so it is not read again (a miss is not in the session's identity map);
        ``flush=False``: written with the transaction's next query or its commit."""
        values = game_row_values(game)
        row = await self.get(game.id) if stored == "unread" else stored
        if row is None:
            row = GameRow(
                **values,
                match_id=match_id,
                counted=counted,
                refusal=refusal,
                source=source,
                recorded_at=now,
            )
            self.session.add(row)
        else:
            for key, value in values.items():
                setattr(row, key, value)
            row.counted, row.refusal, row.recorded_at = counted, refusal, now
        if flush:
            await self.session.flush()
        return row

    async def for_match(self, match_id: int, *, counted_only: bool = True) -> Sequence[GameRow]:
        """The match's games (counted ones only, by default), oldest first."""
        known = games_memo(self.session.sync_session).get(match_id)
        if known is not None and writes_games(self.session.sync_session, match_id):
            await self.session.flush()  # which brings the memo up to date, or forgets it
            known = games_memo(self.session.sync_session).get(match_id)
        if known is None:
            result = await self.session.execute(_GAMES_OF_MATCH, {"match_id": match_id})
            known = tuple(result.scalars().all())
            games_memo(self.session.sync_session)[match_id] = known
        return [g for g in known if g.counted] if counted_only else list(known)

    async def preload(self, match_ids: Iterable[int]) -> None:
        """Read the games of all ``match_ids`` at once for the :meth:`for_match` calls to come."""
        wanted = sorted(set(match_ids))
        if not wanted:
            return
        found: dict[int, list[GameRow]] = {m: [] for m in wanted}
        for start in range(0, len(wanted), 500):  # bounded IN lists
            chunk = wanted[start : start + 500]
            result = await self.session.execute(
                select(GameRow).where(GameRow.match_id.in_(chunk)).order_by(*_GAME_ORDER)
            )
            for row in result.scalars():
                assert row.match_id is not None
                found[row.match_id].append(row)
        memo = games_memo(self.session.sync_session)
        for match_id, rows in found.items():
            memo[match_id] = tuple(rows)

    async def all(self) -> Sequence[GameRow]:
        result = await self.session.execute(select(GameRow).order_by(GameRow.created_at))
        return result.scalars().all()

    async def all_by_id(self) -> Sequence[GameRow]:
        result = await self.session.execute(select(GameRow).order_by(GameRow.id))
        return result.scalars().all()

    async def flagged(self) -> Sequence[GameRow]:
        """Games of a match that were refused (not counted, with a reason), oldest first."""
        result = await self.session.execute(
            select(GameRow)
            .where(
                GameRow.refusal.is_not(None),
                GameRow.counted.is_(False),
                GameRow.match_id.is_not(None),
            )
            .order_by(GameRow.created_at, GameRow.id)
        )
        return result.scalars().all()

    async def statuses(self, game_ids: Sequence[str]) -> dict[str, str]:
        """The stored status of each of ``game_ids`` that is stored."""
        result = await self.session.execute(
            select(GameRow.id, GameRow.status).where(GameRow.id.in_(list(game_ids)))
        )
        return {gid: status for gid, status in result.all()}


class AuditRepository(_Repository):
    async def record(
        self,
        *,
        at: dt.datetime,
        actor: str,
        action: str,
        reason: str | None = None,
        player: str | None = None,
        match_id: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> AuditRow:
        row = AuditRow(
            at=at,
            actor=actor,
            action=action,
            reason=reason,
            player=player,
            match_id=match_id,
            details=details or {},
        )
        # Not flushed here: the entries of one transaction go in one INSERT at its next
        # query or its commit (a round trip each was a fifth of a game's statements).
        self.session.add(row)
        return row

    async def list(
        self,
        *,
        player: str | None = None,
        match_id: int | None = None,
        actions: Collection[str] | None = None,
        limit: int | None = None,
    ) -> Sequence[AuditRow]:
        """Entries oldest first, of one player, match or of ``actions`` if given. The service
        gives a filter: the whole log grows with every game of the season (the daily look read
        it all to pick two actions' entries, hundreds of milliseconds on the event loop)."""
        query = select(AuditRow).order_by(AuditRow.id)
        if actions is not None:
            query = query.where(AuditRow.action.in_(list(actions)))
        if player is not None:
            query = query.where(AuditRow.player == player)
        if match_id is not None:
            query = query.where(AuditRow.match_id == match_id)
        if limit is not None:
            query = query.limit(limit)
        result = await self.session.execute(query)
        return result.scalars().all()

    async def by_actors(
        self, actors: Iterable[str], actions: Iterable[str]
    ) -> Sequence[tuple[str, str, int | None]]:
        """(actor, action, match) of every entry by one of ``actors`` (any case) with one of
        ``actions``, oldest first (what the TD-touch counter reads)."""
        names = [a.lower() for a in actors]
        result = await self.session.execute(
            select(AuditRow.actor, AuditRow.action, AuditRow.match_id)
            .where(func.lower(AuditRow.actor).in_(names), AuditRow.action.in_(list(actions)))
            .order_by(AuditRow.id)
        )
        return [(a, b, c) for a, b, c in result.all()]

    async def count_actions(self, actions: Iterable[str]) -> dict[str, int]:
        """How many entries of each of ``actions`` there are, whoever made them."""
        result = await self.session.execute(
            select(AuditRow.action, func.count())
            .where(AuditRow.action.in_(list(actions)))
            .group_by(AuditRow.action)
        )
        return {action: int(n) for action, n in result.all()}

    async def since(self, since: dt.datetime, actions: Iterable[str]) -> Sequence[AuditRow]:
        """The entries with one of ``actions`` written after ``since``."""
        result = await self.session.execute(
            select(AuditRow).where(AuditRow.at > since, AuditRow.action.in_(list(actions)))
        )
        return result.scalars().all()


ANSWER_SUFFIX = ".answer"
"""The kind of an answer's row ends so (``bot.runtime.deadlines.Ask``)."""


class DeadlineRepository(_Repository):
    async def add(self, row: DeadlineRow, *, flush: bool = True) -> DeadlineRow:
        self.session.add(row)
        if flush:  # (else with the transaction's next query or its commit: no id yet)
            await self.session.flush()
        return row

    async def due(self, now: dt.datetime) -> Sequence[DeadlineRow]:
        result = await self.session.execute(_DEADLINES_DUE, {"now": now})
        return result.scalars().all()

    async def count_due(self, now: dt.datetime) -> int:
        """Deadlines neither fired nor cancelled that are due at ``now``."""
        result = await self.session.execute(
            select(func.count())
            .select_from(DeadlineRow)
            .where(
                DeadlineRow.fired_at.is_(None),
                DeadlineRow.cancelled_at.is_(None),
                DeadlineRow.due_at <= now,
            )
        )
        return int(result.scalar_one())

    async def fired_between(self, since: dt.datetime, until: dt.datetime) -> Sequence[DeadlineRow]:
        """The deadlines claimed after ``since`` and at ``until`` or before."""
        result = await self.session.execute(
            select(DeadlineRow).where(DeadlineRow.fired_at > since, DeadlineRow.fired_at <= until)
        )
        return result.scalars().all()

    async def next_due(self) -> dt.datetime | None:
        result = await self.session.execute(_DEADLINES_NEXT)
        value: dt.datetime | None = result.scalar_one_or_none()
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)  # an aggregate skips the column type
        return value

    async def open_of_kind(self, kind: str) -> DeadlineRow | None:
        """The earliest deadline of ``kind`` neither fired nor cancelled (a daily job's next)."""
        result = await self.session.execute(
            select(DeadlineRow)
            .where(
                DeadlineRow.kind == kind,
                DeadlineRow.fired_at.is_(None),
                DeadlineRow.cancelled_at.is_(None),
            )
            .order_by(DeadlineRow.due_at, DeadlineRow.id)
            .limit(1)
        )
        return result.scalar_one_or_none()

    async def fired_for_match(
        self, match_id: int, kind: str, subject: str
    ) -> Sequence[DeadlineRow]:
        """The match's fired deadlines of ``kind`` and ``subject``, newest first."""
        result = await self.session.execute(
            select(DeadlineRow)
            .where(
                DeadlineRow.match_id == match_id,
                DeadlineRow.kind == kind,
                DeadlineRow.subject == subject,
                DeadlineRow.fired_at.is_not(None),
            )
            .order_by(DeadlineRow.id.desc())
        )
        return result.scalars().all()

    async def all_open_of_kind(self, kind: str) -> Sequence[DeadlineRow]:
        """Every deadline of ``kind`` neither fired nor cancelled, earliest first."""
        return await self._open(DeadlineRow.kind == kind)

    async def open_answers(self) -> Sequence[DeadlineRow]:
        """Every answer's row still open (``bot.runtime.deadlines.Ask``: a question to Lichess
        asked, its reply not recorded), earliest first."""
        return await self._open(DeadlineRow.kind.endswith(ANSWER_SUFFIX))

    async def open_for_match(self, match_id: int) -> Sequence[DeadlineRow]:
        return await self._open(DeadlineRow.match_id == match_id)

    async def _open(self, where: ColumnElement[bool]) -> Sequence[DeadlineRow]:
        result = await self.session.execute(
            select(DeadlineRow)
            .where(where, DeadlineRow.fired_at.is_(None), DeadlineRow.cancelled_at.is_(None))
            .order_by(DeadlineRow.due_at, DeadlineRow.id)
        )
        return result.scalars().all()

    async def cancel_open(
        self, match_id: int, *, now: dt.datetime, kinds: Sequence[str] | None = None
    ) -> None:
        """Cancel the match's deadlines not yet fired (of ``kinds``, or all)."""
        for row in await self.open_for_match(match_id):
            if kinds is None or row.kind in kinds:
                row.cancelled_at = now
        await self.session.flush()

    async def get(self, deadline_id: int) -> DeadlineRow | None:
        return await self.session.get(DeadlineRow, deadline_id)

    async def claim_id(self, row_id: int, now: dt.datetime) -> DeadlineRow | None:
        """Deadline ``row_id`` marked fired and returned, in one statement (no read first), if
        nobody fired or cancelled it yet; ``None`` otherwise. Unfenced (an Ask's answer is
        recorded even by a process that lost the lead: ``Claims.deadline`` is the fenced one)."""
        result = await self.session.execute(
            _DEADLINE_CLAIM_ROW, {"row_id": row_id, "fired_at": now}
        )
        row: DeadlineRow | None = result.scalars().first()
        return row

    async def cancel_id(self, row_id: int, now: dt.datetime) -> bool:
        """Cancel deadline ``row_id`` in one statement (no read first) if it is still open;
        False if it was fired or cancelled already, or is not stored."""
        return await self._while_open(row_id, cancelled_at=now)

    async def extend_open(self, row: DeadlineRow, payload: dict[str, Any]) -> bool:
        """Give ``row`` ``payload`` if it is still open; False if it was fired or cancelled
        meanwhile (a runner claimed it since it was read: what it fires may miss this change)."""
        return await self._while_open(row.id, payload=payload)

    async def _while_open(self, row_id: int, **values: Any) -> bool:
        """Set ``values`` on row ``row_id`` in one statement if it is neither fired nor
        cancelled."""
        result = await self.session.execute(
            update(DeadlineRow)
            .where(
                DeadlineRow.id == row_id,
                DeadlineRow.fired_at.is_(None),
                DeadlineRow.cancelled_at.is_(None),
            )
            .values(**values)
            .execution_options(synchronize_session="fetch")
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    async def claim_next(self, now: dt.datetime) -> DeadlineRow | None:
        """Mark the first deadline due at ``now`` (by due time, then id) fired and return it,
        in one statement; ``None`` when nothing is due. The row is claimed only if nobody fired
        or cancelled it meanwhile (as :meth:`claim_id`), so it fires once."""
        result = await self.session.execute(_DEADLINE_CLAIM_NEXT, {"now": now, "fired_at": now})
        row: DeadlineRow | None = result.scalars().first()
        return row


class StageRepository(_Repository):
    """Who is in a stage, who is kept apart, who left."""

    async def entrants(self, stage_id: int) -> Sequence[StageEntrantRow]:
        result = await self.session.execute(
            select(StageEntrantRow)
            .where(StageEntrantRow.stage_id == stage_id)
            .order_by(StageEntrantRow.pool.nulls_first(), StageEntrantRow.number)
        )
        return result.scalars().all()

    async def add_entrant(self, row: StageEntrantRow) -> StageEntrantRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def forbidden(
        self, stage_id: int, round: int | None = None
    ) -> Sequence[ForbiddenPairRow]:
        query = select(ForbiddenPairRow).where(ForbiddenPairRow.stage_id == stage_id)
        if round is not None:
            query = query.where(
                or_(ForbiddenPairRow.round.is_(None), ForbiddenPairRow.round == round)
            )
        result = await self.session.execute(query.order_by(ForbiddenPairRow.id))
        return result.scalars().all()

    async def add_forbidden(self, row: ForbiddenPairRow) -> ForbiddenPairRow:
        self.session.add(row)
        await self.session.flush()
        return row

    async def exits(self, stage: str | None = None) -> Sequence[PlayerExitRow]:
        """The season's exits (of one stage)."""
        query = (
            select(PlayerExitRow)
            .where(of_season(PlayerExitRow.tournament_id))
            .order_by(PlayerExitRow.id)
        )
        if stage is not None:
            query = query.where(PlayerExitRow.stage == stage)
        result = await self.session.execute(query)
        return result.scalars().all()

    async def add_exit(self, row: PlayerExitRow) -> PlayerExitRow:
        if row.tournament_id is None:
            row.tournament_id = await self.session.scalar(
                current_season().with_only_columns(TournamentRow.id)
            )
        self.session.add(row)
        await self.session.flush()
        return row


class SettingRepository(_Repository):
    async def get(self, key: str) -> str | None:
        row = await self.session.get(SettingRow, key)
        return None if row is None else row.value

    async def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, in one statement (an upsert, no read first)."""
        dialect = self.session.get_bind().dialect.name
        insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
        statement = insert(SettingRow).values(key=key, value=value)
        await self.session.execute(
            statement.on_conflict_do_update(
                index_elements=[SettingRow.key], set_={"value": statement.excluded.value}
            )
        )
        sync = self.session.sync_session
        known = sync.identity_map.get(sync.identity_key(SettingRow, key))
        if known is not None:  # read earlier in this transaction: it says the new value
            set_committed_value(known, "value", value)

    async def with_prefix(self, prefix: str) -> dict[str, str]:
        """Every setting whose key starts with ``prefix``, by key."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        result = await self.session.execute(
            select(SettingRow.key, SettingRow.value).where(
                SettingRow.key.like(escaped + "%", escape="\\")
            )
        )
        return {key: value for key, value in result.all()}

    async def get_time(self, key: str) -> dt.datetime | None:
        value = await self.get(key)
        return None if value is None else dt.datetime.fromisoformat(value)

    async def set_time(self, key: str, when: dt.datetime) -> None:
        if when.tzinfo is None:
            raise ValueError(f"naive datetime {when!r} cannot be stored; use UTC")
        await self.set(key, when.astimezone(dt.UTC).isoformat())
