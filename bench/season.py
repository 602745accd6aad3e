"""A whole season through the real service and the sandbox Lichess over HTTP, timed.

    python -m bench.season [--players 64,128,256] [--seed 1] [--database-url URL]

For each field size, runs the demo season (bot/demo: every qualification round, the Candidates,
the semifinals and a final with repeat weeks and armageddon, all on a fake clock) and prints one
table: wall time, Lichess requests per match by endpoint, the delay from a game's end on the
sandbox to its row in the database (p50, p99, wall time) and peak memory (ru_maxrss of this
process, so it only grows across sizes). ``--database-url`` must name an empty database; with
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
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Config
from bot.demo.report import Reporter, percentile
from bot.demo.roster import Roster
from bot.demo.season import DEMO_TDS, DEMO_TEAM, DemoOptions, SeasonResult, run_season
from bot.lichess.pause import RATE_LIMIT_HOLD
from bot.notify.kinds import Channel, NoticeKind, OutboxStatus
from bot.sandbox.state import SandboxState
from storage.db import Database


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
        sandbox_setup=setup,
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
            alerted = {
                r.player
                for r in await uow.outbox.list(kind=Channel.TD_ALERT.value)
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="64,128,256", help="comma-separated field sizes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", help="an empty database for the first size")
    parser.add_argument(
        "--no-dm-limits", action="store_true", help="the sandbox without lila's message limits"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    sizes = [int(v) for v in args.players.split(",")]
    print(
        f"{'players':>7} {'matches':>7} {'games':>6} {'wall s':>7} {'req/match':>9} "
        f"{'end->row p50 ms':>15} {'p99 ms':>7} {'peak MB':>8}",
        flush=True,
    )
    endpoints: list[tuple[int, SeasonResult, int]] = []
    notices: list[tuple[int, str]] = []
    for i, players in enumerate(sizes):
        figures = NoticeFigures()
        setup = dm_limits_setup(figures, limits=not args.no_dm_limits)
        with tempfile.TemporaryDirectory(prefix="acwc-bench-season-") as folder:
            url = args.database_url if i == 0 else None
            result = asyncio.run(_one(players, args.seed, url, Path(folder), setup))
            matches = sum(1 for m in result.matches if m[6] is not None and m[7] != "void")
            db_url = url or f"sqlite+aiosqlite:///{Path(folder) / 'acwc-demo.db'}"
            notices.append((players, asyncio.run(notice_figures(db_url, figures, matches))))
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


if __name__ == "__main__":
    main()
