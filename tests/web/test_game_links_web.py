"""Issue 14 item 1 on the web: the calendar event carries the game's challenge link, and a
player chooses on their account page whether each later game's link comes by DM too."""

from __future__ import annotations

import icalendar

from storage.models import GameRow
from tests.web.helpers import Browser, Site, flash_text
from tests.web.test_room import offer_and_accept


async def fetch(b: Browser, path: str) -> icalendar.Calendar:
    async with b.http.get(b.url(path)) as resp:
        assert resp.status == 200
        return icalendar.Calendar.from_ical(await resp.read())


async def test_the_calendar_event_carries_the_bot_s_challenge_of_the_game(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    await site.service.runner.fire_due()  # the challenge of game 1, made at once
    async with site.db.uow() as uow:
        (challenge,) = await uow.lichess.challenges(match_id)
    for path in ("/calendar.ics", "/players/bob/calendar.ics"):
        (event,) = (await fetch(browsers["nobody"], path)).walk("VEVENT")
        assert str(event["url"]) == challenge.url
        description = str(event["description"])
        assert f"Game 1's challenge (only you two can join it): {challenge.url}" in description
        assert "2+5 rated antichess" in description
        assert f"{site.url}/match/{match_id}" in description

    # Game 1 is played: its challenge is spent, and the event says so no more (game 2's
    # fresh challenge takes its place once made; the room shows the same).
    async with site.db.uow() as uow:
        await uow.games.add(
            GameRow(
                id=challenge.id,
                match_id=match_id,
                white="alice",
                black="bob",
                status="variantEnd",
                winner="w",
                variant="antichess",
                rated=True,
                clock_limit=120,
                clock_increment=5,
                created_at=challenge.created_at,
                last_move_at=challenge.created_at,
                counted=True,
                recorded_at=challenge.created_at,
            )
        )
        await uow.commit()
    (event,) = (await fetch(browsers["nobody"], "/calendar.ics")).walk("VEVENT")
    assert challenge.url not in str(event["description"])
    assert str(event["url"]) == f"{site.url}/match/{match_id}"


async def test_a_player_chooses_later_game_links_by_dm_on_the_account_page(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    html = await alice.get("/account")
    assert "Send me each later game's link by DM too" in html
    assert 'value="no" checked' in html
    html = await alice.post("/account/preferences", {"game_links_by_dm": "yes"})
    assert "now comes by DM too" in flash_text(html)
    assert 'value="yes" checked' in html
    async with site.db.uow() as uow:
        row = await uow.players.get("alice")
        assert row is not None
        assert row.game_links_by_dm is True
        audit = [a for a in await uow.audit.list() if a.action == "player.preferences"]
    assert [(a.actor, a.details) for a in audit] == [("alice", {"game_links_by_dm": True})]

    await alice.get("/account")
    html = await alice.post("/account/preferences", {"game_links_by_dm": "on"}, status=400)
    assert "must be" in html
    await alice.get("/account")
    await alice.post("/account/preferences", {}, status=400)
    async with site.db.uow() as uow:
        row = await uow.players.get("alice")
        assert row is not None
        assert row.game_links_by_dm is True  # a bad form changes nothing


async def test_only_a_registered_player_has_the_choice(
    site: Site, browsers: dict[str, Browser]
) -> None:
    eve = browsers["eve"]
    await eve.login("Eve")
    html = await eve.get("/account")
    assert "game_links_by_dm" not in html
    html = await eve.post("/account/preferences", {"game_links_by_dm": "yes"})
    assert flash_text(html) == "Only a registered player has this choice."
    async with site.db.uow() as uow:
        assert await uow.players.get("eve") is None
