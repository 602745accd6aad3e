"""Screenshots of a demo season for the docs: a match room and the TD desk mid-season, and the
knockout page with the final's armageddon (bids, the game, its result). Not a benchmark and not
run in CI: it plays a whole demo season (about two minutes) and drives headless Chromium.

    python -m bench.screenshots [--seed 3] [--players 48] [--out docs/screenshots]

The season's SQLite file is copied twice a simulated week while it plays (Tuesday and Saturday
noon); afterwards the copy with the most pending TD decisions in the qualification or the
Candidates is served again at its own moment, and Chromium logs in on the sandbox Lichess as a
TD (the desk) and as a player of the busiest open match (its room). The finished season gives
the knockout page. The default seed's final is tied twice and decided by an armageddon; with a
seed whose final has none the script says so and takes the page anyway.

Needs chromium and chromedriver (``apt-get install -y chromium chromium-driver``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import sqlite3
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from bot.app import Service
from bot.config import Config
from bot.demo.bundled import bundled_sandbox
from bot.demo.report import Reporter
from bot.demo.roster import Roster
from bot.demo.season import DEMO_TDS, DemoOptions, demo_config, run_season
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from bot.web.desk.sources import pending_decisions
from rules.core.states import MatchState
from tests.web.webdriver import Browser, chromium

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 1280
SNAPSHOT_AT = ((1, 12), (5, 12))  # (weekday, hour): Tuesday and Saturday noon, UTC


@dataclass(frozen=True, slots=True)
class Snapshot:
    path: Path
    at: dt.datetime


class Snapshots:
    """Copies of the season's database at chosen moments of its fake clock."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.now: SandboxState | None = None
        self.taken: list[Snapshot] = []

    def setup(self, sandbox: SandboxState, roster: Roster) -> None:
        self.now = sandbox  # the sandbox reads the season's fake clock

    def _due(self, last: dt.datetime | None, now: dt.datetime) -> bool:
        if last is None:
            return now.weekday() in {d for d, _ in SNAPSHOT_AT}
        moments = [
            dt.datetime.combine(last.date() + dt.timedelta(days=n), dt.time(h), dt.UTC)
            for n in range(0, 8)
            for d, h in SNAPSHOT_AT
            if (last.date() + dt.timedelta(days=n)).weekday() == d
        ]
        return any(last < m <= now for m in moments)

    async def watch(self, database: Path, done: asyncio.Event) -> None:
        last: dt.datetime | None = None
        while not done.is_set():
            await asyncio.sleep(0.02)
            if self.now is None:
                continue
            now = self.now.now()
            if self._due(last, now):
                path = self.folder / f"snapshot-{len(self.taken):03d}.db"
                if _copy(database, path):
                    last = now
                    self.taken.append(Snapshot(path, now))


def _copy(database: Path, path: Path) -> bool:
    """A consistent copy of what is committed (SQLite's backup); False before the file exists.
    Blocking, on purpose: the season's SQLite runs on this same thread, so nothing is
    half-written while it copies."""
    if not database.exists():
        return False
    with (
        contextlib.closing(sqlite3.connect(database)) as src,
        contextlib.closing(sqlite3.connect(path)) as dst,
    ):
        src.backup(dst)
    return True


@contextlib.asynccontextmanager
async def served(base: Config, database: Path, at: dt.datetime) -> AsyncIterator[Service]:
    """The web pages of ``database`` at the moment ``at`` (nothing runs but the pages)."""
    config = demo_config(base, database_url=f"sqlite+aiosqlite:///{database}", web_port=0)
    async with Service(config, clock=FakeClock(at), sandbox=bundled_sandbox(), web_port=0) as s:
        assert s.web_url is not None
        yield s


async def login(b: Browser, service: Service, username: str) -> None:
    """Through the sandbox Lichess's OAuth page, as the tests do."""
    assert service.web_url is not None
    await b.go(service.web_url + "/")
    await b.click("header a.button")
    await b.type("input[name=username]", username + "\ue007")
    await b.wait_for_url(service.web_url)


