"""A TD runs a whole match week from the desk in a real headless Chromium, without a terminal.

Six players, three matches: Alice and Bob never agree (the TDs rule who is at fault, rules 5.8),
Dave does not show up and Carol claims (rules 6.3), Finn does not show up and Erin does not claim
(the TDs rule the no-show themselves). The TD approves the round, decides all three, corrects a
result, disqualifies a player (rules 8, before and after shown), pastes the forum drafts, and the
pending list is empty at the end. On the way every desk button the week can reach: the pairing
editor (check, keep), the offers by Friday, a forfeit waived, an overdue match adjudicated from
its card and another by hand, the stage sync, the eligibility re-check in the background, the
deadlines and the outbox. The buttons a qualification week cannot reach (the armageddon's,
the stage's start, a game forfeit, a 6.5 disqualification, the relay, the pairing review, a game
that did not count, the registrations list, a 7.3 mark) are pressed in
``test_chromium_td_buttons.py``. The players act in their own rooms over
HTTP; the bot's deadlines fire as the clock reaches them.

Screenshots go to $ACWC_SHOTS (default: artifacts/ in the repository).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.web.desk.checks import JOBS
from rules.core.ruleset import StageKind
from tests.stages.helpers import matches_of
from tests.web.helpers import NOW, TD, Browser, Site, flash_text, make_config, seed
from tests.web.test_chromium import login, logout
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium, chromium_paths

# The same on both databases (the desk's buttons in a browser; each operation behind them has its
# own test on both databases): CI's PostgreSQL run leaves it to the SQLite run.
pytestmark = pytest.mark.same_on_both_databases

SHOTS = Path(os.environ.get("ACWC_SHOTS") or Path(__file__).parents[2] / "artifacts")
PLAYERS = ("Alice", "Bob", "Carol", "Dave", "Erin", "Finn")
PAIRS = (("alice", "bob"), ("carol", "dave"), ("erin", "finn"))
UTC = dt.UTC


def oct21(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


@pytest.fixture
async def week_site(database_url: str) -> AsyncIterator[Site]:
    """Round 1 of the qualification paired and waiting for a TD's approval."""
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        ids = await seed(service, publish=False, players=PLAYERS, pairs=PAIRS)
        yield Site(service=service, clock=clock, url=service.web_url, matches=ids)


async def boards(site: Site) -> tuple[int, int, int]:
    """The ids of the round's three matches, in the order of :data:`PAIRS`."""
    rows = await matches_of(site.db, StageKind.QUALIFICATION)
    found = {(r.white_first, r.black_first): r.id for r in rows}
    ids = [found.get(pair) or found[(pair[1], pair[0])] for pair in PAIRS]
    return ids[0], ids[1], ids[2]


async def player(site: Site, name: str) -> Browser:
    b = Browser(site)
    await b.login(name)
    return b


async def act(b: Browser, match_id: int, text: str) -> str:
    await b.get(f"/match/{match_id}")
    reply = flash_text(await b.post(f"/match/{match_id}/say", {"action": "text", "text": text}))
    assert "flash error" not in b.last_html, reply
    return reply


async def set_online(site: Site, name: str) -> None:
    """Sandbox Lichess: ``name`` shows as online in /api/users/status."""
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            site.service.lichess_url + "/_sandbox/users", json={"username": name, "online": True}
        ) as resp,
    ):
        assert resp.status == 200


async def fire_at(site: Site, when: dt.datetime) -> None:
    """The clock reaches ``when``; the deadline runner does what is due (the no-show checks,
    the offers check), as the running service would."""
    site.clock.set(when)
    await site.service.runner.fire_due()


def in_card(choice: str, key: str | None = None) -> str:
    """The button ``choice`` of a decision's card (of the card ``key``: two may offer one)."""
    card = "form.decide" if key is None else f'form.decide:has(input[name=key][value="{key}"])'
    return f'{card} button[value="{choice}"]'


async def decide(
    b: Chromium,
    choice: str,
    reason: str,
    *,
    changes: tuple[str, ...] = (),
    key: str | None = None,
) -> str:
    """Press a decision's button with a reason (the reason field sits in the same card); a
    ruling that can change the standings first shows the lines it changes (``changes``: the
    players whose line must be among them), then the TD confirms."""
    button = in_card(choice, key)
    await b.script(
        "const form = document.querySelector(arguments[0]).form;"
        "form.querySelector('input[name=reason]').value = arguments[1];",
        button,
        reason,
    )
    await b.submit(button)
    page = await b.page_text()
    assert "Nothing has changed yet." in page
    assert "Confirm: Confirm:" not in page  # a choice named "Confirm: ..." is said once
    shown = await b.text("#main")
    for name in changes:
        assert name in shown, (name, shown)
    await b.submit("form.confirm button.primary")
    return await b.text("#reply")


