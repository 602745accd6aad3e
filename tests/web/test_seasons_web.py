"""Next year's season on the desk (issue 28): once the final is decided the desk offers to draft
it; the draft's card shows what it takes over and opens it with a button, no command named."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest

from bot.app import Service
from bot.config import RegistrationConfig
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.service.seasons import season_config
from storage import migrate
from storage.db import Database
from tests.stages.helpers import config_for, season_played, second_wins
from tests.web.helpers import TD, Browser, Site, flash_text, make_config


@pytest.fixture
async def played(database_url: str) -> AsyncIterator[Site]:
    """A service on a database whose season was played to its champion."""
    db = Database(database_url)
    try:
        await migrate.upgrade(db)
        final_week = await season_played(db, config_for(database_url))
    finally:
        await db.dispose()
    clock = FakeClock(final_week + dt.timedelta(weeks=1))
    config = dataclasses.replace(
        make_config(database_url),
        registration=RegistrationConfig(
            opens=dt.datetime(2021, 9, 1, tzinfo=dt.UTC),
            closes=dt.datetime(2021, 10, 10, 23, 59, tzinfo=dt.UTC),
        ),
    )
    async with Service(config, clock=clock, web_port=0, sandbox=bundled_sandbox()) as service:
        assert service.web_url is not None
        yield Site(service=service, clock=clock, url=service.web_url, matches={})


def _key(page: str, prefix: str) -> str:
    found = re.search(rf'value="({prefix}:\d+)"', page)
    assert found is not None, page[:3000]
    return found.group(1)


async def test_the_desk_drafts_next_years_season_and_opens_it(played: Site) -> None:
    td = Browser(played)
    try:
        await td.login(TD)
        page = await td.get("/desk")
        assert "Make the 2022 season?" in page
        assert "PepsiNGaming is the champion, GrohochetGrom second" in page
        assert "acwc " not in page

        page = await td.post(
            "/desk/decide", {"kind": "season", "key": _key(page, "new"), "choice": "draft"}
        )
        assert flash_text(page) == "The 2022 season is drafted: review it, then open it."
        page = await td.get("/desk")
        assert "Open the 2022 season?" in page
        assert "2022-10-11" in page  # the first pairings, on the same Tuesday of October
        # the registration window moved as far as the first pairings: Wednesday to Sunday
        assert "Wed 31 Aug 2022 00:00" in page
        assert "Sun 09 Oct 2022 23:59" in page
        assert "PepsiNGaming, GrohochetGrom, Player01, Player02" in page
        assert "acwc " not in page

        page = await td.post(
            "/desk/decide", {"kind": "season", "key": _key(page, "draft"), "choice": "confirm"}
        )
        assert flash_text(page) == "The 2022 season is open; the season before it is archived."
        assert "Open the 2022 season?" not in page
        async with played.db.reads() as uow:
            seasons = {s.year: s for s in await uow.seasons.all()}
            audit = [a.action for a in await uow.audit.list() if a.action.startswith("season.")]
        assert (seasons[2021].state, seasons[2022].state) == ("archived", "open")
        assert seasons[2022].confirmed_by == TD
        assert audit == ["season.draft", "season.confirm"]
    finally:
        await td.close()


ARCHIVED_PAGES = (
    "/2021",
    "/2021/pairings",
    "/2021/standings",
    "/2021/candidates",
    "/2021/knockout",
    "/2021/players",
    "/2021/players/pepsingaming",
    "/2021/players/player03/calendar.ics",
    "/2021/calendar.ics",
    "/2021/rules",
    "/2021/qualification.trf",
)


SWITCHER = re.compile(r'<nav aria-label="Seasons".*?</nav>|<p>Seasons: .*?</p>', re.S)
BANNER = re.compile(r'<p class="note archived" role="note">.*?</p>', re.S)
PUBLIC_LINK = re.compile(
    r'href="(/(?:pairings|standings|candidates|knockout|players|rules|calendar)[^"]*|/)"'
)


def _content(page: str) -> str:
    """A page without its list of seasons, which grows by design as seasons are added, and
    without the banner an archived season's pages carry."""
    return BANNER.sub("", SWITCHER.sub("", page))


def _links_out(page: str) -> list[str]:
    """The page's links to the season in play's public pages (outside its banner)."""
    return PUBLIC_LINK.findall(BANNER.sub("", page))


async def _pages(b: Browser) -> dict[str, str]:
    return {path: await b.get(path) for path in ARCHIVED_PAGES}


async def test_a_season_s_pages_stay_at_their_urls_after_the_next_is_played(
    played: Site, database_url: str
) -> None:
    """Issue 28's done-when: the 2021 pages read while 2021 was in play are the same, byte for
    byte, after 2022 is made from it, opened and played by the same people."""
    visitor, td = Browser(played), Browser(played)
    try:
        before = await _pages(visitor)
        assert "PepsiNGaming" in before["/2021/knockout"]
        assert before["/2021/qualification.trf"].startswith("012 ")
        assert "BEGIN:VCALENDAR" in before["/2021/calendar.ics"]

        await td.login(TD)
        for prefix, choice in (("new", "draft"), ("draft", "confirm")):
            page = await td.get("/desk")
            await td.post(
                "/desk/decide", {"kind": "season", "key": _key(page, prefix), "choice": choice}
            )
        config = await season_config(played.db, config_for(database_url))
        await season_played(played.db, config, final=second_wins(7))

        after = await _pages(visitor)
        assert {k: _content(v) for k, v in after.items()} == {
            k: _content(v) for k, v in before.items()
        }
        html = [path for path in ARCHIVED_PAGES if "." not in path]
        for path in html:  # archived: a banner, and every link within 2021
            assert "archived season" not in before[path].lower(), path
            assert BANNER.search(after[path]), path
            assert "you are reading the 2021 season" in after[path], path
            assert _links_out(after[path]) == [], (path, _links_out(after[path]))
            assert 'href="/2021/standings"' in after[path], path
        assert 'href="/2021/players/player03"' in after["/2021/standings"]
        assert '<a href="/">See the current season</a>' in after["/2021"]
        current = await visitor.get("/2022/pairings")  # the season in play: no banner
        assert not BANNER.search(current)
        assert 'href="/2022/standings"' in current
        assert 'href="/standings"' in await visitor.get("/pairings")
        assert '<a href="/2022">2022</a>' in after["/2021"]  # the switcher names the new one
        assert "GrohochetGrom" in await visitor.get("/2022/knockout")
        assert await visitor.get("/2022/standings") != before["/2021/standings"]
        roll = await visitor.get("/seasons")
        assert re.search(r"2022.*GrohochetGrom.*PepsiNGaming", roll, re.S)
        assert re.search(r"2021.*PepsiNGaming.*GrohochetGrom", roll, re.S)
        person = await visitor.get("/players/grohochetgrom")
        assert "/2022/players/grohochetgrom" in person
        assert "/2021/players/grohochetgrom" in person
        await visitor.get("/2019/standings", status=404)
    finally:
        await visitor.close()
        await td.close()
