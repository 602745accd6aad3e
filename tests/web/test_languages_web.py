"""Issue 28 item 5: a player picks their language on /account; their notices and their pages
follow it, their opponent's stay in theirs."""

from __future__ import annotations

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from rules.core.states import RoundState
from storage.models import OutboxRow
from tests.web.helpers import NOW, TD, Browser, Site, flash_text, make_config, seed


async def _dms(site: Site, to: str) -> list[OutboxRow]:
    async with site.db.uow() as uow:
        return [r for r in await uow.outbox.list(kind="dm") if r.recipient.lower() == to]


async def test_a_player_s_notices_and_pages_follow_the_language_they_chose(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, bob = browsers["alice"], browsers["bob"]
    match_id = site.matches["alice-bob"]
    await alice.login("Alice")
    html = await alice.get("/account")
    assert '<html lang="en">' in html
    assert 'name="language" value="en" lang="en" checked' in html
    html = await alice.post("/account/language", {"language": "fr"})
    assert flash_text(html) == "Vos notifications et vos pages sont désormais en Français."
    assert '<html lang="fr">' in html
    assert "<h1>Votre compte</h1>" in html
    assert 'name="language" value="fr" lang="fr" checked' in html
    async with site.db.uow() as uow:
        row = await uow.players.get("alice")
        assert row is not None
        assert row.language == "fr"
        audit = [a.details for a in await uow.audit.list() if a.action == "player.preferences"]
    assert audit == [{"language": "fr"}]

    # Her reply in the room, and the notice to her opponent in his language (English)
    html = await alice.post(
        f"/match/{match_id}/say",
        {"action": "offer", "time1": "2021-10-14T18:00", "time2": "2021-10-15T18:00"},
    )
    assert flash_text(html).startswith("Vos propositions ont été envoyées à Bob :\n1. jeu. 14 oct.")
    # her room in French: what to do now, the offers' states, the deadlines
    assert "À faire maintenant" in html
    assert "Faites vos propositions" in html  # two of the three offers due made
    assert "<td>ouverte</td>" in html
    assert "Date limite des propositions (règle 5.1) :" in html
    assert "ven. 15 oct. 23:59 UTC" in html
    assert '<h2 id="h-notices">Vos notifications</h2>' in html
    assert "Appariement" in html  # the kind of her pairing notice (sent in English before)
    (offered,) = [r for r in await _dms(site, "bob") if "offered times" in r.body]
    assert offered.body.startswith("Alice offered times for your ACWC match:\n1. Alice: Thu 14 Oct")

    # The agreed time reaches each of them in their own words
    await bob.login("Bob")
    html = await bob.get(f"/match/{match_id}")  # his room stays English
    assert "Answer Alice's offer" in html
    assert "<td>open</td>" in html
    html = await bob.post(f"/match/{match_id}/say", {"action": "accept", "index": "1"})
    assert "flash ok" in html, flash_text(html)
    await site.service.runner.fire_due()  # game 1's challenge, sent with the agreed time
    (hers,) = [r for r in await _dms(site, "alice") if "fixé" in r.body]
    assert hers.body.startswith("Votre match ACWC contre Bob est fixé : jeu. 14 oct. 18:00 UTC")
    assert "si aucune partie n'a commencé 10 minutes après l'heure convenue" in hers.body
    (his,) = [r for r in await _dms(site, "bob") if "is fixed" in r.body]
    assert his.body.startswith("Your ACWC match against Alice is fixed: Thu 14 Oct 18:00 UTC")

    # help in her words, the commands as they are typed
    html = await alice.post(f"/match/{match_id}/say", {"action": "text", "text": "help break"})
    assert flash_text(html) == (
        "break - prendre votre unique pause entre deux parties, 10 minutes au plus (règle 6.1)"
    )

    # Back to English: the page is English again
    html = await alice.post("/account/language", {"language": "en"})
    assert flash_text(html) == "Your notices and pages are now in English."
    assert "<h1>Your account</h1>" in html


async def test_a_language_not_offered_is_refused_and_changes_nothing(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, eve = browsers["alice"], browsers["eve"]
    await alice.login("Alice")
    await alice.get("/account")
    html = await alice.post("/account/language", {"language": "xx"})
    assert flash_text(html) == "There is no language 'xx': choose one of en, fr."
    await eve.login("Eve")  # not a player: no choice to make
    html = await eve.get("/account")
    assert 'name="language"' not in html
    html = await eve.post("/account/language", {"language": "fr"})
    assert flash_text(html) == "Only a registered player has this choice."
    async with site.db.uow() as uow:
        row = await uow.players.get("alice")
        assert row is not None
        assert row.language is None


async def test_the_pairing_goes_out_in_the_player_s_chosen_language(database_url: str) -> None:
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        matches = await seed(service, publish=False)
        async with service.db.uow() as uow:
            await service.services.players.set_language(uow, "Carol", language="fr", now=NOW)
            (rnd,) = await uow.tournaments.all_rounds()
            rnd.state = RoundState.APPROVED
            await service.services.publication.publish_round(uow, rnd, now=NOW, actor=TD)
            await uow.commit()
        async with service.db.uow() as uow:
            dms = {r.recipient.lower(): r.body for r in await uow.outbox.list(kind="dm")}
    match = matches["carol-dave"]
    assert dms["carol"].startswith(f"Appariement ACWC : vous jouez contre Dave (match {match}).")
    assert "Proposez au moins 3 horaires avant ven. 15 oct. 23:59 UTC" in dms["carol"]
    assert dms["dave"].startswith(f"ACWC pairing: you play Carol (match {match}).")
    assert dms["alice"].startswith("ACWC pairing: you play Bob")


async def test_the_public_pages_follow_a_logged_in_player_s_language_not_a_visitor_s(
    site: Site, browsers: dict[str, Browser]
) -> None:
    alice, nobody = browsers["alice"], browsers["nobody"]
    await alice.login("Alice")
    await alice.get("/account")
    await alice.post("/account/language", {"language": "fr"})
    french = {
        "/": "Semaine de match : du",
        "/pairings": "<h1>Appariements et heures convenues</h1>",
        "/standings": "<h1>Classement de la qualification</h1>",
        "/candidates": "L'étape des Candidats n'a pas commencé.",
        "/knockout": "<h1>Demi-finales et finale</h1>",
        "/players": "<h1>Joueurs</h1>",
        "/players/bob": "Profil Lichess",
    }
    english = {
        "/": "Match week:",
        "/pairings": "<h1>Pairings and agreed times</h1>",
        "/standings": "<h1>Qualification standings</h1>",
        "/candidates": "The Candidates stage has not started.",
        "/knockout": "<h1>Semifinals and final</h1>",
        "/players": "<h1>Players</h1>",
        "/players/bob": "Lichess profile",
    }
    for path, words in french.items():
        assert words in await alice.get(path), path
        assert english[path] in await nobody.get(path), path  # a visitor reads English
