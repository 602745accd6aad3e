"""A whole season through the real service and the sandbox Lichess over HTTP, timed.

    python -m bench.season [--players 64,128,256] [--seed 1] [--database-url URL]
    python -m bench.season --side-by-side [--players 48] [--pg postgresql://postgres@127.0.0.1:5432]

For each field size, runs the demo season (bot/demo: every qualification round, the Candidates,
the semifinals and a final with repeat weeks and armageddon, all on a fake clock) and prints one
table: wall time, Lichess requests per match by endpoint, the delay from a game's end on the
sandbox to its row in the database (p50, p99, wall time) and peak memory (ru_maxrss of this
process, so it only grows across sizes). ``--database-url`` must name an empty database; with
several sizes it is used for the first only (the others use SQLite files). No assertions.

Where the time goes (bot/demo): the service's own work per event dominates (the intake of each
game, about 7 ms; each DM through the berserk client in a worker thread to the sandbox, about
5 ms; the deadline runner), then the actors' reads of what changed and the TDs' routine.

``--side-by-side`` runs the first size on a SQLite file and then on a new PostgreSQL database
of the server ``--pg`` (dropped afterwards) and prints both with the ratio, the database round
trips (statements, transactions begun) per game, and whether the champion and standings agree.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from bot.config import Config
from bot.demo.report import Reporter, percentile
from bot.demo.season import DemoOptions, SeasonResult, run_season


async def _one(players: int, seed: int, url: str | None, folder: Path) -> SeasonResult:
    options = DemoOptions(
        players=players, seed=seed, folder=folder, database_url=url, serve_web=False
    )
    return await run_season(Config(), options, reporter=Reporter(write=None))


class RoundTrips:
    """Counts every statement and every transaction begun, on every engine of the process."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        event.listen(Engine, "before_cursor_execute", self._statement)
        event.listen(Engine, "begin", self._begin)

    def _statement(self, conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
        self.counts["statements"] += 1

    def _begin(self, conn: Connection) -> None:
        self.counts["transactions"] += 1

    def take(self) -> Counter[str]:
        found, self.counts = self.counts, Counter()
        return found


def side_by_side(players: int, seed: int, pg: str) -> None:
    """The same season on SQLite and on PostgreSQL, one after the other, and the ratio."""
    trips = RoundTrips()
    name = f"acwc_bench_{uuid.uuid4().hex[:10]}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(f"{pg}/postgres")
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    runs: dict[str, tuple[SeasonResult, Counter[str]]] = {}
    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        for kind in ("sqlite", "postgresql"):
            url = None if kind == "sqlite" else f"postgresql+asyncpg://{pg.split('://')[1]}/{name}"
            with tempfile.TemporaryDirectory(prefix="acwc-bench-side-") as folder:
                trips.take()
                result = asyncio.run(_one(players, seed, url, Path(folder)))
                runs[kind] = (result, trips.take())
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    print(
        f"{'database':<11} {'wall s':>7} {'end->row p50 ms':>15} {'p99 ms':>7} "
        f"{'statements/game':>15} {'transactions/game':>17}"
    )
    for kind, (result, counts) in runs.items():
        games = max(result.season_games, 1)
        print(
            f"{kind:<11} {result.wall_seconds:>7.1f} "
            f"{(percentile(result.game_delays, 0.5) or 0) * 1000:>15.1f} "
            f"{(percentile(result.game_delays, 0.99) or 0) * 1000:>7.1f} "
            f"{counts['statements'] / games:>15.1f} {counts['transactions'] / games:>17.1f}"
        )
    sqlite, postgresql = runs["sqlite"][0], runs["postgresql"][0]
    print(
        f"PostgreSQL / SQLite wall: {postgresql.wall_seconds / sqlite.wall_seconds:.2f}x; "
        f"same champion ({sqlite.champion}) and standings: "
        f"{sqlite.champion == postgresql.champion and sqlite.standings == postgresql.standings}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="64,128,256", help="comma-separated field sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", help="an empty database for the first size")
    parser.add_argument(
        "--side-by-side", action="store_true", help="the first size on SQLite, then PostgreSQL"
    )
    parser.add_argument(
        "--pg", default="postgresql://postgres@127.0.0.1:5432", help="server for --side-by-side"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    sizes = [int(v) for v in args.players.split(",")]
    if args.side_by_side:
        side_by_side(sizes[0], args.seed, args.pg)
        return
    print(
        f"{'players':>7} {'matches':>7} {'games':>6} {'wall s':>7} {'req/match':>9} "
        f"{'end->row p50 ms':>15} {'p99 ms':>7} {'peak MB':>8}",
        flush=True,
    )
    endpoints: list[tuple[int, SeasonResult, int]] = []
    for i, players in enumerate(sizes):
        with tempfile.TemporaryDirectory(prefix="acwc-bench-season-") as folder:
            url = args.database_url if i == 0 else None
            result = asyncio.run(_one(players, args.seed, url, Path(folder)))
        matches = sum(1 for m in result.matches if m[6] is not None and m[7] != "void")
        p50 = percentile(result.game_delays, 0.5) or 0.0
        p99 = percentile(result.game_delays, 0.99) or 0.0
        print(
            f"{players:>7} {matches:>7} {result.season_games:>6} {result.wall_seconds:>7.1f} "
            f"{sum(result.requests.values()) / max(matches, 1):>9.2f} "
            f"{p50 * 1000:>15.1f} {p99 * 1000:>7.1f} {result.peak_mb:>8.1f}",
            flush=True,
        )
        endpoints.append((players, result, matches))
    print("\nLichess requests per match, by endpoint")
    names = sorted({name for _, r, _ in endpoints for name in r.requests})
    print(f"{'endpoint':<40} " + " ".join(f"{p:>8}" for p, _, _ in endpoints))
    for name in names:
        cells = " ".join(f"{r.requests.get(name, 0) / max(m, 1):>8.2f}" for _, r, m in endpoints)
        print(f"{name:<40} {cells}")


if __name__ == "__main__":
    main()
