"""One whole demo season in this process: sandbox, database, service, web app, actors, driver.

Without ``--database-url`` the season's SQLite file runs on the event loop's own thread
(:mod:`bot.demo.inline_sqlite`), and the database counts its committed writes
per table (:mod:`storage.changes`) so the actors read again only what changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import resource
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import Service
from bot.config import DEFAULT_TDS, Config, RegistrationConfig, ServiceConfig
from bot.demo import inline_sqlite
from bot.demo.actors import GameActor, MatchActor, TDActor, World
from bot.demo.bundled import bundled_sandbox
from bot.demo.driver import InProcessService, SeasonDriver, SettleWatch
from bot.demo.next_season import open_next_season, registration_start
from bot.demo.report import Contract, Progress, Reporter, figures_table, request_table
from bot.demo.roster import Roster, make_roster, seed_history
from bot.errors import OperationError
from bot.runtime.clock import FakeClock, SystemClock
from bot.sandbox.state import SandboxState
from bot.service.registration_queue import CheckState
from bot.service.stages.armageddon_games import ARMAGEDDON_GAME
from bot.views.candidates import candidates_view
from bot.views.qualification import standings as qualification_standings
from bot.views.touches import Touches, season_touches
from rules.core.model import PlayerId

__all__ = ["DemoOptions", "SeasonResult", "demo_config", "run_season"]

DEMO_TDS = ("ODMWND", "Shiaxou")
DEMO_TEAM = "acwc-demo"


@dataclass(frozen=True, slots=True)
class DemoOptions:
    players: int = 48
    seed: int = 1
    folder: Path | None = None
    database_url: str | None = None
    keep_open: bool = False
    serve_web: bool = True
    settle_timeout: float = 60.0
    sandbox_setup: Callable[[SandboxState, Roster], None] | None = None
    """Called with the sandbox and the roster before the service starts (the benchmark's
    real DM limits, team members and players who refuse DMs)."""
    seasons: int = 1
    """Seasons played one after the other on the same database and service: after each
    champion the TDs make and open the next (:mod:`bot.demo.next_season`)."""
    after_season: Callable[[Service, SeasonResult], Awaitable[None]] | None = None
    """Called after each season's champion, while the service runs (a test reads its pages)."""


@dataclass
class SeasonResult:
    champion: PlayerId
    placement: tuple[PlayerId, ...]
    standings: list[str]
    matches: list[tuple[Any, ...]]
    games: list[tuple[Any, ...]]
    wall_seconds: float
    requests: Counter[str]
    game_delays: list[float]
    peak_mb: float
    steps: int
    season_games: int
    counted_games: int = 0
    counted_from_challenges: int = 0
    """Counted games whose id is one of the bot's challenges on the sandbox."""
    refused: Counter[str] = field(default_factory=Counter)
    """Games stored as not counting, by reason (the armageddon game aside: it decides the
    match without being one of its games)."""
    timings: dict[str, float] = field(default_factory=dict)
    game_intakes: list[float] = field(default_factory=list)
    """Of each game's delay, the seconds its own intake took (:attr:`SeasonDriver.game_intakes`)."""
    game_intake_cpu: list[float] = field(default_factory=list)
    """The process's CPU seconds over each own intake (:attr:`SeasonDriver.game_intake_cpu`)."""
    """Wall seconds the driver spent settling and in each actor."""
    anomalies: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    touches: Touches = field(default_factory=Touches)
    """The TDs' touches of the season by kind, and the players' self-service actions."""
    contract: Contract | None = None
    """What lila's contract (the sandbox) made of the bot's calls."""
    year: int | None = None
    next_seasons: list[SeasonResult] = field(default_factory=list)
    """With ``--seasons``: the seasons played after this one, in order."""

    def fingerprint(self) -> tuple[Any, ...]:
        """What the same seed must reproduce: placement, standings, matches and games."""
        return (self.placement, tuple(self.standings), tuple(self.matches), tuple(self.games))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def demo_config(base: Config, *, database_url: str, web_port: int) -> Config:
    """The config of a demo run: the given rules, the sandbox, the demo's TDs and team."""
    tournament = base.tournament
    if not tournament.tds or tournament.tds == DEFAULT_TDS:  # the demo's own TDs log in
        tournament = dataclasses.replace(tournament, tds=DEMO_TDS, team=DEMO_TEAM)
    registration = base.registration
    if registration.opens is None:  # the players register themselves in the week before
        first = dt.datetime.combine(base.rules.calendar.first_publication, dt.time(0, 0), dt.UTC)
        registration = RegistrationConfig(opens=first - dt.timedelta(days=8), closes=first)
    service = ServiceConfig(
        database_url=database_url,
        lichess_url="sandbox",
        bot_account=base.service.bot_account,
        web_host="127.0.0.1",
        web_port=web_port,
        ops_port=0,
        public_url=f"http://127.0.0.1:{web_port}",
        request_timeout_seconds=base.service.request_timeout_seconds,
        log_level=base.service.log_level,
    )
    return dataclasses.replace(
        base, tournament=tournament, service=service, registration=registration
    )


