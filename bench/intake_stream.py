"""Bench: games through the sandbox stream into a consumer.

Starts the sandbox Lichess on 127.0.0.1, a GameWatcher on ``--players`` players (paired two by
two), then plays ``--games`` games (start, then finish) and measures, for each finished game,
the delay from the sandbox publishing its end to the consumer receiving it, and the overall
throughput. Prints figures; asserts nothing.

    python bench/intake_stream.py --games 2000 --players 200 --rate 0

``--rate 0`` publishes as fast as possible (a burst); ``--rate 50`` spreads the games at 50/s.
The sandbox runs in the same event loop as the consumer, so the delays include its work too.
The consumer is a stub here; the lead replaces ``consume`` with the database intake.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import statistics
import sys
import time
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.lichess import GameWatcher, LichessClient
from bot.runtime.clock import SystemClock
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState
from rules.core.model import Game, PlayerId


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def run(games: int, players: int, rate: float) -> None:
    clock = SystemClock()
    state = SandboxState(now=clock.now)
    state.knobs.keepalive_seconds = 5.0
    names = [f"player{i:03d}" for i in range(players)]
    for name in names:
        state.add_user(name)
    token = state.add_token("acwc-bot")
    pairs = [(PlayerId(names[i]), PlayerId(names[i + 1])) for i in range(0, players - 1, 2)]

    runner = web.AppRunner(make_app(state), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site.port}"

    ended_at: dict[str, float] = {}  # by sandbox game id
    delays: list[float] = []
    all_in = asyncio.Event()

    async def consume(game: Game) -> None:
        if not game.status.is_finished:
            return
        published = ended_at.get(game.id)
        if published is not None:
            delays.append(time.perf_counter() - published)
        if len(delays) == games:
            all_in.set()

    async def pairs_provider() -> list[tuple[PlayerId, PlayerId]]:
        return pairs

    async with LichessClient(base_url=url, token=token, clock=clock) as client:
        watcher = GameWatcher(
            client=client,
            clock=clock,
            on_game=consume,
            players=[p for pair in pairs for p in pair],
            pairs_provider=pairs_provider,
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
                if rate > 0:
                    await asyncio.sleep(1 / rate)
                elif n % 50 == 49:
                    await asyncio.sleep(0)
            await asyncio.wait_for(all_in.wait(), 120)
            elapsed = time.perf_counter() - started
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    await runner.cleanup()

    ms = [d * 1000 for d in delays]
    print(f"games: {games}  players: {players}  streams: {watcher.connections}")
    print(f"throughput: {games / elapsed:.0f} games/s over {elapsed:.2f} s")
    print(
        "end -> delivery: "
        f"p50 {percentile(ms, 50):.2f} ms  p99 {percentile(ms, 99):.2f} ms  "
        f"max {max(ms):.2f} ms  mean {statistics.fmean(ms):.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--rate", type=float, default=0.0, help="games per second; 0 = burst")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args.games, max(2, args.players), args.rate))


if __name__ == "__main__":
    main()
