"""The ``acwc`` command line: one entry point, one subcommand module per area.

Every command takes ``--config PATH`` (default ``./config.toml`` if present, else the built-in
defaults). Bad arguments give one clear line on stderr and a non-zero exit, never a traceback.
The process entry (:mod:`bot.launch`) hands :func:`main` a :class:`Launcher`: the services built
by the composition root, ``acwc run`` itself, and the shipped tools' commands (the demo).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, Protocol

from sqlalchemy.exc import SQLAlchemyError

from bot.config import Config, ConfigError, load_config
from bot.errors import OperationError
from bot.runtime.clock import Clock, SystemClock
from bot.service.services import Services
from rules.core.errors import RulesError
from storage.db import Database, DatabaseURLError

EXIT_ERROR = 1
EXIT_USAGE = 2


class Launcher(Protocol):
    """What the command line gets from the process entry."""

    def services(
        self, config: Config, db: Database, *, clock: Clock, lichess_url: str | None = None
    ) -> AbstractAsyncContextManager[Services]:
        """The application services on ``db`` (with a Lichess client at ``lichess_url``)."""
        ...

    async def run(self, config: Config) -> None:
        """``acwc run``: the service until SIGINT or SIGTERM."""
        ...

    def add_tools(self, sub: Any) -> None:
        """Subcommands of the shipped tools (``acwc demo``)."""
        ...


@dataclass(frozen=True, slots=True)
class Cli:
    """What every command gets: the config, the clock it acts at, and the launcher."""

    config: Config
    clock: Clock
    launcher: Launcher


class CliError(Exception):
    """Ends the command with one line on stderr and ``code``."""

    def __init__(self, message: str, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see `{self.prog} --help`)", EXIT_USAGE)


Handler = Callable[[argparse.Namespace, Cli], Awaitable[int] | int]


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        type=Path,
        default=argparse.SUPPRESS,
        help="config file (default: ./config.toml if present, else built-in defaults)",
    )


def command(
    subparsers: Any, name: str, handler: Handler, help_text: str, **kwargs: Any
) -> argparse.ArgumentParser:
    """Add a subcommand with ``--config`` and its handler."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text, description=help_text, **kwargs
    )
    add_config_option(parser)
    parser.set_defaults(handler=handler)
    return parser


def group(subparsers: Any, name: str, help_text: str) -> Any:
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    add_config_option(parser)
    return parser.add_subparsers(
        title="commands", metavar="COMMAND", required=True, parser_class=Parser
    )


def build_parser(tools: Callable[[Any], None] | None = None) -> Parser:
    from bot.cli import commands

    parser = Parser(
        prog="acwc",
        description="acwc-bot: the automated tournament director of the Lichess Antichess "
        "World Championship.",
    )
    add_config_option(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    sub = parser.add_subparsers(
        title="commands", metavar="COMMAND", required=True, parser_class=Parser
    )
    commands.register(sub)
    if tools is not None:
        tools(sub)
    return parser


def resolve_config(args: argparse.Namespace, environ: dict[str, str]) -> Config:
    path: Path | None = getattr(args, "config", None)
    if path is None and Path("config.toml").is_file():
        path = Path("config.toml")
    return load_config(path, environ)


def open_database(config: Config) -> Database:
    try:
        return Database(config.service.database_url)
    except DatabaseURLError as e:
        raise CliError(f"service.database_url: {e}") from None


def run_async(coro: Awaitable[int]) -> int:
    async def wrapper() -> int:
        return await coro

    return asyncio.run(wrapper())


def one_line(text: object) -> str:
    """``text`` on one line: control characters a user typed (a newline in a username, say)
    are shown escaped, so an error stays the one line it promises to be."""
    return "".join(
        ch if not unicodedata.category(ch).startswith("C") else ch.encode("unicode_escape").decode()
        for ch in str(text)
    )


def main(
    argv: Sequence[str] | None = None, *, launcher: Launcher, clock: Clock | None = None
) -> int:
    """Run one ``acwc`` command; ``clock`` (a test's fake clock) is the time commands act at."""
    environ = dict(os.environ)
    try:
        parser = build_parser(launcher.add_tools)
        args = parser.parse_args(argv)
        logging.basicConfig(
            level=logging.DEBUG if args.verbose else logging.WARNING,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        config = resolve_config(args, environ)
        result = args.handler(args, Cli(config, clock or SystemClock(), launcher))
        if asyncio.iscoroutine(result):
            result = run_async(result)
        return int(result)
    except CliError as e:
        print(f"acwc: error: {one_line(e)}", file=sys.stderr)
        return e.code
    except ConfigError as e:
        print(f"acwc: config error: {one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except (OperationError, RulesError) as e:
        print(f"acwc: error: {one_line(e)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("acwc: interrupted", file=sys.stderr)
        return 130
    except (OSError, SQLAlchemyError) as e:  # a database or network that cannot be reached
        first_line = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"acwc: error: {one_line(first_line)}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # the last resort: still one line, details with -v
        logging.getLogger(__name__).debug("unexpected error", exc_info=True)
        print(
            f"acwc: unexpected error: {type(e).__name__}: {one_line(e)} (run with -v for details)",
            file=sys.stderr,
        )
        return EXIT_ERROR
