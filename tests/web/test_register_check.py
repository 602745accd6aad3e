"""Issue 25: a player's eligibility check runs off the request path, over real HTTP against the
sandbox with lila's export pace on. ``POST /register`` answers at once; the page shows the
check's state and the games read so far while the leader's background check reads them (each
step a change event on the page's live stream), then the result."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from bot.sandbox.state import SandboxState
from bot.service.registration_queue import QUEUED, READING, CheckState, check_of
from tests.web.helpers import Browser, Site, flash_text
from tests.web.test_live import next_event
from tests.web.test_register import OLD, TEAM, checked, rated_history, reg_site

__all__ = ["reg_site"]  # the fixture, used by name


async def test_the_page_answers_at_once_and_shows_the_games_read_so_far(
    reg_site: tuple[Site, SandboxState],
) -> None:
    site, state = reg_site
    assert state.knobs.export_throttle  # lila's pace: 30 games a second with the bot's token
    state.add_user("Petra", created_at=OLD)
    rated_history(state, "Petra", games=100)
    state.join_team(TEAM, "Petra")
    checks = site.service.services.registration_checks
    assert checks is not None
    moved = asyncio.Event()
    unsubscribe = checks.subscribe(moved.set)
    petra = Browser(site)
    try:
        await petra.login("Petra", next_path="/register")
        async with petra.http.get(f"{site.url}/live?page=/register") as stream:
            assert (await stream.content.readline()) == b"retry: 3000\n"
            html = await petra.post("/register", {})
            assert flash_text(html) == "Your account is being checked: this page shows how far."
            assert 'data-live="/live?page=/register' in html
            assert "register-button" not in html  # no second check while one runs
            while True:  # the check's progress, step by step (each an event)
                await moved.wait()
                moved.clear()
                async with site.db.reads() as uow:
                    found = await check_of(uow, "Petra")
                assert found is not None
                if found.state == READING and found.games >= 25:
                    break
            html = await petra.get("/register")
            read = re.search(r'<strong id="games-read">(\d+)</strong> read so far', html)
            assert read is not None
            assert 25 <= int(read.group(1)) <= 100
            name, _ = await next_event(stream)
            assert name == "change"
        await checked(site, "Petra")
        html = await petra.get("/register")
        assert "You are registered, Petra." in html
        assert "games-read" not in html
        async with site.db.reads() as uow:
            done = await check_of(uow, "Petra")
            player = await uow.players.get("petra")
        assert done is not None
        assert done.games == 100  # every game read, none twice
        assert player is not None
        assert player.seed_rating is not None
    finally:
        unsubscribe()
        await petra.close()


async def given_up(site: Site, username: str) -> CheckState:
    """The check of ``username`` once it has given up on Lichess for now (queued again, with
    its problem): the client's retries sleep on the fake clock, moved on until then."""
    clock = site.clock
    for _ in range(500):
        async with site.db.reads() as uow:
            found = await check_of(uow, username)
        assert found is not None
        if found.state == QUEUED and found.problem:
            return found
        await clock.wait_for_sleepers(1)
        await clock.advance_and_settle(dt.timedelta(seconds=30))
    raise AssertionError("the check never gave up on Lichess")


async def test_a_check_lichess_cannot_answer_waits_and_runs_again(
    reg_site: tuple[Site, SandboxState],
) -> None:
    """Lichess down: the check is no verdict; the page says it could not finish, and the
    leader runs it again five minutes later, once Lichess answers."""
    site, state = reg_site
    clock = site.clock
    regina = Browser(site)
    try:
        await regina.login("Regina", next_path="/register")
        state.outage(clock.now() + dt.timedelta(hours=1))
        await regina.post("/register", {})
        found = await given_up(site, "Regina")
        assert found.not_before is not None
        html = await regina.get("/register")
        assert "Your eligibility check could not finish: Lichess could not be reached" in html
        assert "register-button" not in html
        async with site.db.reads() as uow:
            assert await uow.players.get("regina") is None  # no verdict, nothing stored
        clock.set(max(found.not_before, clock.now()) + dt.timedelta(hours=1))  # Lichess is back
        await checked(site, "Regina")
        assert "You are registered, Regina." in await regina.get("/register")
    finally:
        await regina.close()
