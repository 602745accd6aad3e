"""Issue 28's done-when on a played demo: ``acwc demo --seasons 2`` plays a season, the TDs make
the next from it (the desk's and ``acwc season new``'s operation), the same people play it on
the same service, and the first season's pages read at their URLs after it are the pages read
after its own champion; the second season's title holder and runner-up are the first's champion
and runner-up (rules 3.3, 3.4), and its Candidates tiebreak reads the first's final (3.6.6.4).

Cheap on purpose (the suite's time): 13 players, two-game matches, lila's export pace off."""

from __future__ import annotations

import difflib
import re

import aiohttp
import pytest

from bot.app import Service
from bot.demo.next_season import NEWCOMERS
from bot.demo.report import Reporter
from bot.demo.season import DemoOptions, SeasonResult, run_season
from bot.views.candidates import pool_tables
from tests.demo.test_season import PLAYERS, without_export_pace
from tests.robustness.harness import two_game_matches
from tests.web.test_seasons_web import ARCHIVED_PAGES, _content

PAGES = tuple(path for path in ARCHIVED_PAGES if "player03" not in path)
"""The pages the storage-built seasons' test reads (tests/web/test_seasons_web.py), but for a
player the demo does not have (its seeded 2021 entrants are PepsiNGaming and GrohochetGrom)."""


READ_AT = re.compile(
    r'<span class="rel" data-until="[^"]*">\([^)]*\)</span>|It is now <time [^>]*>[^<]*</time>'
    r"|DTSTAMP:\S+"
)
"""What a page says of the moment it is read ("3 days ago", "It is now ...", a calendar
entry's stamp, RFC 5545 3.8.7.2): the second read is a year later, and these say so; the
season's content is the rest."""


def _same(page: str) -> str:
    return READ_AT.sub("", _content(page))


class Seen:
    """What the test reads after each season's champion, while the service runs."""

    def __init__(self) -> None:
        self.pages: list[dict[str, str]] = []
        self.seeding: list[tuple[str | None, str | None, tuple[str, ...]]] = []
        self.seeded: list[dict[str, str]] = []
        self.final_places: list[dict[str, int]] = []
        self.champions: list[str] = []
        self.entered: list[int] = []

    async def __call__(self, service: Service, result: SeasonResult) -> None:
        assert service.web_url is not None
        if not self.champions:
            self.champions = [str(p) for p in result.placement[:2]]
        paths = (*PAGES, *(f"/2021/players/{p}" for p in self.champions))
        async with aiohttp.ClientSession(service.web_url) as http:
            pages = {}
            for path in paths:
                async with http.get(path) as response:
                    assert response.status == 200, path
                    pages[path] = await response.text()
        self.pages.append(pages)
        seeding = service.config.rules.seeding
        self.seeding.append(
            (seeding.title_holder, seeding.runner_up, tuple(seeding.previous_final_order))
        )
        async with service.db.reads() as uow:
            entered = await uow.players.list()
            self.entered.append(len(entered))
            self.seeded.append({p.id: p.seeded_as for p in entered if p.seeded_as})
            tables = await pool_tables(uow, service.config)
        self.final_places.append(
            {
                row.player: row.previous_final_place
                for _, rows, _ in tables.values()
                for row in rows
                if row.previous_final_place is not None
            }
        )


@pytest.mark.timeout(400)  # two seasons: a hang guard, each a fraction of that
async def test_two_demo_seasons_keep_the_first_s_pages_and_seed_the_second_from_it() -> None:
    seen = Seen()
    options = DemoOptions(
        players=PLAYERS,
        seed=7,
        seasons=2,
        settle_timeout=30.0,
        sandbox_setup=without_export_pace,
        after_season=seen,
    )
    first = await run_season(two_game_matches(), options, reporter=Reporter(write=None))
    assert first.anomalies == []
    (second,) = first.next_seasons
    assert (first.year, second.year) == (2021, 2022)
    assert second.anomalies == []
    assert len(second.placement) == 4
    # the same people registered themselves again, and two newcomers with them
    assert seen.entered == [PLAYERS, PLAYERS + NEWCOMERS]
    assert any("Champions: 2021 " in line and ", 2022 " in line for line in second.lines)

    before, after = seen.pages
    assert "BEGIN:VCALENDAR" in before["/2021/calendar.ics"]
    assert before["/2021/qualification.trf"].startswith("012 ")
    changed = {
        path: "\n".join(
            difflib.unified_diff(
                _same(before[path]).splitlines(), _same(page).splitlines(), lineterm=""
            )
        )
        for path, page in after.items()
        if _same(page) != _same(before[path])
    }
    assert not changed, "\n\n".join(f"{path}:\n{diff}" for path, diff in changed.items())
    assert "archived" not in before["/2021/standings"].lower()
    assert "you are reading the 2021 season" in after["/2021/standings"]

    # 2022's seeded entrants are 2021's champion and runner-up, and its tiebreak reads 2021's
    # final (rules 3.3, 3.4, 3.6.6.4)
    champion, runner_up = first.placement[:2]
    holder, second_place, final = seen.seeding[1]
    assert [n.lower() for n in (holder or "", second_place or "")] == [champion, runner_up]
    assert [n.lower() for n in final] == list(first.placement)
    assert seen.seeded[1] == {champion: "title_holder", runner_up: "runner_up"}
    place: dict[str, int] = {p: i for i, p in enumerate(first.placement, start=1)}
    assert {champion, runner_up} <= set(seen.final_places[1])
    assert all(place[p] == n for p, n in seen.final_places[1].items())
