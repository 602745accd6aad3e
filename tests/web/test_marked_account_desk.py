"""Rules 7.3 on the desk, over HTTP: the daily look's flag is a card whose disqualification is
previewed (the standings before and after) and then made in one click through the exit path."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

from bot.service.recheck import MARK_ACTION
from tests.web.helpers import TD, Browser, Site, flash_text


async def test_a_marked_account_is_disqualified_from_the_desk_in_one_click(
    site: Site, browsers: dict[str, Browser]
) -> None:
    async with site.db.uow() as uow:  # what the daily look records when it finds a mark
        await uow.audit.record(
            at=site.clock.now() - dt.timedelta(hours=1),
            actor="bot",
            action=MARK_ACTION,
            player="bob",
            details={"marks": ["tos_violation"]},
        )
        await uow.commit()
    tina = browsers["tina"]
    await tina.login(TD)
    html = await tina.get("/desk")
    assert "Disqualify Bob? (rules 7.3)" in html
    assert "acwc" not in re.sub(r"(?i)\[acwc\]|acwc-\S+|ACWC \d+", "", html.split("<main")[1])
    (key,) = re.findall(r'name="key" value="(bob:\d+)"', html)[:1]
    form = {"kind": "marked", "key": key, "choice": "other", "reason": "booster mark"}
    html = await tina.post("/desk/decide/preview", form)
    assert "Nothing has changed yet." in html
    async with site.db.uow() as uow:
        player = await uow.players.get("bob")
    assert player is not None
    assert player.status == "active"
    confirm = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))
    html = await tina.post("/desk/decide", {k: unescape(v) for k, v in confirm.items()}, csrf=None)
    assert "Bob is disqualified" in flash_text(html)
    assert "Disqualify Bob? (rules 7.3)" not in html
    async with site.db.uow() as uow:
        player = await uow.players.get("bob")
        match = await uow.matches.get(site.matches["alice-bob"])
    assert player is not None
    assert player.status == "disqualified"
    assert match is not None
    assert (match.decided_by, match.outcome) == ("forfeit", "first_wins")  # rules 8.1.1
