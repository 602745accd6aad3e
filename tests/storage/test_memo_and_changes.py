"""What the storage layer remembers inside and across transactions, on a real database.

* ``TableChanges`` counts the tables a committed transaction really changed (the service wakes
  its outbox and deadline loops by them; the demo's actors read again by them).
* ``GameRepository.for_match`` answers repeated questions in one transaction from what it read,
  and never from something a write in that transaction made stale.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import event, update

from rules.core.states import MatchState
from storage.db import Database
from storage.models import GameRow
from tests.factories import stored_match

T0 = dt.datetime(2021, 10, 12, 12, 0, tzinfo=dt.UTC)


def _game(game_id: str, match_id: int, minute: int, *, counted: bool = True) -> GameRow:
    return GameRow(
        id=game_id,
        match_id=match_id,
        white="alice",
        black="bob",
        status="mate",
        winner="w",
        variant="antichess",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        created_at=T0 + dt.timedelta(minutes=minute),
        counted=counted,
        recorded_at=T0 + dt.timedelta(minutes=minute + 7),
    )


async def test_only_committed_real_changes_count(db: Database) -> None:
    changes = db.track_changes()
    match_id = await stored_match(db, "alice", "bob")
    before = changes.version(("games", "matches", "outbox"))

    async with db.uow() as uow:  # rolled back: counts nothing
        await uow.games.add(_game("g1", match_id, 0))
    assert changes.version(("games", "matches", "outbox")) == before

    async with db.uow() as uow:
        await uow.games.add(_game("g1", match_id, 0))
        row = await uow.matches.get(match_id)
        assert row is not None
        row.state = row.state  # set to the value it has: no change
        await uow.commit()
    games, matches, outbox = changes.version(("games", "matches", "outbox"))
    assert (games, matches, outbox) == (before[0] + 1, before[1], before[2])

    async with db.uow() as uow:  # a bulk statement counts for its table
        await uow.session.execute(update(GameRow).values(counted=False))
        await uow.commit()
    assert changes.version(("games",)) == (before[0] + 2,)

    async with db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        row.state = MatchState.COMPLETE
        await uow.commit()
    assert changes.version(("matches",)) == (before[1] + 1,)


async def test_a_writer_that_names_itself_can_be_left_out(db: Database) -> None:
    """A loop reads its table again after its own writes: ``besides`` leaves them out, so
    only another writer's commit wakes it."""
    changes = db.track_changes()
    match_id = await stored_match(db, "alice", "bob")
    before = changes.version(("games",), besides="loop")

    async with db.uow(origin="loop") as uow:
        await uow.games.add(_game("g1", match_id, 0))
        await uow.commit()
    assert changes.version(("games",), besides="loop") == before
    assert changes.version(("games",)) != before

    async with db.uow() as uow:
        await uow.games.add(_game("g2", match_id, 1))
        await uow.commit()
    assert changes.version(("games",), besides="loop") == (before[0] + 1,)


async def test_a_unit_of_work_for_reads_writes_nothing(db: Database) -> None:
    match_id = await stored_match(db, "alice", "bob")
    async with db.reads() as uow:
        assert await uow.matches.get(match_id) is not None
        uow.session.add(_game("g1", match_id, 0))
        with pytest.raises(RuntimeError):
            await uow.flush()
        with pytest.raises(RuntimeError):
            await uow.commit()
    async with db.uow() as uow:
        assert await uow.games.get("g1") is None


async def test_games_of_a_match_follow_every_write_in_the_transaction(db: Database) -> None:
    match_id = await stored_match(db, "alice", "bob")
    async with db.uow() as uow:
        assert await uow.games.for_match(match_id) == []
        await uow.games.add(_game("g2", match_id, 10))
        await uow.games.add(_game("g1", match_id, 0, counted=False))
        assert [g.id for g in await uow.games.for_match(match_id)] == ["g2"]
        assert [g.id for g in await uow.games.for_match(match_id, counted_only=False)] == [
            "g1",
            "g2",
        ]
        first = await uow.games.get("g1")
        assert first is not None
        first.counted = True  # not flushed yet: the next answer must still see it
        assert [g.id for g in await uow.games.for_match(match_id)] == ["g1", "g2"]
        await uow.session.execute(update(GameRow).where(GameRow.id == "g2").values(counted=False))
        assert [g.id for g in await uow.games.for_match(match_id)] == ["g1"]
        await uow.commit()


async def test_games_of_a_match_follow_a_change_and_an_addition_without_reading(
    db: Database,
) -> None:
    """The intake changes a game in place (or adds one) and asks for the match's games again:
    the answer follows the write, with no query more."""
    match_id = await stored_match(db, "alice", "bob")
    async with db.uow() as uow:
        await uow.games.add(_game("g1", match_id, 0, counted=False))
        await uow.commit()
    selects: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    event.listen(db.engine.sync_engine, "before_cursor_execute", count)
    try:
        async with db.uow() as uow:
            assert await uow.games.for_match(match_id) == []
            first = await uow.games.get("g1")  # in the session: no query
            assert first is not None
            first.counted = True
            uow.session.add(_game("g0", match_id, -5))
            assert [g.id for g in await uow.games.for_match(match_id)] == ["g0", "g1"]
            assert len(selects) == 1
            uow.session.add(_game("g9", match_id, 0))  # the same time as g1: read again
            assert [g.id for g in await uow.games.for_match(match_id)] == ["g0", "g1", "g9"]
            assert len(selects) == 2
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", count)


async def test_preloaded_games_are_what_each_match_reads(db: Database) -> None:
    first = await stored_match(db, "alice", "bob")
    second = await stored_match(db, "carol", "dave")
    async with db.uow() as uow:
        await uow.games.add(_game("a2", first, 10))
        await uow.games.add(_game("a1", first, 0))
        await uow.games.add(_game("b1", second, 5, counted=False))
        await uow.commit()
    async with db.uow() as uow:
        one_by_one = {
            m: [g.id for g in await uow.games.for_match(m, counted_only=False)]
            for m in (first, second, 999)
        }
    async with db.uow() as uow:
        await uow.games.preload([first, second, 999])
        preloaded = {
            m: [g.id for g in await uow.games.for_match(m, counted_only=False)]
            for m in (first, second, 999)
        }
        counted = [g.id for g in await uow.games.for_match(first)]
    assert preloaded == one_by_one == {first: ["a1", "a2"], second: ["b1"], 999: []}
    assert counted == ["a1", "a2"]
