"""The "what to do now" card in Chromium, for each state of a match a week walks through
(issue 29, item 2): its step, its button, and that it sits on a phone's first screen.

Alice and Bob act over HTTP (as their browsers would); two headless Chromiums, one logged in as
each, read their rooms at 375 x 667 px. A screenshot of the first screen at each state goes to
$ACWC_SCREENSHOTS (default: artifacts/ in the repository; docs/screenshots/ keeps a set).
Every state of the card is tested in tests/rules/test_next_step.py; here, the ones a real
week reaches in a browser.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from pathlib import Path

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.views.bracket import armageddon_view
from bot.web.room import OFFER_FIELDS
from rules.core.colour import Colour
from rules.core.model import GameStatus
from storage.db import Database
from tests.stages.helpers import config_for, semifinal_at_armageddon
from tests.web.helpers import Browser, Site, flash_text
from tests.web.test_chromium import login, logout
from tests.web.test_chromium_td_week import set_online
from tests.web.test_room import game
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium, chromium_paths

SHOTS = Path(os.environ.get("ACWC_SCREENSHOTS") or Path(__file__).parents[2] / "artifacts" / "room")
PHONE = (375, 667)
THURSDAY = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
SATURDAY = dt.datetime(2021, 10, 16, 0, 1, tzinfo=dt.UTC)  # the offers deadline has passed
SUNDAY = dt.datetime(2021, 10, 17, 12, 0, tzinfo=dt.UTC)
OFFERED = ("2021-10-14T18:00", "2021-10-15T18:00", "2021-10-16T12:00")


async def card(b: Chromium, site: Site, match_id: int, shot: str) -> tuple[str, str]:
    """The room's card as this browser sees it: its step and its text; the first screen is
    saved as ``shot``. The card must end within the phone's first screen."""
    await b.go(f"{site.url}/match/{match_id}")
    step = str(await b.script("return document.querySelector('#now').dataset.step;"))
    bottom, screen = await b.script(
        "return [document.querySelector('#now').getBoundingClientRect().bottom, innerHeight];"
    )
    assert float(bottom) <= float(screen), (shot, bottom, screen)
    await b.screenshot(SHOTS / f"room-{shot}.png")
    return step, await b.text("#now")


async def results(b: Chromium) -> list[tuple[str, str]]:
    """The room's game results as shown: (class, colour) of each."""
    found = await b.script(
        "return [...document.querySelectorAll('ol.games .res')]"
        ".map((e) => [e.className, getComputedStyle(e).color]);"
    )
    return [(str(cls), str(colour)) for cls, colour in found]


async def phone(b: Chromium) -> None:
    """A window whose page area is a phone's screen (the window's own bars aside)."""
    await b.resize(*PHONE)
    inner = int(await b.script("return innerHeight;"))
    await b.resize(PHONE[0], 2 * PHONE[1] - inner)


async def expect(b: Chromium, site: Site, match_id: int, shot: str, step: str, *texts: str) -> None:
    """The card shows ``step`` and each of ``texts``."""
    shown, text = await card(b, site, match_id, shot)
    assert shown == step, (shot, shown, text)
    for words in texts:
        assert words in text, (shot, words, text)


async def say(who: Browser, match_id: int, form: dict[str, str]) -> None:
    await who.get(f"/match/{match_id}")
    html = await who.post(f"/match/{match_id}/say", form)
    assert "flash ok" in html, flash_text(html)


