"""The public pages under a final's crowd (issue 18), measured with locust.

    python -m bench.web [--database-url postgresql+asyncpg://…] [--users 200] [--seconds 30]

Plays a demo season into a new database (a SQLite file, or the empty PostgreSQL database given),
starts ``acwc run`` on it (the bundled sandbox Lichess; its games stream, deadlines and outbox
running beside the pages) and points locust (``bench/locustfile.py``: standings, the Candidates
crosstable, the bracket and the pairings, 1.6 requests a second per user) at its web
pages with ``--users`` concurrent users for ``--seconds``. Prints one line per page and the
total: requests a second, p50, p95, p99 and failures; then the service's event loop's longest
holds under the load (one callback run without a pause, in wall and in the loop thread's CPU
time, which the machine's load moves less, and the coroutine it ran: every request waits behind
it), and the garbage collector's CPU time by generation. Needs ``locust`` on PATH or beside
this Python (``pip install -e .[bench]``). No assertions. ``--dir`` keeps the SQLite season for
the next run, ``--played`` reuses the PostgreSQL one. Each page is rendered anew every 2 s in
the background (the page cache), as when the season changes it.

``--renders N``: no crowd; each page rendered N times one after another, with its wall times
and the longest event-loop hold of its renderings (CPU and wall; with the collector's share):
what every request arriving during a rendering may wait, the figure to compare changes by on
a busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bot.config import Config
from bot.demo.report import Reporter
from bot.demo.season import DemoOptions, run_season

ROOT = Path(__file__).resolve().parents[1]


HOLD_MS = 20.0
"""A callback of the service's event loop running longer than this (wall) is written down."""
PAGES = ("/pairings", "/standings", "/candidates", "/knockout")
"""The pages of ``bench/locustfile.py``."""


def _serve(config: str, holds: str) -> None:
    """``acwc run --config config`` with every event-loop callback timed: the longest ones, and
    how many ran over :data:`HOLD_MS`, are written to ``holds`` (JSON) when it stops."""
    import atexit
    import gc
    import json
    from asyncio import events

    from bot.launch import main as acwc

    found: list[tuple[float, float, float, str]] = []
    least = float(os.environ.get("BENCH_WEB_HOLD_MS", HOLD_MS))
    run = events.Handle._run
    collections: list[tuple[int, float, float]] = []  # generation, CPU ms, when
    collecting = [0.0, 0.0, 0.0]  # the collector's CPU time so far (ms), when the running one
    # started (thread CPU), the oldest generation it collected since

    def collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[1] = time.thread_time()
        else:
            took = (time.thread_time() - collecting[1]) * 1000
            collecting[0] += took
            collecting[2] = max(collecting[2], info["generation"])
            collections.append((info["generation"], took, time.monotonic()))

    gc.callbacks.append(collector)

    def timed(handle: events.Handle) -> None:
        wall, cpu, collected = time.perf_counter(), time.thread_time(), collecting[0]
        collecting[2] = 0
        try:
            run(handle)
        finally:
            took = (time.perf_counter() - wall) * 1000
            if took > least:
                callback = getattr(handle, "_callback", None)
                owner = getattr(callback, "__self__", None)  # a task's step
                coro = owner.get_coro() if isinstance(owner, asyncio.Task) else None
                what = getattr(coro, "__qualname__", None) or repr(callback)[:80]
                if isinstance(owner, asyncio.Task) and not owner.get_name().startswith("Task-"):
                    what = f"{what} ({owner.get_name()})"
                if collecting[0] - collected >= 1:
                    what += (
                        f", of which {collecting[0] - collected:.0f} ms CPU collecting garbage"
                        f" (up to generation {collecting[2]:.0f})"
                    )
                found.append((took, (time.thread_time() - cpu) * 1000, time.monotonic(), what))

    events.Handle._run = timed  # type: ignore[method-assign,assignment]

    def write() -> None:
        Path(holds).write_text(
            json.dumps({"holds": sorted(found, reverse=True), "collections": collections})
        )

    atexit.register(write)
    sys.exit(acwc(["--config", config, "run"]))


def _print_holds(path: Path, since: float) -> None:
    """The holds of the service's loop after ``since`` (``time.monotonic()``, the machine's)."""
    import json

    if not path.exists():
        print("event loop: no record of its holds (the service did not stop cleanly)")
        return
    found = json.loads(path.read_text())
    holds = [h for h in found["holds"] if h[2] >= since]
    print(f"event loop under load: {len(holds)} callbacks ran over {HOLD_MS:g} ms; the longest:")
    for wall, cpu, _, what in holds[:5]:
        print(f"  {wall:7.1f} ms wall {cpu:7.1f} ms CPU  {what}")
    for generation in (0, 1, 2):
        took = [ms for g, ms, at in found["collections"] if g == generation and at >= since]
        if took:
            print(
                f"garbage collector, generation {generation}: {len(took)} collections, "
                f"{sum(took):.0f} ms CPU in all, the longest {max(took):.1f} ms"
            )


