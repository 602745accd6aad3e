"""A small demo season run three ways, for the crash and fault tests of issue 8.

* ``in_process``: the service in this event loop (as ``acwc demo`` runs it): the reference.
* ``faults``: the same, with the sandbox answering 429s, 5xx, dropped streams and malformed
  lines at random (seeded); :class:`FaultDriver` lets the fake clock move when the service is
  only waiting on it (a 429 pauses the client a minute, reconnects back off).
* ``failover``: as ``crash``, with three such processes on one PostgreSQL database: the one
  that leads is killed, a standby takes over, and the killed one comes back as a standby.
* ``crash``: the service is ``acwc run`` in a child process on the driver's clock
  (``python -m bot.demo.follow_clock``) and the driver's sandbox; :class:`CrashDriver` kills it
  with SIGKILL before chosen settles and restarts it, never moving the clock while it is down.

:class:`Outcome` holds what must come out equal, in a canonical form (see :meth:`Outcome.key`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import heapq
import json
import os
import random
import re
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from aiohttp import web
from sqlalchemy import select

from bot.app import Service, bootstrap
from bot.config import Config
from bot.demo.actors import GameActor, MatchActor, TDActor, World
from bot.demo.bundled import SANDBOX_BOT_TOKEN, bundled_sandbox, prepare_sandbox
from bot.demo.driver import (
    InProcessService,
    SeasonDriver,
    ServicePort,
    SettleError,
    SettleWatch,
)
from bot.demo.remote import ClockFeed, RemotePort, ServiceProcess
from bot.demo.report import Reporter
from bot.demo.roster import make_roster, seed_history
from bot.demo.season import demo_config
from bot.lichess.client import LichessClient
from bot.runtime.clock import FakeClock
from bot.runtime.outbox import MERGE_SEPARATOR, SENDABLE_KINDS
from bot.sandbox.app import make_app as make_sandbox_app
from bot.sandbox.state import SandboxState
from bot.service.broadcasts import Broadcasts
from bot.service.forum import PAIRINGS_REDRAW_DEADLINE
from bot.service.intake import FOLLOWUP_DEADLINE
from bot.service.services import Services
from bot.service.stages.armageddon import set_salt_secret
from bot.views.candidates import candidates_view
from bot.views.qualification import standings as qualification_standings
from rules.core.model import PlayerId, normalise_username
from rules.talk.spelling import as_lichess_message
from storage import migrate
from storage.db import Database
from storage.models import AuditRow, GameRow, MatchRow, OutboxRow, RoundRow
from storage.models_games import BroadcastRoundRow, BroadcastRow, ChallengeRow
from tests.demo.test_season import short_matches

PLAYERS = 13
ROOT = Path(__file__).resolve().parents[2]
Mode = Literal["in_process", "faults", "crash", "failover"]
STANDBYS = 2
"""Fail-over: the processes beside the leader, all on one PostgreSQL database."""

TIMING_KINDS = (PAIRINGS_REDRAW_DEADLINE, FOLLOWUP_DEADLINE)
"""Deadline kinds whose firings a restart may add or merge (compared by what they did)."""


class SleeperClock(FakeClock):
    """A fake clock that says when its earliest sleeper wakes."""

    def next_wake(self) -> dt.datetime | None:
        pending = [(when, seq, fut) for when, seq, fut in self._sleepers if not fut.done()]
        heapq.heapify(pending)
        return pending[0][0] if pending else None


@dataclass
class FaultDriver(SeasonDriver):
    """Injects sandbox faults before settles; moves the clock to a waiting service's next wake.

    A settle that makes no progress for ``stall`` wall seconds while the service sleeps on the
    clock until at most ``max_jump`` ahead (a 429's minute, a stream's backoff) sets the clock
    to that wake-up: the service is waiting on time, not working.
    """

    sandbox: SandboxState | None = None
    rng: random.Random = field(default_factory=random.Random)
    stall: float = 0.05
    max_jump: dt.timedelta = dt.timedelta(minutes=3)
    injected: Counter[str] = field(default_factory=Counter)
    jumps: int = 0
    inject: bool = True
    _last_time: dt.datetime | None = None

    def calm(self) -> None:
        """No more faults from now on."""
        assert self.sandbox is not None
        self.inject = False
        knobs = self.sandbox.knobs
        knobs.rate_limit_next = knobs.server_error_next = knobs.malformed_lines_next = 0
        knobs.stream_unavailable = False
        knobs.drop_stream_after_lines = None

    def _inject(self) -> None:
        assert self.sandbox is not None
        knobs, rng = self.sandbox.knobs, self.rng
        roll = rng.random()
        if roll < 0.04:
            knobs.rate_limit_next += 1
            self.injected["429"] += 1
        elif roll < 0.12:
            knobs.server_error_next += rng.randint(1, 3)
            knobs.server_error_status = rng.choice((500, 502, 503))
            self.injected["5xx"] += 1
        elif roll < 0.20:
            knobs.malformed_lines_next += rng.randint(1, 3)
            self.injected["malformed"] += 1
        elif roll < 0.24:
            knobs.drop_stream_after_lines = rng.choice((1, 2, 3))
            self.injected["drop"] += 1
        elif roll < 0.26:
            knobs.stream_unavailable = True
            self.injected["stream_503"] += 1
        elif roll < 0.40:
            knobs.drop_stream_after_lines = None

    async def settle(self) -> None:
        assert isinstance(self.clock, SleeperClock)
        # The settle at a new time comes before the actors read the time: a jump there would
        # move what they do (a draw seeded by the time), so faults come only after an actor
        # acted, when the actors' time is already fixed for this step.
        fresh = self.clock.now() != self._last_time
        self._last_time = self.clock.now()
        if fresh:
            self.calm()
            self.inject = True
        elif self.inject:
            self._inject()
        self.settles += 1
        started = last_change = time.perf_counter()
        last = None
        while True:
            await asyncio.sleep(0.002)
            facts = await self.facts()
            if facts.settled:
                return
            now = time.perf_counter()
            if facts != last:
                last, last_change = facts, now
            elif now - last_change > self.stall:
                wake = self.clock.next_wake()
                self.calm()  # the faults so far must be survived; no new ones in this settle
                if wake is not None and wake - self.clock.now() <= self.max_jump:
                    self.clock.set(wake)
                    self.jumps += 1
                    last_change = now
            if now - started > self.settle_timeout:
                raise SettleError(f"no settle at {self.clock.now().isoformat()}: {facts}")


@dataclass
class CrashDriver(SeasonDriver):
    """Kills the service (SIGKILL) before the chosen settles and restarts it.

    With several processes (fail-over) the one killed is the one that leads; it comes back as a
    standby while another takes over. Every settle first waits until the leader has acknowledged
    the clock feed's latest line (:meth:`ClockFeed.synced`): the acting service knows the current
    time before the actors act at it and before the settle's facts are read.
    """

    processes: list[ServiceProcess] = field(default_factory=list)
    feed: ClockFeed | None = None
    kill_at: frozenset[int] = frozenset()
    rng: random.Random = field(default_factory=random.Random)
    broadcasts: Broadcasts | None = None
    """The published rounds still owed a live broadcast: the service makes them after the
    commit that published them, which the database shows as owing nothing."""
    between: Callable[[], Awaitable[None]] | None = None
    """Run after each kill, before the restart (an upgrade of the database, say)."""

    def leader(self) -> ServiceProcess:
        if len(self.processes) == 1:
            return self.processes[0]
        leaders = [p for p in self.processes if p.running and p.leading]
        if len(leaders) != 1:
            raise SettleError(f"{len(leaders)} processes say they lead, not 1")
        return leaders[0]

    async def settle(self) -> None:
        assert self.feed is not None
        if self.settles in self.kill_at:
            await self.feed.synced()  # the leader is known (it acknowledged as such)
            victim = self.leader()
            await asyncio.sleep(self.rng.uniform(0.0, 0.05))  # mid-work, wherever that is
            await victim.kill()
            if self.between is not None:
                await self.between()
            await victim.start()  # ready before the clock may move again
        try:
            async with asyncio.timeout(self.settle_timeout):
                await self.feed.synced()
        except TimeoutError:
            raise SettleError(
                f"at {self.clock.now().isoformat()} the service did not take in the time "
                f"(line {self.feed.seq}, acknowledged {self.feed.acked})"
            ) from None
        await super().settle()
        if self.broadcasts is not None and await self.broadcasts.missing():
            try:
                async with asyncio.timeout(self.settle_timeout):
                    while True:  # another process commits them: nothing to wait on here
                        if not await self.broadcasts.missing():
                            break
                        await asyncio.sleep(0.005)
            except TimeoutError:
                raise SettleError(
                    f"at {self.clock.now().isoformat()} published rounds have no broadcast"
                ) from None
            await super().settle()


@dataclass
class Outcome:
    placement: tuple[PlayerId, ...]
    standings: list[str]
    matches: list[tuple[Any, ...]]
    games: list[tuple[Any, ...]]
    audit: list[tuple[Any, ...]]
    sent: Counter[tuple[str, str]]
    """Outbox rows marked sent, by (recipient, text)."""
    delivered: Counter[tuple[str, str]]
    """What the sandbox received, by (recipient, text)."""
    unsent: list[tuple[str, str, str]]
    settles: int
    wall: float
    posts: list[tuple[str, str]] = field(default_factory=list)
    """The forum drafts as the TDs would paste them, by (subject, text)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple[Any, ...]:
        """What an interrupted or faulty run must reproduce exactly."""
        return (self.placement, self.standings, self.matches, self.games, self.audit, self.posts)

    def audit_diff(self, other: Outcome) -> str:
        """The audit entries only one of the two runs has (an assertion's message)."""
        mine, theirs = Counter(self.audit), Counter(other.audit)
        lines = [f"only here: {e}" for e in (mine - theirs).elements()]
        lines += [f"only in the other: {e}" for e in (theirs - mine).elements()]
        return "\n".join(lines[:40])

    @property
    def duplicates(self) -> Counter[tuple[str, str]]:
        return Counter({k: n - self.sent[k] for k, n in self.delivered.items() if n > self.sent[k]})

    @property
    def lost(self) -> Counter[tuple[str, str]]:
        return Counter(
            {k: n - self.delivered[k] for k, n in self.sent.items() if n > self.delivered[k]}
        )