async def pending_titles(b: Chromium) -> list[str]:
    found = await b.script(
        "return Array.from(document.querySelectorAll('article.decision h3'))"
        ".map(h => h.textContent);"
    )
    return [str(t) for t in found]


async def test_a_td_runs_a_whole_week_from_the_desk_in_chromium(week_site: Site) -> None:
    chromium_paths()
    site = week_site
    ab, cd, ef = (site.matches[f"{a}-{b}"] for a, b in PAIRS)
    async with chromium() as td:
        await td.resize(1280, 1000)
        await login(td, site, TD)

        # Tuesday: the round's pairings wait for approval. The TDs own them (rules 3.v.6): the
        # editor starts from the proposal, checks it, and keeps it as the round's proposal.
        await td.go(f"{site.url}/desk")
        assert await pending_titles(td) == ["Approve pairings: Qualification round 1"]
        assert await td.find('a[href="/register/list"]')  # the registrations, linked
        await td.go(f"{site.url}/desk/pairing")
        assert "Starting from the round's proposal." in await td.text("#start")
        await td.submit("#check")
        assert "No refusal and no warning" in await td.text("#findings")
        await td.submit("#keep")
        assert "your pairing is the round's proposal" in await td.text("#reply")
        assert await pending_titles(td) == ["Approve pairings: Qualification round 1"]
        await td.submit('form.decide button[value="approve"]')
        assert "approved and published" in await td.text("#reply")
        # The kept pairing is a new proposal: its matches are new rows (PostgreSQL never gives
        # an id twice, SQLite may), so the boards are found again by their players.
        ab, cd, ef = await boards(site)

        # The players negotiate in their rooms.
        people = {name: await player(site, name) for name in PLAYERS}
        await act(people["Alice"], ab, "offer wed 18:00, thu 18:00, fri 18:00")
        await act(people["Bob"], ab, "offer wed 12:00, thu 12:00, fri 12:00")
        await act(people["Carol"], cd, "offer thu 18:00")
        await act(people["Dave"], cd, "accept 1")
        await act(people["Erin"], ef, "offer thu 20:00")
        await act(people["Finn"], ef, "accept 1")
        await set_online(site, "Carol")
        await set_online(site, "Erin")

        # Thursday: Dave and Finn do not show up; Carol claims, Erin does not.
        await fire_at(site, oct21(14, 18, 21))
        assert "went to the TDs" in await act(people["Carol"], cd, "claim win")
        await fire_at(site, oct21(14, 20, 21))
        # Saturday: Alice and Bob made their offers but agreed nothing (rules 5.8).
        await fire_at(site, oct21(16, 9, 0))

        # Who made how many offers by Friday, and who answered (rules 5.1), read only.
        await td.go(f"{site.url}/desk/offers")
        offers = await td.text("#offers")
        assert "3 (3 of 3)" in offers  # Alice and Bob made their three offers
        assert "Dave accepted Carol's offer" in offers
        assert "1 (1 of 3)" in offers  # Carol offered once; Dave accepted it
        await td.go(f"{site.url}/desk")
        titles = await pending_titles(td)
        assert len(titles) == 3, titles  # one item per decision: no raw alert beside a card
        assert any(f"No agreed time in match {ab}" in t for t in titles), titles
        assert any(f"Carol claims match {cd} against Dave" in t for t in titles), titles
        assert any(f"No-show (rules 6.3): match {ef}" in t for t in titles), titles
        desk = await td.text("#main")
        assert "acwc " not in desk  # no alert asks for a terminal
        assert "Finn has not shown up" in desk  # as Lichess spells the name, not "finn"
        await td.full_screenshot(SHOTS / "td-week-desk.png", width=1280)
        await td.go(f"{site.url}/match/{ef}")
        assert "neither player" not in await td.page_text()  # Erin was seen, Finn was not
        assert "Erin was seen online; Finn was not" in await td.page_text()
        await td.full_screenshot(SHOTS / "td-week-room-no-show.png", width=1280)
        await td.resize(1280, 1000)

        await td.go(f"{site.url}/desk")
        assert "ruled Alice at fault" in await decide(td, "fault:alice", "no reply to offers")
        won = await decide(td, "grant:carol", "Dave absent 20 minutes", changes=("Carol",))
        assert "won by Carol" in won
        won = await decide(td, "grant:erin", "Finn absent, Erin waited", changes=("Erin", "Finn"))
        assert "won by Erin" in won
        assert await pending_titles(td) == []

        # Dave's forfeit (the no-show) waived with a reason (rules 5.10): on record, not counted.
        async with site.db.reads() as uow:
            (forfeit,) = await uow.weekly.forfeits(player="dave")
        await td.go(f"{site.url}/desk/forfeits")
        await td.type(f"#waive-{forfeit.id}", "Dave was ill; the TDs waive it")
        await td.submit(f"#waive-button-{forfeit.id}")
        assert f"Forfeit {forfeit.id} of Dave waived." in await td.text("#reply")
        assert "waived by Tina" in await td.text(f"#forfeit-{forfeit.id}")
        await td.go(f"{site.url}/desk")

        # A result entered by hand (a game played on a wrong link), with its reason.
        await td.type("#r-match", str(ab))
        await td.type("#r-game", "1")
        await td.type("#r-reason", "played on a link the bot did not see")
        await td.submit("#results button.primary")
        assert "Nothing has changed yet." in await td.page_text()
        await td.full_screenshot(SHOTS / "td-week-result-preview.png", width=1280)
        await td.submit("form.confirm button.primary")
        assert f"match {ab}" in (await td.text("#reply")).lower()

        # Finn leaves the championship (rules 8): before and after, then the confirmation.
        await td.type("#x-player", "Finn")
        await td.script("document.querySelector('#x-kind').value = 'disqualification';")
        await td.type("#x-reason", "two no-shows announced by message")
        await td.submit("#exits button")
        assert "Nothing has changed yet." in await td.page_text()
        await td.submit("form[action='/desk/exit'] button.primary")
        assert "disqualification recorded" in await td.text("#reply")

        # Monday passes with Alice and Bob's match unplayed (rules 4.5): the TDs adjudicate it
        # from its card, the standings shown first.
        await fire_at(site, oct21(19, 0, 5))
        await td.go(f"{site.url}/desk")
        assert any(
            f"Match not completed in its week (rules 4.5): match {ab}" in t
            for t in await pending_titles(td)
        )
        won = await decide(td, "adjudicate:alice", "Bob never chose a time", changes=("Alice",))
        assert f"Match {ab}: adjudicated" in won

        # An adjudication by hand (the card-less way), the standings before and after first.
        await td.type("#a-match", str(cd))
        await td.type("#a-winner", "carol")
        await td.type("#a-reason", "confirming the claim")
        await td.submit("#adjudicate button.primary")
        assert "Nothing has changed yet." in await td.page_text()
        await td.submit("form.confirm button.primary")
        assert f"Match {cd}: first wins (adjudicated)." in await td.text("#reply")

        # Stage sync: nothing is owed in a qualification week.
        await td.submit("#sync-button")
        assert "Stage sync: nothing to do." in await td.text("#reply")

        # The eligibility re-check runs in the background; its page follows it.
        await td.go(f"{site.url}/desk/registration")
        await td.submit("#start-check")
        assert site.service.web_app is not None
        job = site.service.web_app[JOBS].current
        assert job is not None
        await asyncio.wait_for(job.finished.wait(), timeout=60)
        await td.go(f"{site.url}/desk/registration")
        assert "Done: 6 players checked" in await td.text("#check-state")

        # The deadlines and the outbox, read only.
        await td.go(f"{site.url}/desk/deadlines")
        assert "offers check" in await td.text("table")
        await td.go(f"{site.url}/desk/outbox")
        assert "td_alert" in await td.text("table")

        # The forum drafts, pasted one by one.
        await td.go(f"{site.url}/desk")
        for _ in range(20):
            if "No forum post waits to be pasted." in await td.text("#forum"):
                break
            await td.submit("#forum form.inline button.primary")
        assert "No forum post waits to be pasted." in await td.text("#forum")
        assert "Nothing waits for a decision." in await td.text("#main")
        # The first screen shows what needs the TDs; the season's past is folded (2,810 px in all
        # when this was written, at 1280 px wide).
        top = await td.script(
            "return document.getElementById('h-pending').getBoundingClientRect().top"
            " + window.scrollY;"
        )
        assert top < 400, top
        assert await td.script("return document.documentElement.scrollHeight;") < 4000
        await td.full_screenshot(SHOTS / "td-week-desk-done.png", width=1280)

        await td.go(f"{site.url}/desk/audit?actor={TD}")
        audit = await td.page_text()
        for action in ("round.approve", "fault.decide", "claim.grant", "result.record"):
            assert action in audit, action
        await logout(td)

        # Bob, whom the TDs left to choose the time (rules 5.9), reads it in his room.
        await login(td, site, "Bob")
        await td.go(f"{site.url}/match/{ab}")
        assert "the TDs found Alice at fault (rules 5.9); Bob chooses the time" in (
            await td.text("section.status")
        )
        await td.full_screenshot(SHOTS / "td-week-room-player.png", width=1280)
    for b in people.values():
        await b.close()
