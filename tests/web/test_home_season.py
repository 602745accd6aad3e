"""The home page and the registration page through a season (issue 29, items 4 and 6): Register
is offered while registration is open and never after the final, which names the champion; a
registered player cannot withdraw from the page once pairings are out; a logged-in visitor who
is not a player is not told to wait for pairings."""

from __future__ import annotations

import random

from rules.core.model import PlayerId
from rules.stages.knockout import Slot, pair_finals, record_final, record_semifinal, start_bracket
from storage.models import PlayerRow
from tests.web.helpers import NOW, Browser, Site
from tests.web.test_register import reg_site  # a fixture, used by name

__all__ = ["reg_site"]


async def final_won_by(site: Site, winner: str) -> None:
    """A knockout whose final ``winner`` won (the bracket as the stages keep it)."""
    names = ("alice", "bob", "carol", "dave")
    async with site.db.uow() as uow:
        for name in names:
            if await uow.players.get(name) is None:
                await uow.players.add(
                    PlayerRow(id=name, username=name.title(), registered_at=NOW, seed_rating=2000)
                )
        tournament = await uow.tournaments.current()
        assert tournament is not None
        ids = [PlayerId(n) for n in names]
        bracket = start_bracket(ids[:2], ids[2:])
        for slot in (Slot.SF1, Slot.SF2):
            semi = bracket.semifinal(slot)
            bracket = record_semifinal(bracket, slot, semi.white_first)
        bracket = pair_finals(bracket, rng=random.Random(1))
        bracket = record_final(bracket, Slot.FINAL, PlayerId(winner))
        await uow.later_stages.save_bracket(tournament.id, bracket, now=NOW)
        await uow.commit()


async def test_the_champion_replaces_register_on_the_home_page(
    reg_site: tuple[Site, object],
) -> None:
    site, _ = reg_site
    visitor = Browser(site)
    try:
        html = await visitor.get("/")
        assert 'id="register-link"' in html
        assert "is the champion" not in html
        await final_won_by(site, "alice")
        html = await visitor.get("/")
        assert "Alice is the champion" in html
        assert 'id="register-link"' not in html
        assert "log in with Lichess</a> to schedule" not in html
    finally:
        await visitor.close()


async def test_no_withdrawal_from_the_page_once_pairings_are_out(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    html = await alice.get("/register")
    assert "Withdraw my registration" not in html
    assert "The season has started" in html


async def test_a_visitor_who_is_not_a_player_is_not_told_to_wait_for_pairings(
    site: Site, browsers: dict[str, Browser]
) -> None:
    eve = browsers["eve"]
    await eve.login("Eve")
    html = await eve.get("/match")
    assert "not a player of this tournament" in html
    assert "Tuesdays" not in html
