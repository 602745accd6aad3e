"""A six-player qualification finishes and the season reaches a champion (rules 3.v.2, 3.v.6).

Six entrants play four rounds. The lower seed wins every match, and after three rounds the
players still to meet are two triangles: round 4 has no pairing without a rematch, and the
Dutch engine says so. The TDs pair it by hand on the desk (one rematch, overridden with a
reason), approve it as an engine pairing, and, with too few players for the Candidates
(rules 1.3, 5.10), end the championship with the qualification. Everything the TDs do goes
through the desk over HTTP, the service running on a fake clock against the sandbox.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.views.qualification import standings
from tests.web.helpers import NOW, TD, Browser, Site, flash_text, make_config

PLAYERS = ("Ada", "Ben", "Cy", "Dee", "Eli", "Fay")  # seeded in this order: 1 to 6


@pytest.fixture
async def small_site(database_url: str) -> AsyncIterator[Site]:
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        found = service.services
        async with service.db.uow() as uow:
            await found.tournament.create(uow, now=NOW, actor=TD)
            for i, name in enumerate(PLAYERS):
                await found.players.add(uow, name, seed_rating=2300 - 50 * i, now=NOW, actor=TD)
            await uow.commit()
        yield Site(service=service, clock=clock, url=service.web_url, matches={})


@pytest.fixture
async def td(small_site: Site) -> AsyncIterator[Browser]:
    b = Browser(small_site)
    await b.login(TD)
    yield b
    await b.close()


def card_key(html: str, kind: str) -> str:
    found = re.search(
        rf'name="kind" value="{kind}"><input type="hidden" name="key" value="([^"]+)"', html
    )
    assert found, f"no {kind} card on the desk"
    return found.group(1)


async def approve(td: Browser) -> None:
    html = await td.get("/desk")
    html = await td.post(
        "/desk/decide", {"kind": "round", "key": card_key(html, "round"), "choice": "approve"}
    )
    assert "approved and published" in flash_text(html), flash_text(html)


async def lower_seed_wins(site: Site, td: Browser, number: int) -> list[tuple[str, str]]:
    """Every match of round ``number`` adjudicated on the desk for the lower seed."""
    seed = {name.lower(): i for i, name in enumerate(PLAYERS, 1)}
    async with site.db.reads() as uow:
        (rnd,) = [r for r in await uow.tournaments.all_rounds() if r.number == number]
        matches = await uow.matches.for_round(rnd.id)
    boards = []
    for m in matches:
        assert m.black_first is not None
        boards.append((m.white_first, m.black_first))
        winner = max((m.white_first, m.black_first), key=seed.__getitem__)
        await td.get("/desk")
        form = {"match_id": str(m.id), "winner": winner, "reason": "the lower seed won"}
        html = await td.post("/desk/adjudicate/preview", form)
        assert "Nothing has changed yet." in html
        html = await td.post("/desk/adjudicate", form)
        assert f"Match {m.id}: " in flash_text(html), flash_text(html)
    return boards


@pytest.mark.timeout(120)
async def test_a_six_player_qualification_finishes_and_the_season_has_a_champion(
    small_site: Site, td: Browser
) -> None:
    site = small_site
    played: list[list[tuple[str, str]]] = []
    for number in (1, 2, 3):
        site.clock.set(NOW + dt.timedelta(weeks=number - 1))
        await td.get("/desk/rounds")
        html = await td.post("/desk/rounds/pair", {"action": "pair"})
        assert f"Qualification round {number} proposed" in flash_text(html), flash_text(html)
        await approve(td)
        played.append(await lower_seed_wins(site, td, number))
    met = {frozenset(b) for boards in played for b in boards}
    assert len(met) == 9  # nine different pairs: each player met three of the other five

    # Round 4: the engine finds no pairing, and says where the TDs pair it.
    site.clock.set(NOW + dt.timedelta(weeks=3))
    await td.get("/desk/rounds")
    html = await td.post("/desk/rounds/pair", {"action": "pair"})
    assert "find no pairing for round 4" in flash_text(html)
    assert "pair it by hand (rules 3.v.6)" in flash_text(html)
    html = await td.get("/desk/pairing")
    assert "The engine found no pairing" in html
    assert html.count("a rematch") == 1  # the start: the pairing with the fewest warnings
    boards = [
        (
            re.search(rf'name="white{i}">.*?value="(\w+)" selected', html, re.S),
            re.search(rf'name="black{i}">.*?value="(\w+)" selected', html, re.S),
        )
        for i in (1, 2, 3)
    ]
    form = {"reason": ""}
    for i, (w, b) in enumerate(boards, 1):
        assert w
        assert b
        form[f"white{i}"], form[f"black{i}"] = w.group(1), b.group(1)
    html = await td.post("/desk/pairing", form)  # a warning without a reason is not kept
    assert "give a reason below and keep it" in html
    form["reason"] = "six players, four rounds: one rematch is unavoidable"
    html = await td.post("/desk/pairing", form)
    assert "(1 warning(s) overridden)" in flash_text(html), flash_text(html)
    await approve(td)
    fourth = await lower_seed_wins(site, td, 4)
    assert len({frozenset(b) for b in fourth} & met) == 1  # the one rematch

    # The qualification is complete; six players cannot fill the Candidates' pools.
    html = await td.get("/desk")
    assert "Too few qualifiers for the Candidates: 6 of 12" in html
    key = card_key(html, "stage")
    html = await td.post(
        "/desk/decide",
        {"kind": "stage", "key": key, "choice": "end_stage", "reason": "six players only"},
    )
    assert "qualification complete" in flash_text(html), flash_text(html)
    async with site.db.reads() as uow:
        ended = [r for r in await uow.audit.list() if r.action == "stage.advance"]
        table = await standings(uow, site.service.config.rules)
        by_hand = [r for r in await uow.audit.list() if r.action == "round.pair_by_hand"]
    placement = ended[-1].details["placement"]
    assert len(placement) == 6
    champion = placement[0]
    assert champion == table.rows[0].player  # the qualification's winner is the champion
    assert table.rows[0].match_points == 4  # the lowest seed won all four matches
    assert champion == "fay"
    assert [(r.actor, r.reason) for r in by_hand] == [
        (TD, "six players, four rounds: one rematch is unavoidable")
    ]
    html = await td.get("/desk")
    assert "Nothing waits for a decision." in html
