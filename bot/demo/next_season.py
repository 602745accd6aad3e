"""From one demo season to the next (issue 28, ``acwc demo --seasons N``).

After a season's champion the demo's TDs make next year's season the way a TD does, through the
operation the desk's "new season" and "confirm" buttons call (and ``acwc season new`` /
``season confirm``): :class:`bot.service.seasons.Seasons`. The running service follows the
confirmed season without a restart (``Service.follow_season``); the same people then register
again in the new season's window, seeded from rated games in its (a year later) eligibility
windows, and the season is played on the same database and the same service.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt

from bot.app import Service
from bot.demo.driver import SettleWatch
from bot.demo.roster import DemoPlayer, Roster, new_name, new_strength, rng_for, seed_history
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from rules.core.model import normalise_username
from rules.core.ruleset import Ruleset
from storage.models import TournamentRow

__all__ = ["next_roster", "open_next_season", "registration_start"]


def registration_start(rules: Ruleset) -> dt.datetime:
    """When the demo's players start registering: a week before the first pairings, 09:00."""
    first = rules.calendar.first_publication - dt.timedelta(days=7)
    return dt.datetime.combine(first, dt.time(9, 0), tzinfo=dt.UTC)


NEWCOMERS = 2
"""Players who enter a later season for the first time."""


def _newcomers(roster: Roster, seed: int, year: int) -> list[DemoPlayer]:
    rng = rng_for(seed, "newcomers", year)
    taken = {p.id for p in roster.players}
    found: list[DemoPlayer] = []
    while len(found) < NEWCOMERS:
        name = new_name(rng)
        if normalise_username(name) not in taken:
            taken.add(normalise_username(name))
            found.append(DemoPlayer(name, new_strength(rng)))
    return found


def next_roster(roster: Roster, rules: Ruleset, seed: int) -> Roster:
    """The same people next year and a few newcomers: the seeded entrants (last year's
    finalists) first, and the player who withdraws and the no-show drawn again among the
    others (a seeded entrant plays no qualification, where both roles are played)."""
    seeded = [
        normalise_username(n)
        for n in (rules.seeding.title_holder, rules.seeding.runner_up)
        if n is not None
    ]
    year = rules.calendar.first_publication.year
    players = sorted(
        [*roster.players, *_newcomers(roster, seed, year)],
        key=lambda p: (p.id not in seeded, seeded.index(p.id) if p.id in seeded else 0),
    )
    others = sorted((p for p in players if p.id not in seeded), key=lambda p: p.id)
    rng = rng_for(seed, "roster", year)
    withdrawer = others[rng.randrange(len(others))].id if len(others) > 4 else None
    remaining = [p for p in others if p.id != withdrawer]
    absentee = remaining[rng.randrange(len(remaining))].id if remaining else None
    return dataclasses.replace(
        roster,
        players=tuple(dataclasses.replace(p, online=p.id != absentee) for p in players),
        absentee=absentee,
        withdrawer=withdrawer,
    )


async def _followed(service: Service, watch: SettleWatch, old: object, within: float) -> None:
    """Wait until the running service plays the confirmed season (its season loop built the
    services again), waking on what the service's loops say, never on time."""
    service.changed(elsewhere=True)  # what the desk's commit does: the season loop looks
    async with asyncio.timeout(within):
        while service.services is old:
            watch.activity.clear()
            await asyncio.sleep(0)
            if service.services is old:
                await watch.activity.wait()


async def open_next_season(
    service: Service,
    watch: SettleWatch,
    clock: FakeClock,
    *,
    sandbox: SandboxState,
    roster: Roster,
    seed: int,
    within: float,
) -> tuple[TournamentRow, Roster]:
    """The TDs draft next year's season and confirm it; the clock moves to its registration
    week, the field's accounts get their rated games of its eligibility windows. Returns the
    opened season and next year's roster."""
    services = service.services
    td = service.config.tournament.tds[0]
    seasons = services.tournament.seasons
    async with service.db.uow() as uow:
        await seasons.draft_next(uow, now=clock.now(), actor=td)
        await uow.commit()
    async with service.db.uow() as uow:
        row = await seasons.confirm(uow, now=clock.now(), actor=td)
        await uow.commit()
    await _followed(service, watch, services, within)
    rules = service.config.rules
    following = next_roster(roster, rules, seed)
    seed_history(sandbox, following, seed, rules)
    start = registration_start(rules)
    if start > clock.now():
        clock.set(start)
    return row, following
