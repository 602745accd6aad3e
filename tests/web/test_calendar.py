"""The iCalendar feeds parse with a calendar library and hold the agreed times."""

from __future__ import annotations

import datetime as dt

import icalendar

from tests.web.helpers import Browser, Site
from tests.web.test_room import offer_and_accept


async def fetch(b: Browser, path: str) -> icalendar.Calendar:
    async with b.http.get(b.url(path)) as resp:
        assert resp.status == 200
        assert resp.content_type == "text/calendar"
        return icalendar.Calendar.from_ical(await resp.read())


async def test_event_and_player_feeds_hold_the_agreed_match_time(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    nobody = browsers["nobody"]
    agreed = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
    for path in ("/calendar.ics", "/players/alice/calendar.ics", "/players/bob/calendar.ics"):
        cal = await fetch(nobody, path)
        events = list(cal.walk("VEVENT"))
        assert len(events) == 1, path
        event = events[0]
        assert event.decoded("dtstart") == agreed
        assert str(event["uid"]).startswith(f"match-{match_id}@")
        assert "Alice - Bob" in str(event["summary"])
        assert str(event["url"]) == f"{site.url}/match/{match_id}"
    assert list((await fetch(nobody, "/players/carol/calendar.ics")).walk("VEVENT")) == []


async def test_a_match_decided_without_play_leaves_the_calendar(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    tina = browsers["tina"]
    await tina.login("Tina")
    await tina.get("/desk")
    await tina.post("/desk/exit", {"player": "Bob", "kind": "withdrawal", "reason": "moved"})
    async with site.db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        assert row.outcome is not None  # rules 8.i.1: Alice wins it without play
    assert list((await fetch(browsers["nobody"], "/calendar.ics")).walk("VEVENT")) == []


async def test_a_feed_of_an_unknown_player_is_a_404(
    site: Site, browsers: dict[str, Browser]
) -> None:
    async with browsers["nobody"].http.get(
        browsers["nobody"].url("/players/zed/calendar.ics")
    ) as r:
        assert r.status == 404


async def test_a_player_s_feed_is_in_the_language_they_chose(
    site: Site, browsers: dict[str, Browser]
) -> None:
    # Issue 28 item 5: a calendar app fetches the feed without a session, so a player's own
    # feed follows the language stored for them; the event's feed, the visitor's browser.
    await offer_and_accept(site, browsers["alice"], browsers["bob"])
    await browsers["alice"].post("/account/language", {"language": "fr"})
    nobody = browsers["nobody"]
    (alice,) = list((await fetch(nobody, "/players/alice/calendar.ics")).walk("VEVENT"))
    (bob,) = list((await fetch(nobody, "/players/bob/calendar.ics")).walk("VEVENT"))
    assert "ronde 1" in str(alice["description"]), alice["description"]
    assert "salle du match" in str(alice["description"])
    assert "round 1" in str(bob["description"]), bob["description"]
    assert "match room" in str(bob["description"])
    async with nobody.http.get(
        nobody.url("/calendar.ics"), headers={"Accept-Language": "fr"}
    ) as resp:
        (event,) = list(icalendar.Calendar.from_ical(await resp.read()).walk("VEVENT"))
        vary = resp.headers.get("Vary", "")
    assert "ronde 1" in str(event["description"])
    assert "Accept-Language" in vary  # a shared cache keeps one copy per language
