"""The desk's buttons the TD week (``test_chromium_td_week.py``) does not reach, pressed by a TD
in a real headless Chromium: the knockout's armageddons and the rest of what the TDs own
without a terminal.

The knockout: both semifinals are tied after ten draws (rules 3.7.2). In the first the players'
bids come to the TDs by message, and the TD relays them from the desk: the lower bid plays White
(3.9.1.2). In the second nobody bids or plays rock-paper-scissors, and the TD names White from
its card (3.9.1.3). Neither game is seen on Lichess: the TD records both from their cards, the
standings shown first (a draw wins for Black, 3.9.1.1). The TD starts the final matches from
the stage's card and charges a game forfeit in a final's room (6.2): the finalist's second in
another match, so the TD confirms their disqualification from its card (6.5). The clock is the
service's fake one; the deadlines fire as it reaches them.

The qualification's first round: the TD refuses an account that never registered (2.2.4) and
adds another by hand on the registrations list, pairs the round on the pairing review, forbids
a pair and swaps two players (the engine re-pairs each time), approves it, counts a game that
did not count (a wrong clock), and disqualifies a player whose account the daily look found
marked (7.3), the standings shown first.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.service.recheck import MARK_ACTION
from bot.views.bracket import armageddon_view
from rules.core.ruleset import StageKind
from rules.stages.armageddon import Phase
from rules.week.forfeits import ForfeitKind
from tests.stages.helpers import matches_of, semifinals_running, stage_game
from tests.web.helpers import NOW, TD, Site, make_config
from tests.web.test_chromium import login
from tests.web.test_chromium_td_week import decide, in_card, pending_titles
from tests.web.test_small_season import small_site
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium, chromium_paths

# The same on both databases (the desk's buttons in a browser; each operation behind them has its
# own test on both databases): CI's PostgreSQL run leaves it to the SQLite run.
pytestmark = pytest.mark.same_on_both_databases

__all__ = ["small_site"]  # the six players of the small season, registered, nothing paired

SHOTS = Path(os.environ.get("ACWC_SHOTS") or Path(__file__).parents[2] / "artifacts")


@pytest.fixture
async def knockout_site(database_url: str) -> AsyncIterator[Site]:
    """The semifinals paired and in play, their week two days old."""
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        sfs = await semifinals_running(service.db, service.config)
        async with service.db.reads() as uow:
            rnd = await uow.tournaments.round(sfs[0].round_id)
        assert rnd is not None
        assert rnd.week_start is not None
        clock.set(rnd.week_start + dt.timedelta(days=2, hours=18))
        matches = {f"sf{i}": row.id for i, row in enumerate(sfs, 1)}
        yield Site(service=service, clock=clock, url=service.web_url, matches=matches)


async def ten_draws(site: Site, match_id: int) -> tuple[str, str]:
    """Ten drawn games of the match through the intake, as the stream delivers them: level
    after ten (rules 3.7.2). The match's two players, first the one White in game 1."""
    async with site.db.reads() as uow:
        row = await uow.matches.get(match_id)
    assert row is not None
    assert row.black_first is not None
    a, b = row.white_first, row.black_first
    for i in range(10):
        white, black = (a, b) if i % 2 == 0 else (b, a)
        await site.service.services.intake(
            stage_game(f"k{match_id:03d}{i:04d}", white, black, site.clock.now())
        )
        site.clock.advance(dt.timedelta(minutes=11))
    return a, b


async def phase(site: Site, match_id: int) -> str:
    async with site.db.reads() as uow:
        view = await armageddon_view(uow, match_id, site.service.config.rules)
    assert view is not None
    return str(view["phase"])


async def relay(td: Chromium, site: Site, player: str, match_id: int, text: str) -> str:
    await td.go(f"{site.url}/desk")
    await td.type("#relay-player", player)
    await td.type("#relay-match", str(match_id))
    await td.type("#relay-text", text)
    await td.submit("#relay button.primary")
    return await td.text("#reply")


