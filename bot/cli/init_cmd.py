"""``acwc init``: a season's config from a few answers, and what is left to do.

It asks (or takes flags for) the season's year and dates, the TDs, the team, the Lichess URL
and the database; derives the rest from the regulations (the calendar of rules 4, the
eligibility dates of rules 2.1 shifted to the season's year); checks the result with the same
loader ``acwc run`` uses before writing it; creates the PostgreSQL database when it can; and
prints the steps that remain (the token, the secret, the schema, ``acwc doctor``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.cli.base import Cli, CliError, command

__all__ = ["register"]

LICHESS = "https://lichess.org"
SQLITE = "sqlite+aiosqlite:///acwc.db"
POSTGRESQL = "postgresql+asyncpg://postgres@127.0.0.1:5432/acwc"
TUESDAY = 1
# A Fernet key (32 random bytes in URL-safe base64) with the standard library only.
TOKEN_KEY_COMMAND = (
    'python3 -c "import base64, os; print(base64.urlsafe_b64encode(os.urandom(32)).decode())"'
)


def register(sub: Any) -> None:
    p = command(sub, "init", init, "write a season's config from a few answers (or flags)")
    p.add_argument("--path", type=Path, default=Path("config.toml"), help="the file to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--yes", action="store_true", help="ask nothing: flags and defaults only")
    p.add_argument("--year", type=int, help="the season's year (default: this year)")
    p.add_argument("--first-round", type=_date, help="round 1's Tuesday (YYYY-MM-DD)")
    p.add_argument("--tds", help="the TDs' Lichess usernames, comma-separated")
    p.add_argument("--team", help="the Lichess team id the bot leads")
    p.add_argument("--lichess-url", help=f"{LICHESS} (default) or 'sandbox'")
    p.add_argument("--bot-account", help="the bot's Lichess username")
    p.add_argument("--database-url", help="postgresql+asyncpg://USER@HOST:5432/DB or sqlite")
    p.add_argument("--public-url", help="where players reach the web pages")
    p.add_argument("--title-holder", help="the last champion (rules 3.3)")
    p.add_argument("--runner-up", help="the last final's runner-up (rules 3.4)")


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD") from None


def second_tuesday_of_october(year: int) -> dt.date:
    """Round 1's Tuesday when none is given: 2021's was the second Tuesday of October."""
    first = dt.date(year, 10, 1)
    return first + dt.timedelta(days=(TUESDAY - first.weekday()) % 7 + 7)


@dataclass(frozen=True, slots=True)
class Answers:
    year: int
    first_round: dt.date
    tds: tuple[str, ...]
    team: str | None
    lichess_url: str
    bot_account: str
    database_url: str
    public_url: str
    title_holder: str | None
    runner_up: str | None

    @property
    def sandbox(self) -> bool:
        return self.lichess_url == "sandbox"


Ask = Callable[[str, str | None], str | None]


def _asker(interactive: bool) -> Ask:
    """A question with its default: answered on the terminal, or the default without one."""

    def ask(question: str, default: str | None) -> str | None:
        if not interactive:
            return default
        shown = f" [{default}]" if default else ""
        try:
            answer = input(f"{question}{shown}: ").strip()
        except EOFError:
            return default
        return answer or default

    return ask


def gather(args: argparse.Namespace, ask: Ask, today: dt.date) -> Answers:
    """The answers: each flag given, else asked, else its default."""

    def value(flag: str, question: str, default: str | None) -> str | None:
        given = getattr(args, flag)
        return str(given) if given is not None else ask(question, default)

    year = int(value("year", "Season (year)", str(today.year)) or today.year)
    first = value("first_round", "Round 1's Tuesday", str(second_tuesday_of_october(year)))
    lichess_url = value("lichess_url", "Lichess", LICHESS) or LICHESS
    sandbox = lichess_url == "sandbox"
    database = SQLITE if sandbox else POSTGRESQL
    tds = value("tds", "TDs' Lichess usernames, comma-separated", None) or ""
    return Answers(
        year=year,
        first_round=_date(first or ""),
        tds=tuple(name.strip() for name in tds.split(",") if name.strip()),
        team=value("team", "Lichess team id the bot leads", None),
        lichess_url=lichess_url,
        bot_account=value("bot_account", "The bot's Lichess account", "acwc-bot") or "acwc-bot",
        database_url=value("database_url", "Database", database) or database,
        public_url=value("public_url", "Public address of the pages", "http://127.0.0.1:8080")
        or "http://127.0.0.1:8080",
        title_holder=value("title_holder", "Last season's champion", None),
        runner_up=value("runner_up", "Last final's runner-up", None),
    )


def _q(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def render(answers: Answers) -> str:
    """The config file for ``answers``: what the TDs chose, then the dates the regulations
    derive from the season's year; every other key keeps the regulations' value."""
    y, first = answers.year, answers.first_round
    opens = dt.datetime(y, 9, 1, tzinfo=dt.UTC)
    closes = dt.datetime.combine(first - dt.timedelta(days=2), dt.time(23, 59), tzinfo=dt.UTC)
    team = f"team = {_q(answers.team)}" if answers.team else '# team = "..."   # the bot leads it'

    seeded = [
        f"{key} = {_q(name or 'none')}"
        for key, name in (("title_holder", answers.title_holder), ("runner_up", answers.runner_up))
    ]
    order = [name for name in (answers.title_holder, answers.runner_up) if name]
    lines = [
        f"# The config of the ACWC {y}, written by `acwc init`. Every key not set here keeps the",
        "# regulations' value (config.example.toml lists them all, docs/ explains them).",
        "# Secrets are never in this file: ACWC_LICHESS_TOKEN and ACWC_SESSION_SECRET come from",
        "# the environment.",
        "",
        "[tournament]",
        f"name = {_q(f'Lichess Antichess World Championship {y}')}",
        f"tds = [{', '.join(_q(td) for td in answers.tds)}]",
        team,
        "",
        "[registration]   # players register themselves on /register in this window",
        f"opens = {opens:%Y-%m-%dT%H:%M:%SZ}",
        f"closes = {closes:%Y-%m-%dT%H:%M:%SZ}",
        "",
        "[service]",
        f"database_url = {_q(answers.database_url)}",
        f"lichess_url = {_q(answers.lichess_url)}",
        f"bot_account = {_q(answers.bot_account)}",
        f"public_url = {_q(answers.public_url)}",
        "",
        "[games]",
        f"event = {_q(f'ACWC {y}')}",
        "",
        "[rules.calendar]   # rules 4: round 1's pairings go out on this Tuesday",
        f"first_publication = {first.isoformat()}",
        "",
        "[rules.seeding]    # rules 3.3, 3.4: seeded into the Candidates",
        *seeded,
        f"previous_final_order = [{', '.join(_q(name) for name in order)}]",
        "",
        "[rules.eligibility]   # rules 2.1 and 3.5.3, shifted to this season's year",
        f"account_created_before = {y}-03-01T00:00:00Z",
        f"games_before = {y}-09-01T00:00:00Z",
        f"peak_window_start = {y}-03-01T00:00:00Z",
        f"peak_window_end = {y}-09-01T00:00:00Z",
        "",
    ]
    return "\n".join(lines)


def init(args: argparse.Namespace, cli: Cli) -> int:
    from bot.config import ConfigError, parse_config

    path: Path = args.path
    if path.exists() and not args.force:
        raise CliError(f"{path} exists: give another --path, or --force to overwrite it")
    interactive = not args.yes and sys.stdin.isatty()
    answers = gather(args, _asker(interactive), cli.clock.now().date())
    text = render(answers)
    try:  # the loader acwc run uses: what it refuses is never written
        import tomllib

        config = parse_config(tomllib.loads(text), {})
    except ConfigError as e:
        raise CliError(f"not written: {e}") from None
    if answers.first_round.weekday() != TUESDAY:
        raise CliError(
            f"not written: round 1 is on a Tuesday (rules 4), not {answers.first_round:%A}"
        )
    if not answers.sandbox and not answers.team:
        raise CliError(
            "not written: a season on a real Lichess needs the team the bot leads (--team): "
            "its members get the bot's DMs without the daily limit on new conversations"
        )
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    from storage.create import create_database

    made = asyncio.run(create_database(config.service.database_url))
    if made:
        print(made)
    for line in next_steps(config, path):
        print(line)
    return 0


def token_page(config: Any) -> str:
    """Lichess's page that makes a personal token with the scopes ``acwc run`` needs ticked."""
    from urllib.parse import urlencode

    from bot.service.registration import run_scopes

    query = urlencode(
        [("scopes[]", scope) for scope in sorted(run_scopes(config))]
        + [("description", f"acwc-bot {config.games.event}")]
    )
    return f"{config.service.lichess_url.rstrip('/')}/account/oauth/token/create?{query}"


