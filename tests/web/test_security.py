"""Every action as the wrong user and as nobody; login checks; cookies; bounds; error pages."""

from __future__ import annotations

import dataclasses
import logging
import re

import aiohttp
import pytest
from sqlalchemy import func, select

from storage.models import AuditRow, OutboxRow
from tests.web.helpers import NOW, Browser, Site


async def counts(site: Site) -> tuple[int, int]:
    """How many audit entries and outbox messages exist: a refused request adds neither."""
    async with site.db.uow() as uow:
        audit = (await uow.session.execute(select(func.count()).select_from(AuditRow))).scalar_one()
        outbox = (
            await uow.session.execute(select(func.count()).select_from(OutboxRow))
        ).scalar_one()
    return int(audit), int(outbox)


async def forum_draft(site: Site) -> int:
    async with site.db.uow() as uow:
        row = await uow.outbox.enqueue(
            now=NOW, kind="forum_draft", recipient="forum", body="Round 1 pairings", subject="R1"
        )
        await uow.commit()
        assert row is not None
        return row.id


def player_actions(match_id: int) -> list[tuple[str, dict[str, str]]]:
    path = f"/match/{match_id}/say"
    return [
        (path, {"action": "offer", "time1": "2021-10-14T18:00"}),
        (path, {"action": "accept", "index": "1"}),
        (path, {"action": "text", "text": "status"}),
        (path, {"action": "report", "report": "hello"}),
        (path, {"action": "claim"}),
        (path, {"action": "break"}),
        (path, {"action": "bid", "bid": "3:00"}),
        (path, {"action": "rps", "hand": "rock"}),
    ]


def td_actions(draft_id: int, match_id: int) -> list[tuple[str, dict[str, str]]]:
    return [
        ("/desk/decide", {"kind": "alert", "key": "x", "choice": "done"}),
        ("/desk/result", {"match_id": str(match_id), "game": "1", "result": "1-0", "reason": "r"}),
        ("/desk/relay", {"player": "alice", "text": "offer thu 18:00"}),
        (f"/desk/forum/{draft_id}/posted", {}),
        ("/desk/rounds/pair", {"action": "pair"}),
        ("/desk/rounds/pair", {"action": "forbid", "first": "alice", "second": "bob"}),
        ("/desk/exit/preview", {"player": "bob", "kind": "withdrawal", "reason": "r"}),
        ("/desk/exit", {"player": "bob", "kind": "withdrawal", "reason": "r"}),
    ]


async def test_nobody_can_do_anything_but_read_public_pages(
    site: Site, browsers: dict[str, Browser]
) -> None:
    nobody = browsers["nobody"]
    match_id = site.matches["alice-bob"]
    draft = await forum_draft(site)
    before = await counts(site)
    for path, data in player_actions(match_id) + td_actions(draft, match_id):
        html = await nobody.post(path, data, csrf="anything", status=403)
        assert "Log in" in html
    for path in (f"/match/{match_id}", "/desk", "/desk/audit", "/desk/rounds", "/match"):
        resp = await nobody.get_raw(path)
        assert resp.status == 302
        assert resp.headers["Location"].startswith("/login?next=")
    assert await counts(site) == before


@pytest.mark.parametrize("intruder", ["carol", "eve", "tina"])
async def test_only_the_two_players_act_in_a_match_room(
    site: Site, browsers: dict[str, Browser], intruder: str
) -> None:
    match_id = site.matches["alice-bob"]
    b = browsers[intruder]
    await b.login(intruder.title())
    await b.get("/account")  # a page with the intruder's own CSRF token
    before = await counts(site)
    for path, data in player_actions(match_id):
        await b.post(path, data, status=403)
    if intruder != "tina":  # a TD may look at any room; nobody else may
        await b.get(f"/match/{match_id}", status=403)
    assert await counts(site) == before


@pytest.mark.parametrize("who", ["alice", "eve"])
async def test_only_tds_use_the_desk(site: Site, browsers: dict[str, Browser], who: str) -> None:
    b = browsers[who]
    await b.login(who.title())
    await b.get("/account")
    draft = await forum_draft(site)
    before = await counts(site)
    for path, data in td_actions(draft, site.matches["alice-bob"]):
        await b.post(path, data, status=403)
    for path in ("/desk", "/desk/audit", "/desk/rounds"):
        await b.get(path, status=403)
    assert await counts(site) == before
    async with site.db.uow() as uow:
        row = await uow.outbox.get(draft)
        assert row is not None
        assert row.status == "pending"