def assert_same_season(run: Outcome, reference: Outcome) -> None:
    """An interrupted run lost nothing and played the reference's season."""
    assert not run.lost
    assert not run.unsent
    assert run.placement == reference.placement
    assert run.standings == reference.standings
    assert run.matches == reference.matches
    assert run.games == reference.games
    assert run.audit == reference.audit, run.audit_diff(reference)
    assert run.posts == reference.posts


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _serve(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return '"none"'
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value))


def service_toml(config: Config, *, lichess_url: str, web_port: int) -> str:
    """The service process's config file: the driver's rules, its sandbox and its clock."""
    t, s = config.tournament, config.service
    lines = [
        "[tournament]",
        f"name = {_toml(t.name)}",
        f"tds = [{', '.join(_toml(x) for x in t.tds)}]",
        f"team = {_toml(t.team)}",
        "[service]",
        f"database_url = {_toml(s.database_url)}",
        f"lichess_url = {_toml(lichess_url)}",
        f"bot_account = {_toml(s.bot_account)}",
        'web_host = "127.0.0.1"',
        f"web_port = {web_port}",
        "ops_port = 0",
        'log_level = "WARNING"',
    ]
    for kind, fmt in (
        ("qualification", config.rules.formats.qualification),
        ("candidates", config.rules.formats.candidates),
        ("semifinal", config.rules.formats.semifinal),
        ("final", config.rules.formats.final),
        ("third_place", config.rules.formats.third_place),
    ):
        lines += [
            f"[rules.formats.{kind}]",
            f"games = {fmt.games}",
            f"clinch_at = {_toml(None if fmt.clinch_at is None else float(fmt.clinch_at))}",
            f"tiebreak = {_toml(fmt.tiebreak.value)}",
            f"max_weeks = {fmt.max_weeks}",
        ]
    return "\n".join(lines) + "\n"