def next_steps(config: Any, path: Path) -> list[str]:
    """What is left once the config is written, in order."""
    from bot.service.registration import run_scopes

    option = "" if path == Path("config.toml") else f" --config {path}"
    steps = ["", "Left to do:"]
    if not config.service.uses_sandbox:
        scopes = ", ".join(sorted(run_scopes(config)))
        steps += [
            f"- the bot's account {config.service.bot_account}: an ordinary Lichess account (not "
            "a BOT account) that leads the team with the Updates permission",
            f"- its token with {scopes}, in ACWC_LICHESS_TOKEN: logged in as the bot, open "
            f"{token_page(config)}",
        ]
    if config.games.bulk_pairing and not config.service.uses_local_lichess:
        steps.append(
            "- a key for the players' stored tokens ([games] bulk_pairing: a player may let the "
            "bot start their games) in ACWC_TOKEN_KEY, the same at every start, e.g. "
            f"`{TOKEN_KEY_COMMAND}`; or set bulk_pairing = false"
        )
    steps += [
        "- a secret for the web sessions in ACWC_SESSION_SECRET, e.g. "
        '`python3 -c "import secrets; print(secrets.token_urlsafe(32))"`',
        f"- the schema: `acwc{option} db upgrade`",
    ]
    if not config.service.uses_sandbox:
        steps.append(f"- check the account, token and team: `acwc{option} doctor`")
    steps += [
        f"- the tournament: `acwc{option} tournament create`",
        f"- the service: `acwc{option} run`",
    ]
    return steps
