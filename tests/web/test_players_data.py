"""A player's data (issue 28), over HTTP against the real web app: the privacy page, the download
(every row about the player, nobody else's), the removal a TD confirms on the desk (the record
stays, the standings unchanged; sessions, messages, choices and the stored token go, the token
revoked on Lichess), stored tokens forgotten when no longer needed, and forged or bad requests
that change nothing."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.notify.kinds import NoticeKind
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from bot.service.player_tokens import DROPPED, FORGET, REVOKE_AGAIN, SWEEP, plan_forget
from bot.service.privacy import ASKED, REMOVED
from rules.core.states import StageState
from storage.models import Channel
from storage.repo_privacy import ABOUT
from tests.web.helpers import (
    NOW,
    TD,
    Browser,
    Site,
    flash_text,
    grant_games,
    make_config,
    seed,
)


@pytest.fixture
async def site_and_lichess(database_url: str) -> AsyncIterator[tuple[Site, SandboxState]]:
    lichess = SandboxState(now=lambda: NOW)
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox(lichess)
    ) as service:
        assert service.web_url is not None
        matches = await seed(service)
        site = Site(service=service, clock=clock, url=service.web_url, matches=matches)
        async with service.db.uow() as uow:  # a result, so the standings say something
            for game, result in ((1, "1-0"), (2, "0-1"), (3, "1-0")):
                await service.services.results.record(
                    uow,
                    matches["alice-bob"],
                    game_number=game,
                    result=result,
                    reason="played over the board",
                    now=NOW,
                    actor=TD,
                )
            await uow.commit()
        yield site, lichess


def _tokens_of(lichess: SandboxState, user: str) -> list[str]:
    return [value for value, t in lichess.tokens.items() if t.user == user]


async def _download(b: Browser) -> dict[str, Any]:
    async with b.http.get(b.url("/account/data"), allow_redirects=False) as resp:
        assert resp.status == 200, await resp.text()
        assert resp.headers["Content-Type"].startswith("application/json")
        assert "attachment" in resp.headers["Content-Disposition"]
        data: dict[str, Any] = json.loads(await resp.text())
    return data


async def _outbox_to(site: Site, player: str) -> list[int]:
    async with site.db.reads() as uow:
        rows = await uow.outbox.list()
    return sorted(
        r.id for r in rows if r.kind in (Channel.DM, Channel.ROOM) and r.recipient.lower() == player
    )


async def test_the_privacy_page_is_linked_from_every_page_and_names_each_kind_of_data(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, _ = site_and_lichess
    b = Browser(site)
    try:
        for path in ("/", "/standings", "/rules"):
            assert 'href="/privacy"' in await b.get(path)
        page = await b.get("/privacy")
        for words in (
            "Your registration",
            "Your matches and games",
            "Messages the bot sent you",
            "Your logins",
            "Your permission to start your games",
            "The audit log",
            "How long",
            "Who sees it",
            "Download my data",
            "Ask the TDs to remove my data",
        ):
            assert words in page
    finally:
        await b.close()


async def test_the_download_holds_every_row_about_the_player_and_nobody_elses(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    alice, bob = Browser(site), Browser(site)
    try:
        await bob.login("Bob")
        assert "may now start" in await grant_games(bob, site.service.lichess_url, "Bob")
        await alice.login("Alice")
        assert "may now start" in await grant_games(alice, site.service.lichess_url, "Alice")
        data = await _download(alice)
        assert data["player"] == "alice"
        tables = data["tables"]
        assert set(tables) == {str(model.__tablename__) for model, _ in ABOUT}
        assert [p["id"] for p in tables["players"]] == ["alice"]
        assert {m["id"] for m in tables["matches"]} == {site.matches["alice-bob"]}
        assert len(tables["games"]) == 3
        assert all("alice" in (g["white"].lower(), g["black"].lower()) for g in tables["games"])
        mine = await _outbox_to(site, "alice")
        assert mine  # the results' notices
        assert sorted(r["id"] for r in tables["outbox"]) == mine
        assert await _outbox_to(site, "bob")  # Bob has his own, which Alice's file leaves out
        assert [s["user_id"] for s in tables["web_sessions"]] == ["alice"]
        assert all("csrf" not in s and "id" not in s for s in tables["web_sessions"])
        [token] = tables["player_tokens"]
        assert token["player_id"] == "alice"
        assert "secret" not in token
        assert all(
            a["player"] == "alice" or (a["actor"].lower() == "alice" and a["player"] is None)
            for a in tables["audit_log"]
        )
        assert "games.allowed" in {a["action"] for a in tables["audit_log"]}
        text = json.dumps(data)
        for secret in _tokens_of(lichess, "alice") + _tokens_of(lichess, "bob"):
            assert secret not in text
        assert "carol" not in text.lower()
        assert "dave" not in text.lower()
        bobs = await _download(bob)
        assert [p["id"] for p in bobs["tables"]["players"]] == ["bob"]
        assert sorted(r["id"] for r in bobs["tables"]["outbox"]) == await _outbox_to(site, "bob")
    finally:
        await alice.close()
        await bob.close()


async def _removal_key(td: Browser) -> str:
    page = await td.get("/desk")
    assert "Remove Alice&#39;s data?" in page or "Remove Alice's data?" in page
    found = re.search(r'name="kind" value="privacy">\s*<input[^>]*name="key" value="([^"]+)"', page)
    if found is None:
        found = re.search(r'value="(alice:\d+)"', page)
    assert found is not None
    return found.group(1)


async def test_a_removal_the_td_confirms_keeps_the_record_and_removes_the_rest(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    alice, bob, td, visitor = Browser(site), Browser(site), Browser(site), Browser(site)
    try:
        await bob.login("Bob")
        assert "may now start" in await grant_games(bob, site.service.lichess_url, "Bob")
        await alice.login("Alice")
        assert "may now start" in await grant_games(alice, site.service.lichess_url, "Alice")
        [alice_token] = _tokens_of(lichess, "alice")
        standings = _page(await visitor.get("/standings"))
        player_page = _page(await visitor.get("/players/alice"))
        bobs_messages = await _outbox_to(site, "bob")
        before = await _download(alice)

        page = await alice.post("/account/data/remove", {})
        assert "The TDs have your request" in flash_text(page)
        await alice.get("/account")
        page = await alice.post("/account/data/remove", {})
        assert flash_text(page) == "You asked already: the TDs will confirm it."

        async with site.db.reads() as uow:  # the TDs are told at once
            alerts = await uow.outbox.list(kind=Channel.TD_ALERT.value)
        [alert] = [a for a in alerts if a.notice == NoticeKind.DATA_REMOVAL.value]
        assert alert.recipient == TD
        assert alert.player == "alice"
        assert "Alice asks that their data be removed" in alert.body
        await td.login(TD)
        key = await _removal_key(td)
        assert "A player asks that their data be removed" not in td.last_html  # the card only
        page = await td.post("/desk/decide", {"kind": "privacy", "key": key, "choice": "remove"})
        assert flash_text(page) == "Alice's data is removed; the record stays."
        assert "Remove Alice" not in page  # settled: off the desk

        # the token goes by its own deadline: revoked on Lichess, then deleted
        async with site.db.reads() as uow:
            assert await uow.tokens.get("alice") is not None
        await site.service.runner.fire_due()
        assert alice_token not in lichess.tokens
        assert _tokens_of(lichess, "bob")  # Bob's stays, on Lichess and here
        async with site.db.reads() as uow:
            assert await uow.tokens.get("alice") is None
            assert await uow.tokens.get("bob") is not None
            [removed] = await uow.audit.list(actions=(REMOVED,))
            asked = await uow.audit.list(actions=(ASKED,))
        assert removed.actor == TD
        assert removed.player == "alice"
        assert set(removed.details) == {"rows", "token"}  # how many, never what
        assert removed.details["rows"]["outbox"] == len(before["tables"]["outbox"]) > 0
        assert len(asked) == 1

        # Alice is logged out everywhere; what she had goes, the record stays
        page = await alice.get("/account")
        assert "Log in with Lichess" in page
        after = await _download_as(site, "alice")
        for table in ("web_sessions", "outbox", "player_tokens", "settings", "lichess_holds"):
            assert after["tables"][table] == [], table
        for table in ("players", "matches", "games", "stage_entrants", "match_events"):
            assert after["tables"][table] == before["tables"][table], table
        assert after["tables"]["players"][0]["username"] == "Alice"
        assert "Alice" in standings
        assert _page(await visitor.get("/standings")) == standings
        assert _page(await visitor.get("/players/alice")) == player_page
        assert await _outbox_to(site, "bob") == bobs_messages
    finally:
        for b in (alice, bob, td, visitor):
            await b.close()


def _page(html: str) -> str:
    """A page without the live updates' version (a count of the database's changes)."""
    return re.sub(r"since=\d+", "since=", html)


async def _download_as(site: Site, player: str) -> dict[str, Any]:
    data = site.service.services.player_data
    assert data is not None
    async with site.db.reads() as uow:
        return await data.download(uow, player, now=NOW)


async def test_forged_or_bad_requests_change_nothing(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, _ = site_and_lichess
    alice, bob, anonymous = Browser(site), Browser(site), Browser(site)
    try:
        await alice.login("Alice")
        await bob.login("Bob")
        before = await _download_as(site, "alice")
        # no CSRF token, or another browser's: refused, nothing asked
        await alice.post("/account/data/remove", {}, csrf=None, status=403)
        await bob.get("/account")
        await alice.post("/account/data/remove", {}, csrf=bob.csrf(), status=403)
        # not logged in: no data, no request
        resp = await anonymous.get_raw("/account/data")
        assert resp.status in (302, 303)
        assert "/login" in resp.headers["Location"]
        async with anonymous.http.post(
            anonymous.url("/account/data/remove"), data={}, allow_redirects=False
        ) as r:
            assert r.status in (302, 303, 403)
        # a player pressing a TD's button, and a TD pressing one for a request never made
        await bob.get("/account")
        await bob.post(
            "/desk/decide",
            {"kind": "privacy", "key": "alice:1", "choice": "remove"},
            status=403,
        )
        td = Browser(site)
        try:
            await td.login(TD)
            await td.get("/desk")
            page = await td.post(
                "/desk/decide", {"kind": "privacy", "key": "alice:1", "choice": "remove"}
            )
            assert flash_text(page) == "That decision was already settled or is gone."
        finally:
            await td.close()
        async with site.db.reads() as uow:
            assert await uow.audit.list(actions=(ASKED, REMOVED)) == []
        after = await _download_as(site, "alice")
        assert after["tables"] == before["tables"]
        assert after["tables"]["web_sessions"]  # still logged in
    finally:
        for b in (alice, bob, anonymous):
            await b.close()


async def test_a_token_goes_when_its_player_leaves_and_every_one_when_the_championship_ends(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    browsers = {name: Browser(site) for name in ("Alice", "Bob", "Carol")}
    try:
        for name, b in browsers.items():
            await b.login(name)
            assert "may now start" in await grant_games(b, site.service.lichess_url, name)
        services = site.service.services
        async with site.db.uow() as uow:
            await services.exits.exit_player(
                uow,
                player="alice",
                kind="withdrawal",
                reason="asked to leave",
                engine_mark=False,
                now=NOW,
                actor=TD,
            )
            await uow.commit()
        await site.service.runner.fire_due()
        assert _tokens_of(lichess, "alice") == []
        assert _tokens_of(lichess, "bob")
        assert _tokens_of(lichess, "carol")
        async with site.db.reads() as uow:
            assert sorted(await uow.tokens.player_ids()) == ["bob", "carol"]
            [gone] = [
                a
                for a in await uow.audit.list(player="alice", actions=("games.withdrawn",))
                if a.actor == "bot"
            ]
        assert gone.details == {"why": "withdrawn", "revoked_on_lichess": True}

        # a sweep while the stage is in play keeps the tokens of the players in it
        async with site.db.uow() as uow:
            await plan_forget(uow, subject=SWEEP, why="stage", now=NOW)
            await uow.commit()
        await site.service.runner.fire_due()
        async with site.db.reads() as uow:
            assert sorted(await uow.tokens.player_ids()) == ["bob", "carol"]

        # the championship over: every token goes
        async with site.db.uow() as uow:
            tournament = await uow.tournaments.current()
            assert tournament is not None
            stage = await uow.tournaments.stage(tournament.id, str(tournament.current_stage))
            assert stage is not None
            stage.state = StageState.COMPLETE
            await plan_forget(uow, subject=SWEEP, why="stage", now=NOW)
            await uow.commit()
        await site.service.runner.fire_due()
        assert _tokens_of(lichess, "bob") == []
        assert _tokens_of(lichess, "carol") == []
        async with site.db.reads() as uow:
            assert await uow.tokens.player_ids() == []
    finally:
        for b in browsers.values():
            await b.close()


async def _unrevoked(site: Site, lichess: SandboxState, b: Browser) -> None:
    """Alice allows it; her token is no longer needed while Lichess is down: it stays."""
    await b.login("Alice")
    assert "may now start" in await grant_games(b, site.service.lichess_url, "Alice")
    async with site.db.uow() as uow:
        await plan_forget(uow, subject="alice", why="withdrawn", now=NOW)
        await uow.commit()
    lichess.knobs.down_until = NOW + dt.timedelta(days=1)  # Lichess down
    site.clock.auto = True  # the client's retries wait on the clock
    await site.service.runner.fire_due()
    site.clock.auto = False
    async with site.db.reads() as uow:
        assert await uow.tokens.player_ids() == ["alice"]  # kept, sealed


async def test_a_token_lichess_cannot_revoke_is_kept_and_revoked_once_lichess_is_back(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    alice = Browser(site)
    try:
        await _unrevoked(site, lichess, alice)
        assert _tokens_of(lichess, "alice")  # still valid on Lichess
        async with site.db.reads() as uow:
            assert await uow.audit.list(player="alice", actions=("games.withdrawn",)) == []
        lichess.knobs.down_until = None  # Lichess back
        site.clock.set(site.clock.now() + REVOKE_AGAIN)
        await site.service.runner.fire_due()
        assert _tokens_of(lichess, "alice") == []
        async with site.db.reads() as uow:
            assert await uow.tokens.player_ids() == []
            [gone] = await uow.audit.list(player="alice", actions=("games.withdrawn",))
        assert gone.details == {"why": "withdrawn", "revoked_on_lichess": True}
    finally:
        await alice.close()


async def test_a_td_drops_a_token_lichess_cannot_revoke_with_a_confirmation_and_a_reason(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    alice, td = Browser(site), Browser(site)
    try:
        await td.login(TD)
        await _unrevoked(site, lichess, alice)
        [token] = _tokens_of(lichess, "alice")
        page = await td.get("/desk")
        assert "Alice&#39;s Lichess token could not be revoked" in page
        assert "they withdrew" in page
        found = re.search(r'name="kind" value="token"><input[^>]*name="key" value="([^"]+)"', page)
        assert found is not None
        drop = {"kind": "token", "key": found.group(1), "choice": "drop"}
        page = await td.post("/desk/decide", drop)
        assert flash_text(page) == "Give a reason: it goes into the audit log."
        why = "Lichess down for two days; the player asked"
        page = await td.post("/desk/decide/preview", drop | {"reason": why})
        assert "Confirm: Drop this token anyway (say why)" in page
        assert "Nothing has changed yet" in page
        async with site.db.reads() as uow:  # the preview kept nothing
            assert await uow.tokens.player_ids() == ["alice"]
            assert await uow.audit.list(actions=(DROPPED,)) == []
        page = await td.post("/desk/decide", drop | {"reason": why})
        assert flash_text(page) == (
            "Alice's token is dropped here, not revoked on Lichess: Alice's account page asks "
            "them to revoke it there."
        )
        assert "could not be revoked" not in page  # off the desk

        async with site.db.reads() as uow:
            assert await uow.tokens.player_ids() == []
            [dropped] = await uow.audit.list(player="alice", actions=(DROPPED,))
            assert await uow.deadlines.all_open_of_kind(FORGET) == []  # no more tries
        assert (dropped.actor, dropped.reason) == (TD, why)
        assert dropped.details == {"why": "withdrawn", "revoked_on_lichess": False}
        assert _tokens_of(lichess, "alice") == [token]  # still valid on Lichess
        audit = await td.get("/desk/audit?player=alice")
        assert "games.token_dropped" in audit
        assert "revoked_on_lichess: False" in audit

        # Lichess back an hour later: nothing is tried again, nothing said revoked
        lichess.knobs.down_until = None
        site.clock.set(site.clock.now() + REVOKE_AGAIN)
        await site.service.runner.fire_due()
        assert _tokens_of(lichess, "alice") == [token]
        async with site.db.reads() as uow:
            assert await uow.audit.list(player="alice", actions=("games.withdrawn",)) == []

        # Alice's account page tells her to revoke it herself, until she allows it again
        page = await alice.get("/account")
        assert 'id="token-dropped"' in page
        assert "Revoke it yourself in your Lichess account" in page
        assert "may now start" in await grant_games(alice, site.service.lichess_url, "Alice")
        assert 'id="token-dropped"' not in await alice.get("/account")
    finally:
        await alice.close()
        await td.close()


async def test_a_permission_given_again_is_not_the_token_that_failed(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    alice, td = Browser(site), Browser(site)
    try:
        await td.login(TD)
        await _unrevoked(site, lichess, alice)
        [failed] = _tokens_of(lichess, "alice")
        lichess.knobs.down_until = None  # Lichess back before the next try; Alice allows again
        site.clock.set(site.clock.now() + dt.timedelta(minutes=5))
        assert "may now start" in await grant_games(alice, site.service.lichess_url, "Alice")
        [token] = _tokens_of(lichess, "alice")  # the one it replaced revoked
        assert token != failed
        assert "could not be revoked" not in await td.get("/desk")
        site.clock.set(site.clock.now() + REVOKE_AGAIN)
        await site.service.runner.fire_due()  # the retry: its token is gone
        assert _tokens_of(lichess, "alice") == [token]  # the new permission stands
        async with site.db.reads() as uow:
            assert await uow.tokens.player_ids() == ["alice"]
            assert await uow.deadlines.all_open_of_kind(FORGET) == []
    finally:
        await alice.close()
        await td.close()


Registered = tuple[Site, SandboxState, Browser, Browser, Browser]


@pytest.fixture
async def registered(site_and_lichess: tuple[Site, SandboxState]) -> AsyncIterator[Registered]:
    """Erin and Fred registered, not yet paired, each having let the bot start their games,
    logged in; and a TD's browser."""
    site, lichess = site_and_lichess
    async with site.db.uow() as uow:
        for name in ("Erin", "Fred"):
            await site.service.services.players.add(uow, name, seed_rating=2100, now=NOW, actor=TD)
        await uow.commit()
    erin, fred, td = Browser(site), Browser(site), Browser(site)
    try:
        for b, name in ((erin, "Erin"), (fred, "Fred")):
            await b.login(name)
            assert "may now start" in await grant_games(b, site.service.lichess_url, name)
            assert _tokens_of(lichess, name.lower())
        yield site, lichess, erin, fred, td
    finally:
        for b in (erin, fred, td):
            await b.close()


