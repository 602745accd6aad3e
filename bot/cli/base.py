"""What every command of the ``acwc`` command line shares: the :class:`Cli` a handler gets (the
config, the clock, the :class:`Launcher`), the one-line errors, the parser's building blocks,
and the database and services a command opens."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

if TYPE_CHECKING:
    from bot.config import Config
    from bot.runtime.clock import Clock
    from bot.service.services import Services
    from storage.db import Database
    from storage.uow import UnitOfWork

# This module is imported by every command, ``acwc --help`` included: what only some commands
# use (the config, the clock, the database) is imported where it is used.

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

    def tools(self) -> Sequence[CommandEntry]:
        """Subcommands of the shipped tools (``acwc demo``), imported only when they run."""
        ...


@dataclass(frozen=True, slots=True)
class CommandEntry:
    """A top-level command: its name, the module whose ``register(subparsers)`` adds it (and
    is imported only when that command runs), and its help line for ``acwc --help``."""

    name: str
    module: str
    help: str


class Cli:
    """What every command gets: the config (read when the command first asks for it, so a
    command that needs none, like ``acwc pair``, neither reads nor imports it), the clock it
    acts at, and the launcher."""

    __slots__ = ("_clock", "_config", "_load_config", "launcher")

    def __init__(
        self, load_config: Callable[[], Config], clock: Clock | None, launcher: Launcher
    ) -> None:
        self._load_config = load_config
        self._config: Config | None = None
        self._clock = clock
        self.launcher = launcher

    @property
    def config(self) -> Config:
        if self._config is None:
            self._config = self._load_config()
        return self._config

    @property
    def clock(self) -> Clock:
        if self._clock is None:
            from bot.runtime.clock import SystemClock

            self._clock = SystemClock()
        return self._clock


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


def open_database(config: Config) -> Database:
    from storage.db import Database, DatabaseURLError

    try:
        return Database(config.service.database_url)
    except DatabaseURLError as e:
        raise CliError(f"service.database_url: {e}") from None


def check_actor(config: Config, actor: str) -> str:
    """A TD command run as a named TD must name one from the config."""
    if actor != "cli" and config.tournament.tds and not config.is_td(actor):
        raise CliError(f"--by {actor}: not a TD in the config ({', '.join(config.tournament.tds)})")
    return actor


@asynccontextmanager
async def database(config: Config, *, check: bool = True) -> AsyncIterator[Database]:
    from storage import migrate

    db = open_database(config)
    try:
        if check:
            why = await migrate.why_not_run(db)
            if why is not None:
                raise CliError(
                    f"{why}; run `acwc db upgrade` first ({config.service.database_url})"
                )
        yield db
    finally:
        await db.dispose()


@asynccontextmanager
async def unit_of_work(cli: Cli) -> AsyncIterator[UnitOfWork]:
    """A unit of work on the config's database, for a command that only reads or writes rows."""
    async with database(cli.config) as db, db.uow() as uow:
        yield uow


@asynccontextmanager
async def services(cli: Cli, *, lichess_url: str | None = None) -> AsyncIterator[Services]:
    """The application services on the config's database (and Lichess at ``lichess_url``)."""
    async with (
        database(cli.config) as db,
        cli.launcher.services(cli.config, db, clock=cli.clock, lichess_url=lichess_url) as found,
    ):
        yield found