async def _register(service: Service, world: World, now: dt.datetime, *, create: bool) -> None:
    """A TD creates the tournament (``create``: the first season; a later one the TDs opened
    from the last); every player joins the team and registers on their own:
    each asks, and the leader's background checks read their games at lila's pace (issue 25),
    which the demo waits for."""
    services = service.services
    if create:
        async with service.db.uow() as uow:
            await services.tournament.create(uow, now=now, actor=world.td)
            await uow.commit()
    checks = services.registration_checks
    assert checks is not None
    team = world.config.tournament.team
    started = time.perf_counter()
    asked, registered = [], 0
    for player in world.roster.players:
        if team:
            world.sandbox.join_team(team, player.username)
        async with service.db.uow() as uow:
            found = await checks.request(uow, player.username, now=now)
            await uow.commit()
        if isinstance(found, CheckState):
            asked.append(player.username)
            checks.wake()
        else:
            registered += found.registered
    done = await checks.wait_done(asked)
    registered += sum(1 for state in done if state.registered)
    read = sum(state.games for state in done)
    world.notes.event(
        now,
        f"registration: {registered} of {len(world.roster.players)} players registered "
        f"themselves, seeded from their exported rated antichess games ({read} games read "
        f"in the background at lila's pace, {time.perf_counter() - started:.0f} s)",
    )


async def _standings(service: Service, config: Config) -> list[str]:
    lines = []
    async with service.db.uow() as uow:
        table = await qualification_standings(uow, config.rules)
        lines.append("Qualification (match points, Median-Buchholz, progressive score):")
        for row in table.rows[:12]:
            lines.append(
                f"  {row.rank:3d}. {row.username:<22} {float(row.match_points):4.1f} "
                f"{float(row.buchholz_median):6.2f} {float(row.progressive):6.1f}"
            )
        try:
            pools = await candidates_view(uow, config)
        except OperationError:  # the championship ended with the qualification (rules 1.3)
            pools = []
        for pool in pools:
            name = pool.get("pool", "pool")
            order = [r["player"] for r in pool.get("standings", [])]
            lines.append(f"Candidates {name} pool: " + ", ".join(order))
    return lines


async def _fingerprint(service: Service) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    async with service.db.uow() as uow:
        rounds = {r.id: r.number for r in await uow.tournaments.all_rounds()}
        matches = [
            (
                m.id,
                m.stage,
                rounds.get(m.round_id),
                m.board,
                m.week,
                m.white_first,
                m.black_first,
                m.state,
                m.outcome,
                m.decided_by,
                None if m.agreed_time is None else m.agreed_time.isoformat(),
            )
            for m in await uow.matches.all()
        ]
        games = [
            (g.id, g.match_id, g.white, g.black, g.status, g.winner, g.counted, g.refusal)
            for g in await uow.games.all_by_id()
        ]
    return matches, games


def _near_outage(sandbox: SandboxState, now: dt.datetime) -> bool:
    """Whether the sandbox is down, or was less than two hours ago (the service catches up)."""
    until = sandbox.knobs.down_until
    return until is not None and now < until + dt.timedelta(hours=2)


def contract_figures(sandbox: SandboxState, notices_lost: int) -> Contract:
    """The calls lila's contract refused, the DMs over budget, the notices lost, and how many
    broadcast rounds showed their players' games."""
    rounds = [r for t in sandbox.broadcasts.values() for r in t.rounds]
    return Contract(
        refused=Counter(sandbox.refusals),
        dm_limited=sandbox.messaging.limited,
        notices_lost=notices_lost,
        broadcast_rounds=len(rounds),
        broadcast_rounds_showing=sum(1 for r in rounds if sandbox.round_shows_its_games(r)),
    )


def _how_to_look(config: Config, roster: Roster) -> list[str]:
    """How a person follows the demo in a browser: who to log in as, and who the two players
    who never play the qualification are."""
    seeding = config.rules.seeding
    seeded = [name for name in (seeding.title_holder, seeding.runner_up) if name]
    player = roster.players[-1].username if roster.players else "a player"
    lines = [
        "  log in:          'Log in with Lichess' on the pages; the sandbox asks who you are:",
        f"                   a player (e.g. {player}) for their match room, a TD "
        f"({', '.join(config.tournament.tds)}) for the desk",
    ]
    if seeded:
        lines.append(
            f"  seeded:          {' and '.join(seeded)}, last season's champion and runner-up, "
            "start in the Candidates (rules 3.3, 3.4)"
        )
    return lines


