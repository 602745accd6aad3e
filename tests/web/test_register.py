"""Players register themselves (issue 17): a real headless Chromium goes from the home page
through Login with Lichess and the eligibility result to the TDs' list; an ineligible account
sees each reason; the team check, the window, a withdrawal and the TDs' hand over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
from collections.abc import AsyncIterator

import pytest

from bot.app import Service
from bot.config import RegistrationConfig, TournamentConfig
from bot.demo.bundled import bundled_sandbox
from bot.lichess.entries import run_registration_checks
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from rules.core.model import PlayerId
from tests.lichess.test_registration import history
from tests.web.helpers import NOW, TD, Browser, Site, flash_text, make_config
from tests.web.test_chromium import login, logout
from tests.web.test_live import WAIT_FOR_TEXT
from tests.web.webdriver import chromium, chromium_paths

UTC = dt.UTC
TEAM = "acwc-test-team"
OLD = dt.datetime(2020, 1, 1, tzinfo=UTC)


def rated_history(state: SandboxState, username: str, games: int = 110) -> None:
    start = dt.datetime(2021, 3, 2, tzinfo=UTC)
    history(state, username, [(start + dt.timedelta(hours=i), 1700 + i, 1) for i in range(games)])


def accounts(state: SandboxState) -> None:
    """An eligible member of the team, an eligible non-member, and one account per reason."""
    for name in ("Regina", "Otto"):
        state.add_user(name, created_at=OLD)
        rated_history(state, name)
    state.join_team(TEAM, "Regina")
    state.add_user("Newbie", created_at=dt.datetime(2021, 5, 1, tzinfo=UTC))  # too late
    rated_history(state, "Newbie", games=30)  # and too few games
    state.add_user("Robo", created_at=OLD, title="BOT", tos_violation=True)  # BOT, marked
    rated_history(state, "Robo")
    state.add_user("Gone", created_at=OLD, disabled=True)  # a closed account


@pytest.fixture
async def reg_site(database_url: str) -> AsyncIterator[tuple[Site, SandboxState]]:
    clock = FakeClock(NOW)
    base = make_config(database_url)
    config = dataclasses.replace(
        base,
        tournament=TournamentConfig(name=base.tournament.name, tds=(TD,), team=TEAM),
        registration=RegistrationConfig(
            opens=NOW - dt.timedelta(days=1), closes=NOW + dt.timedelta(days=1)
        ),
    )
    state = SandboxState(now=clock.now)
    accounts(state)
    async with Service(config, clock=clock, web_port=0, sandbox=bundled_sandbox(state)) as svc:
        assert svc.web_url is not None
        async with svc.db.uow() as uow:
            await svc.services.tournament.create(uow, now=NOW, actor=TD)
            await uow.commit()
        checks = svc.services.registration_checks
        assert checks is not None
        leader = asyncio.create_task(run_registration_checks(svc.db, checks))  # the leader's
        try:
            yield Site(service=svc, clock=clock, url=svc.web_url, matches={}), state
        finally:
            leader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await leader


async def checked(site: Site, *names: str) -> None:
    """Wait until the background checks of ``names`` are done (an event, not a time)."""
    checks = site.service.services.registration_checks
    assert checks is not None
    await checks.wait_done(list(names))


async def test_a_player_registers_from_the_home_page_in_chromium(
    reg_site: tuple[Site, SandboxState],
) -> None:
    chromium_paths()
    site, _ = reg_site
    async with chromium() as b:
        await b.go(site.url + "/")
        await b.click("#register-link")
        assert (await b.url()).endswith("/register")
        assert "Registration is open until" in await b.page_text()
        await b.click("main a.button")  # "Log in with Lichess to register"
        assert (await b.url()).startswith(site.service.lichess_url + "/oauth")
        await b.type("input[name=username]", "Regina\ue007")
        assert (await b.wait_for_url(site.url + "/register")).endswith("/register")
        await b.submit("#register-button")
        assert "Your account is being checked" in await b.text("#reply")
        # the page updates by itself when the background check is done (its live stream)
        registered = str(await b.wait_in_page(WAIT_FOR_TEXT, "#page", "You are registered"))
        assert "You are registered, Regina." in registered
        await logout(b)

        await login(b, site, TD)
        await b.go(site.url + "/register/list")
        rows = await b.text("table.registrations")
        # seeded from her rated games: the 110th ends at 1809 + 1, her peak and her rating
        assert "Regina 1810 active" in rows
        await logout(b)

        reasons = {
            "Newbie": ("created too late", "too few rated games"),
            "Robo": ("BOT account", "marked for breaking the Lichess terms"),
            "Gone": ("account is closed",),
        }
        for name, words in reasons.items():
            await login(b, site, name)
            await b.go(site.url + "/register")
            await b.submit("#register-button")
            await checked(site, name)
            await b.go(site.url + "/register")
            result = await b.text("#register-result")
            for w in words:
                assert w in result, (name, w, result)
            await logout(b)
    async with site.db.uow() as uow:
        assert [p.id for p in await uow.players.list()] == [PlayerId("regina")]


async def test_the_team_check_then_a_withdrawal_before_round_one(
    reg_site: tuple[Site, SandboxState],
) -> None:
    site, state = reg_site
    otto = Browser(site)
    try:
        await otto.login("Otto", next_path="/register")
        html = await otto.post("/register", {})
        assert flash_text(html) == "Your account is being checked: this page shows how far."
        await checked(site, "Otto")
        html = await otto.get("/register")
        assert f'Join the team <a href="https://lichess.org/team/{TEAM}">' in html
        async with site.db.uow() as uow:
            assert await uow.players.get(PlayerId("otto")) is None
        state.join_team(TEAM, "Otto")  # he joins on Lichess and tries again
        await otto.post("/register", {})
        await checked(site, "Otto")
        html = await otto.get("/register")
        assert "You are registered, Otto." in html
        html = await otto.post("/register/withdraw", {})
        assert flash_text(html) == "Your registration is withdrawn."
        async with site.db.uow() as uow:
            assert await uow.players.get(PlayerId("otto")) is None
            actions = [a.action for a in await uow.audit.list(player="otto")]
        assert actions == ["web.login", "player.add", "registration.self", "registration.withdraw"]
    finally:
        await otto.close()


async def test_the_window_is_kept_and_the_tds_add_or_refuse_with_a_reason(
    reg_site: tuple[Site, SandboxState],
) -> None:
    site, _ = reg_site
    site.clock.set(NOW + dt.timedelta(days=2))  # the window closed
    otto, tina = Browser(site), Browser(site)
    try:
        await otto.login("Otto", next_path="/register")
        assert "register-button" not in otto.last_html
        html = await otto.post("/register", {})
        assert "You cannot register now: registration is open from" in flash_text(html)

        await tina.login(TD)
        await tina.get("/register/list")
        html = await tina.post("/register/list", {"username": "Otto", "action": "add"})
        assert flash_text(html) == "Give a reason: it goes into the audit log."
        html = await tina.post(
            "/register/list", {"username": "not a name!", "action": "add", "reason": "x"}
        )
        assert flash_text(html) == "Give a Lichess username."
        html = await tina.post(  # an account that never registered is refused before it does
            "/register/list", {"username": "Nobody", "action": "refuse", "reason": "banned 2020"}
        )
        assert flash_text(html) == "Nobody refused."
        assert "<tr><td>Nobody</td><td>banned 2020</td><td>Tina</td>" in tina.last_html
        await tina.post(
            "/register/list",
            {"username": "Otto", "action": "delete", "reason": "x"},
            status=400,
        )
        await tina.get("/register/list")
        await tina.post(
            "/register/list", {"username": "Otto", "action": "add", "reason": "late by mail"}
        )
        assert "Otto" in tina.last_html
        html = await tina.post(
            "/register/list",
            {"username": "Otto", "action": "refuse", "reason": "second account"},
        )
        assert flash_text(html) == "Otto refused."
        async with site.db.uow() as uow:
            assert await uow.players.get(PlayerId("otto")) is None
            audit = [(a.actor, a.action, a.reason) for a in await uow.audit.list(player="otto")]
        assert (TD, "registration.add", "late by mail") in audit
        assert (TD, "registration.refuse", "second account") in audit
        await otto.get("/register/list", status=403)
        async with site.db.uow() as uow:
            before = len(await uow.audit.list())
        await otto.get("/register")
        await otto.post(
            "/register/list", {"username": "Otto", "action": "add", "reason": "me"}, status=403
        )
        async with site.db.uow() as uow:
            assert len(await uow.audit.list()) == before  # a refused request changes nothing
    finally:
        await otto.close()
        await tina.close()
