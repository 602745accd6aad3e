"""``python -m bot.demo.follow_clock [-v] --config PATH follow-clock URL``: ``acwc run`` on the
fake clock a demo driver serves (:mod:`bot.demo.remote`), how the crash and fail-over tests run
the service in child processes. The command line of ``acwc`` with this one command more; the
production ``acwc`` has no such command (the time is a test's), and it runs only against a
sandbox Lichess on this machine."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any

from bot.app import offline_services
from bot.cli.base import Cli, CliError, CommandEntry, command
from bot.cli.main import main as cli_main
from bot.config import Config

__all__ = ["main"]

TOOLS = (
    CommandEntry(
        "follow-clock",
        "bot.demo.follow_clock",
        "`acwc run` on the fake clock a demo driver serves (sandbox Lichess only)",
    ),
)


def register(sub: Any) -> None:
    p = command(sub, "follow-clock", follow_clock, TOOLS[0].help)
    p.add_argument("clock_url", metavar="URL", help="the driver's clock feed (GET URL/clock)")


async def follow_clock(args: argparse.Namespace, cli: Cli) -> int:
    """``follow-clock URL``: ``acwc run`` following a driver's clock (the crash and fail-over
    tests): the time is a test's, so it runs only against a sandbox Lichess on this machine."""
    from bot.demo.bundled import bundled_sandbox
    from bot.demo.remote import run_on_remote_clock

    if not re.match(r"^https?://[^\s/]+", args.clock_url):
        raise CliError(f"URL: must be an http(s) URL, not {args.clock_url!r}")
    service = cli.config.service
    if not service.uses_local_lichess:
        raise CliError(
            'a fake clock is for tests only: it needs lichess_url = "sandbox" or a sandbox on '
            "http://127.0.0.1"
        )
    sandbox = bundled_sandbox() if service.uses_sandbox else None
    await run_on_remote_clock(cli.config, args.clock_url, sandbox=sandbox)
    return 0


class _Launcher:
    """The command line's launcher in a test's child process: the services, and this tool."""

    services = staticmethod(offline_services)

    async def run(self, config: Config) -> None:
        raise CliError("run the service with acwc itself")

    def tools(self) -> Sequence[CommandEntry]:
        return TOOLS


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv, launcher=_Launcher())


if __name__ == "__main__":
    sys.exit(main())
