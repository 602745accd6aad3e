"""A whole season through the real service and the sandbox Lichess over HTTP, timed.

    python -m bench.season [--players 64,128,256] [--seed 1] [--database-url URL]
    python -m bench.season --side-by-side [--players 48] [--pg postgresql://postgres@127.0.0.1:5432]
    python -m bench.season --players 48,128,256,512 --demo 200
    python -m bench.season --side-by-side --players 48,128,256,512 --demo 200 --no-export-pace
    python -m bench.season --demo 200 --demo-only --no-export-pace  (beside --players 200)
    python -m bench.season --side-by-side --players 48 --runs sqlite,aiosqlite,postgresql,pg-async
        --repeat 3 --no-export-pace

For each field size, runs the demo season (bot/demo: every qualification round, the Candidates,
the semifinals and a final with repeat weeks and armageddon, all on a fake clock) and prints one
table: wall time, Lichess requests per match by endpoint, the delay from a game's end on the
sandbox to its row in the database (p50, p99, wall time) and peak memory (ru_maxrss of this
process, so it only grows across sizes); then each size's TD touches by kind and the players'
self-service actions (bot/views/touches.py). ``--database-url`` must name an empty database; with
several sizes it is used for the first only (the others use SQLite files). No assertions.

The sandbox runs with lila's real private-message limits (bot/sandbox/inbox.py: 20 new
conversations a day, 20 replies a minute, the team-leader exemption); the bot leads the team,
every 25th player is not a member and every 40th refuses messages from the bot. The notices
table gives notices per match (for players: DMs, and the members' pairings the team message
carried), DMs per match (messages to players that Lichess accepted; notices due together go out
as one), ``POST /inbox`` requests per match (the TDs' alerts too), the inbox 429s, whether any
global pause happened, and the notices lost: notices neither delivered nor both shown in the
room and alerted to the TDs (``--no-dm-limits``: the sandbox without limits).

Where the time goes (bot/demo): the service's own work per event dominates (the intake of each
game, about 7 ms; each DM through the berserk client in a worker thread to the sandbox, about
5 ms; the deadline runner), then the actors' reads of what changed and the TDs' routine.

Each row gives the wall time, the registration's share of it (every player's rated history
read at lila's pace, 20-30 games a real second, two exports at once: a wait, not work) and this
process's CPU seconds (the machine may be shared: CPU is the steadier figure). With
``--no-export-pace`` the sandbox streams those histories at once (the 512-player field's
would otherwise wait a quarter of an hour or more).

Each row ends with the machine's load average (1 minute) as the run began and ended, and the
game's own intake is given twice: its wall time, and the process's CPU time over it (every
thread's, the other loops' work meanwhile included), which a loaded machine does not inflate.
The games of a burst stored in one transaction share it: each one's own intake is the batch's,
from its start to its commit (its CPU counted once for each game of the batch).

``--side-by-side`` runs each size on a SQLite file and then on a new PostgreSQL database of the
server ``--pg`` (dropped afterwards) and prints both with the ratio. ``--runs`` names the
databases, each compared with the first: ``sqlite`` (the demo's SQLite, on the event loop's
thread: :mod:`bot.demo.inline_sqlite`), ``aiosqlite`` (SQLite as the service runs it, each call
in a worker thread), ``postgresql`` (as the service runs it: ``synchronous_commit`` on) and
``pg-async`` (its database's ``synchronous_commit`` off), so that ``postgresql / pg-async`` is
what durable acknowledgements cost; ``--repeat N`` runs them N times in turn and compares
medians (a shared machine's speed drifts by a fifth within minutes). Each row gives the round
trips (statements, transactions begun: PostgreSQL's reads and one-statement writes in
autocommit, ``Database.reads``/``one_write``, begin none) per game, and whether the champion
and standings agree; ``--demo N`` then adds ``acwc demo --players N``'s row (on SQLite, as the
command runs it) to the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from bot.config import Config
from bot.demo.report import Reporter, percentile
from bot.demo.roster import Roster
from bot.demo.season import DEMO_TDS, DEMO_TEAM, DemoOptions, SeasonResult, run_season
from bot.lichess.pause import RATE_LIMIT_HOLD
from bot.notify.kinds import Channel, NoticeKind, OutboxStatus
from bot.sandbox.state import SandboxState
from storage.db import Database

LOADS: list[str] = [""]
"""The machine's load average (1 minute) when the last timed run began and ended."""


