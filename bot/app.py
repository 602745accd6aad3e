"""The composition root: config, clock, database, Lichess client, and the service's tasks.

``Service`` opens what the service needs, runs the games watcher, the outbox dispatcher, the
deadline runner and the web app in one ``asyncio.TaskGroup``, and closes all of it on the way
out. With ``lichess_url = "sandbox"`` it also serves the bundled fake Lichess on 127.0.0.1, so
the service runs with no token and no network. Nothing here is built at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import importlib
import logging
import signal
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web
from sqlalchemy import select

from bot.config import Config
from bot.intake import GameIntake
from bot.lichess.client import LichessClient
from bot.lichess.stream import GameWatcher
from bot.runtime.clock import Clock, SystemClock
from bot.runtime.deadlines import DeadlineRunner, Handler
from bot.runtime.outbox import OutboxDispatcher
from bot.sandbox.app import make_app as make_sandbox_app
from bot.sandbox.state import SandboxState
from rules.core.model import PlayerId
from rules.core.scoring import Outcome
from storage import migrate
from storage.db import Database
from storage.models import MatchRow
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

SANDBOX_BOT_TOKEN = "lip_sandbox_bot_token"  # only ever valid on the bundled fake Lichess
RESTART_PAUSE = dt.timedelta(seconds=1)
RESTART_PAUSE_MAX = dt.timedelta(minutes=1)


class StartupError(Exception):
    """The service cannot start: the message says why and what to do."""


class LichessMessenger:
    """The outbox's view of the Lichess client."""

    def __init__(self, client: LichessClient) -> None:
        self.client = client

    async def send_dm(self, username: str, text: str) -> None:
        await self.client.send_message(username, text)

    async def team_update(self, team: str, text: str) -> None:
        await self.client.post_team_update(team, text)


@dataclass
class Hooks:
    """Extension points the feature modules fill in (deadline handlers, web routes, ...)."""

    deadline_handlers: dict[str, Handler] = field(default_factory=dict)
    match_changed: list[Callable[[UnitOfWork, int, Outcome | None], Awaitable[None]]] = field(
        default_factory=list
    )
    web_setup: list[Callable[[web.Application, Service], None]] = field(default_factory=list)
    service_start: list[Callable[[Service], None]] = field(default_factory=list)
    """Called once the service has opened its database, clock and Lichess client."""


async def active_players(db: Database) -> list[PlayerId]:
    """Everyone the games stream must watch: players of matches that are not finished."""
    async with db.uow() as uow:
        result = await uow.session.execute(
            select(MatchRow.white_first, MatchRow.black_first).where(
                MatchRow.state.not_in(("complete", "proposed"))
            )
        )
        players = {p for row in result.all() for p in row if p is not None}
    return sorted(PlayerId(p) for p in players)


async def pairs(db: Database) -> list[tuple[PlayerId, PlayerId]]:
    async with db.uow() as uow:
        result = await uow.session.execute(
            select(MatchRow.white_first, MatchRow.black_first).where(
                MatchRow.state.not_in(("complete", "proposed")), MatchRow.black_first.is_not(None)
            )
        )
        return [(PlayerId(a), PlayerId(b)) for a, b in result.all() if b is not None]


