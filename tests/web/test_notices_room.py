"""'Your notices' in the match room: every DM the player was sent, newest first, unread marked
until they see it, and a notice Lichess refused says so (nothing depends on a DM alone)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.notify import keys
from bot.notify.notifier import ALERT_WINDOW
from bot.runtime.clock import FakeClock
from bot.runtime.outbox import OUTBOX_HOLD
from bot.sandbox.state import SandboxState
from storage.models import OutboxStatus
from tests.web.helpers import NOW, TD, Browser, Site, make_config, seed


@pytest.fixture
async def refusing() -> SandboxState:
    state = SandboxState()
    for name in ("Alice", "Bob", "Carol", "Dave"):
        state.add_user(name)
    state.messaging.refuse_strangers.add("alice")  # Alice takes DMs only from people she follows
    return state


@pytest.fixture
async def site_with(database_url: str, refusing: SandboxState) -> AsyncIterator[Site]:
    clock = FakeClock(NOW)
    refusing.now = clock.now
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox(refusing)
    ) as service:
        assert service.web_url is not None
        matches = await seed(service)
        yield Site(service=service, clock=clock, url=service.web_url, matches=matches)


async def test_the_room_lists_the_players_notices_marks_new_ones_and_undelivered_ones(
    site_with: Site, refusing: SandboxState
) -> None:
    site = site_with
    site.clock.advance(site.service.config.outbox.merge_window)  # the DMs' merge window
    await site.service.dispatcher.deliver_due()
    async with site.db.uow() as uow:
        to_alice = [r for r in await uow.outbox.list(kind="dm") if r.player == "alice"]
    assert to_alice
    assert {r.status for r in to_alice} == {OutboxStatus.FAILED}
    assert refusing.inbox_of("alice") == []
    bob_got = refusing.inbox_of("bob")
    assert bob_got

    alice, bob = Browser(site), Browser(site)
    try:
        await alice.login("Alice")
        html = await alice.get(f"/match/{site.matches['alice-bob']}")
        assert "Your notices" in html
        assert '<strong class="new">new</strong>' in html
        assert "Not delivered by DM: your Lichess settings refuse messages from the bot" in html
        assert to_alice[0].body.split("\n")[0] in html
        html = await alice.get(f"/match/{site.matches['alice-bob']}")
        assert '<strong class="new">new</strong>' not in html  # seen once, no longer new

        await bob.login("Bob")
        html = await bob.get(f"/match/{site.matches['alice-bob']}")
        assert "Sent by DM" in html
        assert "not delivered" not in html
    finally:
        await alice.close()
        await bob.close()


async def test_the_desk_marks_an_alert_no_td_got_and_says_when_the_outbox_is_stopped(
    site_with: Site, refusing: SandboxState
) -> None:
    site = site_with
    refusing.messaging.refuse_strangers.add(TD.lower())  # the TD refuses the bot's DMs too
    site.clock.advance(site.service.config.outbox.merge_window)  # the DMs' merge window
    await site.service.dispatcher.deliver_due()  # Alice refuses: a note for the TDs' digest
    async with site.db.uow() as uow:
        notes = await uow.outbox.list(kind="td_note")
        # a decision for the TDs (a report of foul play), which the TD's inbox refuses as well
        await site.service.services.notifier.td_alert(
            uow,
            now=NOW,
            text="Carol reports a game of match 1",
            key=keys.cheat_report(1, 1, "carol"),
        )
        await uow.commit()
    assert [n.notice for n in notes] == ["undelivered"]
    site.clock.advance(ALERT_WINDOW)  # a private report's alert waits for others to merge
    await site.service.dispatcher.deliver_due()
    async with site.db.uow() as uow:
        alerts = await uow.outbox.list(kind="td_alert")
    assert [a.notice for a in alerts] == ["cheat_report"]
    assert alerts[0].status is OutboxStatus.FAILED

    tina = Browser(site)
    try:
        await tina.login(TD)
        html = await tina.get("/desk")
        assert "(not delivered by DM)" in html
        assert "The outbox is stopped" not in html
        async with site.db.uow() as uow:
            await uow.holds.put(OUTBOX_HOLD, since=NOW, reason="Lichess answered HTTP 403")
            await uow.commit()
        html = await tina.get("/desk")
        assert "The outbox is stopped" in html
        assert "HTTP 403" in html
    finally:
        await tina.close()


async def test_the_room_shows_the_newest_notices_and_folds_the_older_ones(
    site_with: Site, refusing: SandboxState
) -> None:
    site = site_with
    async with site.db.uow() as uow:
        for i in range(1, 10):
            await site.service.services.notifier.dm_player(
                uow,
                now=NOW + dt.timedelta(minutes=i),
                player="alice",
                text=f"Notice number {i}",
                key=keys.time_agreed(site.matches["alice-bob"], 1, f"test-{i}"),
            )
        await uow.commit()
    alice = Browser(site)
    try:
        await alice.login("Alice")
        html = await alice.get(f"/match/{site.matches['alice-bob']}")
    finally:
        await alice.close()
    shown, _, older = html.partition('<details class="older">')
    assert "Notice number 9" in shown
    assert "Notice number 4" in shown
    assert "Notice number 3" not in shown  # six newest in view, the rest folded
    assert "Notice number 3" in older
    assert re.search(r"Older notices \((\d+)\)", older)