def _timed(run: Any) -> tuple[Any, float]:
    """``asyncio.run(run)`` and the process's CPU seconds it took (every thread's)."""
    load = os.getloadavg()[0]
    began = time.process_time()
    result = asyncio.run(run)
    LOADS[0] = f"{load:.1f}-{os.getloadavg()[0]:.1f}"
    return result, time.process_time() - began


def _row(players: int, result: SeasonResult, cpu: float, matches: int) -> str:
    """A size's line: wall (and the registration's share of it: the players' histories read
    at lila's pace, in real time), CPU, requests a match, game end to row."""
    return (
        f"{players:>7} {matches:>7} {result.season_games:>6} {result.wall_seconds:>7.1f} "
        f"{result.timings.get('registration', 0.0):>6.1f} {cpu:>6.1f} "
        f"{sum(result.requests.values()) / max(matches, 1):>9.2f} "
        f"{_delays(result)} {result.peak_mb:>8.1f} {LOADS[0]:>9}"
    )


def _delays(result: SeasonResult) -> str:
    """Game end to row p50 and p99, and of it the game's own intake (the rest of the delay
    it waited behind the games that ended at the same simulated moment), in ms; and the
    process's CPU over a game's own intake, mean and p99 (what the load does not inflate)."""
    cells = [
        (percentile(values, q) or 0.0) * 1000
        for values in (result.game_delays, result.game_intakes, result.game_intake_cpu)
        for q in (0.5, 0.99)
    ]
    cpu = result.game_intake_cpu
    mean = 1000 * sum(cpu) / max(len(cpu), 1)
    return (
        f"{cells[0]:>15.1f} {cells[1]:>7.1f} {cells[2]:>16.1f} {cells[3]:>7.1f} "
        f"{mean:>13.1f} {cells[5]:>7.1f}"
    )


DELAYS = (
    f"{'end->row p50 ms':>15} {'p99 ms':>7} {'own intake p50 ms':>16} {'p99 ms':>7} "
    f"{'own cpu mean ms':>13} {'p99 ms':>7}"
)

HEADER = (
    f"{'players':>7} {'matches':>7} {'games':>6} {'wall s':>7} {'reg s':>6} {'cpu s':>6} "
    f"{'req/match':>9} {DELAYS} {'peak MB':>8} {'load':>9}"
)


SETTLE = [60.0]
"""Wall seconds the driver waits for the service to deal with what is due (``--settle-timeout``:
a burst of game ends on a busy machine can take longer than the default)."""
PACE = [True]
"""Whether the sandbox streams game exports at lila's pace in real time (``--no-export-pace``:
not, so that the registration's reading of every history is not a wait of minutes)."""


def _paced(
    setup: Callable[[SandboxState, Roster], None] | None,
) -> Callable[[SandboxState, Roster], None]:
    def paced(sandbox: SandboxState, roster: Roster) -> None:
        sandbox.knobs.export_throttle = PACE[0]
        if setup is not None:
            setup(sandbox, roster)

    return paced


async def _one(
    players: int,
    seed: int,
    url: str | None,
    folder: Path,
    setup: Callable[[SandboxState, Roster], None] | None = None,
) -> SeasonResult:
    options = DemoOptions(
        players=players,
        seed=seed,
        folder=folder,
        database_url=url,
        serve_web=False,
        sandbox_setup=_paced(setup),
        settle_timeout=SETTLE[0],
    )
    return await run_season(Config(), options, reporter=Reporter(write=None))


# --- notices under the real DM limits (issue 13) -----------------------------------------------


@dataclass
class NoticeFigures:
    sandbox: SandboxState | None = None
    kinds: Counter[str] = field(default_factory=Counter)
    """Notices to players (DMs and room notices) by kind."""


def dm_limits_setup(
    figures: NoticeFigures, *, limits: bool
) -> Callable[[SandboxState, Roster], None]:
    """The sandbox as lichess.org: the real message limits, the team, a few outsiders and
    a few players who refuse the bot's messages."""

    def setup(sandbox: SandboxState, roster: Roster) -> None:
        figures.sandbox = sandbox
        sandbox.knobs.dm_limits = limits
        for i, player in enumerate(roster.players):
            if i % 25 != 0:
                sandbox.join_team(DEMO_TEAM, player.username)
            if i % 40 == 7:
                sandbox.messaging.refuse_strangers.add(player.id)
        for td in DEMO_TDS:
            sandbox.join_team(DEMO_TEAM, td)

    return setup


