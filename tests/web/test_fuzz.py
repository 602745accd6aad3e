"""Every route, asked nonsense: Unicode digits, non-ASCII cookies, long paths, random parameters
and forms, as nobody, a player and a TD. Nothing may answer a server error (5xx).

The requests are drawn from a seeded generator, so a failure names a request that reproduces.
"""

from __future__ import annotations

import random
import re
from urllib.parse import quote

import aiohttp
from yarl import URL

from tests.web.helpers import Browser, Site

NASTY = (
    "²",
    "%C2%B2",
    "١٢",
    "0",
    "-1",
    "1e9",
    "99999999999999999999",
    "é",
    "a.é",
    "a.%C3%A9",
    "%00",
    "..%2F..%2Fetc",
    "x" * 300,
    "1" * 40,
    "<script>",
    "' OR 1=1",
    "alice",
    "Tina",
    "~.~",
    "",
)
QUERY_KEYS = ("ok", "error", "before", "next", "state", "code", "player", "kind", "match", "page")
FORM_KEYS = (
    "action",
    "text",
    "index",
    "time1",
    "time",
    "verb",
    "bid",
    "hand",
    "command",
    "report",
    "kind",
    "key",
    "choice",
    "reason",
    "match_id",
    "game",
    "result",
    "player",
    "first",
    "second",
)
COOKIES = (
    "acwc_session=a.é",
    "acwc_session=a.%C3%A9",
    "acwc_session=" + "x" * 4000,
    "acwc_login=é~é.é",
    "acwc_session=..; acwc_login=~",
)


def encoded(value: str) -> str:
    """A path segment or query value as sent: already-escaped text kept, the rest escaped."""
    return value if "%" in value else quote(value, safe="")


def path_for(canonical: str, value: str) -> str:
    return re.sub(r"\{[^}]+\}", encoded(value), canonical)


async def routes(site: Site) -> list[tuple[str, str]]:
    app = site.service.web_app
    assert app is not None
    found = []
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource else {}
        canonical = info.get("path") or info.get("formatter") or info.get("prefix")
        if canonical and route.method in ("GET", "POST"):
            found.append((route.method, canonical))
    assert len(found) > 20  # every page, the room, the desk, the login and the static files
    return found


async def test_no_route_answers_a_server_error(site: Site, browsers: dict[str, Browser]) -> None:
    rng = random.Random(15)
    await browsers["alice"].login("Alice")
    await browsers["tina"].login("Tina")
    await browsers["tina"].get("/desk")
    await browsers["alice"].get("/account")
    who = {name: browsers[name] for name in ("nobody", "alice", "tina")}
    tokens = {name: (b.csrf() if name != "nobody" else "x") for name, b in who.items()}
    failures: list[str] = []
    sent = 0

    async def ask(
        b: Browser, method: str, path: str, *, form: dict[str, str] | None = None, **kw: str
    ) -> None:
        nonlocal sent
        sent += 1
        url = URL(b.url(path), encoded=True)
        async with b.http.request(
            method, url, data=form, allow_redirects=False, headers=kw or None
        ) as resp:
            body = await resp.text(errors="replace")
            if resp.status >= 500 or "Traceback" in body:
                failures.append(f"{method} {path} {form or ''} {kw or ''} -> {resp.status}")

    for method, canonical in await routes(site):
        for name, b in who.items():
            for value in NASTY:
                path = path_for(canonical, value)
                if "{" not in canonical and value:
                    path = canonical.rstrip("/") + "/" + encoded(value)  # an unknown tail
                query = "&".join(
                    f"{rng.choice(QUERY_KEYS)}={encoded(rng.choice(NASTY))}"
                    for _ in range(rng.randint(0, 3))
                )
                target = f"{path}?{query}" if query else path
                if method == "GET":
                    await ask(b, "GET", target)
                    await ask(b, "GET", path_for(canonical, "1"), Cookie=rng.choice(COOKIES))
                else:
                    form = {k: rng.choice(NASTY) for k in rng.sample(FORM_KEYS, rng.randint(0, 6))}
                    form["csrf"] = tokens[name]
                    await ask(b, "POST", path_for(canonical, value), form=form)
                    real = path_for(canonical, str(site.matches["alice-bob"]))
                    await ask(b, "POST", real, form=form)
    nobody = who["nobody"]
    for path in ("/static/" + "a" * 300, "/static/" + "%C2%B2", "/static/..%2F..%2Fetc%2Fpasswd"):
        await ask(nobody, "GET", path)
    for path in ("/?ok=a.%C3%A9", "/?error=%C3%A9.%C3%A9", "/" + "x" * 5000):
        await ask(nobody, "GET", path)
        await ask(nobody, "GET", path, Cookie="acwc_session=a.é")
    assert sent > 1000
    assert failures == [], "\n".join(failures[:40])


async def test_a_non_ascii_cookie_is_no_session_and_the_page_still_renders(site: Site) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.get(site.url + "/rules", headers={"Cookie": "acwc_session=a.é"}) as resp,
    ):
        html = await resp.text()
    assert resp.status == 200
    assert "Log in with Lichess" in html
