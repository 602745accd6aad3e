"""Issue 28: a season confirmed on the desk is played by the running service at once, with no
restart: its services (the deadlines' handlers, the pages' and the desk's) are built again with
the new season's rules and put in place, and a player entered from then on is seeded by them."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import re

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from storage import migrate
from storage.db import Database
from tests.stages.helpers import config_for, season_played, second_wins
from tests.web.helpers import TD, Browser, Site, Waits, make_config


def _key(page: str, prefix: str) -> str:
    found = re.search(rf'value="({prefix}:\d+)"', page)
    assert found is not None, page[:3000]
    return found.group(1)


@pytest.mark.timeout(120)  # a hang guard: the loops settle in a few seconds
async def test_a_season_confirmed_on_the_desk_is_played_without_a_restart(
    database_url: str,
) -> None:
    db = Database(database_url)
    try:
        await migrate.upgrade(db)
        # 2021's final won by GrohochetGrom: 2022's title holder, 2021's runner-up
        final_week = await season_played(db, config_for(database_url), final=second_wins(7))
    finally:
        await db.dispose()
    clock = FakeClock(final_week + dt.timedelta(weeks=1))
    waits = Waits()
    service = Service(
        make_config(database_url),
        clock=clock,
        web_port=0,
        sandbox=bundled_sandbox(),
        watch=waits,
    )
    async with service:
        assert service.web_url is not None
        task = asyncio.create_task(service.run())
        td = Browser(Site(service=service, clock=clock, url=service.web_url, matches={}))
        try:
            old = service.services
            assert old.config.rules.seeding.title_holder == "PepsiNGaming"
            await td.login(TD)
            for prefix, choice in (("new", "draft"), ("draft", "confirm")):
                page = await td.get("/desk")
                await td.post(
                    "/desk/decide", {"kind": "season", "key": _key(page, prefix), "choice": choice}
                )
            while service.services is old:  # the season loop follows the confirmation
                waits.event.clear()
                await waits.event.wait()
            now = service.services
            assert now.config.rules.seeding.title_holder == "GrohochetGrom"
            assert now.config.rules.calendar.first_publication == dt.date(2022, 10, 11)
            assert service.config is now.config
            assert service.web_runtime is not None
            assert service.web_runtime.services is now  # the pages and the desk
            assert service.runner.handlers == dict(now.deadline_handlers)
            assert service.runner.handlers != dict(old.deadline_handlers)
            async with service.db.uow() as uow:
                row = await now.players.add(
                    uow, "GrohochetGrom", seed_rating=2400, now=clock.now(), actor=TD
                )
                await uow.commit()
            assert row.seeded_as == "title_holder"
        finally:
            await td.close()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