async def notice_figures(database_url: str, figures: NoticeFigures, matches: int) -> str:
    """One line of the notices table, read from the season's database and sandbox."""
    sandbox = figures.sandbox
    assert sandbox is not None
    db = Database(database_url)
    try:
        async with db.uow() as uow:
            dms = [  # a room notice went in the team message (a member's pairing)
                *await uow.outbox.list(kind=Channel.DM.value),
                *await uow.outbox.list(kind=Channel.ROOM.value),
            ]
            alerted = {  # the TDs' note (their digest) of a player's undelivered notices
                r.player
                for r in await uow.outbox.list(kind=Channel.TD_NOTE.value)
                if r.notice == NoticeKind.UNDELIVERED.value
            }
            paused = await uow.holds.get(RATE_LIMIT_HOLD)
    finally:
        await db.dispose()
    figures.kinds.update(r.notice or "?" for r in dms)
    sent = sum(1 for r in dms if r.status is OutboxStatus.SENT)
    failed = [r for r in dms if r.status is OutboxStatus.FAILED]
    lost = sum(1 for r in dms if r.status is OutboxStatus.PENDING)
    lost += sum(1 for r in failed if r.player not in alerted)
    inbox_requests = sum(1 for _, path in sandbox.requests if path.startswith("/inbox/"))
    tds = {td.lower() for td in DEMO_TDS}
    delivered = sum(1 for m in sandbox.inbox if m.to not in tds)
    per = max(matches, 1)
    return (
        f"{len(dms):>7} {sent:>6} {len(failed):>6} {lost:>5} {len(dms) / per:>12.2f} "
        f"{delivered / per:>9.2f} {inbox_requests / per:>9.2f} "
        f"{sandbox.messaging.limited:>10} {sandbox.messaging.rejected:>8} "
        f"{'yes' if paused is not None else 'no':>7}"
    )


# --- the same season on both databases (issue 18) ----------------------------------------------


