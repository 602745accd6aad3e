"""Every page fits a 375-px phone (issue 29, item 5): headless Chromium measures each page's
``scrollWidth`` at a 375-px wide viewport; none is wider than the screen.

The pages are measured with content in them: a match room with three offers of each player
(the offers table, whose buttons once sat past the screen's edge), games played, standings with
their tiebreak columns, the TD desk with a decision waiting.
"""

from __future__ import annotations

import datetime as dt

import pytest

from rules.core.colour import Colour
from tests.web.helpers import TD, Browser, Site, flash_text
from tests.web.test_chromium import login, logout
from tests.web.test_room import game
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium, chromium_paths

# The same on both databases (the pages' layout at a phone's width): CI's PostgreSQL run leaves it
# to the SQLite run.
pytestmark = pytest.mark.same_on_both_databases

PHONE = 375
PUBLIC_PAGES = (
    "/",
    "/pairings",
    "/standings",
    "/candidates",
    "/knockout",
    "/players",
    "/rules",
    "/privacy",
)
DESK_PAGES = (
    "/desk",
    "/desk/rounds",
    "/desk/pairing",
    "/desk/audit",
    "/desk/offers",
    "/desk/forfeits",
    "/desk/outbox",
    "/desk/deadlines",
    "/desk/registration",
    "/register/list",
)


async def widths(b: Chromium, site: Site, paths: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Each page's (scrollWidth, width it has to fit) once it has loaded: the window's width
    less a vertical scroll bar, if the page has one."""
    found = {}
    for path in paths:
        await b.go(site.url + path)
        measured = await b.script(
            "const root = document.documentElement;"
            "return [root.scrollWidth, root.clientWidth, window.innerWidth];"
        )
        assert int(measured[2]) == PHONE, measured
        found[path] = (int(measured[0]), int(measured[1]))
    return found


async def offers_on_both_sides(site: Site, alice: Browser, bob: Browser) -> int:
    match_id = site.matches["alice-bob"]
    for who, name, times in (
        (alice, "Alice", ("2021-10-14T18:00", "2021-10-15T18:00", "2021-10-16T12:00")),
        (bob, "Bob", ("2021-10-14T12:00", "2021-10-15T12:00", "2021-10-16T18:00")),
    ):
        await who.login(name)
        await who.get(f"/match/{match_id}")
        form = {"action": "offer"} | {f"time{i}": t for i, t in enumerate(times, start=1)}
        html = await who.post(f"/match/{match_id}/say", form)
        assert "flash ok" in html, flash_text(html)
    return match_id


async def test_every_page_fits_a_375_px_phone(site: Site, browsers: dict[str, Browser]) -> None:
    chromium_paths()
    ab = await offers_on_both_sides(site, browsers["alice"], browsers["bob"])
    start = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
    for i in range(3):  # Carol and Dave play three games
        white, black = ("carol", "dave") if i % 2 == 0 else ("dave", "carol")
        at = start + dt.timedelta(minutes=9 * i)
        await site.service.intake(game(f"GameW{i:02d}", white, black, at, Colour.WHITE))
    async with chromium() as b:
        await b.resize(PHONE, 800)
        measured = await widths(
            b,
            site,
            (*PUBLIC_PAGES, "/players/alice", "/register", "/match/999"),  # a 404 too
        )
        await login(b, site, "Alice")
        measured |= await widths(b, site, (f"/match/{ab}", "/account", "/register"))
        measured[f"/match/{ab} (Alice)"] = measured.pop(f"/match/{ab}")
        await logout(b)
        await login(b, site, "Bob")
        measured |= await widths(b, site, (f"/match/{ab}",))
        await logout(b)
        await login(b, site, TD)
        measured |= await widths(b, site, (*DESK_PAGES, f"/match/{ab}"))
    wider = {path: w for path, w in measured.items() if w[0] > w[1]}
    assert not wider, f"pages wider than a {PHONE}-px screen (scrollWidth, fits): {wider}"


async def test_every_page_has_the_logo_and_its_icon(site: Site) -> None:
    """The logo shows and the icon a page names loads (once a 404 on every page); so does the
    ``/favicon.ico`` a browser asks for by itself."""
    chromium_paths()
    async with chromium() as b:
        for path in (*PUBLIC_PAGES, "/register"):
            await b.go(site.url + path)
            found = await b.wait_in_page(
                """
                const done = arguments[arguments.length - 1];
                const logo = document.querySelector('header .brand img');
                const icon = document.querySelector('link[rel=icon]');
                Promise.all([icon.href, '/favicon.ico'].map((u) => fetch(u))).then(
                  (answers) => done([logo.complete && logo.naturalWidth > 0,
                    ...answers.map((r) => [r.status, r.headers.get('Content-Type')])]),
                  (e) => done([String(e)]));
                """
            )
            assert found == [True, [200, "image/svg+xml"], [200, "image/svg+xml"]], (path, found)
