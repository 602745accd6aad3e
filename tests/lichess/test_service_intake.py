"""Games from the sandbox stream into the database through the running service (issue 5)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
from collections.abc import AsyncIterator
from fractions import Fraction

from lichess_helpers import HANG, as_read, until
from sqlalchemy import event
from sqlalchemy.engine import Connection

from bot.app import Service, bootstrap
from bot.config import Config, Secrets, ServiceConfig, TournamentConfig
from bot.lichess.client import LichessClient
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from bot.views.scores import match_state
from storage.db import Database
from tests.factories import published_match


@contextlib.asynccontextmanager
async def service(db: Database, url: str, token: str, clock: FakeClock) -> AsyncIterator[Service]:
    config = Config(
        tournament=TournamentConfig(tds=("ODMWND",)),
        service=ServiceConfig(database_url=db.url, lichess_url=url),
        secrets=Secrets(lichess_token=token),
    )
    async with Service(config, clock=clock, serve_web=False) as svc:
        task = asyncio.create_task(svc.run())
        try:
            async with asyncio.timeout(HANG):
                await svc.watcher.connected.wait()
            await svc.watcher.wait_backfilled()
            yield svc
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def stored_soon(db: Database, match_id: int, ids: set[str], *, counted: bool) -> None:
    """Wait until every game in ``ids`` is stored as counted (or as refused, with a reason).

    Polls the database, which raises no event; fails after 10 real seconds (not a timing check).
    """
    async with asyncio.timeout(HANG):
        while True:
            done = {g[0] for g in await games_of(db, match_id) if (g[2] if counted else g[3])}
            if done >= ids:
                return
            await asyncio.sleep(0.01)


async def games_of(db: Database, match_id: int) -> list[tuple[str, str, bool, str | None]]:
    async with db.uow() as uow:
        rows = await uow.games.for_match(match_id, counted_only=False)
        return [(g.id, g.status, g.counted, g.refusal) for g in rows]


async def test_a_game_is_stored_once_through_drops_repeats_and_outages(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    state.knobs.repeat_lines = True
    async with service(db, sandbox_url, bot_token, clock) as svc:
        first = state.start_game(white="Alice", black="Bob")
        await until(lambda: svc.services.intake.recorded >= 1)
        state.drop_streams()  # the stream drops mid-game
        await clock.wait_for_sleepers(1)
        state.knobs.stream_unavailable = True
        clock.advance(dt.timedelta(seconds=1))
        await until(lambda: not svc.watcher.connected.is_set())
        state.finish_game(first.id, status="variantEnd", winner="white")  # while down
        second = state.start_game(white="Bob", black="Alice")
        state.finish_game(second.id, status="draw")
        state.knobs.stream_unavailable = False
        clock.advance(dt.timedelta(seconds=5))
        await until(lambda: svc.watcher.connected.is_set())
        await svc.watcher.wait_backfilled()
        await stored_soon(db, match_id, {first.id, second.id}, counted=True)
        third = state.start_game(white="Alice", black="Bob")
        state.finish_game(third.id, status="resign", winner="black")
        await stored_soon(db, match_id, {first.id, second.id, third.id}, counted=True)
    stored = await games_of(db, match_id)
    assert sorted(g[0] for g in stored) == sorted([first.id, second.id, third.id])  # once each
    assert all(counted for _, _, counted, _ in stored)
    async with db.uow() as uow:
        audit = await uow.audit.list(match_id=match_id)
    counted_events = [a for a in audit if a.action == "game.counted"]
    assert len(counted_events) == 3  # repeated lines and the backfill changed nothing twice
    async with db.uow() as uow:
        state_ = await match_state(uow, match_id)
    assert state_.score is not None
    half = Fraction(1, 2)
    assert (state_.score.first, state_.score.second) == (3 * half, 3 * half)  # win, draw, loss


async def test_wrong_games_are_refused_with_a_reason_and_a_td_alert(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    match_id = await published_match(db)
    async with service(db, sandbox_url, bot_token, clock):
        blitz = state.start_game(white="Alice", black="Bob", clock_limit=180, clock_increment=2)
        state.finish_game(blitz.id, winner="white")
        casual = state.start_game(white="Alice", black="Bob", rated=False)
        state.finish_game(casual.id, winner="white")
        cheat = state.start_game(white="Alice", black="Bob")
        state.finish_game(cheat.id, status="cheat", winner="white")
        await stored_soon(db, match_id, {blitz.id, casual.id, cheat.id}, counted=False)
    stored = {g[0]: g for g in await games_of(db, match_id)}
    assert stored[blitz.id][2:] == (False, "wrong_clock")
    assert stored[casual.id][2:] == (False, "casual")
    assert stored[cheat.id][2:] == (False, "cheat")
    async with db.uow() as uow:
        alerts = await uow.outbox.list(kind="td_note")  # no decision: the daily digest's
    texts = [a.body for a in alerts]
    assert all(a.recipient == "tds" for a in alerts)
    for game_id, words in ((blitz.id, "wrong clock"), (casual.id, "casual"), (cheat.id, "cheat")):
        assert any(game_id in t and words in t for t in texts), (game_id, texts)


async def test_a_finished_game_is_asked_of_the_export_only_for_a_pair_with_a_match(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """The games stream gives no end time (lila's ``lastMoveAt``): a finished game of a pair
    with a published match is completed from the export by ids, once; a game of Alice's
    against a player she has no match with is never asked for."""
    match_id = await published_match(db)
    ended = dt.datetime(2021, 10, 13, 18, 7, tzinfo=dt.UTC)
    async with service(db, sandbox_url, bot_token, clock):
        before = len(state.requests)
        casual = state.start_game(white="Alice", black="Carol")
        state.finish_game(casual.id, status="resign", winner="black")
        game = state.start_game(white="Alice", black="Bob")
        state.finish_game(game.id, status="resign", winner="white", at=ended)
        await stored_soon(db, match_id, {game.id}, counted=True)
        exports = [p for _, p in state.requests[before:] if p == "/api/games/export/_ids"]
    assert len(exports) == 1
    async with db.uow() as uow:
        stored = await uow.games.get(game.id)
        assert await uow.games.get(casual.id) is None
    assert stored is not None
    assert stored.last_move_at == ended


async def test_a_burst_of_finished_games_is_asked_of_the_export_once(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """Games handed over together (``prepare``, then each): one export request for their end
    times, where each game was one; each is stored with the end time the export said."""
    match_id = await published_match(db)
    config = Config(
        tournament=TournamentConfig(tds=("ODMWND",)),
        service=ServiceConfig(database_url=db.url, lichess_url=sandbox_url),
    )
    ended = [dt.datetime(2021, 10, 13, 18, m, tzinfo=dt.UTC) for m in (7, 21)]
    games = []
    for i, at in enumerate(ended):
        white, black = ("Alice", "Bob") if i == 0 else ("Bob", "Alice")
        game = state.start_game(white=white, black=black)
        game = state.finish_game(game.id, status="resign", winner="white", at=at)
        # as the games stream says it: no end time, no source
        games.append(dataclasses.replace(as_read(game), last_move_at=None, source=None))
    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        intake = bootstrap(config, clock=clock, db=db, lichess=client).intake
        before = len(state.requests)
        await intake.prepare(games)
        for game in games:
            assert await intake(game)
        exports = [p for _, p in state.requests[before:] if p == "/api/games/export/_ids"]
    assert len(exports) == 1
    async with db.uow() as uow:
        stored = [await uow.games.get(g.id) for g in games]
    assert [g.last_move_at if g else None for g in stored] == ended
    assert {g[0] for g in await games_of(db, match_id)} == {g.id for g in games}


async def test_a_finished_game_is_looked_up_before_its_export_without_a_transaction(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """A finished game the stream gives without its end time is first only read against
    the database (stored already? has its pair a published match?): on PostgreSQL in
    autocommit, with no transaction begun and rolled back (two round trips of each such game);
    a pair with a match is then asked of the export and stored in one transaction."""
    match_id = await published_match(db)
    config = Config(
        tournament=TournamentConfig(tds=("ODMWND",)),
        service=ServiceConfig(database_url=db.url, lichess_url=sandbox_url),
    )
    casual = state.start_game(white="Alice", black="Carol")
    casual = state.finish_game(casual.id, status="resign", winner="black")
    game = state.start_game(white="Alice", black="Bob")
    game = state.finish_game(game.id, status="resign", winner="white")
    begun: list[bool] = []

    def began(conn: Connection) -> None:
        begun.append(conn.get_execution_options().get("isolation_level") != "AUTOCOMMIT")

    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        intake = bootstrap(config, clock=clock, db=db, lichess=client).intake
        event.listen(db.engine.sync_engine, "begin", began)
        try:
            assert not await intake(dataclasses.replace(as_read(casual), last_move_at=None))
            looked = list(begun)
            assert await intake(dataclasses.replace(as_read(game), last_move_at=None))
        finally:
            event.remove(db.engine.sync_engine, "begin", began)
    assert {g[0] for g in await games_of(db, match_id)} == {game.id}
    assert looked  # (the casual game was read)
    if db.engine.dialect.name == "postgresql":  # (SQLite begins even to read: nothing to see)
        assert True not in looked
        assert begun.count(True) == 1  # the second game's one transaction: its write
