"""A burst's games stored in one transaction, their matches' consequences after (issue 31, 5).

The games the watcher hands over together are stored by ``StreamIntake.prepare`` in one
transaction; each counted game leaves its match a follow-up row, which the deadline runner (or
the intake, before it takes the match's next game) fires in a transaction of its own. Counted
here with SQLAlchemy's events on the real database, SQLite and PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from lichess_helpers import as_read
from sqlalchemy import event

from bot.app import bootstrap
from bot.config import Config, ServiceConfig, TournamentConfig
from bot.lichess.client import LichessClient
from bot.lichess.entries import StreamIntake
from bot.notify.notifier import DIGEST_DEADLINE
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from bot.sandbox.state import SandboxState
from bot.service.challenges import CHALLENGE_DEADLINE
from bot.service.intake import FOLLOWUP_DEADLINE
from bot.service.services import Services
from bot.views.scores import match_state
from rules.core.model import Game
from rules.core.scoring import Outcome
from storage.db import Database
from storage.models import DeadlineRow
from tests.factories import published_match

PAIRS = (("Alice", "Bob"), ("Carol", "Dave"), ("Erin", "Frank"))


@contextmanager
def games_committed(db: Database) -> Iterator[list[int]]:
    """How many statements wrote game rows in each committed transaction that wrote any."""
    commits: list[int] = []

    def executed(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith(("INSERT INTO GAMES ", "UPDATE GAMES ")):
            conn.info["games"] = conn.info.get("games", 0) + 1

    def committed(conn: Any) -> None:
        if n := conn.info.pop("games", 0):
            commits.append(n)

    def rolled_back(conn: Any) -> None:
        conn.info.pop("games", None)

    engine = db.engine.sync_engine
    listeners = (
        ("before_cursor_execute", executed),
        ("commit", committed),
        ("rollback", rolled_back),
    )
    for name, fn in listeners:
        event.listen(engine, name, fn)
    try:
        yield commits
    finally:
        for name, fn in listeners:
            event.remove(engine, name, fn)


def config(db: Database, url: str) -> Config:
    return Config(
        tournament=TournamentConfig(tds=("ODMWND",)),
        service=ServiceConfig(database_url=db.url, lichess_url=url),
    )


def finished(state: SandboxState, white: str, black: str, *, winner: str, minute: int) -> Game:
    """A game played to its end on the sandbox, as the games stream says it (no end time, no
    source: the export says them)."""
    game = state.start_game(white=white, black=black)
    at = dt.datetime(2021, 10, 13, 18, tzinfo=dt.UTC) + dt.timedelta(minutes=minute)
    game = state.finish_game(game.id, status="resign", winner=winner, at=at)
    read: Game = as_read(game)
    return dataclasses.replace(read, last_move_at=None, source=None)


async def first_games(
    db: Database, state: SandboxState, pairs: Sequence[tuple[str, str]]
) -> tuple[list[int], list[Game]]:
    """A published match of each pair and its first game, won by White."""
    matches = [await published_match(db, a.lower(), b.lower()) for a, b in pairs]
    games = [finished(state, a, b, winner="white", minute=7 + i) for i, (a, b) in enumerate(pairs)]
    return matches, games


async def open_followups(db: Database) -> list[DeadlineRow]:
    async with db.uow() as uow:
        return list(await uow.deadlines.all_open_of_kind(FOLLOWUP_DEADLINE))


async def challenges_asked(db: Database, match_id: int) -> list[str]:
    """The games of the match whose challenge was asked for (each deadline's first attempt,
    fired or not) and those made on Lichess: one each for one next game."""
    async with db.uow() as uow:
        rows = await uow.weekly.deadlines(match_id)
        made = await uow.lichess.challenges(match_id)
    asked = [
        r.subject for r in rows if r.kind == CHALLENGE_DEADLINE and r.payload.get("attempt") == 1
    ]
    return sorted(asked) + [f"made {c.game_number}" for c in made]


def runner(db: Database, clock: FakeClock, services: Services) -> DeadlineRunner:
    return DeadlineRunner(db, clock, services.deadline_handlers)


def stream_intake(services: Services) -> StreamIntake:
    assert isinstance(services.intake, StreamIntake)
    return services.intake


async def test_a_burst_of_several_matches_is_stored_in_one_transaction(
    any_db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    db = any_db
    for name in ("Erin", "Frank"):
        state.add_user(name, online=True)
    matches, games = await first_games(db, state, PAIRS)
    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        services = bootstrap(config(db, sandbox_url), clock=clock, db=db, lichess=client)
        with games_committed(db) as commits:
            await services.intake.prepare(games)
            for game in games:
                assert await services.intake(game)
        assert len(commits) == 1  # the three games' rows: one transaction
        due = await open_followups(db)
        assert sorted(r.match_id for r in due if r.match_id is not None) == sorted(matches)
        for match_id in matches:  # the consequences wait for their rows
            assert await challenges_asked(db, match_id) == []
        assert await runner(db, clock, services).fire_due() >= len(matches)
        assert await open_followups(db) == []
        assert await stream_intake(services).settle({frozenset(p) for p in PAIRS}) == 0
    for match_id in matches:
        async with db.uow() as uow:
            scored = await match_state(uow, match_id)
        assert scored.score is not None
        assert scored.score.first == 1
        assert await challenges_asked(db, match_id) == ["week 1 game 2", "made 2"]


async def test_a_pairs_games_in_one_batch_are_classified_in_order(
    any_db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """Six wins decide a qualification match (10 games, clinched at 5.5): its seventh game,
    in the same burst, is refused as the match was complete, which it only is once the sixth
    game's follow-up has run."""
    db = any_db
    match_id = await published_match(db, "alice", "bob")
    games = [
        finished(state, *(("Alice", "Bob") if i % 2 == 0 else ("Bob", "Alice")), winner=w, minute=i)
        for i, w in enumerate(["white", "black"] * 3 + ["white"])
    ]
    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        services = bootstrap(config(db, sandbox_url), clock=clock, db=db, lichess=client)
        await services.intake.prepare(games)
        for game in games:
            await services.intake(game)
        await runner(db, clock, services).fire_due()
    async with db.uow() as uow:
        stored = await uow.games.for_match(match_id, counted_only=False)
        scored = await match_state(uow, match_id)
    assert [(g.id, g.counted, g.refusal) for g in stored] == [
        *((g.id, True, None) for g in games[:6]),
        (games[6].id, False, "match_complete"),
    ]
    assert scored.outcome is Outcome.FIRST_WINS


