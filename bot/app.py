"""The composition root: every service built once, and the running service around them.

:func:`bootstrap` builds the application services (``bot/service``) and hands each what it needs
when it is built (cosmicpython's ``bootstrap()``): the config's one rule set, the clock, the
database, the notifier, the other services it calls, and, where there is one, the Lichess client.
:class:`Service` is ``acwc run``: it opens the database, the Lichess client (or a sandbox a
:data:`SandboxStarter` serves), runs the games watcher, the outbox dispatcher and the deadline
runner in one ``asyncio.TaskGroup`` and serves the web pages; :func:`offline_services` gives the
command line the same services without Lichess. Nothing imports this module but the process entry
(:mod:`bot.launch`), the demo and the tests; nothing is built at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import functools
import gc
import logging
import signal
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Protocol

from aiohttp import web

from bot.config import Config
from bot.errors import StartupError
from bot.lichess.accounts import LichessAccounts
from bot.lichess.broadcasts import LichessBroadcasts
from bot.lichess.bulk import LichessBulkPairing
from bot.lichess.challenges import LichessChallenges
from bot.lichess.client import LichessClient
from bot.lichess.entries import StreamIntake, make_broadcasts, run_registration_checks
from bot.lichess.errors import MissingScopeError
from bot.lichess.pause import DatabasePause
from bot.lichess.scopes import LichessDoctorSource, check_token, run_scopes
from bot.lichess.stream import GameWatcher
from bot.notify import Notifier
from bot.notify.undelivered import UndeliveredAlerts
from bot.runtime.clock import Clock, SystemClock
from bot.runtime.deadlines import ORIGIN as RUNNER_ORIGIN
from bot.runtime.deadlines import DeadlineRunner, Handler
from bot.runtime.keeper import LoopKeeper
from bot.runtime.leader import Leadership
from bot.runtime.outbox import DM_PER_MINUTE, OUTBOX_HOLD, SENDABLE_KINDS, OutboxDispatcher
from bot.runtime.outbox import ORIGIN as OUTBOX_ORIGIN
from bot.runtime.wakeup import WatchLoop
from bot.service.broadcasts import Broadcasts
from bot.service.bulk_games import BulkOrOpen
from bot.service.challenges import CHALLENGE_DEADLINE, GameChallenges
from bot.service.digest import Digest
from bot.service.doctor import DoctorService
from bot.service.forum import Forum
from bot.service.intake import GameIntake
from bot.service.player_tokens import PlayerTokens, TokenVault
from bot.service.players import Players
from bot.service.privacy import PlayerData
from bot.service.recheck import AccountRecheck
from bot.service.registration import Registration
from bot.service.registration_queue import RegistrationChecks
from bot.service.results import MatchListeners, Results
from bot.service.seasons import season_config, season_rules
from bot.service.services import Services
from bot.service.stages.armageddon import Armageddons
from bot.service.stages.armageddon_games import ArmageddonGames
from bot.service.stages.candidates import CandidatesStage
from bot.service.stages.exits import Exits
from bot.service.stages.knockout import FinalStage, Knockout, SemifinalStage
from bot.service.stages.qualification import Qualification, QualificationStage
from bot.service.stages.registry import Progression, StageRunner
from bot.service.stages.rounds import StageRounds
from bot.service.tournament import Tournament
from bot.service.weekly.announce import Announcements
from bot.service.weekly.conduct import Conduct
from bot.service.weekly.decisions import Decisions
from bot.service.weekly.handlers import WeeklyDeadlines
from bot.service.weekly.publication import Publication
from bot.service.weekly.texts import PlayerTexts
from bot.web import ops
from bot.web.live import QUIET_TABLES
from bot.web.site import WebRuntime, setup_web
from rules.core.model import Game, PlayerId
from rules.core.ruleset import StageKind
from storage import migrate
from storage.db import Database, SqliteConnect
from storage.run_lock import FileLock, RunLockHeld, run_lock_for

__all__ = [
    "SandboxStarter",
    "Service",
    "ServiceWatch",
    "StartupError",
    "bootstrap",
    "offline_services",
    "run_service",
]

log = logging.getLogger(__name__)

PAGE_CACHE_SECONDS = 2.0
"""How long ``acwc run`` shares an anonymous visitor's public page (a final's crowd)."""


class SandboxStarter(Protocol):
    """Serves a fake Lichess for ``config`` on 127.0.0.1 (the bundled sandbox); returns its URL
    and the bot's token there. Whatever must be closed goes on ``stack``."""

    async def __call__(
        self, config: Config, clock: Clock, stack: contextlib.AsyncExitStack
    ) -> tuple[str, str]: ...


