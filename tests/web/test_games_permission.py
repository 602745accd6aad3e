"""A player lets the bot start their games on /account, and withdraws it (issue 25): the token
is asked with challenge:write through the sandbox's OAuth page, kept only encrypted, and revoked
on Lichess when withdrawn; the login's own token is revoked as soon as it named the player."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from storage.models_tokens import PlayerTokenRow
from tests.web.helpers import NOW, Browser, Site, flash_text, grant_games, make_config, seed


@pytest.fixture
async def lichess() -> SandboxState:
    return SandboxState(now=lambda: NOW)


@pytest.fixture
async def site_and_lichess(
    database_url: str, lichess: SandboxState
) -> AsyncIterator[tuple[Site, SandboxState]]:
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox(lichess)
    ) as service:
        assert service.web_url is not None
        matches = await seed(service)
        yield Site(service=service, clock=clock, url=service.web_url, matches=matches), lichess


async def test_a_player_allows_it_the_token_is_kept_encrypted_and_withdrawing_revokes_it(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    b = Browser(site)
    try:
        await b.login("Alice")
        # the login's token named Alice and was revoked at once: Lichess has none of hers
        assert [t for t in lichess.tokens.values() if t.user == "alice"] == []
        page = await b.get("/account")
        assert "Let the bot start my games" in page
        page = await grant_games(b, site.service.lichess_url, "Alice")
        assert "The bot may now start your games" in flash_text(page)
        assert "Stop it and revoke the permission" in page
        granted = [v for v, t in lichess.tokens.items() if t.user == "alice"]
        assert len(granted) == 1
        async with site.db.uow() as uow:
            row = await uow.tokens.get("alice")
        assert isinstance(row, PlayerTokenRow)
        assert granted[0] not in row.secret  # only the sealed token is stored
        assert row.scopes == "challenge:write"
        tokens = site.service.services.player_tokens
        assert tokens is not None
        async with site.db.reads() as uow:
            assert await tokens.tokens(uow, ["alice", "bob"]) == {"alice": granted[0]}

        page = await b.post("/account/games/withdraw", {})
        assert flash_text(page) == "The bot no longer starts your games."
        assert granted[0] not in lichess.tokens  # revoked on Lichess (DELETE /api/token)
        async with site.db.uow() as uow:
            assert await uow.tokens.get("alice") is None
            actions = [a.action for a in await uow.audit.list(player="alice")]
        assert "games.allowed" in actions
        assert "games.withdrawn" in actions
    finally:
        await b.close()


async def test_another_accounts_token_or_a_refusal_keeps_nothing(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    site, lichess = site_and_lichess
    b = Browser(site)
    try:
        await b.login("Alice")
        await b.get("/account")
        page = await grant_games(b, site.service.lichess_url, "Bob")
        assert flash_text(page) == "That was Bob's Lichess account, not yours."
        assert [t for t in lichess.tokens.values() if t.user == "bob"] == []  # revoked
        page = await grant_games(b, site.service.lichess_url, "Alice", decision="deny")
        assert flash_text(page) == "You did not give the permission on Lichess."
        async with site.db.uow() as uow:
            assert await uow.tokens.get("alice") is None
    finally:
        await b.close()


async def test_a_french_reader_reads_the_permission_s_messages_in_french(
    site_and_lichess: tuple[Site, SandboxState],
) -> None:
    # Issue 28 item 5: the flashes of the permission's pages are in the reader's language.
    site, _ = site_and_lichess
    b = Browser(site)
    try:
        await b.login("Alice")
        await b.post("/account/language", {"language": "fr"})
        page = await grant_games(b, site.service.lichess_url, "Bob")
        assert flash_text(page) == "C'était le compte Lichess de Bob, pas le vôtre."
        page = await grant_games(b, site.service.lichess_url, "Alice")
        assert flash_text(page).startswith("Le bot peut désormais lancer vos parties")
        page = await b.post("/account/games/withdraw", {})
        assert flash_text(page) == "Le bot ne lance plus vos parties."
    finally:
        await b.close()


async def test_a_visitor_is_not_offered_it(site_and_lichess: tuple[Site, SandboxState]) -> None:
    site, _ = site_and_lichess
    b = Browser(site)
    try:
        await b.login("Eve")
        page = await b.get("/account")
        assert "Let the bot start my games" not in page
    finally:
        await b.close()
