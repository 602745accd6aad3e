"""The ``acwc`` command line: one entry point, one subcommand module per area.

Every command takes ``--config PATH`` (default ``./config.toml`` if present, else the built-in
defaults). Bad arguments give one clear line on stderr and a non-zero exit, never a traceback.
The process entry (:mod:`bot.launch`) hands :func:`main` a :class:`~bot.cli.base.Launcher`: the
services built by the composition root, ``acwc run`` itself, and the shipped tools' commands
(the demo).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bot.cli import commands, pair_cmd, qualification_cmd, stages_cmd, weekly_cmd
from bot.cli.base import EXIT_ERROR, EXIT_USAGE, Cli, CliError, Launcher, Parser, add_config_option
from bot.config import Config, ConfigError, load_config
from bot.errors import OperationError
from bot.runtime.clock import Clock, SystemClock
from bot.runtime.logs import FORMATS, setup_logging
from rules.core.errors import RulesError

__all__ = ["build_parser", "main"]


def build_parser(tools: Callable[[Any], None] | None = None) -> Parser:
    parser = Parser(
        prog="acwc",
        description="acwc-bot: the automated tournament director of the Lichess Antichess "
        "World Championship.",
    )
    add_config_option(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    parser.add_argument(
        "--log-format", choices=FORMATS, default="text", help="text, or json: one object a line"
    )
    sub = parser.add_subparsers(
        title="commands", metavar="COMMAND", required=True, parser_class=Parser
    )
    for module in (commands, qualification_cmd, stages_cmd, weekly_cmd, pair_cmd):
        module.register(sub)
    if tools is not None:
        tools(sub)
    return parser


def resolve_config(args: argparse.Namespace, environ: dict[str, str]) -> Config:
    path: Path | None = getattr(args, "config", None)
    if path is None and Path("config.toml").is_file():
        path = Path("config.toml")
    return load_config(path, environ)


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
        level = logging.DEBUG if args.verbose else logging.WARNING
        setup_logging(level=level, fmt=args.log_format)
        config = resolve_config(args, environ)
        secrets = (config.secrets.lichess_token, config.secrets.session_secret)
        setup_logging(level=level, fmt=args.log_format, secrets=secrets)
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
