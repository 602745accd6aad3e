"""Bench: finished games from the sandbox stream into the database (issue 5's figure).

Starts the sandbox Lichess on 127.0.0.1 and a SQLite (or ``--database-url``) database with one
published qualification match per pair of players, then replays ``--games`` finished games
through the real games watcher and game intake. For each game it measures the delay from the
sandbox publishing the game's end to the intake's transaction committing its row; it prints
throughput and p50/p99 of that delay. Asserts nothing.

    python bench/intake_db.py --games 1000 --players 200 --rate 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app import bootstrap
from bot.config import Config, ServiceConfig
from bot.lichess import GameWatcher, LichessClient
from bot.runtime.clock import SystemClock
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState
from bot.service.tournament import Tournament
from rules.core.model import Game, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from storage import migrate
from storage.convert import fraction_to_text
from storage.db import Database
from storage.models import MatchRow, PlayerRow, RoundRow


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


async def prepare(
    db: Database, config: Config, pairs: list[tuple[str, str]], now: dt.datetime
) -> None:
    await migrate.upgrade(db)
    fmt = DEFAULT_RULESET.formats.qualification
    async with db.uow() as uow:
        tournament = await Tournament(config).create(uow, now=now, actor="bench")
        stage = await uow.tournaments.stage(tournament.id, "qualification")
        assert stage is not None
        rnd = await uow.tournaments.add_round(
            RoundRow(
                stage_id=stage.id,
                number=1,
                state="published",
                week_start=now - dt.timedelta(days=1),
                week_end=now + dt.timedelta(days=6),
            )
        )
        for board, (a, b) in enumerate(pairs, 1):
            for name in (a, b):
                await uow.players.add(PlayerRow(id=name, username=name, registered_at=now))
            await uow.matches.add(
                MatchRow(
                    round_id=rnd.id,
                    stage="qualification",
                    board=board,
                    white_first=a,
                    black_first=b,
                    games=fmt.games,
                    clinch_at=fraction_to_text(fmt.clinch_at),
                    tiebreak=fmt.tiebreak.value,
                    state="scheduled",
                )
            )
        await uow.commit()


async def run(games: int, players: int, rate: float, url: str | None) -> None:
    clock = SystemClock()
    state = SandboxState(now=clock.now)
    names = [f"player{i:03d}" for i in range(players)]
    for name in names:
        state.add_user(name)
    token = state.add_token("acwc-bot")
    pairs = [(names[i], names[i + 1]) for i in range(0, players - 1, 2)]
    with tempfile.TemporaryDirectory() as tmp:
        db_url = url or f"sqlite+aiosqlite:///{tmp}/bench.db"
        config = Config(service=ServiceConfig(database_url=db_url))
        db = Database(db_url)
        await prepare(db, config, pairs, clock.now())
        runner = web.AppRunner(make_app(state), shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        ended_at: dict[str, float] = {}  # by sandbox game id
        delays: list[float] = []
        all_in = asyncio.Event()
        intake = bootstrap(config, clock=clock, db=db).intake

        async def consume(game: Game) -> None:
            await intake(game)  # returns once its transaction committed
            published = ended_at.get(game.id)
            if game.status.is_finished and published is not None:
                delays.append(time.perf_counter() - published)
                if len(delays) == games:
                    all_in.set()

        async def provider() -> list[tuple[PlayerId, PlayerId]]:
            return [(PlayerId(a), PlayerId(b)) for a, b in pairs]

        async with LichessClient(
            base_url=f"http://127.0.0.1:{site.port}", token=token, clock=clock
        ) as client:
            watcher = GameWatcher(
                client=client,
                clock=clock,
                on_game=consume,
                players=[PlayerId(n) for n in names],
                pairs_provider=provider,
            )
            task = asyncio.create_task(watcher.run())
            try:
                await asyncio.wait_for(watcher.connected.wait(), 30)
                await watcher.wait_backfilled()
                started = time.perf_counter()
                for n in range(games):
                    white, black = pairs[n % len(pairs)]
                    game = state.start_game(white=white, black=black)
                    state.finish_game(game.id, status="variantEnd", winner="white")
                    ended_at[game.id] = time.perf_counter()
                    await asyncio.sleep(1 / rate if rate > 0 else 0)
                await asyncio.wait_for(all_in.wait(), 300)
                elapsed = time.perf_counter() - started
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await runner.cleanup()
        async with db.uow() as uow:
            stored = len(await uow.games.all())
        await db.dispose()
    ms = [d * 1000 for d in delays]
    print(
        f"database: {'sqlite' if url is None else url.split(':')[0]}  games: {games}  "
        f"players: {players}  rows stored: {stored}"
    )
    print(f"throughput: {games / elapsed:.0f} games/s over {elapsed:.2f} s")
    print(
        f"game end -> row committed: p50 {percentile(ms, 50):.1f} ms  "
        f"p99 {percentile(ms, 99):.1f} ms  max {max(ms):.1f} ms  mean {statistics.fmean(ms):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rate", type=float, default=20.0, help="games per second; 0 = burst")
    parser.add_argument("--database-url", help="default: a temporary SQLite file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args.games, max(2, args.players), args.rate, args.database_url))


if __name__ == "__main__":
    main()
