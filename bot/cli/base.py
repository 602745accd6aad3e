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
        self,
        config: Config,
        db: Database,
        *,
        clock: Clock,
        lichess_url: str | None = None,
        quick: bool = False,
    ) -> AbstractAsyncContextManager[Services]:
        """The application services on ``db`` (with a Lichess client at ``lichess_url``;
        ``quick``: one short try per request)."""
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


ROW_ID_MAX = 2**31 - 1  # the largest id a row of either database can have


def row_id(text: str) -> int:
    """An argparse type for a row's number (a match, forfeit or draft; a round or game number):
    a whole number from 1 to :data:`ROW_ID_MAX`, checked before any query is sent."""
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 1 <= value <= ROW_ID_MAX:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 1 to {ROW_ID_MAX}")
    return value


def confirm(question: str) -> bool:
    """Ask ``question`` on the terminal; only "y" or "yes" is a yes (no terminal: no)."""
    try:
        answer = input(f"{question} [y/N] ")
    except (EOFError, OSError):  # no terminal to answer on
        return False
    return answer.strip().lower() in ("y", "yes")


def open_database(config: Config) -> Database:
    from storage.db import Database, DatabaseURLError

    try:
        return Database(config.service.database_url)
    except DatabaseURLError as e:
        raise CliError(f"service.database_url: {e}") from None


def check_actor(config: Config, actor: str) -> str:
    """The TD a TD command is run as, for the audit log. With TDs in the config, ``--by`` must
    name one of them: an audit log that says "cli" cannot tell who ruled. Without TDs (the
    sandbox's bare defaults) any name, or none, is taken."""
    tds = config.tournament.tds
    if not tds:
        return actor
    if actor == "cli":
        raise CliError(f"say which TD you are: --by USERNAME, one of {', '.join(tds)}")
    if not config.is_td(actor):
        raise CliError(f"--by {actor}: not a TD in the config ({', '.join(tds)})")
    return actor


def missing_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite ``url`` when it does not exist yet (``None`` for PostgreSQL, an
    in-memory database or a file that exists)."""
    from storage.urls import missing_sqlite_file as missing

    return missing(url)


@asynccontextmanager
async def database(
    config: Config, *, check: bool = True, create: bool = False
) -> AsyncIterator[Database]:
    """The config's database; ``check``: refused unless at the newest schema; ``create``: a
    SQLite file that does not exist yet is made (``acwc db upgrade``, ``restore``). Any other
    command on a missing SQLite file is refused before the driver would create an empty one."""
    from storage import migrate

    missing = None if create else missing_sqlite_file(config.service.database_url)
    if missing is not None:
        raise CliError(f"there is no database at {missing}: run `acwc db upgrade` to create it")
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
    """A unit of work that only reads, on the config's database (``Database.reads``): a command
    that changes something goes through the services and commits its own ``db.uow()``."""
    async with database(cli.config) as db, db.reads() as uow:
        yield uow


@asynccontextmanager
async def services(
    cli: Cli, *, lichess_url: str | None = None, quick: bool = False
) -> AsyncIterator[Services]:
    """The application services on the config's database (and Lichess at ``lichess_url``)."""
    if lichess_url is not None:
        cli.config.lichess_token()  # a command that talks to Lichess: the token, or why not
    launcher = cli.launcher
    async with (
        database(cli.config) as db,
        launcher.services(
            cli.config, db, clock=cli.clock, lichess_url=lichess_url, quick=quick
        ) as found,
    ):
        yield found


def add_season_option(parser: argparse.ArgumentParser) -> None:
    """``--season YEAR``: read that season (an archived one's own players and rules)."""
    parser.add_argument(
        "--season", type=int, metavar="YEAR", help="which season (default: the one in play)"
    )


@asynccontextmanager
async def season_reads(cli: Cli, year: int | None) -> AsyncIterator[tuple[UnitOfWork, Config]]:
    """A reading unit of work answering for the season of ``year`` (None: the one in play),
    and the config with that season's rules: what the archive's pages read, from the command
    line. A year no season has is refused with the years there are."""
    import dataclasses

    from bot.service.seasons import season_rules
    from storage.repo_seasons import viewing

    async with database(cli.config) as db, db.reads() as uow:
        if year is None:
            season = await uow.tournaments.current()
        else:
            season = await uow.seasons.by_year(year)
            if season is None:
                years = sorted({s.year for s in await uow.seasons.all() if s.year})
                there = ", ".join(str(y) for y in years) or "none yet"
                raise CliError(f"there is no {year} season (the seasons: {there})")
        config = cli.config
        config = dataclasses.replace(config, rules=season_rules(config.rules, season))
        if year is None or season is None or season.is_open:
            yield uow, config
            return
        with viewing(season.id):
            yield uow, config
