"""``acwc demo``: a whole championship on the bundled sandbox Lichess (see :mod:`bot.demo`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.cli.base import Cli, CliError, command
from rules.core.ruleset import Ruleset
from rules.stages.candidates import fewest_qualifiers, qualifiers_needed
from storage.db import DatabaseURLError, check_url

MOST_PLAYERS = 4096  # the largest field the pairing engine is measured at


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
        "--seasons",
        type=int,
        default=1,
        help="seasons one after the other: after each champion the TDs make and open the next "
        "(default 1)",
    )
    p.add_argument(
        "--keep-open", action="store_true", help="keep the web pages up at the end (Ctrl-C stops)"
    )


def smallest_field(ruleset: Ruleset) -> int:
    """The fewest players the demo's script can take to the end: the seeded entrants, the
    qualifier who withdraws (rules 8.i), and the fewest qualifiers the Candidates can start
    with, in smaller pools if the TDs choose them (rules 1.3, 5.10) as the demo's TD does."""
    seeded = sum(1 for name in (ruleset.seeding.title_holder, ruleset.seeding.runner_up) if name)
    needed = fewest_qualifiers(ruleset, seeded_present=seeded)
    if needed is None:
        needed = qualifiers_needed(seeded, ruleset)
    return seeded + 1 + needed


async def demo(args: argparse.Namespace, cli: Cli) -> int:
    from bot.demo.season import DemoOptions, run_season  # the demo loads only when it runs

    smallest = smallest_field(cli.config.rules)
    if args.players > MOST_PLAYERS:
        raise CliError(f"--players {args.players}: give between {smallest} and {MOST_PLAYERS}")
    if args.players < smallest:
        raise CliError(
            f"--players {args.players}: the demo's season needs at least {smallest} players "
            f"(give between {smallest} and {MOST_PLAYERS}): one qualifier withdraws during the "
            "demo (rules 8.i), and with fewer the Candidates' pools cannot be filled, not even "
            "smaller ones (rules 3.vi)"
        )
    if args.seasons < 1:
        raise CliError(f"--seasons {args.seasons}: give 1 or more")
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
        seasons=args.seasons,
    )
    await run_season(cli.config, options)
    return 0
