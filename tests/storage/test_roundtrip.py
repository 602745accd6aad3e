"""Storage round-trips on SQLite and PostgreSQL with the same code."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError

from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.core.states import MatchState
from storage.convert import game_row_values, to_game, to_match
from storage.db import Database, DatabaseURLError, check_url
from storage.models import (
    DeadlineRow,
    GameRow,
    PlayerRow,
)
from tests.factories import NOW, stored_match


async def test_match_and_game_round_trip(any_db: Database) -> None:
    match_id = await stored_match(any_db)
    game = Game(
        id=GameId("abcdefgh"),
        white=PlayerId("alice"),
        black=PlayerId("bob"),
        status=GameStatus.VARIANT_END,
        winner=Colour.BLACK,
        variant="antichess",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        created_at=NOW + dt.timedelta(days=2, microseconds=123000),
        last_move_at=NOW + dt.timedelta(days=2, minutes=4),
    )
    async with any_db.uow() as uow:
        await uow.games.add(
            GameRow(**game_row_values(game), match_id=match_id, counted=True, recorded_at=NOW)
        )
        await uow.commit()
    async with any_db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        match = to_match(row)
        stored = await uow.games.for_match(match_id)
    assert match.format == DEFAULT_RULESET.formats.qualification
    assert match.white_first == "alice"
    assert [to_game(g) for g in stored] == [game]
    assert stored[0].created_at.tzinfo is not None  # UTC re-attached on SQLite


async def test_uncommitted_work_is_rolled_back(any_db: Database) -> None:
    async with any_db.uow() as uow:
        await uow.players.add(PlayerRow(id="carol", username="Carol", registered_at=NOW))
    async with any_db.uow() as uow:
        assert await uow.players.get("carol") is None


async def test_naive_datetimes_are_refused(any_db: Database) -> None:
    async with any_db.uow() as uow:
        with pytest.raises(Exception, match="naive datetime"):
            await uow.players.add(
                PlayerRow(id="dan", username="Dan", registered_at=dt.datetime(2021, 1, 1))
            )


async def test_audit_log_filters_by_player_match_and_actions(any_db: Database) -> None:
    async with any_db.uow() as uow:
        await uow.audit.record(
            at=NOW, actor="bot", action="a", player="alice", details={"x": [1, 2]}
        )
        await uow.audit.record(at=NOW, actor="odmwnd", action="b", match_id=7, reason="why")
        await uow.audit.record(at=NOW, actor="bot", action="c", player="alice", match_id=7)
        await uow.commit()
    async with any_db.uow() as uow:
        assert [r.action for r in await uow.audit.list(player="alice")] == ["a", "c"]
        assert [r.action for r in await uow.audit.list(match_id=7)] == ["b", "c"]
        assert [r.action for r in await uow.audit.list(actions=("c", "a"))] == ["a", "c"]
        assert [r.action for r in await uow.audit.list(actions=("b",), player="alice")] == []
        first = (await uow.audit.list(limit=1))[0]
    assert first.details == {"x": [1, 2]}


async def test_outbox_dedupes_and_returns_due_rows(any_db: Database) -> None:
    async with any_db.uow() as uow:
        first = await uow.outbox.enqueue(
            now=NOW, kind="dm", recipient="alice", body="hi", dedupe_key="k1"
        )
        again = await uow.outbox.enqueue(
            now=NOW, kind="dm", recipient="alice", body="hi", dedupe_key="k1"
        )
        await uow.outbox.enqueue(now=NOW, kind="team_update", recipient="team", body="pairings")
        await uow.commit()
    assert first is not None
    assert again is None
    async with any_db.uow() as uow:
        due = await uow.outbox.due(NOW, kinds=["dm"])
        assert [r.body for r in due] == ["hi"]
        assert await uow.outbox.due(NOW - dt.timedelta(seconds=1), kinds=["dm"]) == []


async def test_outbox_due_and_later_in_one_statement(any_db: Database) -> None:
    """The outbox loop's look: the due rows (oldest first, at most ``limit``) and when the
    first row not yet due is, also when nothing is due, each look one statement."""
    hour = dt.timedelta(hours=1)
    async with any_db.uow() as uow:
        assert await uow.outbox.due_and_later(NOW, kinds=["dm"]) == ([], None)
        for body, due_at in (
            ("a", NOW - hour),
            ("b", NOW),
            ("c", NOW + hour),
            ("d", NOW + 2 * hour),
        ):
            await uow.outbox.enqueue(
                now=NOW, kind="dm", recipient="alice", body=body, due_at=due_at
            )
        await uow.outbox.enqueue(
            now=NOW, kind="team_update", recipient="team", body="t", due_at=NOW - 2 * hour
        )
        await uow.commit()
    statements: list[str] = []

    def tally(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(any_db.engine.sync_engine, "before_cursor_execute", tally)
    try:
        async with any_db.reads() as uow:
            looks = [
                await uow.outbox.due_and_later(NOW, kinds=["dm"]),
                await uow.outbox.due_and_later(NOW, kinds=["dm"], limit=1),
                await uow.outbox.due_and_later(NOW - 3 * hour, kinds=["dm"]),
                await uow.outbox.due_and_later(NOW + 3 * hour, kinds=["dm"]),
            ]
    finally:
        event.remove(any_db.engine.sync_engine, "before_cursor_execute", tally)
    assert [([r.body for r in due], later) for due, later in looks] == [
        (["a", "b"], NOW + hour),
        (["a"], NOW + hour),
        ([], NOW - hour),
        (["a", "b", "c", "d"], None),
    ]
    assert len(statements) == 4


async def test_a_deadline_is_claimed_or_cancelled_by_id_in_one_statement(
    any_db: Database,
) -> None:
    """The answer of an Ask is claimed by its row's id without a read first (the row comes
    back, fired), once; a retry no longer needed is cancelled by id, unless it fired."""
    match_id = await stored_match(any_db)
    async with any_db.uow() as uow:
        rows = [
            await uow.deadlines.add(
                DeadlineRow(kind=kind, due_at=NOW, match_id=match_id, created_at=NOW)
            )
            for kind in ("challenge_answer", "challenge", "offers_check")
        ]
        await uow.commit()
    answer, retry, other = (r.id for r in rows)
    later = NOW + dt.timedelta(minutes=1)
    async with any_db.uow() as uow:
        claimed = await uow.deadlines.claim_id(answer, later)
        assert claimed is not None
        assert (claimed.id, claimed.kind, claimed.match_id) == (
            answer,
            "challenge_answer",
            match_id,
        )
        assert claimed.fired_at == later
        assert await uow.deadlines.claim_id(answer, later) is None
        assert await uow.deadlines.cancel_id(retry, later)
        assert not await uow.deadlines.cancel_id(retry, later)
        assert await uow.deadlines.claim_id(retry, later) is None  # cancelled: not fired
        assert await uow.deadlines.claim_id(other, later) is not None
        assert not await uow.deadlines.cancel_id(other, later)  # fired: stays fired
        assert not await uow.deadlines.cancel_id(10**9, later)
        await uow.commit()
    async with any_db.uow() as uow:
        stored = {r.id: r for r in await uow.deadlines.fired_between(NOW, later)}
        assert set(stored) == {answer, other}
        assert await uow.deadlines.next_due() is None


async def test_deadline_fires_once(any_db: Database) -> None:
    match_id = await stored_match(any_db)
    async with any_db.uow() as uow:
        await uow.deadlines.add(
            DeadlineRow(
                kind="offers_check",
                due_at=NOW + dt.timedelta(days=3),
                match_id=match_id,
                created_at=NOW,
            )
        )
        await uow.commit()
    async with any_db.uow() as uow:
        assert await uow.deadlines.next_due() == NOW + dt.timedelta(days=3)
        assert await uow.deadlines.due(NOW) == []
        due = await uow.deadlines.due(NOW + dt.timedelta(days=4))
        assert await uow.deadlines.claim_id(due[0].id, NOW + dt.timedelta(days=4)) is not None
        assert await uow.deadlines.claim_id(due[0].id, NOW + dt.timedelta(days=4)) is None
        await uow.commit()
    async with any_db.uow() as uow:
        assert await uow.deadlines.due(NOW + dt.timedelta(days=5)) == []
        assert await uow.deadlines.next_due() is None


async def test_the_first_due_deadline_is_claimed_in_one_statement(any_db: Database) -> None:
    match_id = await stored_match(any_db)
    async with any_db.uow() as uow:
        for days, kind in ((2, "later"), (1, "first"), (9, "not_due")):
            await uow.deadlines.add(
                DeadlineRow(
                    kind=kind,
                    due_at=NOW + dt.timedelta(days=days),
                    match_id=match_id,
                    created_at=NOW,
                )
            )
        await uow.commit()
    now = NOW + dt.timedelta(days=3)
    claimed = []
    async with any_db.uow() as uow:
        while (row := await uow.deadlines.claim_next(now)) is not None:
            assert row.fired_at == now
            claimed.append(row.kind)
        await uow.commit()
    assert claimed == ["first", "later"]
    async with any_db.uow() as uow:
        assert await uow.deadlines.claim_next(now) is None
        assert await uow.deadlines.next_due() == NOW + dt.timedelta(days=9)


async def test_the_same_deadline_cannot_be_planned_twice(any_db: Database) -> None:
    match_id = await stored_match(any_db)

    def row() -> DeadlineRow:
        return DeadlineRow(kind="k", due_at=NOW, match_id=match_id, subject="alice", created_at=NOW)

    async with any_db.uow() as uow:
        await uow.deadlines.add(row())
        await uow.commit()
    async with any_db.uow() as uow:
        with pytest.raises(IntegrityError):
            await uow.deadlines.add(row())


@pytest.mark.parametrize(
    "url", ["mysql://x/y", "sqlite:///x.db", "not a url at all", "postgresql://u@h/d"]
)
def test_unsupported_database_urls_are_refused(url: str) -> None:
    with pytest.raises(DatabaseURLError):
        check_url(url)


async def test_a_round_says_whether_one_of_its_matches_is_in_none_of_some_states(
    any_db: Database,
) -> None:
    match_id = await stored_match(any_db, "alice", "bob")
    await stored_match(any_db, "carol", "dave")  # another round's match, never looked at
    async with any_db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        row.state = MatchState.SCHEDULED
        done = (MatchState.COMPLETE, MatchState.VOID)
        assert await uow.matches.round_has_other(row.round_id, done)
        row.state = MatchState.COMPLETE  # seen unflushed: the query flushes first
        assert not await uow.matches.round_has_other(row.round_id, done)
        assert await uow.matches.round_has_other(row.round_id, (MatchState.VOID,))
