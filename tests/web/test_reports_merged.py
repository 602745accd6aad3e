"""Private reports to the TDs are merged like other notices (issue 29, item 6): ten reports in
five minutes reach each TD as one Lichess message, not ten; a decision's alert takes waiting
reports along at once."""

from __future__ import annotations

import datetime as dt

import aiohttp

from tests.web.helpers import NOW, TD, Browser, Site, flash_text


async def inbox(site: Site, user: str) -> list[str]:
    """The DMs the sandbox Lichess delivered to ``user``."""
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{site.service.lichess_url}/_sandbox/inbox", params={"to": user}) as resp,
    ):
        assert resp.status == 200
        return [str(m["text"]) for m in await resp.json()]


async def test_ten_reports_in_five_minutes_are_one_message_to_each_td(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    match_id = site.matches["alice-bob"]
    for i in range(10):
        site.clock.set(NOW + dt.timedelta(seconds=30 * i))
        await alice.get(f"/match/{match_id}")
        report = {"action": "report", "report": f"n{i}: bob played too fast, ask carol"}
        html = await alice.post(f"/match/{match_id}/say", report)
        assert "flash ok" in html, flash_text(html)
    await site.service.dispatcher.deliver_due()
    assert not [m for m in await inbox(site, TD) if "private report" in m]  # still waiting
    site.clock.set(NOW + dt.timedelta(minutes=10))
    await site.service.dispatcher.deliver_due()
    reports = [m for m in await inbox(site, TD) if "private report" in m]
    assert len(reports) == 1, reports
    # the reporter as they spell their name; their words quoted as they wrote them
    said = [f"Alice wrote: “n{i}: bob played too fast, ask carol”" for i in range(10)]
    assert all(words in reports[0] for words in said), reports[0]