async def serve_remote(
    stack: contextlib.AsyncExitStack, sandbox: SandboxState, clock: FakeClock, url: str
) -> tuple[ClockFeed, str, str, Database]:
    """Serve ``sandbox`` and ``clock``'s feed to service processes, and open (and migrate) the
    database at ``url``, all closed by ``stack``: the feed, both URLs and the database."""
    feed = ClockFeed(clock)
    sandbox_runner, sandbox_url = await _serve(make_sandbox_app(sandbox))
    stack.push_async_callback(sandbox_runner.cleanup)
    stack.callback(sandbox.drop_streams)
    feed_runner, feed_url = await _serve(feed.app())
    stack.push_async_callback(feed_runner.cleanup)
    db = Database(url)
    stack.push_async_callback(db.dispose)
    await migrate.upgrade(db)
    return feed, sandbox_url, feed_url, db


def service_process(
    config: Config, lichess_url: str, feed_url: str, folder: Path, n: int
) -> ServiceProcess:
    """The ``n``-th ``acwc follow-clock`` process of a run (each its own config and web port)."""
    path = folder / f"service-{n}.toml"
    path.write_text(service_toml(config, lichess_url=lichess_url, web_port=_free_port()))
    return ServiceProcess(
        path,
        feed_url,
        env={
            "ACWC_LICHESS_TOKEN": SANDBOX_BOT_TOKEN,
            "ACWC_SESSION_SECRET": "crash-test-session-secret-" + "x" * 32,
            "PYTHONPATH": str(ROOT),
        },
        cwd=folder,
    )


