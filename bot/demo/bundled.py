"""The bundled sandbox Lichess served for a config: what ``acwc run`` starts when the config
says ``lichess_url = "sandbox"``, and what the demo and the tests serve their own sandbox with.

The service never imports this: it is handed the :data:`bot.app.SandboxStarter` this module
builds (by the process entry, :mod:`bot.launch`, or by the demo).
"""

from __future__ import annotations

import contextlib

from aiohttp import web

from bot.app import SandboxStarter
from bot.config import Config
from bot.runtime.clock import Clock
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState
from rules.core.model import PlayerId

__all__ = ["SANDBOX_BOT_TOKEN", "bundled_sandbox", "prepare_sandbox"]

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