async def shot(b: Browser, url: str, path: Path, *, most: int = 2400) -> None:
    """The page from its top, as tall as it is (at most ``most`` pixels)."""
    await b.go(url)
    await b.resize(WIDTH, 800)
    for _ in range(5):  # the window's own bars take part of its height: grow until it fits
        short = int(
            await b.script("return document.documentElement.scrollHeight - window.innerHeight;")
        )
        size = await b.script("return window.outerHeight;")
        if short <= 0 or int(size) >= most:
            break
        await b.resize(WIDTH, min(int(size) + short + 8, most))
    await b.screenshot(path)
    print(f"  {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


async def busiest(service: Service) -> tuple[tuple[int, int], int, str]:
    """How varied the pending decisions are at the service's moment (kinds of decision, then
    how many), and the open match with the most steps (its id and one of its players)."""
    async with service.db.uow() as uow:
        decisions = await pending_decisions(uow, service.services, now=service.clock.now())
        kinds = {d.title.split(":")[0] if d.kind == "alert" else d.kind for d in decisions}
        variety = (len(kinds), len(decisions))
        best: tuple[tuple[int, int], int, str] = (variety, 0, "")
        steps = 0
        weekly = uow.weekly
        for m in await uow.matches.all():
            if m.black_first is None or m.outcome is not None or m.state != MatchState.SCHEDULED:
                continue
            count = len(await weekly.events(m.id))
            if count > steps:
                player = await uow.players.get(m.white_first)
                steps = count
                best = (variety, m.id, player.username if player else m.white_first)
    return best


async def main(args: argparse.Namespace) -> None:
    out: Path = args.out
    base = Config()
    with tempfile.TemporaryDirectory(prefix="acwc-shots-") as tmp:
        folder = Path(tmp)
        snaps = Snapshots(folder)
        done = asyncio.Event()
        watcher = asyncio.create_task(snaps.watch(folder / "season" / "acwc-demo.db", done))
        options = DemoOptions(
            players=args.players,
            seed=args.seed,
            folder=folder / "season",
            serve_web=False,
            sandbox_setup=snaps.setup,
        )
        print(f"playing the demo season ({args.players} players, seed {args.seed})...")
        try:
            result = await run_season(base, options, reporter=Reporter(write=None))
        finally:
            done.set()
            await watcher
        print(f"champion {result.champion}; {len(snaps.taken)} snapshots")
        ranked = []
        for snap in snaps.taken:
            async with served(base, snap.path, snap.at) as service:
                pending, match_id, player = await busiest(service)
            if match_id:
                ranked.append((pending, snap.at, snap, match_id, player))
        if not ranked:
            raise SystemExit("no snapshot caught a match being negotiated")
        pending, at, snap, match_id, player = max(ranked, key=lambda r: (r[0], r[1]))
        print(f"mid-season: {at:%a %d %b %H:%M} UTC, {pending[1]} pending decisions")
        async with chromium() as b, served(base, snap.path, snap.at) as service:
            await b.resize(WIDTH, 800)
            await login(b, service, DEMO_TDS[0])
            await shot(b, f"{service.web_url}/desk", out / "desk-mid-season.png", most=1800)
            await b.go(f"{service.web_url}/")
            await b.submit("header .who button")  # log out
            await login(b, service, player)
            await shot(b, f"{service.web_url}/match/{match_id}", out / "match-room.png")
        final = folder / "season" / "acwc-demo.db"
        async with chromium() as b, served(base, final, snaps.taken[-1].at) as service:
            await b.resize(WIDTH, 800)
            await shot(b, f"{service.web_url}/knockout", out / "final-armageddon.png")
            if "Armageddon" not in await b.page_text():
                print("  (this seed's final needed no armageddon)")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--players", type=int, default=48)
    p.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = p.parse_args(argv)
    args.out = Path(args.out).resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    return args


if __name__ == "__main__":
    logging.getLogger("bot.web.security").setLevel(logging.ERROR)  # a random key is right here
    asyncio.run(main(parse()))