async def test_a_form_without_the_sessions_csrf_token_is_refused(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, carol, tina = browsers["alice"], browsers["carol"], browsers["tina"]
    match_id = site.matches["alice-bob"]
    await alice.login("Alice")
    await carol.login("Carol")
    await carol.get("/account")
    others_token = carol.csrf()
    await tina.login("Tina")
    before = await counts(site)
    data = {"action": "text", "text": "offer thu 18:00"}
    await alice.post(f"/match/{match_id}/say", data, csrf=None, status=403)
    await alice.post(f"/match/{match_id}/say", data, csrf="forged", status=403)
    await alice.post(f"/match/{match_id}/say", data, csrf=others_token, status=403)
    relay = {"player": "alice", "text": "offer thu 18:00"}
    await tina.post("/desk/relay", relay, csrf=None, status=403)
    await tina.post("/logout", {}, csrf=None, status=403)
    assert await counts(site) == before


async def test_session_cookie_is_signed_httponly_and_samesite(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = browsers["alice"]
    async with b.http.get(b.url("/login"), allow_redirects=False) as resp:
        login_cookie = resp.headers["Set-Cookie"]
    assert "HttpOnly" in login_cookie
    assert "SameSite=Lax" in login_cookie
    await b.login("Alice")
    cookies = {c.key: c for c in b.http.cookie_jar}
    session = cookies["acwc_session"]
    assert session["httponly"]
    assert session["samesite"] == "Lax"
    # a tampered cookie is no session at all
    token, _, mac = session.value.rpartition(".")
    async with aiohttp.ClientSession() as forged:
        for value in (token + ".AAAA", "x" + session.value, "garbage", mac):
            async with forged.get(
                b.url("/account"), headers={"Cookie": f"acwc_session={value}"}
            ) as r:
                assert "Log in with Lichess" in await r.text()


async def test_logout_kills_the_session_even_for_a_copied_cookie(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    copied = {c.key: c.value for c in alice.http.cookie_jar}["acwc_session"]
    await alice.get("/account")
    html = await alice.post("/logout", {})
    assert "You are logged out." in html
    async with (
        aiohttp.ClientSession() as thief,
        thief.get(alice.url("/account"), headers={"Cookie": f"acwc_session={copied}"}) as resp,
    ):
        assert "Log in with Lichess" in await resp.text()


async def test_callback_with_a_wrong_state_or_from_another_browser_opens_no_session(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, eve = browsers["alice"], browsers["eve"]
    async with alice.http.get(alice.url("/login"), allow_redirects=False) as resp:
        oauth = resp.headers["Location"]
    state = re.search(r"state=([^&]+)", oauth)
    assert state
    # the right state from the wrong browser (a login CSRF attempt): refused
    html = await eve.get(f"/login/callback?code=x&state={state.group(1)}", status=400)
    assert "not started from this browser" in html
    # the right browser, a wrong state: refused
    html = await alice.get("/login/callback?code=x&state=wrong", status=400)
    assert "did not confirm" in html
    assert "Log in with Lichess" in await alice.get("/account")


async def test_a_cancelled_login_says_so(site: Site, browsers: dict[str, Browser]) -> None:
    b = browsers["alice"]
    async with b.http.get(b.url("/login"), allow_redirects=False) as resp:
        oauth = resp.headers["Location"]
    state = re.search(r"state=([^&]+)", oauth)
    assert state
    html = await b.get(f"/login/callback?error=access_denied&state={state.group(1)}", status=400)
    assert "cancelled" in html


async def test_login_never_redirects_to_another_site(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = browsers["alice"]
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        html = await b.login("Alice", next_path=target)
        assert b.landed == site.url + "/"
        assert "<h1>Test Antichess Championship</h1>" in html
    await b.login("Alice", next_path="/standings")
    assert b.landed == site.url + "/standings"


async def test_overlong_fields_and_bodies_are_refused_kindly(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    match_id = site.matches["alice-bob"]
    await alice.get(f"/match/{match_id}")
    before = await counts(site)
    html = await alice.post(
        f"/match/{match_id}/say", {"action": "text", "text": "x" * 600}, status=413
    )
    assert "too long" in html
    assert "Traceback" not in html
    html = await alice.post(
        f"/match/{match_id}/say", {"action": "report", "report": "y" * 200_000}, status=413
    )
    assert "Traceback" not in html
    assert await counts(site) == before


async def test_unknown_pages_are_friendly(site: Site, browsers: dict[str, Browser]) -> None:
    b = browsers["nobody"]
    for path in ("/nope", "/match/999999", "/players/ghost", "/players/../etc", "/match/abc"):
        resp = await b.http.get(b.url(path), allow_redirects=False)
        text = await resp.text()
        assert resp.status in (302, 404), (path, resp.status)
        assert "Traceback" not in text
    await browsers["alice"].login("Alice")
    html = await browsers["alice"].get("/match/999999", status=404)
    assert "no such match" in html


async def test_pages_carry_no_secret_and_load_nothing_from_elsewhere(
    site: Site, browsers: dict[str, Browser]
) -> None:
    tina = browsers["tina"]
    await tina.login("Tina")
    from bot.demo.bundled import SANDBOX_BOT_TOKEN

    for path in ("/", "/desk", "/desk/audit", "/rules", "/account", "/pairings", "/standings"):
        async with tina.http.get(tina.url(path)) as resp:
            html = await resp.text()
            csp = resp.headers["Content-Security-Policy"]
        assert SANDBOX_BOT_TOKEN not in html
        assert "default-src 'self'" in csp
        for src in re.findall(r'(?:src|href)="([^"]+)"', html):
            if src.startswith("http") and "rel=" not in src:
                # links to Lichess games/profiles are fine; nothing is *loaded* from elsewhere
                assert re.search(rf'<(?:script|link|img)[^>]+"{re.escape(src)}"', html) is None


async def test_a_server_error_is_a_friendly_page_without_the_traceback(site: Site) -> None:
    from aiohttp import web
    from aiohttp.test_utils import TestServer

    from bot.web.core import CONTEXT, error_middleware, headers_middleware, viewer_middleware
    from bot.web.site import environment

    assert site.service.web_app is not None
    app = web.Application(middlewares=[headers_middleware, error_middleware, viewer_middleware])
    app[CONTEXT] = site.service.web_app[CONTEXT]
    environment(app)

    async def broken(request: web.Request) -> web.Response:
        raise RuntimeError("internal detail: /srv/acwc/secret.toml")

    app.router.add_get("/broken", broken)
    async with (
        TestServer(app, host="127.0.0.1") as server,
        aiohttp.ClientSession() as http,
        http.get(server.make_url("/broken")) as resp,
    ):
        html = await resp.text()
    assert resp.status == 500
    assert "Something went wrong" in html
    assert "internal detail" not in html
    assert "Traceback" not in html


def test_a_real_lichess_without_a_session_secret_refuses_to_start() -> None:
    from bot.config import Secrets, ServiceConfig
    from bot.web.security import MissingSecretError, session_key
    from tests.web.helpers import make_config

    config = make_config("sqlite+aiosqlite:///x.db")
    real = dataclasses.replace(
        config,
        service=ServiceConfig(lichess_url="https://lichess.org"),
        secrets=Secrets(lichess_token="lip_x"),
    )
    with pytest.raises(MissingSecretError, match="ACWC_SESSION_SECRET"):
        session_key(real)
    keyed = dataclasses.replace(real, secrets=Secrets(lichess_token="lip_x", session_secret="s3"))
    assert session_key(keyed) == session_key(keyed)  # stable across restarts
    assert b"s3" not in session_key(keyed)


async def test_the_session_secret_never_reaches_a_page_or_the_log(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.app import Service
    from bot.config import Secrets
    from bot.demo.bundled import bundled_sandbox
    from bot.runtime.clock import FakeClock
    from tests.web.helpers import Browser, make_config, seed

    secret = "correct-horse-battery-staple-7d1f"
    config = dataclasses.replace(make_config(database_url), secrets=Secrets(session_secret=secret))
    caplog.set_level(logging.DEBUG)
    async with Service(
        config, clock=FakeClock(NOW), web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        matches = await seed(service)
        site = Site(service=service, clock=FakeClock(NOW), url=service.web_url, matches=matches)
        b = Browser(site)
        try:
            await b.login("Tina")
            for path in ("/", "/desk", "/desk/audit", "/rules", "/account"):
                assert secret not in await b.get(path)
        finally:
            await b.close()
    assert secret not in caplog.text
    assert "will not survive a restart" not in caplog.text
