"""The process entry: ``acwc`` and ``python -m bot``.

It hands the command line the composition root (:mod:`bot.app`) and plugs in the tools the
project ships beside the service: the bundled sandbox Lichess (for ``lichess_url = "sandbox"``),
the ``acwc demo`` command and the demo driver's remote clock (``service.clock_url``, tests only).
This is the one module outside the demo and the tests that may import ``bot.app``, ``bot.demo``
and ``bot.sandbox`` (import-linter enforces it), and it imports the tools only when the config
or the command asks for them: the service itself only ever sees the :data:`bot.app.SandboxStarter`
it is handed.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from bot import cli
from bot.app import SandboxStarter, offline_services, run_service
from bot.config import Config
from bot.runtime.clock import Clock
from rules.core.model import PlayerId
from storage.db import Database

if TYPE_CHECKING:
    from bot.sandbox.state import SandboxState
    from bot.service.services import Services

__all__ = ["SANDBOX_BOT_TOKEN", "bundled_sandbox", "main", "prepare_sandbox"]

SANDBOX_BOT_TOKEN = "lip_sandbox_bot_token"  # only ever valid on the bundled fake Lichess


def prepare_sandbox(sandbox: SandboxState, config: Config) -> None:
    """The bot's token, the TDs' accounts and the team of ``config`` on a sandbox Lichess."""
    bot = config.service.bot_account
    sandbox.add_token(bot, token=SANDBOX_BOT_TOKEN)
    for td in config.tournament.tds:
        if PlayerId(td.lower()) not in sandbox.users:
            sandbox.add_user(td)
    if config.tournament.team:
        sandbox.make_team(config.tournament.team, leaders=[bot])


def bundled_sandbox(state: SandboxState | None = None) -> SandboxStarter:
    """Serve the bundled fake Lichess (``state``: a demo's or a test's, else a fresh one), with
    the bot's token, the TDs' accounts and the team the config names."""

    async def start(
        config: Config, clock: Clock, stack: contextlib.AsyncExitStack
    ) -> tuple[str, str]:
        from aiohttp import web

        from bot.sandbox.app import make_app
        from bot.sandbox.state import SandboxState

        sandbox = state or SandboxState(now=clock.now)
        prepare_sandbox(sandbox, config)
        runner = web.AppRunner(make_app(sandbox), shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        stack.push_async_callback(runner.cleanup)
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}", SANDBOX_BOT_TOKEN

    return start


class _Launcher:
    """The command line's :class:`bot.cli.Launcher`."""

    @contextlib.asynccontextmanager
    async def services(
        self, config: Config, db: Database, *, clock: Clock, lichess_url: str | None = None
    ) -> AsyncIterator[Services]:
        async with offline_services(config, db, clock=clock, lichess_url=lichess_url) as found:
            yield found

    async def run(self, config: Config) -> None:
        if config.service.clock_url is not None:
            from bot.demo.remote import run_on_remote_clock

            await run_on_remote_clock(config, config.service.clock_url, sandbox=bundled_sandbox())
            return
        await run_service(config, sandbox=bundled_sandbox())

    def add_tools(self, sub: Any) -> None:
        from bot.demo import command

        command.register(sub)


def main(argv: Sequence[str] | None = None, *, clock: Clock | None = None) -> int:
    """Run one ``acwc`` command (``clock``: a test's fake clock)."""
    return cli.main(argv, launcher=_Launcher(), clock=clock)


def entry() -> None:
    sys.exit(main())
