"""A real headless Chromium walks a player through the match room (issue 7's "done when").

Login on the sandbox Lichess, an offer, the opponent's acceptance, games arriving and the score
appearing; screenshots of the match room, the TD desk and the standings (desktop and phone
widths) go to $ACWC_ARTIFACTS (default: artifacts/ in the repository).
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from rules.core.colour import Colour
from storage.models import MatchRow, OutboxRow, RoundRow
from tests.web.helpers import NOW, TD, Site
from tests.web.test_room import game
from tests.web.webdriver import Browser, chromium, chromium_paths

# The same on both databases (a player's pages in a browser; the room's operations have their own
# tests on both databases): CI's PostgreSQL run leaves it to the SQLite run.
pytestmark = pytest.mark.same_on_both_databases

ARTIFACTS = Path(os.environ.get("ACWC_ARTIFACTS") or Path(__file__).parents[2] / "artifacts")
DESKTOP, PHONE = 1280, 390


async def login(b: Browser, site: Site, username: str) -> None:
    await b.go(site.url + "/")
    await b.click("header a.button")  # "Log in with Lichess"
    assert (await b.url()).startswith(site.service.lichess_url + "/oauth")
    # Enter submits with the first button, "Authorize" (a click can land on the datalist popup)
    await b.type("input[name=username]", username + "\ue007")
    assert (await b.wait_for_url(site.url)).startswith(site.url)
    assert username in await b.text("header .who")


async def logout(b: Browser) -> None:
    await b.submit("header .who button")
    assert "You are logged out." in await b.page_text()


async def shots(b: Browser, name: str) -> None:
    await b.full_screenshot(ARTIFACTS / f"{name}-desktop.png", width=DESKTOP)
    await b.full_screenshot(ARTIFACTS / f"{name}-phone.png", width=PHONE)
    await b.resize(DESKTOP, 1000)


async def test_a_player_schedules_and_sees_the_result_in_chromium(site: Site) -> None:
    chromium_paths()
    match_id = site.matches["alice-bob"]
    async with chromium() as b:
        await b.resize(DESKTOP, 1000)
        await login(b, site, "Alice")
        await b.click("p.callout a.button")  # "Open your match room"
        assert (await b.url()).endswith(f"/match/{match_id}")
        for field, value in (
            ("#time1", "2021-10-14T18:00"),
            ("#time2", "2021-10-15T18:00"),
            ("#time3", "2021-10-16T12:00"),
        ):
            await b.set_value(field, value)
        assert "Your time:" in await b.text("#time1-local")  # the local-time hint (script)
        await b.submit("form.offer-form button.primary")
        assert "offer" in (await b.text("#reply")).lower()
        assert 'title="Thu 14 Oct 18:00 UTC"' in await b.html("table.offers")
        await logout(b)

        await login(b, site, "Bob")
        await b.go(f"{site.url}/match/{match_id}")
        await b.submit('button[aria-label="Accept offer 1"]')
        status = await b.html("section.status")
        assert 'title="Thu 14 Oct 18:00 UTC"' in status

        start = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)
        site.clock.set(start + dt.timedelta(hours=2))
        # Games follow each other at once (no pause to report, rules 6.2); 8 minutes each.
        for i in range(6):  # Alice wins six in a row: 6-0 clinches the match (rules 3.v.1)
            white, black = ("alice", "bob") if i % 2 == 0 else ("bob", "alice")
            winner: Colour | None = Colour.WHITE if white == "alice" else Colour.BLACK
            at = start + dt.timedelta(minutes=8 * i, seconds=20 * i)
            await site.service.intake(game(f"GameAB{i:02d}", white, black, at, winner))
        for i in range(7):  # two draws, then Dave wins five: 6-1
            white, black = ("carol", "dave") if i % 2 == 0 else ("dave", "carol")
            winner = None if i < 2 else Colour.WHITE if white == "dave" else Colour.BLACK
            at = start + dt.timedelta(minutes=8 * i, seconds=20 * i)
            await site.service.intake(game(f"GameCD{i:02d}", white, black, at, winner))
        await b.go(f"{site.url}/match/{match_id}")
        status = await b.text("section.status")
        assert "6 – 0" in status or "6 - 0" in status, status
        assert len(await b.find_all('ol.games a[href^="https://lichess.org/GameAB"]')) == 6
        await shots(b, "match-room")
        await logout(b)

        async with site.db.uow() as uow:
            await uow.outbox.enqueue(
                now=NOW,
                kind="forum_draft",
                recipient="forum",
                subject="Round 1 results",
                body="Round 1 results\nAlice 6-0 Bob\nCarol 1-5 Dave",
            )
            await uow.commit()
        async with site.db.uow() as uow:  # the next round's pairings wait for a TD
            first = await uow.tournaments.round(1)
            assert first is not None
            second = await uow.tournaments.add_round(RoundRow(stage_id=first.stage_id, number=2))
            for board, (a, b_) in enumerate((("dave", "alice"), ("bob", "carol")), start=1):
                await uow.matches.add(
                    MatchRow(
                        round_id=second.id,
                        stage="qualification",
                        board=board,
                        white_first=a,
                        black_first=b_,
                        games=10,
                        clinch_at="11/2",
                        tiebreak="none",
                        state="proposed",
                    )
                )
            await uow.commit()
        await login(b, site, TD)
        await b.go(f"{site.url}/desk")
        assert "Round 1 results" in await b.text("#forum")
        assert "Approve pairings: Qualification round 2" in await b.text("#main")
        await shots(b, "td-desk")
        await b.go(f"{site.url}/standings")
        table = await b.text("table.standings")
        assert "BH-M1" in table
        assert "After 1 round." in await b.page_text()
        await shots(b, "standings")
    assert (ARTIFACTS / "match-room-phone.png").stat().st_size > 0
    async with site.db.uow() as uow:
        drafts = [r for r in await uow.outbox.list(kind="forum_draft") if isinstance(r, OutboxRow)]
    assert drafts