class ServiceWatch(Protocol):
    """Told what the running service does (the demo's driver settles by it)."""

    def loop_waiting(self) -> None:
        """The outbox dispatcher or the deadline runner did what was due and waits."""

    def game_done(self, game: Game, *, began: float, began_cpu: float) -> None:
        """A game the watcher delivered is dealt with and committed; ``began``: when the
        intake began on it (``time.perf_counter()``; before, it waited behind other games);
        ``began_cpu``: the process's CPU time then (``time.process_time()``)."""


def bootstrap(
    config: Config, *, clock: Clock, db: Database, lichess: LichessClient | None = None
) -> Services:
    """Every application service, each given what it needs. Without ``lichess`` the no-show
    checks have no online statuses and there is no registration check."""
    notifier = Notifier(config)
    player_tokens = PlayerTokens(
        config,
        TokenVault.for_config(config),
        revoke=None if lichess is None else lichess.revoke_token,
    )
    accounts = None if lichess is None else LichessAccounts(lichess, config.rules)
    registration = None if accounts is None else Registration(config, db, accounts)
    checks = None if registration is None else RegistrationChecks(db, clock, registration)
    challenges = GameChallenges(
        config, notifier, _challenge_maker(config, db, clock, player_tokens, lichess)
    )
    forum = Forum(config, notifier)
    publication = Publication(config, notifier, forum)
    announcements = Announcements(config, notifier, forum, challenges=challenges)
    stage_rounds = StageRounds(config, publication)
    exits = Exits(config, notifier, forum, publication)
    conduct = Conduct(config, notifier, exits)
    armageddons = Armageddons(config, notifier, challenges=challenges)
    armageddon_games = ArmageddonGames(config, notifier, armageddons)
    knockout = Knockout(config, notifier, publication=publication, armageddons=armageddons)
    presence = None if lichess is None else lichess.get_statuses  # who is online on Lichess
    weekly_deadlines = WeeklyDeadlines(
        config, clock, notifier, announcements=announcements, conduct=conduct, presence=presence
    )
    listeners = MatchListeners((weekly_deadlines.on_match_changed, knockout.on_match_changed))
    texts = PlayerTexts(
        config, notifier, announcements=announcements, conduct=conduct, armageddon=armageddons
    )
    intake = _intake(config, clock, notifier, listeners, armageddon_games, challenges, lichess)
    services = Services(
        config=config,
        clock=clock,
        db=db,
        notifier=notifier,
        tournament=Tournament(config),
        players=Players(config),
        results=Results(listeners),
        match_listeners=listeners,
        intake=StreamIntake(db, intake),
        publication=publication,
        texts=texts,
        conduct=conduct,
        decisions=Decisions(config, notifier, announcements=announcements, conduct=conduct),
        weekly_deadlines=weekly_deadlines,
        qualification=Qualification(config, publication),
        stage_rounds=stage_rounds,
        progression=Progression(config, _stage_runners(config), knockout, notifier),
        knockout=knockout,
        armageddons=armageddons,
        armageddon_games=armageddon_games,
        exits=exits,
        forum=forum,
        registration=registration,
        deadline_handlers={
            **weekly_deadlines.handlers(),
            **armageddons.handlers(),
            CHALLENGE_DEADLINE: challenges.on_deadline,
            **Digest(config, notifier, forum, stage_rounds).handlers(),
            **forum.handlers(),
            **AccountRecheck(config, notifier, accounts).handlers(),
            **player_tokens.handlers(),
            **intake.handlers(),
        },
        challenges=challenges,
        broadcasts=_broadcasts(config, db, clock, forum, lichess),
        doctor=None if lichess is None else DoctorService(config, db, LichessDoctorSource(lichess)),
        player_tokens=player_tokens,
        player_data=PlayerData(config, notifier),
        registration_checks=checks,
    )
    if services.broadcasts is not None:  # a game starting wakes its broadcast round
        services.intake.on_start = services.broadcasts.wake_for
    return services