async def _until_interrupted() -> None:
    """Wait for Ctrl-C (asyncio.run cancels the main task on SIGINT), then take the
    cancellation back: the season's report is still to be printed, and the command ends 0."""
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()


async def run_season(
    base: Config, options: DemoOptions, *, reporter: Reporter | None = None
) -> SeasonResult:
    """Run one championship (``options.seasons`` of them, one after the other); returns the
    first's result and figures, the later ones in its ``next_seasons`` (prints through
    ``reporter``)."""
    reporter = reporter or Reporter()
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        url = _database_url(options, stack)
        port = _free_port() if options.serve_web else 0
        config = demo_config(base, database_url=url, web_port=port)
        clock = FakeClock(registration_start(config.rules))
        sandbox = SandboxState(now=clock.now)
        roster = make_roster(options.players, options.seed, config.rules)
        history = seed_history(sandbox, roster, options.seed, config.rules)
        if options.sandbox_setup is not None:
            options.sandbox_setup(sandbox, roster)
        watch = SettleWatch()
        async with Service(
            config,
            clock=clock,
            sandbox=bundled_sandbox(sandbox),
            serve_web=options.serve_web,
            watch=watch,
            browser_clock=SystemClock(),  # a login takes a person real minutes, not fake weeks
            sqlite_connect=None if options.database_url is not None else inline_sqlite.connect,
        ) as service:
            reporter.say(
                f"acwc demo: {options.players} players, seed {options.seed}, database {url}"
            )
            reporter.say(f"  sandbox Lichess: {service.lichess_url}  ({history} history games)")
            if service.web_url:
                reporter.say(f"  web pages:       {service.web_url}/")
                reporter.say_all(_how_to_look(config, roster))
            stage = _Stage(service, watch, clock, options, sandbox, reporter, started)
            async with asyncio.TaskGroup() as tasks:
                runner = tasks.create_task(service.run(), name="service")
                try:
                    results = await _play_seasons(stage, roster)
                finally:
                    runner.cancel()
    first, *later = results
    first.next_seasons = later
    if later:
        reporter.say(
            "Champions: " + ", ".join(f"{r.year} {r.lines[-1].split(': ', 1)[1]}" for r in results)
        )
    return first


@dataclass(frozen=True, slots=True)
class _Stage:
    """What every season of a run plays on: the service, the clock, the sandbox Lichess."""

    service: Service
    watch: SettleWatch
    clock: FakeClock
    options: DemoOptions
    sandbox: SandboxState
    reporter: Reporter
    started: float
    """When the run began (perf_counter): the first season's wall counts the set-up."""


async def _play_seasons(stage: _Stage, roster: Roster) -> list[SeasonResult]:
    """Each season to its champion: the first created by a TD, each later one made by the TDs
    from the one before and opened while the service runs."""
    service, options, reporter = stage.service, stage.options, stage.reporter
    results: list[SeasonResult] = []
    for number in range(max(1, options.seasons)):
        wall = time.perf_counter() if number else stage.started
        if number:
            row, roster = await open_next_season(
                service,
                stage.watch,
                stage.clock,
                sandbox=stage.sandbox,
                roster=roster,
                seed=options.seed,
                within=options.settle_timeout,
            )
            reporter.say("")
            reporter.say(f"The TDs made and opened the {row.year} season from the last one.")
        result = await _play_one(stage, roster, wall, create=not number)
        results.append(result)
        if options.after_season is not None:
            await options.after_season(service, result)
    if options.keep_open and service.web_url:
        champion = roster.player(results[-1].champion).username
        await _keep_open(reporter, champion, service.web_url)
    return results


async def _play_one(stage: _Stage, roster: Roster, wall: float, *, create: bool) -> SeasonResult:
    """One season on the running service: registration, the season's steps, its result."""
    service, clock, sandbox = stage.service, stage.clock, stage.sandbox
    cast = _cast(service, stage.watch, clock, stage.options, roster, sandbox, stage.reporter)
    driver, world, td = cast.driver, cast.world, cast.td
    config = service.config
    before = len(sandbox.requests)
    began = time.perf_counter()
    await _register(service, world, clock.now(), create=create)
    driver.timings["registration"] = time.perf_counter() - began
    await driver.run(finished=td)
    await driver.drain(config.outbox.merge_window)
    standings = await _standings(service, config)
    matches, stored_games = await _fingerprint(service)
    async with service.db.uow() as uow:
        touches = await season_touches(uow, config)
        season = await uow.tournaments.current()
    requests = request_table(sandbox.requests[before:])
    challenged = {c.game_id for c in sandbox.challenges.values() if c.game_id}
    contract = contract_figures(sandbox, touches.notices.get("failed", 0))
    result = _result(
        cast,
        stage.reporter,
        standings=standings,
        matches=matches,
        stored_games=stored_games,
        touches=touches,
        requests=requests,
        challenged=challenged,
        contract=contract,
        wall=wall,
    )
    result.year = None if season is None else season.year
    played = sum(1 for m in matches if m[6] is not None and m[7] != "void")
    _say_result(stage.reporter, result, roster, played=played)
    return result


