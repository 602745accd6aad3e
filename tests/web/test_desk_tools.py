"""The desk's read-only views and its rulings by hand over HTTP: each page the TDs' only, each
bad input refused with a sentence that says why, and the desk's first screen what needs them."""

from __future__ import annotations

import pytest

from tests.web.helpers import TD, Browser, Site, flash_text

PAGES = (
    "/desk/offers",
    "/desk/forfeits",
    "/desk/outbox",
    "/desk/deadlines",
    "/desk/registration",
    "/desk/pairing",
)


async def td(browsers: dict[str, Browser]) -> Browser:
    b = browsers["tina"]
    await b.login(TD)
    await b.get("/desk")
    return b


@pytest.mark.parametrize("path", PAGES)
async def test_every_desk_page_is_the_tds_only(
    site: Site, browsers: dict[str, Browser], path: str
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    await alice.get(path, status=403)


async def test_the_first_screen_is_what_needs_the_tds_and_the_past_is_folded(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    html = b.last_html
    order = [html.index(h) for h in ('id="h-pending"', 'id="forum"', 'id="tools"', 'id="past"')]
    assert order == sorted(order)
    past = html.split('id="past"')[1]
    assert "<details>" in past.split("</section>")[0]
    for link in (
        "/register/list",
        "/desk/offers",
        "/desk/forfeits",
        "/desk/outbox",
        "/desk/deadlines",
        "/desk/registration",
        "/desk/pairing",
    ):
        assert f'href="{link}"' in html, link
    assert "acwc " not in html


async def test_the_read_only_views_show_the_week(site: Site, browsers: dict[str, Browser]) -> None:
    b = await td(browsers)
    html = await b.get("/desk/offers")
    assert html.count("0 (0 of 3)") == 4  # two matches, nobody offered yet
    html = await b.get("/desk/outbox")
    assert "Read only." in html
    html = await b.get("/desk/deadlines")
    assert "offers check" in html
    assert "cancelled" not in html
    html = await b.get("/desk/forfeits")
    assert "No forfeit has been charged." in html


async def test_rulings_by_hand_refuse_bad_input_and_change_nothing(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    html = await b.post(
        "/desk/adjudicate/preview", {"match_id": "999", "winner": "tied", "reason": "x"}
    )
    assert "there is no match 999" in flash_text(html)
    match = site.matches["alice-bob"]
    html = await b.post(
        "/desk/adjudicate/preview", {"match_id": str(match), "winner": "carol", "reason": "x"}
    )
    assert "Carol does not play match" in flash_text(html)
    html = await b.post(
        "/desk/adjudicate", {"match_id": str(match), "winner": "tied", "reason": " "}
    )
    assert "a reason is required" in flash_text(html)
    html = await b.post("/desk/forfeits/12345/waive", {"reason": "because"})
    assert "flash error" in html
    html = await b.post("/desk/sync", {})
    assert "Stage sync: nothing to do." in flash_text(html)
    async with site.db.reads() as uow:
        row = await uow.matches.get(match)
        assert row is not None
        assert row.outcome is None
        actions = {r.action for r in await uow.audit.list()}
    assert "match.adjudicate" not in actions