def _intake(
    config: Config,
    clock: Clock,
    notifier: Notifier,
    listeners: MatchListeners,
    armageddon_games: ArmageddonGames,
    challenges: GameChallenges,
    lichess: LichessClient | None,
) -> GameIntake:
    """The games' intake; the export of games by id tells it a game's source."""
    return GameIntake(
        config,
        clock,
        notifier=notifier,
        on_match_change=listeners,
        armageddon=armageddon_games,
        challenges=challenges,
        lookup=None if lichess is None else lichess.export_games_by_ids,
    )


def _challenge_maker(
    config: Config,
    db: Database,
    clock: Clock,
    player_tokens: PlayerTokens,
    lichess: LichessClient | None,
) -> BulkOrOpen | None:
    """The games' maker on Lichess: a bulk pairing for the players who allowed it, else an open
    challenge (none without Lichess)."""
    if lichess is None:
        return None
    return BulkOrOpen(
        config, db, clock, player_tokens, LichessBulkPairing(lichess), LichessChallenges(lichess)
    )


def _broadcasts(
    config: Config, db: Database, clock: Clock, forum: Forum, lichess: LichessClient | None
) -> Broadcasts | None:
    """The Lichess broadcasts of the listed stages (none without Lichess or stages)."""
    if lichess is None or not config.games.broadcast_stages:
        return None
    return Broadcasts(config, db, clock, forum, LichessBroadcasts(lichess))


def _stage_runners(config: Config) -> Mapping[StageKind, StageRunner]:
    """The runners of the stages that need their own (pools, a bracket, armageddons), by each
    kind their format has; a stage played from a placement has the generic one (registry)."""
    runners: tuple[StageRunner, ...] = (
        QualificationStage(config),
        CandidatesStage(config),
        SemifinalStage(config),
        FinalStage(config),
    )
    return {kind: runner for runner in runners for kind in runner.format.members}


@contextlib.asynccontextmanager
async def offline_services(
    config: Config,
    db: Database,
    *,
    clock: Clock,
    lichess_url: str | None = None,
    quick: bool = False,
) -> AsyncIterator[Services]:
    """The services for a command line command, on ``db``; with ``lichess_url`` a Lichess client
    too (``acwc registration check``). ``quick``: each request is tried once, with a short
    timeout (``acwc doctor`` says at once that Lichess cannot be reached)."""
    config = await season_config(db, config)
    if lichess_url is None:
        yield bootstrap(config, clock=clock, db=db)
        return
    timeout = config.service.request_timeout_seconds
    async with LichessClient(
        base_url=lichess_url,
        token=config.secrets.lichess_token,
        clock=clock,
        timeout=min(timeout, QUICK_TIMEOUT_SECONDS) if quick else timeout,
        max_attempts=1 if quick else 5,
        pause_board=DatabasePause(db, clock),
        stream_timeout=config.service.stream_timeout_seconds,
    ) as client:
        yield bootstrap(config, clock=clock, db=db, lichess=client)


GAMES_FIRST_SECONDS = 2.0
"""The longest the deadline runner waits for the games stream's watcher to store what it read."""

QUICK_TIMEOUT_SECONDS = 5.0
"""The longest a quick command's request to Lichess waits (``acwc doctor``)."""


class LichessMessenger:
    """The outbox's view of the Lichess client."""

    def __init__(self, client: LichessClient) -> None:
        self.client = client

    async def send_dm(self, username: str, text: str) -> None:
        await self.client.send_message(username, text)

    async def team_update(self, team: str, text: str) -> None:
        await self.client.post_team_update(team, text)