def _cast(
    service: Service,
    watch: SettleWatch,
    clock: FakeClock,
    options: DemoOptions,
    roster: Roster,
    sandbox: SandboxState,
    reporter: Reporter,
) -> _Cast:
    """The season's driver and its world, with the actors: the TDs, the players in their
    matches, the games on the sandbox Lichess, and the progress report."""
    port = InProcessService(service, watch)
    driver = SeasonDriver(service.db, clock, port, actors=[], settle_timeout=options.settle_timeout)
    driver.outage = lambda: _near_outage(sandbox, clock.now())
    world = World(
        db=service.db,
        config=service.config,
        services=service.services,
        seed=options.seed,
        roster=roster,
        sandbox=sandbox,
        notes=reporter,
        poke=port.poke,
        on_game=driver.expect,
        changes=service.db.track_changes(),
    )
    td, games = TDActor(world), GameActor(world)
    driver.actors = [td, MatchActor(world), games, Progress(service.db, reporter)]
    return _Cast(driver, world, td, games)


@dataclass(frozen=True, slots=True)
class _Cast:
    """The season's driver and world; the TDs' actor (its placement ends the season) and the
    games' (its count of games)."""

    driver: SeasonDriver
    world: World
    td: TDActor
    games: GameActor


def _result(
    cast: _Cast,
    reporter: Reporter,
    *,
    standings: list[str],
    matches: list[tuple[Any, ...]],
    stored_games: list[tuple[Any, ...]],
    touches: Touches,
    requests: Counter[str],
    challenged: set[str],
    contract: Contract,
    wall: float,
) -> SeasonResult:
    """The season's result and figures, from what it stored and what the sandbox saw."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_mb = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    counted = [g[0] for g in stored_games if g[6]]
    refused = Counter(g[7] for g in stored_games if g[7] and g[7] != ARMAGEDDON_GAME)
    driver = cast.driver
    return SeasonResult(
        champion=cast.td.placement[0],
        placement=cast.td.placement,
        standings=standings,
        matches=matches,
        games=stored_games,
        wall_seconds=time.perf_counter() - wall,
        requests=requests,
        game_delays=driver.game_delays,
        peak_mb=peak_mb,
        steps=driver.steps,
        season_games=cast.games.games_played,
        counted_games=len(counted),
        counted_from_challenges=sum(1 for g in counted if g in challenged),
        refused=refused,
        timings=dict(driver.timings),
        game_intakes=driver.game_intakes,
        game_intake_cpu=driver.game_intake_cpu,
        anomalies=reporter.anomalies,
        lines=reporter.lines,
        touches=touches,
        contract=contract,
    )


async def _keep_open(reporter: Reporter, champion: str, web_url: str) -> None:
    reporter.say(f"The season is over: the champion is {champion}.")
    reporter.say(f"Keeping {web_url}/ open; Ctrl-C to stop.")
    await _until_interrupted()


def _database_url(options: DemoOptions, stack: contextlib.ExitStack) -> str:
    """The season's database: the one asked for, or a SQLite file in its folder (a temporary
    one, removed with ``stack``, when none is given)."""
    folder = options.folder
    if folder is None and options.database_url is None:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="acwc-demo-")))
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    if options.database_url is not None:
        return options.database_url
    assert folder is not None
    return f"sqlite+aiosqlite:///{folder / 'acwc-demo.db'}"


def _say_result(reporter: Reporter, result: SeasonResult, roster: Roster, *, played: int) -> None:
    """The season's end: the standings, the placement, the figures, the touches, the champion."""
    reporter.say("")
    reporter.say_all(result.standings)
    names = [roster.player(p).username for p in result.placement]
    reporter.say("Final placement: " + ", ".join(f"{i}. {n}" for i, n in enumerate(names, 1)))
    reporter.say_all(
        figures_table(
            wall=result.wall_seconds,
            requests=result.requests,
            matches=played,
            games=result.season_games,
            delays=result.game_delays,
            peak_mb=result.peak_mb,
            steps=result.steps,
            counted=result.counted_games,
            from_challenges=result.counted_from_challenges,
            refused=result.refused,
            contract=result.contract,
        )
    )
    reporter.say_all(result.touches.table())
    reporter.say(f"Champion: {roster.player(result.champion).username}")