@pytest.mark.timeout(180)
async def test_a_td_rules_the_knockout_from_the_desk_in_chromium(knockout_site: Site) -> None:
    chromium_paths()
    site = knockout_site
    sf1, sf2 = site.matches["sf1"], site.matches["sf2"]
    a1, b1 = await ten_draws(site, sf1)
    a2, b2 = await ten_draws(site, sf2)
    async with site.db.reads() as uow:  # the desk names them as they spell their usernames
        name = {p.id: p.username for p in await uow.players.list()}
    async with chromium() as td:
        await td.resize(1280, 1000)
        await login(td, site, TD)

        # Semifinal 1: the players wrote their bids to the TDs; the TD relays them (3.9.1.2).
        assert "sealed" in await relay(td, site, a1, sf1, "bid 2:30")
        said = await relay(td, site, b1, sf1, "bid 2:00")
        assert f"{name[b1]} plays White with 2:00, {name[a1]} plays Black with 3:00" in said

        # Semifinal 2: nobody bids, nobody plays rock-paper-scissors: the TDs name White.
        for _ in range(8):
            if await phase(site, sf2) == Phase.NEEDS_TD.value:
                break
            site.clock.advance(dt.timedelta(hours=25))
            await site.service.runner.fire_due()
        assert await phase(site, sf2) == Phase.NEEDS_TD.value
        await td.go(f"{site.url}/desk")
        titles = await pending_titles(td)
        # One card each, no raw alert beside them: name White in the second, and the first's
        # game to record if Lichess did not show it.
        assert len(titles) == 2, titles
        assert titles[0].startswith(f"Armageddon of match {sf2} ("), titles
        assert titles[0].endswith("): name White"), titles
        assert titles[1].startswith(f"Armageddon game of match {sf1} ("), titles
        await td.submit(in_card(f"white:{b2}", f"{sf2}:white"))
        assert await td.text("#reply") == (
            f"Armageddon of match {sf2}: {name[b2]} plays White with 3:00, {name[a2]} Black with "
            "3:00 and "
            "draw odds (named by the TDs, rules 3.ix.1.3)."
        )
        await td.full_screenshot(SHOTS / "td-knockout-armageddon.png", width=1280)

        # Neither armageddon game was seen on Lichess: the TD records both from their cards.
        await td.go(f"{site.url}/desk")
        won = await decide(td, "1-0", "played on a private link", key=f"{sf1}:game")
        assert f"Match {sf1}: " in won
        won = await decide(td, "1/2-1/2", "drawn on a private link", key=f"{sf2}:game")
        assert won == f"Match {sf2}: {name[a2]} wins the armageddon game."  # a draw: Black wins

        # Both semifinals decided: the TD starts the final matches from the stage's card.
        await td.go(f"{site.url}/desk")
        titles = await pending_titles(td)
        assert any("Semifinal" in t for t in titles), titles
        await td.submit('form.decide button[value="advance"]')
        reply = await td.text("#reply")
        found = re.search(r"final started, first publication not before \w+ ([-\d]+)", reply)
        assert found, reply
        # Its Tuesday: the daily job publishes the final (the advance was its approval).
        site.clock.set(dt.datetime.fromisoformat(found.group(1)).replace(hour=12, tzinfo=dt.UTC))
        await site.service.runner.fire_due()
        finals = [m for m in await matches_of(site.db, StageKind.FINAL) if m.state == "scheduled"]
        assert finals, [m.state for m in await matches_of(site.db, StageKind.FINAL)]
        final = finals[0]

        loser = final.black_first
        assert loser is not None
        async with site.db.uow() as uow:  # a forfeit of theirs in the Candidates, on record
            (earlier, *_) = [
                m for m in await uow.matches.for_player(loser) if m.stage == "candidates"
            ]
            await site.service.services.conduct.record_forfeit(
                uow,
                player=loser,
                match_id=earlier.id,
                kind=ForfeitKind.MATCH,
                reason="no-show",
                now=site.clock.now(),
                actor=TD,
            )
            await uow.commit()

        # A game forfeit charged in the final's room (rules 6.2), told to both players: the
        # second forfeit, in another match (rules 6.5).
        await td.go(f"{site.url}/match/{final.id}")
        await td.click("details:has(form[action$='/game-forfeit']) summary")
        await td.script("document.querySelector('#gf-player').value = arguments[0];", loser)
        await td.type("#gf-reason", "the rematch was not accepted at once, a second time")
        await td.submit("form[action$='/game-forfeit'] button")
        assert await td.text("#reply") == (
            f"Game 1 recorded as forfeited by {name[loser]} (rules 6.2)."
        )

        # A whole season behind it (five qualification rounds, the Candidates, the semifinals),
        # its forum posts pasted as they came: the desk opens on what needs the TDs, and the
        # season's past is folded (3,857 px in all when this was written, at 1280 px wide; the
        # 16 drafts unpasted made it 8,882).
        await td.go(f"{site.url}/desk")
        await td.click("#forum button.copy")  # the first draft to the clipboard, or selected
        assert await td.wait_in_page(
            "const b = document.querySelector('#forum button.copy');"
            "const area = document.getElementById(b.getAttribute('data-copy'));"
            "const done = arguments[arguments.length - 1];"
            "const check = () => b.textContent === 'Copied' || document.activeElement === area"
            " ? done(true) : setTimeout(check, 20);"
            "check();"
        )
        for _ in range(40):
            if "No forum post waits to be pasted." in await td.text("#forum"):
                break
            await td.submit("#forum form.inline button.primary")
        assert "No forum post waits to be pasted." in await td.text("#forum")
        top = await td.script(
            "return document.getElementById('h-pending').getBoundingClientRect().top"
            " + window.scrollY;"
        )
        assert top < 400, top
        height = await td.script("return document.documentElement.scrollHeight;")
        assert height < 4000, height
        await td.full_screenshot(SHOTS / "td-knockout-desk.png", width=1280)

        # Forfeits in two different matches (rules 6.5): the TD confirms the disqualification,
        # the standings' change shown first, through the one exit path (rules 8.4).
        assert any("(rules 6.5)" in t for t in await pending_titles(td))
        said = await decide(td, "confirm", "forfeits in the Candidates and the final")
        assert said == f"{name[loser]} is disqualified.", said

    async with site.db.reads() as uow:
        actions = {r.action for r in await uow.audit.list()}
    assert {
        "desk.relay",
        "armageddon.colours_decided",
        "armageddon.record",
        "forfeit.record",
    } <= actions


