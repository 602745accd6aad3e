"""Issue 28: the desk's background eligibility re-check is kept per season. Once a TD confirms
next year's season on the desk, the re-check page shows that season's check (none yet), never
the one the season just archived ran; a check started then reads the new season's players."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.web.desk.checks import JOBS
from rules.core.ruleset import StageKind
from storage.models import SeasonState, TournamentRow
from tests.web.helpers import NOW, TD, Browser, Site, flash_text, make_config, seed


async def _checked(td: Browser, site: Site) -> str:
    """Start the re-check, wait for it to end, and read its page."""
    page = await td.post("/desk/registration/check", {})
    assert flash_text(page) == "The check has started."
    assert site.service.web_app is not None
    job = site.service.web_app[JOBS].current
    assert job is not None
    await asyncio.wait_for(job.finished.wait(), timeout=60)  # a hang guard: it ends at once
    return await td.get("/desk/registration")


async def test_the_re_check_page_shows_the_open_season_s_check_only(database_url: str) -> None:
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        await seed(service)
        site = Site(service=service, clock=clock, url=service.web_url, matches={})
        td = Browser(site)
        try:
            await td.login(TD)
            async with site.db.reads() as uow:
                first = await uow.tournaments.current()
            assert first is not None
            assert first.year is not None
            page = await _checked(td, site)
            assert f"({first.year} season)" in page
            assert "Done: 4 players checked" in page

            async with site.db.uow() as uow:  # next year's season, drafted
                draft = await uow.tournaments.add(
                    TournamentRow(
                        name=first.name,
                        created_at=NOW,
                        current_stage=StageKind.QUALIFICATION,
                        year=first.year + 1,
                        state=SeasonState.DRAFT,
                        previous_id=first.id,
                    )
                )
                await uow.commit()
            desk = await td.get("/desk")
            assert f'value="draft:{draft.id}"' in desk
            page = await td.post(
                "/desk/decide", {"kind": "season", "key": f"draft:{draft.id}", "choice": "confirm"}
            )
            assert flash_text(page).startswith(f"The {draft.year} season is open")

            page = await td.get("/desk/registration")
            assert f"({draft.year} season)" in page
            assert "Done:" not in page  # the check of the season just archived is not shown
            assert re.search(r'id="start-check">\s*Check every registration', page)

            clock.set(NOW + dt.timedelta(days=1))
            page = await _checked(td, site)
            assert "Done: 0 players checked" in page  # the new season has no entrants yet
            assert site.service.web_app is not None
            jobs = site.service.web_app[JOBS]
            earlier = jobs.of(first.id)
            assert earlier is not None
            assert len(earlier.checks) == 4  # kept, as its season's
        finally:
            await td.close()
