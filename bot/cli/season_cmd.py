"""``acwc season``: every season this database holds, and next year's made from this one.

``acwc season new`` drafts next year's season from the open one's settings and final (the
dates a year on, its champion and runner-up seeded, its final for the Candidates tiebreak);
``acwc season show`` is what the TDs review (each season's registration window too: the
config's for a season that has none of its own); ``acwc season confirm`` opens it and archives
this one; ``acwc season discard`` throws the draft away.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from bot.cli.base import Cli, check_actor, command, group, services, unit_of_work

if TYPE_CHECKING:
    from bot.config import RegistrationConfig
    from bot.service.seasons import Seasons

T = TypeVar("T")


def register(sub: Any) -> None:
    season = group(sub, "season", "the seasons: next year's from this one, the archive")
    p = command(season, "show", season_show, "every season, and the draft's settings")
    p.add_argument("--json", action="store_true", help="as JSON")
    for name, handler, what, who in (
        ("new", season_new, "draft next year's season from this one", "makes it"),
        ("confirm", season_confirm, "open the drafted season, archive this one", "confirms"),
        ("discard", season_discard, "throw the drafted season away", "discards"),
    ):
        p = command(season, name, handler, what)
        p.add_argument("--by", default="cli", help=f"the TD who {who} (recorded in the audit log)")


async def season_new(args: argparse.Namespace, cli: Cli) -> int:
    row = await _settle(args, cli, lambda seasons: seasons.draft_next)
    print(f"drafted the {row.year} season: review it (`acwc season show`), then confirm it")
    for line in _settings(row.rules or {}):
        print(f"  {line}")
    return 0


async def season_confirm(args: argparse.Namespace, cli: Cli) -> int:
    row = await _settle(args, cli, lambda seasons: seasons.confirm)
    print(f"the {row.year} season is open; the season before it is archived")
    return 0


async def season_discard(args: argparse.Namespace, cli: Cli) -> int:
    year = await _settle(args, cli, lambda seasons: seasons.discard)
    print(f"discarded the drafted {year} season")
    return 0


async def _settle(
    args: argparse.Namespace, cli: Cli, step: Callable[[Seasons], Callable[..., Awaitable[T]]]
) -> T:
    """One of the seasons' steps (``step`` picks it from the services' :class:`Seasons`), by
    the TD of ``--by``, committed."""
    actor = check_actor(cli.config, args.by)
    async with services(cli) as s, s.db.uow() as uow:
        done = await step(s.tournament.seasons)(uow, now=cli.clock.now(), actor=actor)
        await uow.commit()
    return done


async def season_show(args: argparse.Namespace, cli: Cli) -> int:
    from bot.cli.output import as_json
    from bot.service.registration import window_of

    async with unit_of_work(cli) as uow:
        rows = await uow.seasons.all()
    data: list[dict[str, Any]] = [
        {
            "year": r.year,
            "state": r.state or "open",
            "title_holder": r.title_holder,
            "runner_up": r.runner_up,
            "final": r.final_order,
            "rules": r.rules,
            "registration": _window(window_of(cli.config, r)),
        }
        for r in rows
    ]
    if args.json:
        print(as_json(data))
        return 0
    for season in data:
        final = ", ".join(season["final"] or ()) or "-"
        print(
            f"{season['year']}  {season['state']:<8}  title holder {season['title_holder'] or '-'},"
            f" runner-up {season['runner_up'] or '-'}; final: {final}"
        )
        opens, closes = season["registration"] or ("-", "-")
        print(f"  registration {opens} to {closes}")
        if season["state"] == "draft":
            for line in _settings(season["rules"] or {}):
                print(f"  {line}")
    return 0


def _window(window: RegistrationConfig) -> list[str] | None:
    """A season's registration window, its ends as ISO 8601 (None: it has none)."""
    if window.opens is None or window.closes is None:
        return None
    return [window.opens.isoformat(), window.closes.isoformat()]


def _settings(table: dict[str, Any]) -> list[str]:
    """A season's own settings, one ``rules.section.key = value`` a line."""
    return [
        f"rules.{section}.{key} = {value}"
        for section, values in table.items()
        for key, value in values.items()
    ]
