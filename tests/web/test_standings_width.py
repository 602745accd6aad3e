"""The standings table fits the screen (issue 29): at 1,280 px every column shows and nothing is
hidden behind the table's scroll box; on a 375-px phone the tiebreak columns are folded away
and the earlier rounds folded away (a player's page has them),
and what is left fits.

The season is a qualification of 64 players with long Lichess usernames after its 8 rounds
(rules 3.v.2: 64-127 players play 8; the 2021 field was smaller), every match decided by its
games, measured in headless Chromium.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.service.stages.qualification import fix_entrants
from bot.service.stages.rounds import new_match
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState, RoundState
from storage.models import GameRow, RoundRow
from tests.web.helpers import NOW, TD, Site, make_config
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium

# The same on both databases (the standings' layout): CI's PostgreSQL run leaves it to the SQLite
# run.
pytestmark = pytest.mark.same_on_both_databases

PLAYERS = 64
ROUNDS = 8
NAMES = tuple(
    f"Antichess_Grandmaster{i:02d}" if i % 3 == 0 else f"Player{i:02d}" for i in range(PLAYERS)
)
MEASURE = """
const box = document.querySelector('.scroll');
const table = box.querySelector('table.standings');
const shown = [...table.querySelectorAll('thead th')]
  .filter((th) => getComputedStyle(th).display !== 'none')
  .map((th) => th.textContent.trim());
const root = document.documentElement;
return {box: box.clientWidth, table: table.scrollWidth, shown: shown,
        page: root.scrollWidth, fits: root.clientWidth};
"""


def circle(n: int, rnd: int) -> list[tuple[int, int]]:
    """Round ``rnd`` of a round robin of ``n`` players (the circle method): no rematches."""
    others = list(range(1, n))
    others = others[rnd:] + others[:rnd]
    ring = [0, *others]
    return [(ring[i], ring[n - 1 - i]) for i in range(n // 2)]


async def every_round(service: Service) -> None:
    """Entrants, then every round complete: the first-named player of each match wins it
    6-1
    (five wins, then two draws: game points with halves)."""
    rules = service.config.rules
    start = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
    async with service.db.uow() as uow:
        tournament = await service.services.tournament.create(uow, now=NOW, actor=TD)
        for i, name in enumerate(NAMES):
            await service.services.players.add(
                uow, name, seed_rating=2400 - i * 10, now=NOW, actor=TD
            )
        stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
        assert stage is not None
        await fix_entrants(uow, stage, rules, now=NOW, actor=TD)
        for number in range(1, ROUNDS + 1):
            rnd = await uow.tournaments.add_round(
                RoundRow(stage_id=stage.id, number=number, state=RoundState.COMPLETE)
            )
            for board, (a, b) in enumerate(circle(PLAYERS, number - 1), start=1):
                white, black = NAMES[a].lower(), NAMES[b].lower()
                match = new_match(rnd, StageKind.QUALIFICATION, board, white, black, rules)
                match.state, match.outcome = MatchState.COMPLETE, Outcome.FIRST_WINS
                match.decided_by = DecidedBy.GAMES
                row = await uow.matches.add(match)
                when = start + dt.timedelta(weeks=number - 1)
                for g in range(7):
                    w, b_ = (white, black) if g % 2 == 0 else (black, white)
                    winner = None if g >= 5 else ("w" if w == white else "b")
                    await uow.games.add(
                        GameRow(
                            id=f"R{number}B{board:02d}G{g}",
                            match_id=row.id,
                            white=w,
                            black=b_,
                            status="mate" if winner else "draw",
                            winner=winner,
                            variant="antichess",
                            rated=True,
                            clock_limit=120,
                            clock_increment=5,
                            created_at=when + dt.timedelta(minutes=9 * g),
                            last_move_at=when + dt.timedelta(minutes=9 * g + 8),
                            counted=True,
                            recorded_at=when + dt.timedelta(minutes=9 * g + 8),
                        )
                    )
        await uow.commit()


@pytest.fixture
async def season_site(database_url: str) -> AsyncIterator[Site]:
    clock = FakeClock(NOW + dt.timedelta(weeks=ROUNDS))
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        await every_round(service)
        yield Site(service=service, clock=clock, url=service.web_url, matches={})


async def measure(b: Chromium, site: Site, width: int) -> dict[str, Any]:
    await b.resize(width, 900)
    await b.go(site.url + "/standings")
    found: dict[str, Any] = await b.script(MEASURE)
    return found


async def test_the_standings_fit_a_desktop_and_a_phone(season_site: Site) -> None:
    rounds = [f"R{n}" for n in range(1, ROUNDS + 1)]
    ranking = ["#", "Player", *rounds, "MP", "BH-M1"]
    async with chromium() as b:
        wide = await measure(b, season_site, 1280)
        phone = await measure(b, season_site, 375)
    # a desktop: every column, none behind the scroll box's edge
    assert wide["shown"] == [*ranking, "Prog", "Seed", "BH", "GP", "Games", "Cut", "Status"], wide
    assert int(wide["table"]) <= int(wide["box"]), wide
    # a phone: the ranking columns and the latest round only, and they fit too
    assert phone["shown"] == ["#", "Player", f"R{ROUNDS}", "MP", "BH-M1"], phone
    assert int(phone["table"]) <= int(phone["box"]), phone
    assert int(phone["page"]) <= int(phone["fits"]), phone