class Service:
    """Everything ``acwc run`` runs. Use ``async with Service(config) as s: await s.run()``."""

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock | None = None,
        hooks: Hooks | None = None,
        sandbox_state: SandboxState | None = None,
        web_port: int | None = None,
        serve_web: bool = True,
    ) -> None:
        self.config = config
        self.clock: Clock = clock or SystemClock()
        self.hooks = hooks or default_hooks()
        self.sandbox_state = sandbox_state
        self.web_port = config.service.web_port if web_port is None else web_port
        self.serve_web = serve_web
        self._stack = contextlib.AsyncExitStack()
        self.db: Database
        self.lichess: LichessClient
        self.lichess_url: str
        self.dispatcher: OutboxDispatcher
        self.runner: DeadlineRunner
        self.watcher: GameWatcher
        self.intake: GameIntake
        self.web_app: web.Application | None = None
        self.web_url: str | None = None
        self.restarts: Counter[str] = Counter()
        """How often each loop failed and was started again (logged each time)."""

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

    async def _open(self) -> None:
        config = self.config
        self.db = Database(config.service.database_url)
        self._stack.push_async_callback(self.db.dispose)
        changes = self.db.track_changes()
        current = await migrate.current_revision(self.db)
        if current != migrate.head_revision():
            if config.service.uses_sandbox:
                await migrate.upgrade(self.db)  # the embedded default sets itself up
            else:
                raise StartupError(
                    f"the database is at {current or 'base'}, not {migrate.head_revision()}: "
                    "run `acwc db upgrade` (or `alembic upgrade head`) first"
                )
        token: str | None
        if config.service.uses_sandbox:
            self.lichess_url, token = await self._start_sandbox()
        else:
            self.lichess_url, token = config.service.lichess_url, config.secrets.lichess_token
        self.lichess = LichessClient(
            base_url=self.lichess_url,
            token=token,
            clock=self.clock,
            timeout=config.service.request_timeout_seconds,
        )
        self._stack.push_async_callback(self.lichess.aclose)
        self.dispatcher = OutboxDispatcher(self.db, LichessMessenger(self.lichess), self.clock)
        self.runner = DeadlineRunner(self.db, self.clock, self.hooks.deadline_handlers)
        self.runner.after_fire = self.dispatcher.wake
        self.dispatcher.wakeup.watch = lambda: changes.version(("outbox",))
        self.runner.wakeup.watch = lambda: changes.version(("deadlines",))
        self.intake = GameIntake(
            self.db,
            config,
            self.clock,
            on_match_change=self._match_changed,
            after_commit=self.changed,
        )
        self.watcher = GameWatcher(
            client=self.lichess,
            clock=self.clock,
            on_game=self.intake,
            players=await active_players(self.db),
            pairs_provider=lambda: pairs(self.db),
            load_last_seen=self._load_last_seen,
            save_last_seen=self._save_last_seen,
        )
        for start in self.hooks.service_start:
            start(self)
        if self.serve_web:
            await self._start_web()

    async def _start_sandbox(self) -> tuple[str, str]:
        state = self.sandbox_state or SandboxState(now=self.clock.now)
        self.sandbox_state = state
        bot = self.config.service.bot_account
        state.add_token(bot, token=SANDBOX_BOT_TOKEN)
        for td in self.config.tournament.tds:
            if PlayerId(td.lower()) not in state.users:
                state.add_user(td)
        team = self.config.tournament.team
        if team:
            state.make_team(team, leaders=[bot])
        runner = web.AppRunner(make_sandbox_app(state), shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._stack.push_async_callback(runner.cleanup)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}"
        log.info("sandbox Lichess on %s", url)
        return url, SANDBOX_BOT_TOKEN

    async def _start_web(self) -> None:
        app = web.Application(client_max_size=64 * 1024)
        app[SERVICE_KEY] = self
        for setup in self.hooks.web_setup:
            setup(app, self)
        if not self.hooks.web_setup:
            app.router.add_get("/healthz", _health)
        runner = web.AppRunner(app, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.config.service.web_host, self.web_port)
        await site.start()
        self._stack.push_async_callback(runner.cleanup)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.web_app = app
        self.web_url = f"http://{self.config.service.web_host}:{port}"
        log.info("web pages on %s", self.web_url)

    # --- state the watcher keeps across restarts ----------------------------------------

    async def _load_last_seen(self) -> dt.datetime | None:
        async with self.db.uow() as uow:
            return await uow.settings.get_time("stream.last_seen")

    async def _save_last_seen(self, when: dt.datetime) -> None:
        async with self.db.uow() as uow:
            await uow.settings.set_time("stream.last_seen", when)
            await uow.commit()

    # --- wiring ------------------------------------------------------------------------

    async def _match_changed(self, uow: UnitOfWork, match_id: int, outcome: Outcome | None) -> None:
        await run_match_hooks(self.hooks, uow, match_id, outcome)

    def changed(self, *, elsewhere: bool = False) -> None:
        """Stored state changed: deliver queued messages and look at the deadlines again.

        The database counts this process's commits per table, so only a loop whose table was
        written is woken: a game that only moved a score wakes neither. ``elsewhere``: another
        process wrote (a demo driver's poke), which those counts cannot see: wake both. (With
        the wall clock both loops also look on their own every minute, for a TD command run in
        another process.)
        """
        if elsewhere:
            self.dispatcher.wake()
            self.runner.wake()
            return
        self.dispatcher.wake_if_changed()
        self.runner.wake_if_changed()

    async def refresh_players(self) -> None:
        """The set of active players changed (a round was published or finished)."""
        self.watcher.set_players(await active_players(self.db))

    async def run(self) -> None:
        """Run the games watcher, the outbox and the deadline runner until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self._keep(self.watcher.run, "games watcher"), name="games-watcher")
            tasks.create_task(self._keep(self.dispatcher.run, "outbox"), name="outbox")
            tasks.create_task(self._keep(self.runner.run, "deadline runner"), name="deadlines")

    async def _keep(self, loop: Callable[[], Awaitable[None]], name: str) -> None:
        """Run one of the service's loops for as long as the service runs.

        A failure the loop does not handle itself (the database gone for a moment, a bug in
        one deadline's handler) is logged with its traceback and the loop starts again after
        a pause on the service clock, doubling up to :data:`RESTART_PAUSE_MAX`: one part
        failing never stops the others, and what it was doing is still in the database (a
        deadline's transaction rolled back is still unfired, a message still pending).
        """
        pause = RESTART_PAUSE
        while True:
            try:
                await loop()
                return
            except Exception:
                self.restarts[name] += 1
                log.exception("the %s failed; starting it again in %s", name, pause)
            await self.clock.sleep(pause.total_seconds())
            pause = min(pause * 2, RESTART_PAUSE_MAX)


SERVICE_KEY = web.AppKey("service", Service)
"""The running :class:`Service` on the web Application (an AppKey: a plain string key warns)."""


async def _health(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


FEATURES: tuple[str, ...] = ("bot.weekly", "bot.stages", "bot.web")
"""Modules with a ``register(hooks: Hooks)`` function, in the order they are wired in."""


@dataclass
class Offline:
    """What feature hooks may bind to outside the running service (the CLI): no Lichess client."""

    config: Config
    clock: Clock
    lichess: LichessClient | None = None


def offline_hooks(config: Config, clock: Clock) -> Hooks:
    """The features' hooks bound for use in a CLI command (no user statuses available)."""
    hooks = default_hooks()
    for start in hooks.service_start:
        start(Offline(config, clock))  # type: ignore[arg-type]
    return hooks


async def run_match_hooks(
    hooks: Hooks, uow: UnitOfWork, match_id: int, outcome: Outcome | None
) -> None:
    for hook in hooks.match_changed:
        await hook(uow, match_id, outcome)


def default_hooks() -> Hooks:
    """The hooks of every feature module in :data:`FEATURES`."""
    hooks = Hooks()
    for name in FEATURES:
        importlib.import_module(name).register(hooks)
    return hooks


async def run_service(config: Config) -> None:
    """``acwc run``: serve until SIGINT or SIGTERM, then close everything cleanly.

    With ``service.clock_url`` (tests only) the service follows a demo driver's fake clock
    (:class:`bot.demo.remote.RemoteClock`) and stops when that feed ends.
    """
    if config.service.clock_url is not None:
        from bot.demo.remote import run_on_remote_clock

        await run_on_remote_clock(config, config.service.clock_url)
        return
    loop = asyncio.get_running_loop()
    async with Service(config) as service:
        task = asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, task.cancel)
        print(f"acwc-bot running; Lichess at {service.lichess_url}; web at {service.web_url}")
        with contextlib.suppress(asyncio.CancelledError):
            await service.run()
