"""The ``acwc`` command line: one entry point, one subcommand module per area.

Every command takes ``--config PATH`` (default ``./config.toml`` if present, else the built-in
defaults). Bad arguments give one clear line on stderr and a non-zero exit, never a traceback.
The process entry (:mod:`bot.launch`) hands :func:`main` a :class:`~bot.cli.base.Launcher`: the
services built by the composition root, ``acwc run`` itself, and the shipped tools' commands
(the demo).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import unicodedata
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli.base import (
    EXIT_ERROR,
    EXIT_USAGE,
    Cli,
    CliError,
    CommandEntry,
    Launcher,
    Parser,
    add_config_option,
)
from bot.runtime.logs import FORMATS, setup_logging

if TYPE_CHECKING:
    from bot.config import Config
    from bot.runtime.clock import Clock

__all__ = ["COMMANDS", "build_parser", "main"]

# Every top-level command, in the order of `acwc --help`: its name, the module whose
# `register(subparsers)` adds it, and its help line. `acwc --help` reads only this table; a
# command's module (and what it imports: the services, the database) is imported only when
# that command runs. To add a command: write its module with `register(sub)` and add a row
# here, one per top-level name it registers (a group that several modules fill has a row per
# module); tests/cli/test_start_up.py checks the rows against the modules.
COMMANDS: tuple[CommandEntry, ...] = (
    CommandEntry(
        "init", "bot.cli.init_cmd", "write a season's config from a few answers (or flags)"
    ),
    CommandEntry("db", "bot.cli.commands", "create or update the database schema"),
    CommandEntry("tournament", "bot.cli.commands", "the tournament itself"),
    CommandEntry("player", "bot.cli.commands", "registered players"),
    CommandEntry("match", "bot.cli.commands", "matches"),
    CommandEntry("result", "bot.cli.commands", "game results"),
    CommandEntry("audit", "bot.cli.commands", "show the audit log"),
    CommandEntry(
        "run", "bot.cli.commands", "run the service: games stream, deadlines, outbox, web"
    ),
    CommandEntry(
        "round", "bot.cli.qualification_cmd", "qualification rounds: pair, review, approve"
    ),
    CommandEntry(
        "standings", "bot.cli.qualification_cmd", "standings of a stage with every tiebreak"
    ),
    CommandEntry("trf", "bot.cli.qualification_cmd", "FIDE tournament report files"),
    CommandEntry(
        "registration", "bot.cli.qualification_cmd", "registrations: eligibility and seeding"
    ),
    CommandEntry("adjudicate", "bot.cli.qualification_cmd", "a TD decides an unfinished match"),
    CommandEntry("stage", "bot.cli.stages_cmd", "the later stages: Candidates, semifinals, finals"),
    CommandEntry("player", "bot.cli.stages_cmd", "registered players"),  # withdraw, disqualify
    CommandEntry(
        "say", "bot.cli.weekly_cmd", "relay a player's message to the bot (as if they sent it)"
    ),
    CommandEntry("fault", "bot.cli.weekly_cmd", "negotiation faults (rules 5.8, 5.9)"),
    CommandEntry("claim", "bot.cli.weekly_cmd", "claims of the match win (rules 6.3, 6.4)"),
    CommandEntry(
        "dq", "bot.cli.weekly_cmd", "disqualification after forfeits in two matches (rules 6.5)"
    ),
    CommandEntry(
        "forfeit", "bot.cli.weekly_cmd", "forfeits charged to players (rules 5.6, 6.2-6.5)"
    ),
    CommandEntry("deadlines", "bot.cli.weekly_cmd", "list planned and fired deadlines"),
    CommandEntry("outbox", "bot.cli.weekly_cmd", "list queued, sent and failed messages"),
    CommandEntry(
        "forum", "bot.cli.weekly_cmd", "forum drafts the TDs paste into the pairings thread"
    ),
    CommandEntry(
        "timeline", "bot.cli.weekly_cmd", "a match's history: its events and audit entries"
    ),
    CommandEntry(
        "pair", "bot.cli.pair_cmd", "pair the next round of a TRF file by the FIDE Dutch system"
    ),
    CommandEntry(
        "doctor", "bot.cli.doctor_cmd", "check the bot's account, token, scopes and team on Lichess"
    ),
    CommandEntry(
        "season", "bot.cli.season_cmd", "the seasons: next year's from this one, the archive"
    ),
)

_GLOBAL_WITH_VALUE = ("--config", "--log-format")


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command word of a command line (the first word that is not a global option or
    its value), or None."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _GLOBAL_WITH_VALUE:
            skip = True
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None


def build_parser(
    tools: Sequence[CommandEntry] = (), *, lazy: bool = False, command: str | None = None
) -> Parser:
    """The ``acwc`` parser: every command in full, or (``lazy``) the module of ``command`` in
    full and the other commands as their names and help lines only."""
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
    entries = (*COMMANDS, *tools)
    names = {entry.name for entry in entries if not lazy or entry.name == command}
    modules = dict.fromkeys(entry.module for entry in entries if entry.name in names)
    for module in modules:
        importlib.import_module(module).register(sub)
    for entry in entries:
        if entry.name not in sub.choices:
            sub.add_parser(entry.name, help=entry.help, description=entry.help)
    return parser


def resolve_config(args: argparse.Namespace, environ: dict[str, str]) -> Config:
    from bot.config import load_config

    path: Path | None = getattr(args, "config", None)
    if path is None and Path("config.toml").is_file():
        path = Path("config.toml")
    return load_config(path, environ)


def run_async(coro: Awaitable[int]) -> int:
    import asyncio

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
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(launcher.tools(), lazy=True, command=chosen_command(words))
        args = parser.parse_args(words)
        if not hasattr(args, "handler"):  # the command word was not where it was looked for
            args = build_parser(launcher.tools()).parse_args(words)
        level = logging.DEBUG if args.verbose else logging.WARNING
        setup_logging(level=level, fmt=args.log_format)

        def config() -> Config:
            resolved = resolve_config(args, environ)
            secrets = (resolved.secrets.lichess_token, resolved.secrets.session_secret)
            setup_logging(level=level, fmt=args.log_format, secrets=secrets)  # never in a log
            return resolved

        cli = Cli(config, clock, launcher)
        result = args.handler(args, cli)
        if isinstance(result, Awaitable):
            result = run_async(result)
        return int(result)
    except CliError as e:
        _say(f"acwc: error: {one_line(e)}")
        return e.code
    except KeyboardInterrupt:
        _say("acwc: interrupted")
        return 130
    except BrokenPipeError:  # `acwc round pair | head`: the reader has what it wanted
        _silence_stdout()
        return 0
    except Exception as e:
        return _report(e)


def _say(line: str) -> None:
    """One line on stderr in one write: print() writes the text and its newline apart, and a
    log line from another thread (aiosqlite's, with -v) could land between them."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _report(error: Exception) -> int:
    """The one line for an error a command ended with, and its exit code. The error classes
    are imported here, when there is an error: a command that never loaded them cannot have
    raised them."""
    from bot.config import ConfigError
    from bot.errors import OperationError
    from rules.core.errors import RulesError

    if isinstance(error, ConfigError):
        _say(f"acwc: config error: {one_line(error)}")
        return EXIT_USAGE
    if isinstance(error, (OperationError, RulesError)):
        _say(f"acwc: error: {one_line(error)}")
        return EXIT_ERROR
    if isinstance(error, OSError) or _is_database_error(error):
        # a database or network that cannot be reached
        text = str(error).strip()
        first_line = text.splitlines()[0] if text else type(error).__name__
        _say(f"acwc: error: {one_line(first_line)}")
        return EXIT_ERROR
    # the last resort: still one line, details with -v
    logging.getLogger(__name__).debug("unexpected error", exc_info=error)
    _say(
        f"acwc: unexpected error: {type(error).__name__}: {one_line(error)} "
        "(run with -v for details)"
    )
    return EXIT_ERROR


def _is_database_error(error: Exception) -> bool:
    if "sqlalchemy" not in sys.modules:
        return False
    from storage.errors import DatabaseError

    return isinstance(error, DatabaseError)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush at exit does not fail on the
    closed pipe again (Python's documented way, in the ``signal`` module notes on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no real file (a test's capture)
        pass
