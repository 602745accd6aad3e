"""The process entry: ``acwc`` and ``python -m bot``.

It hands the command line the composition root (:mod:`bot.app`) and plugs in the tools the
project ships beside the service: the bundled sandbox Lichess (for ``lichess_url = "sandbox"``),
and the ``acwc demo`` command (the tests' ``acwc run`` on a demo driver's clock is no command of
``acwc``: :mod:`bot.demo.follow_clock`).
This is the one module outside the demo and the tests that may import ``bot.app``, ``bot.demo``
and ``bot.sandbox`` (import-linter enforces it), and it imports the tools only when the config
or the command asks for them: the service itself only ever sees the :data:`bot.app.SandboxStarter`
it is handed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from bot.cli.base import CommandEntry
from bot.cli.main import main as cli_main

if TYPE_CHECKING:
    from bot.app import SandboxStarter
    from bot.config import Config
    from bot.runtime.clock import Clock
    from bot.service.services import Services
    from storage.db import Database

# The composition root and the tools are imported by the commands that use them, so that a
# command that needs neither (``acwc pair``, ``acwc --help``) starts at once.
TOOLS = (
    CommandEntry(
        "demo",
        "bot.demo.command",
        "run a whole championship with simulated players on the sandbox Lichess, fast",
    ),
)

__all__ = ["main"]


class _Launcher:
    """The command line's :class:`bot.cli.Launcher`."""

    def services(
        self, config: Config, db: Database, **options: Any
    ) -> AbstractAsyncContextManager[Services]:
        from bot.app import offline_services

        return offline_services(config, db, **options)

    async def run(self, config: Config) -> None:
        from bot.app import run_service

        sandbox: SandboxStarter | None = None
        if config.service.uses_sandbox:
            from bot.demo.bundled import bundled_sandbox  # loaded only when it serves

            sandbox = bundled_sandbox()
        await run_service(config, sandbox=sandbox)

    def tools(self) -> Sequence[CommandEntry]:
        return TOOLS


def main(argv: Sequence[str] | None = None, *, clock: Clock | None = None) -> int:
    """Run one ``acwc`` command (``clock``: a test's fake clock)."""
    return cli_main(argv, launcher=_Launcher(), clock=clock)


def entry() -> None:
    sys.exit(main())