class Service:
    """Everything ``acwc run`` runs. Use ``async with Service(config) as s: await s.run()``.

    ``sandbox`` serves the fake Lichess when the config says ``lichess_url = "sandbox"``;
    ``watch`` is told when the loops wait and each game is dealt with; ``deadline_handlers``
    replaces the services' handlers (a test's); ``page_cache_seconds`` shares anonymous
    visitors' public pages for that long (:class:`~bot.web.ops.PageCache`; ``acwc run``: 2 s);
    ``sqlite_connect`` opens a SQLite database instead of aiosqlite (:mod:`storage.db`).
    """

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock | None = None,
        sandbox: SandboxStarter | None = None,
        web_port: int | None = None,
        ops_port: int | None = None,
        serve_web: bool = True,
        watch: ServiceWatch | None = None,
        deadline_handlers: Mapping[str, Handler] | None = None,
        page_cache_seconds: float | None = None,
        browser_clock: Clock | None = None,
        sqlite_connect: SqliteConnect | None = None,
    ) -> None:
        self.config = config
        self.sqlite_connect = sqlite_connect  # the demo's SQLite on the event loop's thread
        self.browser_clock = browser_clock  # logins and sessions expire in it (the demo: real time)
        self.page_cache = None if page_cache_seconds is None else ops.PageCache(page_cache_seconds)
        self.clock: Clock = clock or SystemClock()
        self.sandbox = sandbox
        self.web_port = config.service.web_port if web_port is None else web_port
        # a caller that picks the pages' port (a test: 0) gets a free one for the checks too
        self.ops_port = (
            ops_port if ops_port is not None else config.service.ops_port if web_port is None else 0
        )
        self.serve_web = serve_web
        self.watch = watch
        self._handlers = deadline_handlers
        self._stack = contextlib.AsyncExitStack()
        self.keeper = LoopKeeper(self.clock)
        self._broadcasting = asyncio.Lock()  # one sync at a time: each makes what is missing
        self._rounds_seen: object = None
        self._season_id: int | None = None  # the open season the services play
        self._tasks: asyncio.TaskGroup | None = None  # the acting loops, while leading
        self._checks_task: asyncio.Task[None] | None = None
        self.web_runtime: WebRuntime | None = None
        self.leadership: Leadership
        self.db: Database
        self.lichess: LichessClient
        self.lichess_url: str
        self.services: Services
        self.dispatcher: OutboxDispatcher
        self.runner: DeadlineRunner
        self.watcher: GameWatcher
        self.web_app: web.Application | None = None
        self.web_url: str | None = None
        self.ops_url: str | None = None
        """Where ``/healthz`` and ``/metrics`` are (their own listener: ``service.ops_host``)."""

    @property
    def restarts(self) -> dict[str, int]:
        """How often each loop failed and was started again."""
        return self.keeper.restarts

    # --- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> Service:
        try:
            await self._open()
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _schema_ready(self, config: Config) -> Config:
        """The database at this version's schema; the config with the open season's rules
        (a season confirmed while the service runs is followed: :meth:`follow_season`)."""
        why = await migrate.why_not_run(self.db)
        if why is not None:
            if config.service.uses_sandbox and "newer" not in why:
                await migrate.upgrade(self.db)  # the embedded default sets itself up
            else:
                raise StartupError(
                    f"{why}: run `acwc db upgrade` (or `alembic upgrade head`) with this "
                    "version first, or run the version the database was upgraded for"
                )
        async with self.db.reads() as uow:
            season = await uow.tournaments.current()
        self._season_id = None if season is None else season.id
        return await season_config(self.db, config)

    async def _open(self) -> None:
        config = self.config
        self.db = Database(config.service.database_url, sqlite_connect=self.sqlite_connect)
        self._stack.push_async_callback(self.db.dispose)
        lock = run_lock_for(config.service.database_url, self.db.engine, self.db.fence)
        if isinstance(lock, FileLock):
            try:  # SQLite has no standby: a second process on the file is refused here
                lock.try_acquire(now=self.clock.now())
            except RunLockHeld as e:
                raise StartupError(str(e)) from None
        self.leadership = Leadership(lock, self.clock)
        self._stack.push_async_callback(self.leadership.close)
        changes = self.db.track_changes()
        self._base_config = config  # the config's own rules, under every season's
        self.config = config = await self._schema_ready(config)
        token: str | None
        if config.service.uses_sandbox:
            if self.sandbox is None:
                raise StartupError(
                    'lichess_url = "sandbox" needs the bundled sandbox, which this service was '
                    "started without: start it with `acwc run`"
                )
            self.lichess_url, token = await self.sandbox(config, self.clock, self._stack)
        else:
            self.lichess_url, token = config.service.lichess_url, config.lichess_token()
        self.lichess = LichessClient(
            base_url=self.lichess_url,
            token=token,
            clock=self.clock,
            timeout=config.service.request_timeout_seconds,
            pause_board=DatabasePause(self.db, self.clock),
            stream_timeout=config.service.stream_timeout_seconds,
        )
        self._stack.push_async_callback(self.lichess.aclose)
        await self._check_token()
        self.services = bootstrap(config, clock=self.clock, db=self.db, lichess=self.lichess)
        self.services.intake.on_taken = self._taken
        on_wait = None if self.watch is None else self.watch.loop_waiting
        self.dispatcher = OutboxDispatcher(
            self.db,
            LichessMessenger(self.lichess),
            self.clock,
            watch=lambda: changes.version(("outbox",), besides=OUTBOX_ORIGIN),
            on_wait=on_wait,
            alerts=UndeliveredAlerts(Notifier(config)),
            dm_per_minute=DM_PER_MINUTE,
            gate=self.leadership.acting,
            may_act=self.leadership.why_not,
            doubt_left=self.leadership.doubt_left,
        )
        self._gate_checks(self.services)
        self.season_loop = WatchLoop(
            self.clock,
            self.follow_season,
            watch=lambda: changes.version(("tournaments",)),
            on_wait=on_wait,
        )
        self.runner = DeadlineRunner(
            self.db,
            self.clock,
            self.services.deadline_handlers if self._handlers is None else self._handlers,
            watch=lambda: changes.version(("deadlines",), besides=RUNNER_ORIGIN),
            after_fire=self._after_fire,
            on_wait=on_wait,
            gate=self.leadership.acting,
            first=self._games_first,
        )
        self.watcher = GameWatcher(
            client=self.lichess,
            clock=self.clock,
            on_game=self.intake,
            on_batch=self.intake_batch,
            players=await self._active_players(),
            pairs_provider=self._pairs,
            load_last_seen=self._load_last_seen,
            save_last_seen=self._save_last_seen,
        )
        if self.serve_web:
            await self._start_web()

    def _gate_checks(self, services: Services) -> None:
        """The players' registration checks run only while this process leads."""
        checks = services.registration_checks
        if checks is not None:
            checks.gate = self.leadership.acting
            checks.on_wait = None if self.watch is None else self.watch.loop_waiting

    async def follow_season(self) -> None:
        """The season a TD confirmed (on the desk or from the command line) played from now
        on, without a restart: the services are built again with its rules and put in place
        of the last season's, for the deadlines, the pages and the desk; the players' checks
        start again on them and the games stream watches its players."""
        async with self.db.reads() as uow:
            season = await uow.tournaments.current()
        season_id = None if season is None else season.id
        if season_id == self._season_id:
            return
        self._season_id = season_id
        base = self._base_config
        config = dataclasses.replace(base, rules=season_rules(base.rules, season))
        if config == self.config:
            return  # the first season created, on the config's rules: the services play them
        self.config = config
        services = bootstrap(config, clock=self.clock, db=self.db, lichess=self.lichess)
        services.intake.on_taken = self._taken
        self._gate_checks(services)
        self.services = services
        if self._handlers is None:
            self.runner.handlers = dict(services.deadline_handlers)
        if self.web_runtime is not None:
            self.web_runtime.services = services
        log.info("playing the %s season", None if season is None else season.year)
        if self._tasks is not None:
            self._start_checks(self._tasks)
            await self.refresh_players()
        self.changed(elsewhere=True)

    def _start_checks(self, tasks: asyncio.TaskGroup) -> None:
        """The players' registration checks (issue 25) of the services in place, in place of
        those running."""
        if self._checks_task is not None:
            self._checks_task.cancel()
            self._checks_task = None
        checks = self.services.registration_checks
        if checks is not None:
            run = functools.partial(run_registration_checks, self.db, checks)
            self._checks_task = tasks.create_task(
                self.keeper.keep(run, "registration checks"), name="checks"
            )

    async def _check_token(self) -> None:
        """Refuse to start with a token that lacks a needed scope; a token that passes lifts
        an outbox stopped by a refused token."""
        try:
            info = await check_token(self.lichess, run_scopes(self.config))
        except MissingScopeError as e:
            raise StartupError(f"{e}: give the bot a token with it") from None
        if info is not None:
            async with self.db.uow() as uow:
                if await uow.holds.clear(OUTBOX_HOLD):
                    log.warning("the token of %s passes: the outbox runs again", info.user)
                await uow.commit()

    async def _start_web(self) -> None:
        app = web.Application(client_max_size=64 * 1024)
        self.web_runtime = WebRuntime(
            services=self.services,
            lichess_url=self.lichess_url,
            public_base=self._public_base,
            changed=self.changed,
            refresh_players=self.refresh_players,
            browser_clock=self.browser_clock,
        )
        setup_web(app, self.web_runtime)
        if self.page_cache is not None:  # innermost: it sees the viewer the others found
            app.middlewares.append(self.page_cache.middleware)
            if self.db.changes is not None:  # a commit of any runner shows on the next visit
                cache = self.page_cache
                self.db.changes.subscribe(
                    lambda tables: None if tables <= QUIET_TABLES else cache.clear()
                )
        self.web_app = app
        self.web_url = await self._serve(app, self.config.service.web_host, self.web_port)
        if self.page_cache is not None:  # (before the pages stop: a rendering reads the database)
            self._stack.push_async_callback(self.page_cache.idle)
        log.info("web pages on %s", self.web_url)
        checks = web.Application(client_max_size=1024)
        ops.add_routes(checks, self)
        self.ops_url = await self._serve(checks, self.config.service.ops_host, self.ops_port)
        log.info("/healthz and /metrics on %s", self.ops_url)

    async def _serve(self, app: web.Application, host: str, port: int) -> str:
        """Serve ``app`` on ``host:port`` (0: a free port) until the service closes; its URL."""
        runner = web.AppRunner(app, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        self._stack.push_async_callback(runner.cleanup)
        bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://{host}:{bound}"

    def _public_base(self) -> str:
        """Where browsers reach the web pages: the configured public URL, or (sandbox) where
        they run."""
        if self.config.service.uses_sandbox and self.web_url:
            return self.web_url
        return self.config.service.public_url.rstrip("/")

    async def health(self) -> ops.Health:
        """``/healthz`` and ``/metrics``: this process's role and the season's figures, read
        from the database (a standby reports what the leader does)."""
        now = self.clock.now()
        async with self.db.uow() as uow:
            last_seen = await uow.settings.get_time("stream.last_seen")
            undelivered = await uow.outbox.count_due(now, kinds=SENDABLE_KINDS)
            oldest = await uow.outbox.oldest_pending(SENDABLE_KINDS)
            overdue = await uow.deadlines.count_due(now)
            holds = await uow.holds.named(OUTBOX_HOLD)
            stopped = next((h.reason or "" for h in holds if h.name == OUTBOX_HOLD), None)
        return ops.Health(
            now=now,
            role=self.leadership.role.value,
            role_since=self.leadership.since,
            stream_last_seen=last_seen,
            undelivered=undelivered,
            oldest_undelivered=oldest,
            overdue_deadlines=overdue,
            lichess_answers=dict(self.lichess.answers),
            lichess_unreachable_since=self.lichess.unreachable_since,
            lichess_unreachable_reason=self.lichess.unreachable_reason,
            outbox_stopped=(stopped or "a refused token") if stopped is not None else None,
            late_after=self.config.outbox.late_after,
        )

    # --- what the watcher needs ---------------------------------------------------------

    async def _active_players(self) -> list[PlayerId]:
        """Everyone the games stream must watch: players of matches that are not finished."""
        async with self.db.uow() as uow:
            return await uow.matches.active_players()

    async def _pairs(self) -> list[tuple[PlayerId, PlayerId]]:
        async with self.db.uow() as uow:
            return await uow.matches.active_pairs()

    async def _load_last_seen(self) -> dt.datetime | None:
        async with self.db.uow() as uow:
            return await uow.settings.get_time("stream.last_seen")

    async def _save_last_seen(self, when: dt.datetime) -> None:
        async with self.db.one_write() as uow:  # one statement
            await uow.settings.set_time("stream.last_seen", when)
            await uow.commit()

    async def intake(self, game: Game) -> None:
        """A game the watcher delivered: recorded (unless its batch was), and each commit
        told to :meth:`_taken`."""
        await self.services.intake(game)

    async def intake_batch(self, games: Sequence[Game]) -> None:
        """Games the watcher hands over together: stored together where they can be
        (:meth:`bot.lichess.entries.StreamIntake.prepare`)."""
        await self.services.intake.prepare(games)

    async def _games_first(self) -> None:
        """Before each deadline fires: the games the stream read are stored first (a burst's
        rows do not wait for what the first of them caused), for at most
        :data:`GAMES_FIRST_SECONDS` once a busy spell of the watcher (a stream that never
        pauses, or a game held by lila's rate limit, holds up one deadline, not each)."""
        await self.watcher.settled(GAMES_FIRST_SECONDS)

    def _taken(self, game: Game, changed: bool, began: float, began_cpu: float) -> None:
        """A game's transaction committed: the loops woken if it changed state (a batch's
        counted games' follow-up rows for the runner), the watch told."""
        if changed:
            self.changed()
        if self.watch is not None:
            self.watch.game_done(game, began=began, began_cpu=began_cpu)

    # --- wiring ------------------------------------------------------------------------

    def changed(self, *, elsewhere: bool = False) -> None:
        """Stored state changed: deliver queued messages and look at the deadlines again.

        The database counts this process's commits per table, so only a loop whose table was
        written is woken: a game that only moved a score wakes neither. ``elsewhere``: another
        process wrote (a demo driver's poke), which those counts cannot see: wake both. (With
        the wall clock both loops also look on their own every minute, for a TD command run in
        another process.)
        """
        if self.page_cache is not None:
            self.page_cache.clear()
        if elsewhere:
            self.dispatcher.wake()
            self.runner.wake()
            self.season_loop.wake()
            return
        self.dispatcher.wake_if_changed()
        self.runner.wake_if_changed()
        self.season_loop.wake_if_changed()

    async def refresh_players(self) -> None:
        """The set of active players changed (a round was published or finished): watch them,
        and give a newly published round of a broadcast stage its live broadcast."""
        self.watcher.set_players(await self._active_players())
        await self.sync_broadcasts()

    async def sync_broadcasts(self) -> None:
        """Make the live broadcasts the published rounds miss (a failure waits for the next)."""
        if self.services.broadcasts is None or self.leadership.why_not() is not None:
            return  # the leader makes them (a standby's TD published: it wakes on the rounds)
        async with self._broadcasting, self.leadership.acting():
            made = await make_broadcasts(self.db, self.services.broadcasts)
        if made:
            self.changed()

    async def _after_fire(self) -> None:
        """Deadlines fired: send what they queued; a round they put into play (the daily job
        publishes the later stages' fixed rounds) gets its players watched and its broadcast."""
        self.dispatcher.wake()
        changes = self.db.changes
        rounds = None if changes is None else changes.version(("rounds",))
        if rounds is None or rounds != self._rounds_seen:
            self._rounds_seen = rounds
            await self.refresh_players()

    async def run(self) -> None:
        """Until cancelled: wait to lead (:class:`~bot.runtime.leader.Leadership`; at once on
        SQLite), then run the games watcher, the outbox and the deadline runner while leading.
        A standby serves the web pages only."""
        await self.leadership.run(self._act)

    async def _act(self) -> None:
        keep = self.keeper.keep
        # A standby that takes over carries on from the database: whom to watch, what is due.
        await self.refresh_players()
        # A question to Lichess a crash cut off (a challenge's) is asked again at once: its
        # answer's row is due. Not while a frozen previous leader may still record its answer.
        doubt = self.leadership.doubt_left()
        if doubt:
            await self.runner.hold_answers(doubt)
        self.changed(elsewhere=True)
        await self.sync_broadcasts()  # rounds published while no instance was acting
        try:
            async with asyncio.TaskGroup() as tasks:
                self._tasks = tasks
                tasks.create_task(keep(self.watcher.run, "games watcher"), name="games-watcher")
                tasks.create_task(keep(self.dispatcher.run, "outbox"), name="outbox")
                tasks.create_task(keep(self.runner.run, "deadline runner"), name="deadlines")
                tasks.create_task(keep(self.season_loop.run, "season"), name="season")
                self._start_checks(tasks)
        finally:
            self._tasks = self._checks_task = None


async def run_service(config: Config, *, sandbox: SandboxStarter | None = None) -> None:
    """``acwc run``: serve until SIGINT or SIGTERM, then close everything cleanly."""
    loop = asyncio.get_running_loop()
    async with Service(config, sandbox=sandbox, page_cache_seconds=PAGE_CACHE_SECONDS) as service:
        task = asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, task.cancel)
        print(f"acwc-bot running; Lichess at {service.lichess_url}; web at {service.web_url}")
        # What start-up built (modules, the app: some 140,000 objects) lives as long as the
        # process: out of the collector's sight, a full collection scans only what came after
        # instead of holding the event loop 100 ms and more while a crowd reads the pages.
        gc.freeze()
        # A page's rendering makes tens of thousands of short-lived objects: collected every
        # 20,000 (not 700), most are gone before the collector looks, and the older generations
        # (each a pause of the loop over every rendering's live objects, 25-40 ms on
        # PostgreSQL) come some 50 times less often (bench/web.py prints the collector's time).
        gc.set_threshold(20_000, 20, 100)
        with contextlib.suppress(asyncio.CancelledError):
            await service.run()