async def test_the_card_shows_each_step_of_a_week(site: Site, browsers: dict[str, Browser]) -> None:
    chromium_paths()
    ab, cd = site.matches["alice-bob"], site.matches["carol-dave"]
    alice, bob = browsers["alice"], browsers["bob"]
    await alice.login("Alice")
    await bob.login("Bob")
    carol, dave = browsers["carol"], browsers["eve"]
    await carol.login("Carol")
    await dave.login("Dave")
    await say(carol, cd, {"action": "offer", "time1": "2021-10-14T18:00"})
    await say(dave, cd, {"action": "accept", "index": "1"})
    await set_online(site, "Carol")
    async with chromium() as a, chromium() as c:
        for b, name in ((a, "Alice"), (c, "Bob")):
            await phone(b)
            await login(b, site, name)
        await expect(a, site, ab, "1-make-offers", "make_offers", "Make your offers", "Offer times")

        offers = {
            "time1": "2021-10-14T18:00",
            "time2": "2021-10-15T18:00",
            "time3": "2021-10-16T12:00",
        }
        await say(alice, ab, {"action": "offer"} | offers)
        await expect(a, site, ab, "2-wait-answer", "wait_answer", "Wait for Bob's answer")
        await expect(c, site, ab, "3-answer-offer", "answer_offer", "Answer Alice's offer")
        assert await c.find_all('#now button[aria-label="Accept offer 1"]')

        await c.submit('#now button[aria-label="Accept offer 1"]')  # the card's own button
        await expect(a, site, ab, "4-play-at", "play_at", "Play game 1 at the agreed time")
        for b in (a, c):  # agreed: neither room asks for offers any more
            await b.go(f"{site.url}/match/{ab}")
            assert "needed" not in await b.page_text()

        await say(bob, ab, {"action": "time", "verb": "change", "time": "2021-10-14T20:00"})
        await expect(a, site, ab, "5-answer-change", "answer_change", "Accept the new time")
        await expect(c, site, ab, "5-wait-change", "wait_change")
        await say(alice, ab, {"action": "button", "command": "decline change"})

        site.clock.set(THURSDAY + dt.timedelta(minutes=1))
        await expect(a, site, ab, "6-play-now", "play_now", "Play game 1 now")

        await site.service.intake(game("CardG01", "alice", "bob", THURSDAY, Colour.WHITE))
        site.clock.set(THURSDAY + dt.timedelta(minutes=9))
        await expect(a, site, ab, "7-between-games", "play_now", "Play game 2 now", "Call my break")

        await a.submit("#now form.inline button:not(.primary)")  # "Call my break"
        await expect(c, site, ab, "8-on-break", "on_break", "game 2 after it")

        for i in range(1, 6):  # Alice wins five more: 6-0 clinches the match
            white, black = ("bob", "alice") if i % 2 else ("alice", "bob")
            winner = Colour.BLACK if white == "bob" else Colour.WHITE
            at = THURSDAY + dt.timedelta(minutes=20 + 9 * i)
            await site.service.intake(game(f"CardG{i + 1:02d}", white, black, at, winner))
        await expect(a, site, ab, "9-done", "done", "The match is over")
        # results in colour, from the reader's side: Alice's six wins are Bob's six losses
        await c.go(f"{site.url}/match/{ab}")
        won, lost = await results(a), await results(c)
        assert [cls for cls, _ in won] == ["res win"] * 6, won
        assert [cls for cls, _ in lost] == ["res loss"] * 6, lost
        assert won[0][1] != lost[0][1]  # green and red

    # Carol and Dave: Dave does not come; Carol claims, then waits for the TDs.
    site.clock.set(THURSDAY + dt.timedelta(minutes=21))
    await site.service.runner.fire_due()  # the no-show checks (rules 6.3)
    async with chromium() as b:
        await phone(b)
        await login(b, site, "Carol")
        await expect(b, site, cd, "10-claim", "claim", "Claim the match")
        await b.submit("#now button.danger")
        await expect(b, site, cd, "11-wait-tds", "wait_tds", "with the tournament directors")


