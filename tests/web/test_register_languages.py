"""Issue 28 item 5: a first-time registrant has no language stored yet; what the registration
tells them (a refusal known at once, each reason their account may not play, a check Lichess
could not answer) is in the language of their pages (their browser's or the one they picked),
and that language is stored as theirs when they are entered."""

from __future__ import annotations

import datetime as dt
from html import unescape

from bot.sandbox.state import SandboxState
from bot.service.registration import td_hand
from tests.web.helpers import TD, Browser, Site, flash_text
from tests.web.test_register import checked, reg_site
from tests.web.test_register_check import given_up

__all__ = ["reg_site"]  # the fixture, used by name

FRENCH = {"Accept-Language": "fr-CA,fr;q=0.9"}


async def test_an_ineligible_account_reads_each_reason_in_its_browser_s_language(
    reg_site: tuple[Site, SandboxState],
) -> None:
    site, _ = reg_site
    newbie, robo = Browser(site, headers=FRENCH), Browser(site)
    try:
        await newbie.login("Newbie", next_path="/register")
        html = await newbie.post("/register", {})
        assert flash_text(html) == (
            "Votre compte est en cours de vérification : cette page montre où elle en est."
        )
        await checked(site, "Newbie")
        html = await newbie.get("/register")
        assert "Vous ne pouvez pas vous inscrire :" in html
        assert "<li>le compte a été créé trop tard (règle 2.i)</li>" in html
        assert "<li>trop peu de parties classées avant la date limite (règle 2.i)</li>" in html
        # the same kind of page to a browser that asks for nothing: English
        await robo.login("Robo", next_path="/register")
        await robo.post("/register", {})
        await checked(site, "Robo")
        html = await robo.get("/register")
        assert "<li>a BOT account cannot play (rules 2.ii.5)</li>" in html
        # the one who picked French in the foot reads it French
        await robo.get("/language/fr?next=/register")
        assert "<li>un compte BOT ne peut pas jouer (règle 2.ii.5)</li>" in await robo.get(
            "/register"
        )
    finally:
        await newbie.close()
        await robo.close()


async def test_a_refusal_known_at_once_is_in_the_registrant_s_language(
    reg_site: tuple[Site, SandboxState],
) -> None:
    site, _ = reg_site
    async with site.db.uow() as uow:
        await td_hand(
            uow,
            site.service.services.players,
            "Otto",
            refuse=True,
            reason="second account",
            now=site.clock.now(),
            actor=TD,
        )
        await uow.commit()
    otto = Browser(site, headers=FRENCH)
    try:
        await otto.login("Otto", next_path="/register")
        html = await otto.post("/register", {})
        assert "Les arbitres ont refusé votre inscription (second account)" in html
    finally:
        await otto.close()


async def test_a_check_lichess_cannot_answer_is_told_in_the_registrant_s_language(
    reg_site: tuple[Site, SandboxState],
) -> None:
    site, state = reg_site
    regina = Browser(site, headers=FRENCH)
    try:
        await regina.login("Regina", next_path="/register")
        state.outage(site.clock.now() + dt.timedelta(hours=1))
        await regina.post("/register", {})
        found = await given_up(site, "Regina")
        assert found.problem is not None
        assert found.problem.startswith("Lichess could not be reached: ")  # kept in English
        html = unescape(await regina.get("/register"))
        assert "Votre vérification d'éligibilité n'a pas pu aboutir : Lichess n'a pas pu" in html
        # Lichess is back: she is entered, and the language of her pages is hers from now on
        assert found.not_before is not None
        site.clock.set(max(found.not_before, site.clock.now()) + dt.timedelta(hours=1))
        await checked(site, "Regina")
        assert "Vous êtes inscrit, Regina." in await regina.get("/register")
        async with site.db.reads() as uow:
            player = await uow.players.get("regina")
        assert player is not None
        assert player.language == "fr"
    finally:
        await regina.close()
