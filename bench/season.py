"""A whole season through the real service and the sandbox Lichess over HTTP, timed.

    python -m bench.season [--players 64,128,256] [--seed 1] [--database-url URL]

For each field size, runs the demo season (bot/demo: every qualification round, the Candidates,
the semifinals and a final with repeat weeks and armageddon, all on a fake clock) and prints one
table: wall time, Lichess requests per match by endpoint, the delay from a game's end on the
sandbox to its row in the database (p50, p99, wall time) and peak memory (ru_maxrss of this
process, so it only grows across sizes); then each size's TD touches by kind and the players'
self-service actions (bot/views/touches.py). ``--database-url`` must name an empty database; with
several sizes it is used for the first only (the others use SQLite files). No assertions.

Where the time goes (bot/demo): the service's own work per event dominates (the intake of each
game, about 7 ms; each DM through the berserk client in a worker thread to the sandbox, about
5 ms; the deadline runner), then the actors' reads of what changed and the TDs' routine.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path

from bot.config import Config
from bot.demo.report import Reporter, percentile
from bot.demo.season import DemoOptions, SeasonResult, run_season


async def _one(players: int, seed: int, url: str | None, folder: Path) -> SeasonResult:
    options = DemoOptions(
        players=players, seed=seed, folder=folder, database_url=url, serve_web=False
    )
    return await run_season(Config(), options, reporter=Reporter(write=None))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="64,128,256", help="comma-separated field sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", help="an empty database for the first size")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    sizes = [int(v) for v in args.players.split(",")]
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
    for players, result, _ in endpoints:
        print(f"\n{players} players:")
        print("\n".join(result.touches.table()))


if __name__ == "__main__":
    main()
