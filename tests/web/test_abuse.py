"""Abuse of the site by its own users: a banner link handed to someone else, a flood of logins,
a flood of match-room actions."""

from __future__ import annotations

import asyncio
import datetime as dt
from urllib.parse import parse_qs, urlsplit

from sqlalchemy import func, select

from bot.web.core import FLASH_LIFETIME
from bot.web.security import LOGIN_LIFETIME
from storage.models import OutboxRow
from tests.web.helpers import Browser, Site, flash_text


async def location_of(b: Browser, path: str, data: dict[str, str]) -> str:
    """Send a form and return where the site redirects, without following it."""
    form = dict(data) | {"csrf": b.csrf()}
    async with b.http.post(b.url(path), data=form, allow_redirects=False) as resp:
        assert resp.status == 303, await resp.text()
        return resp.headers["Location"]


async def test_a_banner_link_shows_only_to_its_session_and_only_briefly(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, bob, nobody = browsers["alice"], browsers["bob"], browsers["nobody"]
    match_id = site.matches["alice-bob"]
    await alice.login("Alice")
    await bob.login("Bob")
    await alice.get(f"/match/{match_id}")
    words = "evil.example"  # the room echoes a command it does not know
    link = await location_of(alice, f"/match/{match_id}/say", {"action": "text", "text": words})
    assert "error=" in link
    assert "evil.example" in flash_text(await alice.get(link))  # her own reply, to her
    assert "evil.example" not in await bob.get(link)  # the same link in another session
    assert "evil.example" not in await nobody.get("/rules" + link[link.index("?") :])
    site.clock.advance(FLASH_LIFETIME + dt.timedelta(seconds=1))
    assert "evil.example" not in await alice.get(link)  # and not for long


async def test_logging_out_says_so_to_the_logged_out_browser(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    await alice.get("/account")
    assert "You are logged out." in flash_text(await alice.post("/logout", {}))


async def test_a_flood_of_logins_pushes_out_no_real_one(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, eve = browsers["alice"], browsers["eve"]
    async with alice.http.get(alice.url("/login"), allow_redirects=False) as resp:
        assert resp.status == 302
        started = resp.headers["Location"]

    async def anonymous_login() -> None:
        async with eve.http.get(eve.url("/login"), allow_redirects=False) as r:
            assert r.status == 302

    for _ in range(60):  # 6,000 logins started and never finished
        await asyncio.gather(*(anonymous_login() for _ in range(100)))
    await finish_login(site, alice, started, "Alice")
    assert "Log in with Lichess" not in await alice.get("/account")


async def finish_login(site: Site, b: Browser, oauth_url: str, username: str) -> str:
    form = {k: v[0] for k, v in parse_qs(urlsplit(oauth_url).query).items()}
    form |= {"username": username, "decision": "approve"}
    async with b.http.post(
        site.service.lichess_url + "/_sandbox/oauth/authorize", data=form, allow_redirects=False
    ) as resp:
        assert resp.status == 302
        callback = resp.headers["Location"]
    async with b.http.get(callback) as resp:
        text = await resp.text()
        assert resp.status == 200, text[:2000]
    return text


async def test_a_login_left_too_long_expires(site: Site, browsers: dict[str, Browser]) -> None:
    alice = browsers["alice"]
    async with alice.http.get(alice.url("/login"), allow_redirects=False) as resp:
        started = resp.headers["Location"]
    site.clock.advance(LOGIN_LIFETIME + dt.timedelta(seconds=1))
    form = {k: v[0] for k, v in parse_qs(urlsplit(started).query).items()}
    form |= {"username": "Alice", "decision": "approve"}
    async with alice.http.post(
        site.service.lichess_url + "/_sandbox/oauth/authorize", data=form, allow_redirects=False
    ) as resp:
        callback = resp.headers["Location"]
    html = await alice.get(callback, status=400)
    assert "expired" in html
    assert "Log in with Lichess" in await alice.get("/account")


async def dms_to(site: Site, recipient: str) -> int:
    async with site.db.uow() as uow:
        count = await uow.session.execute(
            select(func.count())
            .select_from(OutboxRow)
            .where(OutboxRow.kind == "dm", func.lower(OutboxRow.recipient) == recipient)
        )
        return int(count.scalar_one())


async def test_a_flood_of_room_actions_is_cut_off_and_stops_reaching_the_opponent(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    match_id = site.matches["alice-bob"]
    service = site.service.config.service
    await alice.login("Alice")
    await alice.get(f"/match/{match_id}")
    before = await dms_to(site, "bob")
    path = f"/match/{match_id}/say"
    replies = []
    for i in range(20):  # offer, withdraw, offer, withdraw...
        if i % 2 == 0:
            html = await alice.post(path, {"action": "offer", "time1": "2021-10-14T18:00"})
        else:
            html = await alice.post(path, {"action": "button", "command": "withdraw offer 1"})
        replies.append(flash_text(html))
    refused = [r for r in replies if r.startswith("Too many actions")]
    assert len(refused) == 20 - service.room_actions_limit
    assert (
        f"at most {service.room_actions_limit} in {service.room_actions_minutes} minutes"
        in (refused[0])
    )
    assert await dms_to(site, "bob") - before <= service.room_actions_limit
    # Bob is not limited by Alice's flood, and Alice may act again once the window has passed
    bob = browsers["bob"]
    await bob.login("Bob")
    await bob.get(f"/match/{match_id}")
    assert not flash_text(await bob.post(path, {"action": "text", "text": "status"})).startswith(
        "Too many"
    )
    site.clock.advance(dt.timedelta(minutes=service.room_actions_minutes))
    html = await alice.post(path, {"action": "text", "text": "status"})
    assert not flash_text(html).startswith("Too many"), flash_text(html)


async def test_a_login_on_a_racing_fake_clock_lives_in_the_browsers_time(
    database_url: str,
) -> None:
    """The demo's clock races through weeks in seconds; a TD who logs in to the desk meanwhile
    is not told the login expired (issue 30): logins and sessions expire in the browser's
    clock (the demo gives the real one), the season's events keep the season's."""
    from bot.app import Service
    from bot.demo.bundled import bundled_sandbox
    from bot.runtime.clock import FakeClock
    from tests.web.helpers import NOW, make_config, seed

    season, browser_time = FakeClock(NOW), FakeClock(NOW)
    async with Service(
        make_config(database_url),
        clock=season,
        web_port=0,
        sandbox=bundled_sandbox(),
        browser_clock=browser_time,
    ) as service:
        assert service.web_url is not None
        site = Site(service=service, clock=season, url=service.web_url, matches=await seed(service))
        tina = Browser(site)
        try:
            async with tina.http.get(tina.url("/login"), allow_redirects=False) as resp:
                started = resp.headers["Location"]
            season.advance(dt.timedelta(days=3))  # weeks of the season go by in a moment
            await finish_login(site, tina, started, "Tina")
            season.advance(dt.timedelta(days=60))
            assert "Log in with Lichess" not in await tina.get("/account")
            browser_time.advance(dt.timedelta(days=31))  # a session's own lifetime still ends
            assert "Log in with Lichess" in await tina.get("/account")
        finally:
            await tina.close()
