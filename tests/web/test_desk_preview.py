"""Before a TD confirms a decision that can change the standings, the desk shows the lines it
changes (rank, player, points before -> after), and nothing is kept until the confirmation."""

from __future__ import annotations

import re
from fractions import Fraction
from html import unescape

from bot.views.standings_change import StandingsLine, changed_lines
from tests.web.helpers import TD, Browser, Site, flash_text, no_agreement


async def td(browsers: dict[str, Browser]) -> Browser:
    b = browsers["tina"]
    await b.login(TD)
    await b.get("/desk")
    return b


def change_rows(html: str) -> list[list[str]]:
    """The preview's table of changed lines, as text cells."""
    table = re.search(r'<table class="changes">(.*?)</table>', html, re.S)
    if table is None:
        return []
    return [
        [
            unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)
        if "<td" in row
    ]


async def test_a_fault_ruling_shows_the_standings_lines_it_changes_before_it_is_made(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = await no_agreement(site, b)
    assert 'formaction="/desk/decide/preview"' in b.last_html
    assert "can change the standings: it first shows the lines it changes" in b.last_html
    form = {"kind": "fault", "key": f"{match_id}:w1", "choice": "nobody", "reason": "both late"}
    html = await b.post("/desk/decide/preview", form)
    assert "Nothing has changed yet." in html
    assert "nobody at fault; the match is ruled tied" in unescape(html)
    rows = change_rows(html)
    players = {r[2]: r for r in rows}
    assert set(players) == {"Alice", "Bob"}, rows  # Carol and Dave keep rank and points
    assert players["Alice"][0] == "Qualification"
    assert players["Alice"][3] == "0 (0 game pts) -> ½ (0 game pts)"
    assert players["Bob"][3] == "0 (0 game pts) -> ½ (0 game pts)"
    # Nothing was kept: the match is undecided, the card still waits, no audit line.
    assert await outcome(site, match_id) is None
    async with site.db.uow() as uow:
        assert not [r for r in await uow.audit.list() if r.action == "fault.decide"]
    html = await b.get("/desk")
    assert f"No agreed time in match {match_id}" in html
    # The preview page's button makes the same decision for real.
    html = await b.post("/desk/decide/preview", form)
    confirm = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))
    assert confirm["choice"] == "nobody"
    assert confirm["reason"] == "both late"
    html = await b.post("/desk/decide", {k: unescape(v) for k, v in confirm.items()}, csrf=None)
    assert "ruled tied" in flash_text(html)
    assert await outcome(site, match_id) == "tied"


async def outcome(site: Site, match_id: int) -> str | None:
    async with site.db.uow() as uow:
        row = await uow.matches.get(match_id)
    assert row is not None
    return row.outcome


async def test_a_preview_is_refused_like_the_decision_without_a_reason_or_when_settled(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = await no_agreement(site, b)
    form = {"kind": "fault", "key": f"{match_id}:w1", "choice": "fault:alice", "reason": " "}
    html = await b.post("/desk/decide/preview", form)
    assert "Give a reason" in flash_text(html)
    await b.post("/desk/decide/preview", form | {"choice": "nope", "reason": "x"}, status=400)
    await b.post("/desk/decide", form | {"reason": "no reply"})
    html = await b.post("/desk/decide/preview", form | {"reason": "no reply"})
    assert "already settled or is gone" in flash_text(html)


async def test_a_result_correction_previews_and_keeps_nothing_until_confirmed(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = site.matches["carol-dave"]
    data = {"match_id": str(match_id), "game": "1", "result": "0-1", "reason": "wrong link"}
    html = await b.post("/desk/result/preview", data)
    assert "Nothing has changed yet." in html
    assert "score 0-1" in html
    assert "No standings line changes." in html  # one game of ten decides nothing yet
    async with site.db.uow() as uow:
        assert await uow.games.for_match(match_id) == []
    html = await b.post("/desk/result/preview", data | {"reason": ""})
    assert "reason is required" in flash_text(html)
    html = await b.post("/desk/result/preview", data | {"game": "²"}, status=400)


def line(table: str, rank: int, player: str, points: str) -> StandingsLine:
    return StandingsLine(table, rank, player, Fraction(points), Fraction(0))


def test_changed_lines_names_rank_and_points_moves_and_leaves_the_rest_out() -> None:
    before = {
        ("Q", "a"): line("Q", 1, "A", "1"),
        ("Q", "b"): line("Q", 2, "B", "1"),
        ("Q", "c"): line("Q", 3, "C", "0"),
    }
    after = {
        ("Q", "b"): line("Q", 1, "B", "2"),
        ("Q", "a"): line("Q", 2, "A", "1"),
        ("Q", "c"): line("Q", 3, "C", "0"),
    }
    changes = changed_lines(before, after)
    assert [(c.player, c.rank, c.points) for c in changes] == [
        ("B", "2 -> 1", "1 (0 game pts) -> 2 (0 game pts)"),
        ("A", "1 -> 2", "1 (0 game pts)"),
    ]
    assert changed_lines(before, before) == ()
    gone = changed_lines(before, {k: v for k, v in before.items() if k != ("Q", "c")})
    assert [(c.player, c.rank, c.points) for c in gone] == [("C", "3 -> -", "0 (0 game pts) -> -")]