async def test_a_registration_taken_back_or_refused_revokes_the_stored_token(
    registered: Registered,
) -> None:
    site, lichess, erin, _, td = registered
    await erin.get("/account")
    page = await erin.post("/register/withdraw", {})
    assert flash_text(page) == "Your registration is withdrawn."
    assert _tokens_of(lichess, "erin") == []  # revoked on Lichess, not only deleted here
    await td.login(TD)
    await td.get("/register/list")
    page = await td.post(
        "/register/list", {"username": "Fred", "action": "refuse", "reason": "not eligible"}
    )
    assert flash_text(page) == "Fred refused."
    assert _tokens_of(lichess, "fred") == []
    async with site.db.reads() as uow:
        for pid in ("erin", "fred"):
            assert await uow.tokens.get(pid) is None
            assert await uow.players.get(pid) is None


async def test_while_lichess_is_down_a_refusal_waits_and_a_withdrawal_says_to_revoke_it(
    registered: Registered,
) -> None:
    site, lichess, erin, _, td = registered
    await td.login(TD)
    await erin.get("/account")
    await td.get("/register/list")
    lichess.knobs.down_until = NOW + dt.timedelta(days=1)  # Lichess down
    page = await erin.post("/register/withdraw", {})
    assert flash_text(page).startswith("Your registration is withdrawn, but Lichess could not")
    assert "revoke it yourself" in flash_text(page)
    refuse = {"username": "Fred", "action": "refuse", "reason": "not eligible"}
    page = await td.post("/register/list", refuse)
    assert flash_text(page) == (
        "Lichess did not revoke Fred's stored token (it cannot be reached?): nothing is "
        "changed; refuse again when Lichess answers."
    )
    async with site.db.reads() as uow:
        assert await uow.players.get("erin") is None
        assert await uow.players.get("fred") is not None  # nothing changed
        assert await uow.tokens.player_ids() == ["fred"]
    assert _tokens_of(lichess, "fred")
    lichess.knobs.down_until = None  # Lichess back: the refusal goes through
    page = await td.post("/register/list", refuse)
    assert flash_text(page) == "Fred refused."
    assert _tokens_of(lichess, "fred") == []
    async with site.db.reads() as uow:
        assert await uow.players.get("fred") is None


async def test_a_td_may_keep_the_data_with_a_reason_and_the_player_may_ask_again(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, _ = site_and_lichess
    alice, td = Browser(site), Browser(site)
    try:
        await alice.login("Alice")
        before = await _download_as(site, "alice")
        await alice.get("/account")
        await alice.post("/account/data/remove", {})
        await td.login(TD)
        key = await _removal_key(td)
        page = await td.post("/desk/decide", {"kind": "privacy", "key": key, "choice": "keep"})
        assert flash_text(page) == "Give a reason: it goes into the audit log."
        page = await td.post(
            "/desk/decide",
            {"kind": "privacy", "key": key, "choice": "keep", "reason": "not Alice's request"},
        )
        assert flash_text(page) == "Alice's data is kept."
        after = await _download_as(site, "alice")
        for table in ("web_sessions", "outbox", "players", "matches", "games"):
            assert after["tables"][table] == before["tables"][table], table
        await alice.get("/account")
        page = await alice.post("/account/data/remove", {})
        assert "The TDs have your request" in flash_text(page)
        assert await _removal_key(td) != key  # a new card
    finally:
        await alice.close()
        await td.close()