async def proposal(site: Site, *, state: str = "proposed") -> list[frozenset[str]]:
    """The pairs of the round in ``state`` (the proposed one, by default)."""
    async with site.db.reads() as uow:
        (rnd,) = [r for r in await uow.tournaments.all_rounds() if r.state == state]
        rows = await uow.matches.for_round(rnd.id)
    return [frozenset((m.white_first, m.black_first)) for m in rows if m.black_first is not None]


async def pair(td: Chromium, site: Site, action: str, first: str = "", second: str = "") -> str:
    """A button of the pairing review (``pair``, ``forbid``, ``swap``); the reply."""
    await td.go(f"{site.url}/desk/rounds")
    if action == "pair":
        await td.submit("form.inline button.primary")
    else:
        await td.type("input[name=first]", first)
        await td.type("input[name=second]", second)
        await td.submit(f'button[value="{action}"]')
    return await td.text("#reply")


@pytest.mark.timeout(120)
async def test_a_td_pairs_the_qualification_and_rules_a_mark_from_the_desk_in_chromium(
    small_site: Site,
) -> None:
    chromium_paths()
    site = small_site
    async with chromium() as td:
        await td.resize(1280, 1000)
        await login(td, site, TD)

        # The registrations: an account refused before it registers (rules 2.2.4), another
        # added by hand (a late entry by mail).
        for name, action, reason in (
            ("Mallory", "refuse", "a second account of Ada"),
            ("Gus", "add", "entered by mail before the deadline"),
        ):
            await td.go(f"{site.url}/register/list")
            await td.type("#reg-user", name)
            await td.type("#reg-reason", reason)
            await td.submit(f'button[value="{action}"]')
            assert (
                await td.text("#reply") == f"{name} {'refused' if action == 'refuse' else 'added'}."
            )
        assert "Mallory a second account of Ada" in await td.text("#refused")
        assert "Gus" in await td.text("table.registrations")

        # The pairing review: the engine pairs round 1, then re-pairs without a pair the TDs
        # forbid and with two players swapped.
        said = await pair(td, site, "pair")
        assert "Qualification round 1 proposed (4 boards)" in said, said  # 3 and a bye
        first = (await proposal(site))[0]
        a, b = sorted(first)
        assert "proposed" in await pair(td, site, "forbid", a, b)
        assert first not in await proposal(site)
        boards = await proposal(site)
        x, y = sorted(boards[0])[0], sorted(boards[1])[0]
        assert "proposed" in await pair(td, site, "swap", x, y)
        assert not set(boards[:2]) & set(await proposal(site))
        await td.go(f"{site.url}/desk")
        await td.submit(in_card("approve"))
        assert "approved and published" in await td.text("#reply")

        # A game of two paired players at the wrong clock did not count; the TD counts it.
        (board, *_) = await proposal(site, state="published")
        white, black = sorted(board)
        await site.service.services.intake(
            stage_game("wrongclk", white, black, site.clock.now(), clock_limit=180)
        )
        await td.go(f"{site.url}/desk")
        assert "Game wrongclk did not count" in " ".join(await pending_titles(td))
        said = await decide(td, "1-0", "both agreed to 3+5 by mistake", key="wrongclk")
        assert said.startswith("Game wrongclk counted as 1-0; match"), said

        # The daily look found Fay's account marked (rules 7.3): disqualified in one click.
        async with site.db.uow() as uow:  # what the daily look records when it finds a mark
            await uow.audit.record(
                at=site.clock.now(),
                actor="bot",
                action=MARK_ACTION,
                player="fay",
                details={"marks": ["tos_violation"], "cheat_games": {}},
            )
            await uow.commit()
        await td.go(f"{site.url}/desk")
        assert "Disqualify Fay? (rules 7.3)" in await pending_titles(td)
        said = await decide(td, "other", "a booster mark on Lichess", changes=("Fay",))
        assert said.startswith("Fay is disqualified"), said
        assert "Disqualify Fay? (rules 7.3)" not in await pending_titles(td)

        # The audit log filtered: what the TD did to the rounds.
        await td.go(f"{site.url}/desk/audit")
        await td.type("#f-actor", TD)
        await td.type("#f-action", "round.")
        await td.submit("form[role=search] button")
        audit = await td.text("table.audit")
        assert "round.propose" in audit
        assert "round.approve" in audit
        assert "registration." not in audit
    async with site.db.reads() as uow:
        fay = await uow.players.get("fay")
    assert fay is not None
    assert fay.status == "disqualified"
