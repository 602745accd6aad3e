"""The desk's side of issue 17: a posted pairings post's edited text to paste over it, and the
"recent" list of what needs no decision."""

from __future__ import annotations

import datetime as dt
from html import unescape

from bot.notify.keys import game_refused
from tests.web.helpers import NOW, TD, Browser, Site, flash_text


async def test_a_posted_pairings_post_is_offered_again_when_it_changes(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = browsers["tina"]
    await b.login(TD)
    html = await b.get("/desk")
    assert "ACWC qualification round 1 pairings" in html  # drafted at publication
    async with site.db.uow() as uow:
        (draft,) = await uow.outbox.list(kind="forum_draft")
    await b.post(f"/desk/forum/{draft.id}/posted", {})

    match_id = site.matches["alice-bob"]
    async with site.db.uow() as uow:  # a time is agreed after the TD posted
        row = await uow.matches.get(match_id)
        assert row is not None
        row.agreed_time = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
        rnd = await uow.tournaments.round(row.round_id)
        assert rnd is not None
        await site.service.services.forum.pairings_post(uow, rnd, now=NOW)
        await uow.commit()
    html = unescape(await b.get("/desk"))
    assert "Edit the posted ACWC qualification round 1 pairings: paste this over the post" in html
    assert "agreed: Thu 14 Oct 18:00" in html
    assert "Mark edited" in html
    html = await b.post(f"/desk/forum/{draft.id}/posted", {})
    assert flash_text(html) == "Marked posted."
    assert "Edit the posted" not in html
    async with site.db.uow() as uow:
        actions = [(a.actor, a.action) for a in await uow.audit.list() if a.action[:6] == "forum."]
    assert actions == [(TD, "forum.posted"), (TD, "forum.edited")]


async def test_information_is_on_the_desks_recent_list_not_an_alert(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = site.matches["carol-dave"]
    async with site.db.uow() as uow:
        await site.service.services.notifier.td_alert(
            uow, now=NOW, text="Game xyz did not count: casual", key=game_refused("xyz", match_id)
        )
        await uow.commit()
        assert await uow.outbox.list(kind="td_alert") == []
    b = browsers["tina"]
    await b.login(TD)
    html = await b.get("/desk")
    recent = html.split('id="h-recent"')[1].split("</section>")[0]
    assert f'<a href="/match/{match_id}">match {match_id}</a>: Game xyz did not count' in recent
