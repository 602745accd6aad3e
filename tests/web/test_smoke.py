from __future__ import annotations

from tests.web.helpers import Browser, Site


async def test_public_pages_render_for_anyone(site: Site, browsers: dict[str, Browser]) -> None:
    b = browsers["nobody"]
    for path in (
        "/",
        "/pairings",
        "/standings",
        "/candidates",
        "/knockout",
        "/players",
        "/rules",
        "/players/alice",
    ):
        html = await b.get(path)
        assert "<main" in html


async def test_login_lands_on_the_site(site: Site, browsers: dict[str, Browser]) -> None:
    html = await browsers["alice"].login("Alice")
    assert "Alice" in html
    html = await browsers["alice"].get("/match")
    assert "Match" in html