def _renders(host: str, times: int) -> list[tuple[str, float, float, list[float]]]:
    """Each page rendered ``times`` times, one after another (a query string the page cache has
    not seen: each request renders); each page's start, end (``time.monotonic()``) and walls."""
    out = []
    for page in PAGES:
        walls = []
        start = time.monotonic()
        for n in range(times):
            began = time.perf_counter()
            with urllib.request.urlopen(f"{host}{page}?render={n}", timeout=60) as answer:
                answer.read()
            walls.append((time.perf_counter() - began) * 1000)
        out.append((page, start, time.monotonic(), walls))
    return out


def _print_renders(path: Path, renders: list[tuple[str, float, float, list[float]]]) -> None:
    import json
    import statistics

    holds = json.loads(path.read_text())["holds"] if path.exists() else []
    print(f"{'page':<12} {'renders':>7} {'wall p50':>8} {'wall max':>8}  longest loop hold")
    for page, start, end, walls in renders:
        mine = [h for h in holds if start <= h[2] <= end]
        worst = max(mine, key=lambda h: h[1], default=None)
        hold = "-"
        if worst is not None:
            wall, cpu, _, what = worst
            garbage = what.partition(", of which")[2]
            hold = f"{cpu:.1f} ms CPU, {wall:.1f} ms wall"
            hold += f", of which{garbage}" if garbage else ""
        p50, longest = statistics.median(walls), max(walls)
        print(f"{page:<12} {len(walls):>7} {p50:>8.1f} {longest:>8.1f}  {hold}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _season(players: int, folder: Path, url: str | None) -> str:
    """Play a season; its database URL."""
    options = DemoOptions(players=players, seed=1, folder=folder, database_url=url, serve_web=False)
    await run_season(Config(), options, reporter=Reporter(write=None))
    return url or f"sqlite+aiosqlite:///{folder / 'acwc-demo.db'}"


def _locust() -> str:
    beside = Path(sys.executable).with_name("locust")
    found = str(beside) if beside.exists() else shutil.which("locust")
    if found is None:
        sys.exit("bench.web needs locust: pip install -e .[bench]")
    return found


def _wait_up(url: str, within: float = 60.0) -> None:
    deadline = time.monotonic() + within
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="an empty database (default: a SQLite file)")
    parser.add_argument("--players", type=int, default=48)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument(
        "--dir", type=Path, help="keep the season's SQLite file here; played once, then reused"
    )
    parser.add_argument(
        "--played",
        action="store_true",
        help="the --database-url already holds a season this benchmark played: reuse it",
    )
    parser.add_argument(
        "--renders",
        type=int,
        metavar="N",
        help="no crowd: render each page N times one after another, and print the longest "
        "event-loop hold of each page's renderings",
    )
    parser.add_argument("--serve", nargs=2, metavar=("CONFIG", "HOLDS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:  # the service, in the child process this benchmark starts
        _serve(*args.serve)
    with tempfile.TemporaryDirectory(prefix="acwc-bench-web-") as tmp:
        folder = Path(tmp)
        kept = None if args.dir is None else args.dir / "acwc-demo.db"
        if kept is not None and kept.exists() and args.database_url is None:
            url = f"sqlite+aiosqlite:///{kept.resolve()}"
        elif args.played and args.database_url:
            url = args.database_url
        else:
            if args.dir is not None:
                args.dir.mkdir(parents=True, exist_ok=True)
            url = asyncio.run(_season(args.players, args.dir or folder, args.database_url))
        port, ops_port = _free_port(), _free_port()
        config = folder / "config.toml"
        config.write_text(
            f'[service]\ndatabase_url = "{url}"\nweb_port = {port}\nops_port = {ops_port}\n'
            'log_level = "ERROR"\n'
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT), "ACWC_SESSION_SECRET": "b" * 40}
        if args.renders:
            env["BENCH_WEB_HOLD_MS"] = "1"
        service = subprocess.Popen(
            [sys.executable, "-m", "bench.web", "--serve", str(config), str(folder / "holds")],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(folder / "service.log").open("w"),
            cwd=folder,
        )
        renders = None
        try:
            host = f"http://127.0.0.1:{port}"
            _wait_up(f"http://127.0.0.1:{ops_port}")
            if args.renders:
                renders = _renders(host, args.renders)
                return
            prefix = folder / "locust"
            started = time.monotonic()
            subprocess.run(
                [
                    _locust(), "-f", str(ROOT / "bench" / "locustfile.py"), "--headless",
                    "-u", str(args.users), "-r", str(max(args.users // 5, 1)),
                    "-t", f"{args.seconds}s", "--host", host, "--csv", str(prefix),
                    "--only-summary", "--loglevel", "ERROR",
                ],
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )  # fmt: skip
        finally:
            service.terminate()
            service.wait(timeout=30)
            if renders is not None:
                _print_renders(folder / "holds", renders)
        kind = "PostgreSQL" if url.startswith("postgresql") else "SQLite"
        print(f"{kind}, {args.players} players' season, {args.users} users, {args.seconds} s")
        print(f"{'page':<14} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'failed':>7}")
        with open(f"{prefix}_stats.csv", newline="") as stats:
            for row in csv.DictReader(stats):
                name = row["Name"] or "Aggregated"
                print(
                    f"{name:<14} {float(row['Requests/s']):>7.1f} {row['50%']:>7} "
                    f"{row['95%']:>7} {row['99%']:>7} {row['Failure Count']:>7}"
                )
        _print_holds(folder / "holds", started)


if __name__ == "__main__":
    main()