async def test_the_card_after_the_offers_deadline_and_while_a_game_is_played(
    site: Site, browsers: dict[str, Browser]
) -> None:
    """Carol offers and Dave does not: after the offers deadline Carol chooses the time and Dave
    waits for her choice (rules 5.5); then game 1 is being played; then Dave overruns his
    break and Carol may claim the match (rules 6.1, 6.4). Alice and Bob both offer
    and agree on nothing: past the deadline, they wait for the TDs (rules 5.8)."""
    chromium_paths()
    ab, cd = site.matches["alice-bob"], site.matches["carol-dave"]
    carol, dave, alice, bob = (browsers[n] for n in ("carol", "eve", "alice", "bob"))
    for who, name in ((carol, "Carol"), (dave, "Dave"), (alice, "Alice"), (bob, "Bob")):
        await who.login(name)
    for who, match_id, times in (
        (carol, cd, ("2021-10-13T18:00", "2021-10-14T18:00", "2021-10-15T18:00")),
        (alice, ab, ("2021-10-13T18:00", "2021-10-14T18:00", "2021-10-15T12:00")),
        (bob, ab, ("2021-10-13T12:00", "2021-10-14T12:00", "2021-10-15T18:00")),
    ):
        await say(who, match_id, {"action": "offer"} | dict(zip(OFFER_FIELDS, times, strict=True)))
    site.clock.set(SATURDAY)
    await site.service.runner.fire_due()  # the offers check (rules 5.5, 5.8)
    async with chromium() as c, chromium() as d:
        for b, name in ((c, "Carol"), (d, "Dave")):
            await phone(b)
            await login(b, site, name)
        await expect(c, site, cd, "12-choose-time", "choose_time", "Choose the time", "Dave")
        assert await c.find_all('#now a.button.primary[href="#h-time"]')
        await expect(d, site, cd, "13-wait-choice", "wait_choice", "Carol chooses the time")
        await say(carol, cd, {"action": "time", "verb": "choose", "time": "2021-10-17T12:00"})
        await expect(d, site, cd, "14-play-at-chosen", "play_at", "Play game 1 at the agreed time")

        site.clock.set(SUNDAY + dt.timedelta(minutes=2))
        started = game("CardS01", "carol", "dave", SUNDAY, None)
        await site.service.intake(dataclasses.replace(started, status=GameStatus.STARTED))
        await expect(c, site, cd, "15-game-in-progress", "game_in_progress", "Game 1 is being")

        ended = SUNDAY + dt.timedelta(minutes=8)
        site.clock.set(ended + dt.timedelta(minutes=1))
        await site.service.intake(game("CardS01", "carol", "dave", SUNDAY, Colour.WHITE))
        await say(dave, cd, {"action": "break"})  # and Dave does not come back in time
        site.clock.set(ended + dt.timedelta(minutes=12))
        await site.service.runner.fire_due()  # the break's end (rules 6.1, 6.4)
        overran = "Dave overran the break"
        await expect(c, site, cd, "16-claim-break", "claim", "Claim the match", overran)

        await logout(c)
        await login(c, site, "Alice")
        await expect(c, site, ab, "17-wait-tds-offers", "wait_tds", "offers deadline has passed")


async def test_the_card_asks_for_the_armageddon_bid(db: Database, database_url: str) -> None:
    """A semifinal level after its ten games goes to an armageddon game (rules 3.vii.2, 3.ix):
    the card of each player asks for their bid."""
    chromium_paths()
    config = config_for(database_url)
    sf1, clock, _ = await semifinal_at_armageddon(db, config)
    first, second = sf1.white_first, sf1.black_first
    assert second is not None
    async with Service(config, clock=clock, web_port=0, sandbox=bundled_sandbox()) as service:
        assert service.web_url is not None
        site = Site(service=service, clock=clock, url=service.web_url, matches={})
        async with db.uow() as uow:
            names = [(await uow.players.get(p)) for p in (first, second)]
            arm = await armageddon_view(uow, sf1.id, config.rules)
        assert arm is not None
        due = dt.datetime.fromisoformat(arm["bid_deadline"])
        async with chromium() as b:
            await phone(b)
            for player in names:
                assert player is not None
                await login(b, site, player.username)
                await expect(b, site, sf1.id, "18-armageddon", "armageddon", "Armageddon bid")
                assert await b.find_all('#now a.button.primary[href="#h-arma"]')
                shown = await b.script("return document.querySelector('#now .due time').dateTime;")
                assert dt.datetime.fromisoformat(shown) == due  # the bids', not the week's end
                await logout(b)


async def test_times_show_once_in_the_readers_own_time_zone(
    site: Site, browsers: dict[str, Browser]
) -> None:
    """A reader in Tokyo (UTC+9) sees Bob's offer of Thu 14 Oct 18:00 UTC as Fri 15 Oct
    03:00 in their own time, once; the UTC time is the element's title (shown on hover)."""
    chromium_paths()
    ab = site.matches["alice-bob"]
    bob = browsers["bob"]
    await bob.login("Bob")
    await say(bob, ab, {"action": "offer"} | dict(zip(OFFER_FIELDS, OFFERED, strict=True)))
    async with chromium() as b:
        await b.time_zone("Asia/Tokyo")
        await login(b, site, "Alice")
        await b.go(f"{site.url}/match/{ab}")
        shown = await b.script(
            "const t = document.querySelector('#now time');"
            "return [t.textContent, t.title, t.dateTime];"
        )
        card = await b.text("#now")
    text, title, iso = (str(x) for x in shown)
    assert dt.datetime.fromisoformat(iso) == THURSDAY
    assert title == "Thu 14 Oct 18:00 UTC"  # the UTC time, on hover
    assert all(part in text for part in ("15", "03:00", "GMT+9")), text  # the reader's time
    assert f"Bob offers {text} (in 2 days" in card, card
    assert "UTC" not in card, card  # the time once, in the reader's zone