async def _register(db: Database, services: Services, world: World, now: dt.datetime) -> None:
    async with db.uow() as uow:
        await services.tournament.create(uow, now=now, actor=world.td)
        await set_salt_secret(uow, f"demo-seed-{world.seed}")
        for player in world.roster.players:
            await services.players.add(
                uow, player.username, seed_rating=None, now=now, actor=world.td
            )
        await uow.commit()
    assert services.registration is not None
    checks = await services.registration.check_all()
    async with db.uow() as uow:
        await services.registration.record_checks(uow, checks, now=now, actor=world.td)
        await uow.commit()


def _public(text: str) -> str:
    """``text`` with each process's own web address (its port) as one placeholder."""
    return re.sub(r"http://127\.0\.0\.1:\d+/", "http://web/", text)


async def _outcome(
    db: Database, config: Config, td: TDActor, sandbox: SandboxState
) -> dict[str, Any]:
    async with db.uow() as uow:
        table = await qualification_standings(uow, config.rules)
        standings = [
            f"{r.rank} {r.username} {r.match_points} {r.buchholz_median} {r.progressive}"
            for r in table.rows
        ]
        for pool in await candidates_view(uow, config):
            standings.append(json.dumps(pool, sort_keys=True, default=str))
        rounds = {
            r.id: (r.stage_id, r.number)
            for r in (await uow.session.execute(select(RoundRow))).scalars()
        }
        # Match ids by rank: a kill that rolls back an insert burns a PostgreSQL sequence
        # number, which shifts later ids but never their order.
        match_rows = list(
            (await uow.session.execute(select(MatchRow).order_by(MatchRow.id))).scalars()
        )
        rank: dict[int | None, int | None] = {m.id: i for i, m in enumerate(match_rows)}
        rank[None] = None
        matches = [
            (rank[m.id], m.stage, rounds.get(m.round_id), m.board, m.week, m.white_first,
             m.black_first, m.state, m.outcome, m.decided_by, m.agreed_time)
            for m in match_rows
        ]  # fmt: skip
        # Game ids by what the game is: a kill after Lichess made the bot's challenge but before
        # the service committed it leaves that challenge unused on the sandbox, and the one made
        # again after the restart takes the next id (the game's id); on Lichess the orphan lapses.
        canon = {
            c.id: f"challenge:{rank[c.match_id]}:{c.week}:{c.game_number}:{c.armageddon}"
            for c in (await uow.session.execute(select(ChallengeRow))).scalars()
        }
        # Broadcasts alike: one Lichess made before a kill and the service never stored is
        # made again after the restart, under the sandbox's next id.
        for b in (await uow.session.execute(select(BroadcastRow))).scalars():
            canon[b.id] = f"broadcast:{b.stage}"
        for r in (await uow.session.execute(select(BroadcastRoundRow))).scalars():
            canon[r.id] = f"broadcast-round:{rounds.get(r.round_id)}"
        games = sorted(
            (canon.get(g.id, g.id), rank[g.match_id], g.white, g.black, g.status, g.winner,
             g.counted, g.refusal)
            for g in (await uow.session.execute(select(GameRow))).scalars()
        )  # fmt: skip

        ids = re.compile("|".join(rf"\b{re.escape(raw)}\b" for raw in canon) or r"(?!)")

        def canonical(details: Any) -> str:
            text = json.dumps(details, sort_keys=True, default=str)
            return ids.sub(lambda m: canon[m.group(0)], text)  # in fields and in sentences

        # The audit log without its ids: ids are a sequence's numbers, and PostgreSQL spends one
        # on every insert of a transaction a SIGKILL rolled back; the order is (time, content).
        audit = sorted(
            (
                (a.at, a.actor, a.action, a.reason, a.player, rank.get(a.match_id),
                 canonical(a.details))
                for a in (await uow.session.execute(select(AuditRow))).scalars()
                if (a.details or {}).get("kind") not in TIMING_KINDS
            ),
            key=repr,
        )  # fmt: skip
        # (How many times the pairings post was redrawn depends on whether the runner fired
        # between two changes of a round, which a restart moves: the posts' text is compared.
        # Likewise whether a game's match followed it in its own transaction or in a follow-up
        # row's depends on whether the stream handed it over alone or in a batch: what
        # followed, the matches, games, notices and posts, is compared.)
        posts = sorted(
            (r.subject or "", _public(r.revised_body if r.revised_body is not None else r.body))
            for r in await uow.outbox.list(kind="forum_draft")
        )
        outbox = list(
            (
                await uow.session.execute(
                    select(OutboxRow).where(OutboxRow.kind.in_(SENDABLE_KINDS))
                )
            ).scalars()
        )
    sent: Counter[tuple[str, str]] = Counter()
    unsent = []
    for row in outbox:
        if row.kind in ("team_update", "room"):  # a room notice went in a team message
            continue
        if row.status == "sent":
            # as Lichess got it: a `command` in quotation marks (Lichess shows no Markdown)
            sent[(str(normalise_username(row.recipient)), as_lichess_message(row.body))] += 1
        else:
            unsent.append((row.recipient, row.status, row.body[:60]))
    delivered = Counter(  # notices due together went out as one DM
        (str(m.to), notice) for m in sandbox.inbox for notice in m.text.split(MERGE_SEPARATOR)
    )
    return {
        "placement": td.placement,
        "standings": standings,
        "matches": matches,
        "games": games,
        "audit": audit,
        "posts": posts,
        "sent": sent,
        "delivered": delivered,
        "unsent": unsent,
    }