class RoundTrips:
    """Counts every statement and every transaction begun, on every engine of the process."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        event.listen(Engine, "before_cursor_execute", self._statement)
        event.listen(Engine, "begin", self._begin)

    def _statement(self, conn: Connection, cursor: Any, statement: str, *_: Any) -> None:
        self.counts["statements"] += 1

    def _begin(self, conn: Connection) -> None:
        if conn.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
            return  # PostgreSQL's reads without a transaction (Database.reads)
        self.counts["transactions"] += 1

    def take(self) -> Counter[str]:
        found, self.counts = self.counts, Counter()
        return found


RUN_KINDS = {
    "sqlite": "SQLite as the demo runs it (bot.demo.inline_sqlite: on the event loop's thread)",
    "aiosqlite": "SQLite as the service runs it (aiosqlite: each call in a worker thread)",
    "postgresql": "PostgreSQL as the service runs it (synchronous_commit on)",
    "pg-async": "PostgreSQL with synchronous_commit off (its database's default): what "
    "durable acknowledgements cost, against postgresql",
}
"""The databases ``--side-by-side`` can run a season on (``--runs``)."""


def side_by_side(
    sizes: list[int], seed: int, pg: str, kinds: list[str] | None = None, repeat: int = 1
) -> None:
    """The same seasons on each of ``kinds`` (default SQLite, then PostgreSQL), ``repeat``
    times in turn (so that a machine whose speed drifts weighs on each alike), and the ratios
    of the medians to the first kind's.

    The ratio is of the seasons' wall time less the registration (the players' histories read
    at lila's pace in real time, the same on both); CPU is this process's (the PostgreSQL
    server's is not in it)."""
    kinds = kinds or ["sqlite", "postgresql"]
    trips = RoundTrips()
    print(
        f"{'players':>7} {'database':<11} {'wall s':>7} {'reg s':>6} {'cpu s':>6} "
        f"{DELAYS} {'statements/game':>15} "
        f"{'transactions/game':>17} {'load':>9}",
        flush=True,
    )
    for players in sizes:
        runs = _both(players, seed, pg, trips, kinds, repeat)

        def season(r: SeasonResult) -> float:
            return r.wall_seconds - r.timings.get("registration", 0.0)

        wall = {k: statistics.median(season(r) for r, _ in runs[k]) for k in kinds}
        cpu = {k: statistics.median(c for _, c in runs[k]) for k in kinds}
        first = runs[kinds[0]][0][0]
        medians = f" (medians of {repeat} runs each)" if repeat > 1 else ""
        for kind, base in _ratios(kinds):
            agree = all(_agree(first, r) for r, _ in runs[kind])
            print(
                f"{players:>7} {kind} / {base} season wall (less registration): "
                f"{wall[kind] / wall[base]:.2f}x, CPU {cpu[kind] / cpu[base]:.2f}x"
                f"{medians}; same champion "
                f"({first.champion}) and standings: {agree}",
                flush=True,
            )


def _ratios(kinds: list[str]) -> list[tuple[str, str]]:
    """Which kind is compared with which: each with the first; PostgreSQL's durable
    acknowledgements with its asynchronous commits; PostgreSQL with the service's SQLite."""
    pairs = [(k, kinds[0]) for k in kinds[1:]]
    if "postgresql" in kinds and "pg-async" in kinds:
        pairs.append(("postgresql", "pg-async"))
    if "postgresql" in kinds and "aiosqlite" in kinds and kinds[0] != "aiosqlite":
        pairs.append(("postgresql", "aiosqlite"))
    return [p for i, p in enumerate(pairs) if p not in pairs[:i]]


def _agree(a: SeasonResult, b: SeasonResult) -> bool:
    return a.champion == b.champion and a.standings == b.standings


def _both(
    players: int, seed: int, pg: str, trips: RoundTrips, kinds: list[str], repeat: int
) -> dict[str, list[tuple[SeasonResult, float]]]:
    """One size's season on each of ``kinds`` in turn, ``repeat`` times, each on a new
    database (a SQLite file; a PostgreSQL database made for it and dropped); prints each."""

    async def admin(*sql: str) -> None:
        conn = await asyncpg.connect(f"{pg}/postgres")
        try:
            for statement in sql:
                await conn.execute(statement)
        finally:
            await conn.close()

    runs: dict[str, list[tuple[SeasonResult, float]]] = {k: [] for k in kinds}
    for _ in range(repeat):
        for kind in kinds:
            name = f"acwc_bench_{uuid.uuid4().hex[:10]}"
            if kind in ("postgresql", "pg-async"):
                asyncio.run(admin(f'CREATE DATABASE "{name}"'))
            if kind == "pg-async":
                asyncio.run(admin(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
            try:
                with tempfile.TemporaryDirectory(prefix="acwc-bench-side-") as folder:
                    url = {
                        "sqlite": None,
                        "aiosqlite": f"sqlite+aiosqlite:///{Path(folder) / 'service.db'}",
                    }.get(kind, f"postgresql+asyncpg://{pg.split('://')[1]}/{name}")
                    trips.take()
                    result, cpu = _timed(_one(players, seed, url, Path(folder)))
                    counts = trips.take()
            finally:
                if kind in ("postgresql", "pg-async"):
                    asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            runs[kind].append((result, cpu))
            games = max(result.season_games, 1)
            print(
                f"{players:>7} {kind:<11} {result.wall_seconds:>7.1f} "
                f"{result.timings.get('registration', 0.0):>6.1f} {cpu:>6.1f} "
                f"{_delays(result)} "
                f"{counts['statements'] / games:>15.1f} {counts['transactions'] / games:>17.1f} "
                f"{LOADS[0]:>9}",
                flush=True,
            )
    return runs


def demo_row(players: int, seed: int) -> None:
    """``acwc demo --players N`` in this process as the command runs it: the web pages served,
    no message limits, every line of its report written (to a file, as a terminal would take
    it), timed like the sizes above."""
    with tempfile.TemporaryDirectory(prefix="acwc-bench-demo-") as folder:
        path = Path(folder)
        with (path / "demo.txt").open("w") as out:
            options = DemoOptions(
                players=players,
                seed=seed,
                folder=path,
                sandbox_setup=_paced(None),
                settle_timeout=SETTLE[0],
            )
            reporter = Reporter(write=lambda line: print(line, file=out))
            result, cpu = _timed(run_season(Config(), options, reporter=reporter))
    matches = sum(1 for m in result.matches if m[6] is not None and m[7] != "void")
    print(f"{_row(players, result, cpu, matches)}  (acwc demo)", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="64,128,256", help="comma-separated field sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", help="an empty database for the first size")
    parser.add_argument(
        "--no-dm-limits", action="store_true", help="the sandbox without lila's message limits"
    )
    parser.add_argument(
        "--side-by-side", action="store_true", help="each size on SQLite, then PostgreSQL"
    )
    parser.add_argument(
        "--runs",
        default="sqlite,postgresql",
        help="with --side-by-side: the databases, compared with the first: "
        + "; ".join(f"{k}: {v}" for k, v in RUN_KINDS.items()),
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="with --side-by-side: each size's runs this many times in turn, the ratios of the "
        "medians (a machine shared with others drifts by a fifth within minutes)",
    )
    parser.add_argument(
        "--pg", default="postgresql://postgres@127.0.0.1:5432", help="server for --side-by-side"
    )
    parser.add_argument(
        "--demo",
        type=int,
        metavar="N",
        help="also run `acwc demo --players N` as the command runs it (web pages served, every "
        "event printed, to a file here) and print it as one more row",
    )
    parser.add_argument(
        "--demo-only",
        action="store_true",
        help="with --demo N: only the demo's row (to run it beside `--players N` in another "
        "process, both at the same time under the same load)",
    )
    parser.add_argument(
        "--no-export-pace",
        action="store_true",
        help="the sandbox streams game exports at once, not at lila's 20-30 games a real "
        "second (the registration's reading of every player's history: minutes of waiting)",
    )
    parser.add_argument(
        "--settle-timeout",
        type=float,
        default=60.0,
        help="wall seconds the service may take over what is due before the run fails "
        "(default 60; a 512-player round's burst of game ends on a busy machine takes longer)",
    )
    args = parser.parse_args(argv)
    PACE[0] = not args.no_export_pace
    SETTLE[0] = args.settle_timeout
    logging.basicConfig(level=logging.ERROR)
    if args.demo_only:
        if not args.demo:
            parser.error("--demo-only needs --demo N")
        print(HEADER, flush=True)
        demo_row(args.demo, args.seed)
        return
    sizes = [int(v) for v in args.players.split(",")]
    if args.side_by_side:
        kinds = [k.strip() for k in args.runs.split(",") if k.strip()]
        unknown = [k for k in kinds if k not in RUN_KINDS]
        if unknown or len(kinds) < 2 or len(set(kinds)) != len(kinds):
            parser.error(
                f"--runs takes two or more different ones of {', '.join(RUN_KINDS)}"
                + (f" (not {', '.join(unknown)})" if unknown else "")
            )
        if args.repeat < 1:
            parser.error("--repeat must be 1 or more")
        side_by_side(sizes, args.seed, args.pg, kinds, args.repeat)
        if args.demo:
            print(HEADER, flush=True)
            demo_row(args.demo, args.seed)
        return
    print(HEADER, flush=True)
    endpoints: list[tuple[int, SeasonResult, int]] = []
    notices: list[tuple[int, str]] = []
    for i, players in enumerate(sizes):
        figures = NoticeFigures()
        setup = dm_limits_setup(figures, limits=not args.no_dm_limits)
        with tempfile.TemporaryDirectory(prefix="acwc-bench-season-") as folder:
            url = args.database_url if i == 0 else None
            result, cpu = _timed(_one(players, args.seed, url, Path(folder), setup))
            matches = sum(1 for m in result.matches if m[6] is not None and m[7] != "void")
            db_url = url or f"sqlite+aiosqlite:///{Path(folder) / 'acwc-demo.db'}"
            notices.append((players, asyncio.run(notice_figures(db_url, figures, matches))))
        print(_row(players, result, cpu, matches), flush=True)
        endpoints.append((players, result, matches))
    if args.demo:
        demo_row(args.demo, args.seed)
    print("\nLichess requests per match, by endpoint")
    names = sorted({name for _, r, _ in endpoints for name in r.requests})
    print(f"{'endpoint':<40} " + " ".join(f"{p:>8}" for p, _, _ in endpoints))
    for name in names:
        cells = " ".join(f"{r.requests.get(name, 0) / max(m, 1):>8.2f}" for _, r, m in endpoints)
        print(f"{name:<40} {cells}")
    limits = "off" if args.no_dm_limits else "on"
    print(f"\nNotices (DMs to players; lila's message limits {limits})")
    print(
        f"{'players':>7} {'notices':>7} {'sent':>6} {'failed':>6} {'lost':>5} "
        f"{'notices/match':>12} {'DMs/match':>9} {'req/match':>9} {'inbox 429':>10} "
        f"{'refused':>8} {'paused':>7}"
    )
    for players, line in notices:
        print(f"{players:>7} {line}")
    print("\nNotices to players per match, by kind (DMs and room notices; the last size)")
    for kind, count in figures.kinds.most_common():
        print(f"{kind:<40} {count / max(matches, 1):>8.2f}")
    for players, result, _ in endpoints:
        print(f"\n{players} players:")
        print("\n".join(result.touches.table()))


if __name__ == "__main__":
    main()