async def test_a_crash_after_the_batch_leaves_its_followups_due_and_they_run_once(
    any_db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """The process that stored a burst dies before its matches' consequences ran: a new one's
    deadline runner fires each row once, and the old intake's late attempt at the same rows
    runs none again (a claim each): one next challenge a match, one result notice."""
    db = any_db
    matches, games = await first_games(db, state, PAIRS[:2])
    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        dead = bootstrap(config(db, sandbox_url), clock=clock, db=db, lichess=client)
        await dead.intake.prepare(games)  # committed; nothing after it ran
    assert len(await open_followups(db)) == len(matches)
    restarted = Database(db.url)
    try:
        async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
            services = bootstrap(
                config(restarted, sandbox_url), clock=clock, db=restarted, lichess=client
            )
            fired = await runner(restarted, clock, services).fire_due()
            assert fired >= len(matches)
            assert await stream_intake(dead).settle({frozenset(p) for p in PAIRS}) == 0
            assert await runner(restarted, clock, services).fire_due() == 0
    finally:
        await restarted.dispose()
    async with db.uow() as uow:
        fired_rows = [
            r
            for r in await uow.deadlines.fired_between(
                dt.datetime.min.replace(tzinfo=dt.UTC), clock.now()
            )
            if r.kind == FOLLOWUP_DEADLINE
        ]
        audit = await uow.audit.list(actions=["deadline.fired"])
    assert sorted(r.match_id for r in fired_rows if r.match_id is not None) == sorted(matches)
    followups = [a for a in audit if (a.details or {}).get("kind") == FOLLOWUP_DEADLINE]
    assert len(followups) == len(matches)  # each fired once, by the new process's runner
    for match_id in matches:
        assert await challenges_asked(db, match_id) == ["week 1 game 2", "made 2"]


async def test_a_followup_the_previous_release_fired_unhandled_is_made_good_by_the_sweep(
    any_db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """During an upgrade the previous release may lead and fire a follow-up row it has no
    handler for (it audits it as unhandled and goes on): the daily digest's sweep opens it
    again, once, and the new release's runner then does the match's consequences."""
    db = any_db
    matches, games = await first_games(db, state, PAIRS[:2])
    async with LichessClient(base_url=sandbox_url, token=bot_token, clock=clock) as client:
        services = bootstrap(config(db, sandbox_url), clock=clock, db=db, lichess=client)
        await services.intake.prepare(games)
        previous = {k: h for k, h in services.deadline_handlers.items() if k != FOLLOWUP_DEADLINE}
        assert await DeadlineRunner(db, clock, previous).fire_due() >= len(matches)
        assert await open_followups(db) == []
        for match_id in matches:
            assert await challenges_asked(db, match_id) == []  # not done, for now
        for _ in range(2):  # two days' sweeps: the rows fire once more, not twice
            async with db.uow() as uow:
                await uow.deadlines.add(
                    DeadlineRow(kind=DIGEST_DEADLINE, due_at=clock.now(), created_at=clock.now())
                )
                await uow.commit()
            await runner(db, clock, services).fire_due()
            clock.advance(dt.timedelta(days=1))
    async with db.uow() as uow:
        audit = await uow.audit.list(actions=["deadline.fired"])
    followups = [a for a in audit if (a.details or {}).get("kind") == FOLLOWUP_DEADLINE]
    assert len(followups) == len(matches)
    for match_id in matches:
        assert await challenges_asked(db, match_id) == ["week 1 game 2", "made 2"]
