"""No open redirect after a login: ``next`` is only ever a path of this site (issue 29, item 1).

Every known way of smuggling another host through a "path" is tried twice: against
:func:`safe_next` itself, and through the whole login round trip (``/login?next=...``, the
sandbox Lichess's OAuth page, the callback), which must land on this site's home page.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from bot.web.auth import safe_next
from tests.web.helpers import Browser, Site
from tests.web.webdriver import chromium, chromium_paths

BYPASSES = (
    # another host, said plainly or protocol-relative
    "https://evil.example/",
    "http:evil.example",
    "//evil.example/x",
    "///evil.example/x",
    "////evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    # control characters and whitespace a browser drops or a header cannot carry
    "/\t/evil.example/phish",
    "/%09/evil.example/phish",
    "/%0A/x",
    "/%0D/x",
    "/%00/x",
    "/%0d%0aSet-Cookie:x=1",
    "/\n/evil.example",
    "/\r/evil.example",
    "/\x00/evil.example",
    "/ /evil.example",
    "/%20/evil.example",
    "/\x7f/evil.example",
    # encoded slashes and backslashes, once and twice
    "/%2F/evil.example",
    "/%2f/evil.example",
    "%2F%2Fevil.example",
    "/%2F%2Fevil.example",
    "/%5C/evil.example",
    "/%5cevil.example",
    "/%252F/evil.example",
    "/%25252F%25252Fevil.example",
    "/%2525252F/evil.example",
    "/%E2%88%95evil.example",  # U+2215 DIVISION SLASH, encoded
    # unicode look-alikes of / \ . and :
    "/\u2215evil.example",
    "/\uff0fevil.example",
    "/\u2044evil.example",
    "/\uff3cevil.example",
    "/\u3002evil.example",
    "/\ufe68evil.example",
    "/evil\u2024example",
    # odd encodings
    "/%ZZ",
    "/%C0%AF/evil.example",
    "/#//evil.example",
    "/a" * 200,
    "",
)


@pytest.mark.parametrize("target", BYPASSES)
def test_safe_next_refuses_every_known_bypass(target: str) -> None:
    assert safe_next(target) == "/"


@pytest.mark.parametrize(
    ("target", "kept"),
    [
        ("/standings", "/standings"),
        ("/match/12", "/match/12"),
        ("/pairings?round=2", "/pairings?round=2"),
        ("/players/", "/players/"),
        ("/a/../standings", "/standings"),
        ("/./standings", "/standings"),
        ("/..", "/"),
    ],
)
def test_safe_next_keeps_paths_of_this_site(target: str, kept: str) -> None:
    assert safe_next(target) == kept


async def test_the_login_round_trip_never_lands_elsewhere(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = browsers["alice"]
    for target in BYPASSES:
        html = await b.login("Alice", next_path=target)
        assert b.landed == site.url + "/", (target, b.landed)
        assert "<h1>Test Antichess Championship</h1>" in html, target
    await b.login("Alice", next_path="/standings")
    assert b.landed == site.url + "/standings"


async def test_a_real_browser_lands_on_this_site_after_each_bypass(site: Site) -> None:
    """Chromium itself follows the redirects: a browser drops tabs and newlines from a URL and
    reads a backslash as a slash, which a client library does not."""
    chromium_paths()
    async with chromium() as b:
        for target in ("/%09/evil.example/phish", "/%0A/x", "/\\evil.example", "/%5C/evil.example"):
            await b.go(f"{site.url}/login?next={quote(target, safe='/%')}")
            assert (await b.url()).startswith(site.service.lichess_url + "/oauth")
            await b.type("input[name=username]", "Alice\ue007")
            landed = await b.wait_for_url(site.url)
            assert landed == site.url + "/", (target, landed)
            assert "Alice" in await b.text("header .who")