_REFERENCES: dict[int, Outcome] = {}


def two_game_matches() -> Config:
    """The demo's short formats with two games a match, clinched at 1.5 (a tie is played off as
    the stage says). The crash, upgrade, fault and fail-over seasons compare one run with another
    of the same formats: a quarter fewer settles than four games, and more tied knockout
    matches, so more armageddons and repeated weeks, each one a place a kill or a fault can hit."""
    config = short_matches()
    formats = config.rules.formats
    two = {
        kind: dataclasses.replace(
            getattr(formats, kind),
            games=2,
            clinch_at=None if getattr(formats, kind).clinch_at is None else Fraction(3, 2),
        )
        for kind in ("qualification", "candidates", "semifinal", "final", "third_place")
    }
    rules = dataclasses.replace(config.rules, formats=dataclasses.replace(formats, **two))
    return dataclasses.replace(config, rules=rules)


async def reference_season(seed: int, folder: Path) -> Outcome:
    """The season of ``seed`` run in process on SQLite with no kill and no fault, once per test
    session: the crash and the fault tests compare with the same run (``folder`` holds its
    database when it is first run)."""
    if seed not in _REFERENCES:
        _REFERENCES[seed] = await season(
            seed, url=f"sqlite+aiosqlite:///{folder / 'reference.db'}", folder=folder
        )
    return _REFERENCES[seed]


