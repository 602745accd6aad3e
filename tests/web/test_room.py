"""A week in the match room over HTTP: offers, acceptance, the agreed time, the score."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, PlayerId
from tests.web.helpers import Browser, Site, flash_text
from tests.web.test_reports_merged import inbox


def game(game_id: str, white: str, black: str, when: dt.datetime, winner: Colour | None) -> Game:
    return Game(
        id=GameId(game_id),
        white=PlayerId(white),
        black=PlayerId(black),
        status=GameStatus.MATE if winner else GameStatus.DRAW,
        winner=winner,
        variant="antichess",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        created_at=when,
        last_move_at=when + dt.timedelta(minutes=8),
        source="friend",
    )


async def offer_and_accept(site: Site, alice: Browser, bob: Browser) -> int:
    match_id = site.matches["alice-bob"]
    await alice.login("Alice")
    html = await alice.get("/match")
    assert f"Match {match_id}" in html
    assert 'type="datetime-local"' in html
    assert "(UTC)" in html
    html = await alice.post(
        f"/match/{match_id}/say",
        {
            "action": "offer",
            "time1": "2021-10-14T18:00",
            "time2": "2021-10-15T18:00",
            "time3": "2021-10-16T12:00",
        },
    )
    assert "flash ok" in html, flash_text(html)
    assert "Your offers went to Bob:" in flash_text(html)  # Bob as he spells his username
    await bob.login("Bob")
    html = await bob.get(f"/match/{match_id}")
    assert "Thu 14 Oct 18:00 UTC" in html
    assert 'aria-label="Accept offer 1"' in html
    html = await bob.post(f"/match/{match_id}/say", {"action": "accept", "index": "1"})
    assert "flash ok" in html, flash_text(html)
    return match_id


async def test_an_offer_accepted_by_the_opponent_becomes_the_agreed_time(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    html = await browsers["alice"].get(f"/match/{match_id}")
    agreed = re.search(r"<dt>Agreed start</dt><dd>(.*?)</dd>", html, re.S)
    assert agreed
    assert "Thu 14 Oct 18:00 UTC" in agreed.group(1)
    html = await browsers["nobody"].get("/pairings")
    assert "Thu 14 Oct 18:00 UTC" in html  # the public schedule shows it too
    async with site.db.uow() as uow:  # the same DM confirmations as any other channel
        dms = {(r.recipient.lower(), r.kind) for r in await uow.outbox.list(kind="dm")}
    assert ("alice", "dm") in dms
    assert ("bob", "dm") in dms
    await site.service.dispatcher.deliver_due()  # the DMs as Lichess shows them: plain text
    site.clock.set(site.clock.now() + site.service.config.outbox.merge_window)
    await site.service.dispatcher.deliver_due()
    (offers,) = [m for m in await inbox(site, "bob") if "offered times" in m]  # with the pairing
    assert "Alice offered times for your ACWC match:\n1. Alice: Thu 14 Oct" in offers
    assert 'Reply with "accept 1" or offer other times ("offer ...")' in offers
    assert "`" not in offers


async def test_finished_games_show_in_the_room_with_their_lichess_links(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    start = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
    site.clock.set(start + dt.timedelta(minutes=20))
    await site.service.intake(game("AbCd1234", "alice", "bob", start, Colour.WHITE))
    await site.service.intake(
        game("EfGh5678", "bob", "alice", start + dt.timedelta(minutes=10), None)
    )
    html = await browsers["bob"].get(f"/match/{match_id}")
    assert 'href="https://lichess.org/AbCd1234"' in html
    assert 'href="https://lichess.org/EfGh5678"' in html
    assert "1.5 – 0.5" in html or "1.5 – 0.5" in html.replace("\u2013", "–")


async def test_a_typed_command_goes_through_the_same_grammar(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    match_id = site.matches["alice-bob"]
    await alice.get(f"/match/{match_id}")
    html = await alice.post(f"/match/{match_id}/say", {"action": "text", "text": "offer thu 18:00"})
    assert "flash ok" in html, flash_text(html)
    html = await alice.post(
        f"/match/{match_id}/say", {"action": "text", "text": "offer fri 18:00 CEST"}
    )
    assert "flash error" in html
    assert "UTC" in flash_text(html)


async def test_a_refused_offer_says_why_and_changes_nothing(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    match_id = site.matches["alice-bob"]
    await alice.get(f"/match/{match_id}")
    html = await alice.post(
        f"/match/{match_id}/say", {"action": "offer", "time1": "2021-10-30T18:00"}
    )
    assert "flash error" in html
    assert flash_text(html)
    assert "Oct 30" not in html.split("Offers", 1)[-1].split("Offer start times")[0]


async def test_a_report_reaches_the_tds_and_no_public_page(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    match_id = site.matches["alice-bob"]
    await alice.get(f"/match/{match_id}")
    html = await alice.post(
        f"/match/{match_id}/say", {"action": "report", "report": "bob seems to use an engine"}
    )
    assert "flash ok" in html, flash_text(html)
    for path in ("/", "/pairings", "/players/bob", "/players/alice"):
        assert "engine" not in await browsers["nobody"].get(path)
    async with site.db.uow() as uow:
        alerts = await uow.outbox.list(kind="td_alert")
    assert any("engine" in a.body for a in alerts)


async def test_both_players_acting_at_once_are_both_carried_out(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, bob = browsers["alice"], browsers["bob"]
    match_id = site.matches["alice-bob"]
    for b, name in ((alice, "Alice"), (bob, "Bob")):
        await b.login(name)
        await b.get(f"/match/{match_id}")
    replies = await asyncio.gather(
        alice.post(f"/match/{match_id}/say", {"action": "text", "text": "offer wed 18:00"}),
        bob.post(f"/match/{match_id}/say", {"action": "text", "text": "offer thu 12:00"}),
    )
    assert all("flash ok" in html for html in replies), [flash_text(h) for h in replies]
    html = await alice.get(f"/match/{match_id}")
    assert "Wed 13 Oct 18:00 UTC" in html
    assert "Thu 14 Oct 12:00 UTC" in html


async def test_after_agreement_the_other_offers_are_closed_and_no_counter_is_offered(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    html = await browsers["bob"].get(f"/match/{match_id}")
    states = re.findall(r'<tr class="offer-(\w+)">', html)
    assert states == ["accepted", "closed", "closed"]
    assert "Counter" not in html
    assert 'aria-label="Accept offer 2"' not in html
    assert "<td>Alice</td>" in html  # the offerer as Lichess spells them


async def test_a_refused_offer_keeps_its_times_in_the_form(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    match_id = site.matches["alice-bob"]
    await alice.login("Alice")
    await alice.get(f"/match/{match_id}")
    times = {"time1": "2021-10-14T18:00", "time2": "2021-10-14T19:00"}  # too close together
    html = await alice.post(f"/match/{match_id}/say", {"action": "offer", **times})
    assert "flash error" in html, flash_text(html)
    assert 'value="2021-10-14T18:00"' in html
    assert 'value="2021-10-14T19:00"' in html
    # the browser goes back to the form, which says what was refused next to the times
    await alice.get(f"/match/{match_id}")
    form = {"action": "offer", "csrf": alice.csrf(), **times}
    async with alice.http.post(
        alice.url(f"/match/{match_id}/say"), data=form, allow_redirects=False
    ) as resp:
        assert resp.status == 303
        assert resp.headers["Location"].endswith("#offer")
    section = html[html.index('id="offer"') :]
    assert section.index('class="flash error"') < section.index('id="time1"')


async def test_after_the_agreed_time_the_room_says_when_a_no_show_can_be_claimed(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    rules = site.service.config.rules.conduct
    site.clock.set(dt.datetime(2021, 10, 14, 18, 5, tzinfo=dt.UTC))
    html = await browsers["alice"].get(f"/match/{match_id}")
    assert "The agreed time has passed (rules 6.3)" in html
    claim_at = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC) + rules.no_show_second_alert
    assert f"can be claimed from {claim_at:%a %d %b %H:%M} UTC" in html
    minutes = int(rules.no_show_grace.total_seconds() // 60)
    assert f"if no game has started {minutes} minutes after the agreed time" in html
    site.clock.set(claim_at + dt.timedelta(minutes=1))
    await site.service.runner.fire_due()  # the two no-show checks (rules 6.3)
    html = await browsers["alice"].get(f"/match/{match_id}")
    assert "can be claimed since" in html
    checks = re.findall(r"<li>Check at [^<]*</li>", html)
    assert checks
    assert "neither player was seen online" in checks[-1]  # the sandbox saw nobody
