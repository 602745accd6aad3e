"""Issue 28 item 5: a visitor who is not logged in (or has no language stored) reads the pages in
their browser's language (``Accept-Language``) or the one they picked in the footer, and the
shared copy of a public page is kept once per language: a French copy never reaches an English
reader (tests/ops/test_page_cache.py). A player's stored choice comes before both."""

from __future__ import annotations

from rules.core.states import PlayerStatus
from tests.web.helpers import Browser, Site, flash_text
from tests.web.webdriver import chromium, chromium_paths

FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}


async def test_a_visitor_picks_a_language_in_the_footer_and_keeps_it(site: Site) -> None:
    visitor = Browser(site, headers=ENGLISH)
    try:
        html = await visitor.get("/pairings")
        assert '<a href="/language/fr?next=/pairings" lang="fr" hreflang="fr">Français</a>' in html
        raw = await visitor.get_raw("/language/fr?next=/pairings")
        assert (raw.status, raw.headers["Location"]) == (303, "/pairings")
        assert "acwc_lang=fr" in raw.headers["Set-Cookie"]
        html = await visitor.get("/pairings")  # the browser still asks for English
        assert "<h1>Appariements et heures convenues</h1>" in html
        assert '<a href="/language/en?next=/pairings" lang="en" hreflang="en">English</a>' in html
        assert "Semaine de match" in await visitor.get("/")
        # back to English; a language not offered is no page; the way back stays on this site
        await visitor.get("/language/en?next=/")
        assert "<h1>Pairings and agreed times</h1>" in await visitor.get("/pairings")
        assert (await visitor.get_raw("/language/xx")).status == 404
        raw = await visitor.get_raw("/language/fr?next=//evil.example/")
        assert raw.headers["Location"] == "/"
    finally:
        await visitor.close()


async def test_a_player_s_stored_choice_comes_before_the_browser_s(site: Site) -> None:
    alice = Browser(site, headers=FRENCH)
    try:
        await alice.login("Alice")
        # nothing stored yet: her browser's language, her choice on /account still English
        html = await alice.get("/account")
        assert "<h1>Votre compte</h1>" in html
        assert 'name="language" value="en" lang="en" checked' in html
        html = await alice.post("/account/language", {"language": "en"})
        assert flash_text(html) == "Your notices and pages are now in English."
        assert "<h1>Qualification standings</h1>" in await alice.get("/standings")
        # stored as chosen: her browser no longer decides, and the foot says so
        html = await alice.get("/standings")
        assert "Language: English (your account's choice)" in html
    finally:
        await alice.close()


async def test_a_player_s_status_reads_in_the_page_s_language(site: Site) -> None:
    async with site.db.uow() as uow:
        row = await uow.players.get("bob")
        assert row is not None
        row.status = PlayerStatus.WITHDRAWN
        row = await uow.players.get("carol")
        assert row is not None
        row.status = PlayerStatus.DISQUALIFIED
        await uow.commit()
    french, english = Browser(site, headers=FRENCH), Browser(site, headers=ENGLISH)
    try:
        html = await french.get("/players")
        assert 'Bob</a> <span class="muted">(retiré)</span>' in html
        assert 'Carol</a> <span class="muted">(disqualifié)</span>' in html
        assert "· <strong>retiré</strong>" in await french.get("/players/bob")
        assert '<td class="fold">actif</td>' in await french.get("/standings")
        html = await english.get("/players")
        assert 'Bob</a> <span class="muted">(withdrawn)</span>' in html
        assert "· <strong>disqualified</strong>" in await english.get("/players/carol")
        assert '<td class="fold">active</td>' in await english.get("/standings")
    finally:
        await french.close()
        await english.close()


async def test_an_error_page_is_in_the_reader_s_language(site: Site) -> None:
    french, english = Browser(site, headers=FRENCH), Browser(site, headers=ENGLISH)
    try:
        html = await french.get("/players/nobody-at-all", status=404)
        assert "<h1>Introuvable</h1>" in html
        assert "Ce joueur ne participe pas à ce tournoi." in html
        html = await english.get("/players/nobody-at-all", status=404)
        assert "<h1>Not found</h1>" in html
        assert "There is no such player in this tournament." in html
        await french.login("Alice")  # a player with no language stored: her browser's
        # her room's time picker: the script shows her local time after the page's label
        html = await french.get(f"/match/{site.matches['alice-bob']}")
        assert 'data-label="Votre heure :"' in html
        html = await french.get(f"/match/{site.matches['carol-dave']}", status=403)
        assert "<h1>Non autorisé</h1>" in html
        assert "Ce n&#39;est pas votre match" in html
    finally:
        await french.close()
        await english.close()


async def test_a_refused_removal_request_is_in_the_player_s_language(site: Site) -> None:
    alice = Browser(site)
    try:
        await alice.login("Alice")
        await alice.get("/account")
        await alice.post("/account/language", {"language": "fr"})
        html = await alice.post("/account/data/remove", {})
        assert flash_text(html).startswith("Les arbitres ont votre demande")
        html = await alice.post("/account/data/remove", {})
        assert flash_text(html) == "Vous avez déjà demandé : les arbitres vont confirmer."
    finally:
        await alice.close()


COUNTDOWN = """
const rendered = new Date(document.querySelector("footer time[datetime]").getAttribute("datetime"));
const shown = [];
for (const minutes of arguments[0]) {
  const rel = document.createElement("span");
  rel.className = "rel";
  rel.setAttribute("data-until", new Date(rendered.getTime() + minutes * 60000).toISOString());
  document.body.appendChild(rel);
  shown.push(rel);
}
document.dispatchEvent(new Event("acwc:live"));  // the script's countdowns run again
return shown.map((rel) => rel.textContent);
"""


async def test_the_script_s_countdowns_are_in_the_page_s_language(site: Site) -> None:
    chromium_paths()
    async with chromium() as b:
        await b.go(site.url + "/language/fr?next=/pairings")
        # (a few seconds pass while the page runs: the countdowns count whole minutes)
        said = await b.script(COUNTDOWN, [25 * 60 + 5.5, -(2 * 1440 + 180 + 0.5), 120.5])
        assert said == ["(dans 1 jour 1 heure)", "(il y a 2 jours 3 heures)", "(dans 2 heures)"]
        await b.go(site.url + "/language/en?next=/pairings")
        said = await b.script(COUNTDOWN, [25 * 60 + 5.5, -(2 * 1440 + 180 + 0.5)])
        assert said == ["(in 1 day 1 hour)", "(2 days 3 hours ago)"]
