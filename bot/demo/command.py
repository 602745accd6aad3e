"""``acwc demo``: a whole championship on the bundled sandbox Lichess (see :mod:`bot.demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.cli.base import Cli, CliError, command
from rules.core.ruleset import Ruleset
from storage.db import DatabaseURLError, check_url


def register(sub: Any) -> None:
    p = command(
        sub,
        "demo",
        demo,
        "run a whole championship with simulated players on the sandbox Lichess, fast",
    )
    p.add_argument("--players", type=int, default=48, help="simulated players (default 48)")
    p.add_argument("--seed", type=int, default=1, help="the same seed gives the same season")
    p.add_argument("--dir", type=Path, help="folder for the SQLite database (default: temporary)")
    p.add_argument(
        "--database-url", help="an empty database instead, e.g. postgresql+asyncpg://user@host/db"
    )
    p.add_argument(
        "--keep-open", action="store_true", help="keep the web pages up at the end (Ctrl-C stops)"
    )


def smallest_field(ruleset: Ruleset) -> int:
    """The fewest players the demo's script can take to the end: the Candidates' entrants
    (qualifiers and two seeded places, rules 3.v.4, 3.vi.1) and the qualifier who withdraws."""
    return ruleset.stages.qualifiers + 2 + 1


async def demo(args: argparse.Namespace, cli: Cli) -> int:
    from bot.demo.season import DemoOptions, run_season  # the demo loads only when it runs

    if not 8 <= args.players <= 4096:
        raise CliError(f"--players {args.players}: give between 8 and 4096 players")
    smallest = smallest_field(cli.config.rules)
    if args.players < smallest:
        raise CliError(
            f"--players {args.players}: the demo's season needs at least {smallest} players: "
            f"the Candidates take {cli.config.rules.stages.qualifiers} qualifiers and the two "
            "seeded entrants (or more qualifiers in their place, rules 3.v.4), and one "
            "qualifier withdraws during the demo (rules 8.i)"
        )
    if args.database_url is not None:
        try:
            check_url(args.database_url)
        except DatabaseURLError as e:
            raise CliError(f"--database-url: {e}") from None
    options = DemoOptions(
        players=args.players,
        seed=args.seed,
        folder=args.dir,
        database_url=args.database_url,
        keep_open=args.keep_open,
    )
    await run_season(cli.config, options)
    return 0