async def season(
    seed: int,
    *,
    url: str,
    mode: Mode = "in_process",
    folder: Path,
    kill_at: frozenset[int] = frozenset(),
    settle_timeout: float = 45.0,
    between: Callable[[], Awaitable[None]] | None = None,
) -> Outcome:
    wall = time.perf_counter()
    config = demo_config(two_game_matches(), database_url=url, web_port=_free_port())
    start = dt.datetime.combine(
        config.rules.calendar.first_publication - dt.timedelta(days=7), dt.time(9, 0), tzinfo=dt.UTC
    )
    clock = SleeperClock(start)
    sandbox = SandboxState(now=clock.now)
    sandbox.knobs.keepalive_seconds = 30.0
    # the histories at once: these runs are about crashes and faults, and lila's real-time export
    # pace (tested in tests/lichess/test_lila_contract.py) only adds waiting to each of them
    sandbox.knobs.export_throttle = False
    roster = make_roster(PLAYERS, seed, config.rules)
    seed_history(sandbox, roster, seed, config.rules)
    # lila's real message limits, with the players and TDs in the team the bot leads
    sandbox.knobs.dm_limits = True
    for member in (*(p.username for p in roster.players), *config.tournament.tds):
        assert config.tournament.team is not None
        sandbox.join_team(config.tournament.team, member)
    rng = random.Random(f"robust-{seed}-{mode}")
    async with contextlib.AsyncExitStack() as stack:
        processes: list[ServiceProcess] = []
        port: ServicePort
        if mode in ("crash", "failover"):
            prepare_sandbox(sandbox, config)
            feed, sandbox_url, feed_url, db = await serve_remote(stack, sandbox, clock, url)
            client = await stack.enter_async_context(
                LichessClient(
                    base_url=sandbox_url, token=SANDBOX_BOT_TOKEN, clock=clock, timeout=10.0
                )
            )
            for n in range(1 + (STANDBYS if mode == "failover" else 0)):
                process = service_process(config, sandbox_url, feed_url, folder, n)
                process.flags = ["-v"] if os.environ.get("ROBUST_DEBUG") else []
                stack.push_async_callback(process.kill)
                await process.start()
                processes.append(process)
            port = RemotePort(feed)
            driver: SeasonDriver = CrashDriver(
                db, clock, port, [], settle_timeout=settle_timeout,
                processes=processes, feed=feed, kill_at=kill_at, rng=rng, between=between,
            )  # fmt: skip
        else:
            watch = SettleWatch()
            service = await stack.enter_async_context(
                Service(
                    config,
                    clock=clock,
                    sandbox=bundled_sandbox(sandbox),
                    serve_web=False,
                    watch=watch,
                )
            )
            db, client = service.db, service.lichess
            port = InProcessService(service, watch)
            if mode == "faults":
                driver = FaultDriver(db, clock, port, [], settle_timeout=settle_timeout,
                                     sandbox=sandbox, rng=rng)  # fmt: skip
            else:
                driver = SeasonDriver(db, clock, port, [], settle_timeout=settle_timeout)
            tasks = await stack.enter_async_context(asyncio.TaskGroup())
            runner = tasks.create_task(service.run(), name="service")
            stack.callback(runner.cancel)
        services = bootstrap(config, clock=clock, db=db, lichess=client)
        world = World(
            db=db, config=config, services=services, seed=seed, roster=roster, sandbox=sandbox,
            notes=Reporter(write=None), poke=port.poke, on_game=driver.expect,
        )  # fmt: skip
        if isinstance(driver, CrashDriver):
            driver.broadcasts = services.broadcasts
        td = TDActor(world)
        driver.actors = [td, MatchActor(world), GameActor(world)]
        driver.until = start + dt.timedelta(days=365)  # the season takes about four months
        await _register(db, services, world, clock.now())
        try:
            await driver.run(finished=td)
        except SettleError:
            for process in processes:  # what the service said last (ROBUST_DEBUG=1: with -v)
                print("\n".join(["--- the service's last lines:", *process.log[-150:]]))
                async with db.uow() as uow:
                    for gid, (status, _) in driver._expected.items():
                        row = await uow.session.get(GameRow, gid)
                        game = sandbox.games.get(gid)
                        print(f"--- expected {gid} {status}; stored {row and row.status}; "
                              f"sandbox {game}")  # fmt: skip
                for listener in sandbox.listeners:
                    print(f"--- open stream: {sorted(listener.users)}, "
                          f"{listener.queue.qsize()} queued")  # fmt: skip
            raise
        if isinstance(driver, FaultDriver):
            driver.calm()
            driver._last_time = None
        await driver.drain(config.outbox.merge_window)
        found = await _outcome(db, config, td, sandbox)
        extra: dict[str, Any] = {}
        if isinstance(driver, FaultDriver):
            extra = {"injected": dict(driver.injected), "jumps": driver.jumps}
        if processes:
            extra = {
                "kills": sum(p.kills for p in processes),
                "starts": sum(p.starts for p in processes),
                "leads": sum(p.leads for p in processes),
            }
    return Outcome(**found, settles=driver.settles, wall=time.perf_counter() - wall, extra=extra)
