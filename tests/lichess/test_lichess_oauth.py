"""The web login against the sandbox: OAuth2 authorization code with PKCE (S256)."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from bot.lichess import LichessHTTPError, OAuthError
from bot.lichess.oauth import (
    PendingLogin,
    exchange_code,
    fetch_account,
    pkce_challenge,
    start_login,
)
from bot.sandbox import pkce_challenge as sandbox_challenge
from bot.sandbox.state import SandboxState

REDIRECT = "http://127.0.0.1:1/login/callback"
CLIENT = "acwc.example"


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def authorize(
    http: aiohttp.ClientSession, login: PendingLogin, username: str, decision: str = "approve"
) -> dict[str, str]:
    """Open the login page, then submit its form as the browser would; return the callback."""
    async with http.get(login.url, allow_redirects=False) as page:
        assert page.status == 200
        html = await page.text()
    assert 'action="/_sandbox/oauth/authorize"' in html
    form = {k: v[0] for k, v in parse_qs(urlsplit(login.url).query).items()}
    form |= {"username": username, "decision": decision}
    async with http.post(
        f"{login.base_url}/_sandbox/oauth/authorize", data=form, allow_redirects=False
    ) as answer:
        assert answer.status == 302
        location = answer.headers["Location"]
    assert location.startswith(REDIRECT + "?")
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def new_login(sandbox_url: str, **kwargs: object) -> PendingLogin:
    return start_login(
        base_url=sandbox_url,
        client_id=CLIENT,
        redirect_uri=REDIRECT,
        **kwargs,  # type: ignore[arg-type]
    )


def test_client_and_sandbox_agree_on_the_rfc_7636_challenge() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  # RFC 7636 appendix B
    expected = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert pkce_challenge(verifier) == sandbox_challenge(verifier) == expected


async def test_login_gives_a_token_that_names_the_player(
    sandbox_url: str, http: aiohttp.ClientSession, state: SandboxState
) -> None:
    login = new_login(sandbox_url)
    callback = await authorize(http, login, "Alice")
    assert callback["state"] == login.state
    token = await exchange_code(http, login, code=callback["code"], state=callback["state"])
    user = await fetch_account(http, sandbox_url, token)
    assert (user.id, user.username) == ("alice", "Alice")
    assert login.code_verifier not in repr(login)


async def test_auto_approve_redirects_at_once_for_the_hinted_user(
    sandbox_url: str, http: aiohttp.ClientSession, state: SandboxState
) -> None:
    state.knobs.auto_approve_oauth = True
    login = new_login(sandbox_url, username_hint="Bob")
    async with http.get(login.url, allow_redirects=False) as resp:
        assert resp.status == 302
        query = parse_qs(urlsplit(resp.headers["Location"]).query)
    token = await exchange_code(http, login, code=query["code"][0], state=query["state"][0])
    assert (await fetch_account(http, sandbox_url, token)).id == "bob"


async def test_wrong_verifier_is_refused(sandbox_url: str, http: aiohttp.ClientSession) -> None:
    login = new_login(sandbox_url)
    callback = await authorize(http, login, "Alice")
    forged = dataclasses.replace(login, code_verifier="x" * 50)
    with pytest.raises(OAuthError) as e:
        await exchange_code(http, forged, code=callback["code"], state=callback["state"])
    assert e.value.error == "invalid_grant"
    assert "code_verifier" in e.value.description


async def test_a_code_works_only_once(sandbox_url: str, http: aiohttp.ClientSession) -> None:
    login = new_login(sandbox_url)
    callback = await authorize(http, login, "Alice")
    await exchange_code(http, login, code=callback["code"], state=callback["state"])
    with pytest.raises(OAuthError) as e:
        await exchange_code(http, login, code=callback["code"], state=callback["state"])
    assert e.value.error == "invalid_grant"
    assert "already used" in e.value.description


async def test_a_foreign_state_is_refused_before_asking_lichess(
    sandbox_url: str, http: aiohttp.ClientSession, state: SandboxState
) -> None:
    login = new_login(sandbox_url)
    callback = await authorize(http, login, "Alice")
    with pytest.raises(OAuthError) as e:
        await exchange_code(http, login, code=callback["code"], state="someone-elses-state")
    assert e.value.error == "state_mismatch"
    assert ("POST", "/api/token") not in state.requests
    # the code was not spent: the genuine callback still works
    await exchange_code(http, login, code=callback["code"], state=callback["state"])


async def test_a_missing_state_is_refused(sandbox_url: str, http: aiohttp.ClientSession) -> None:
    login = new_login(sandbox_url)
    with pytest.raises(OAuthError, match="state_mismatch"):
        await exchange_code(http, login, code="liu_whatever", state=None)


async def test_a_cancelled_login_reports_access_denied(
    sandbox_url: str, http: aiohttp.ClientSession
) -> None:
    login = new_login(sandbox_url)
    callback = await authorize(http, login, "Alice", decision="deny")
    assert "code" not in callback
    with pytest.raises(OAuthError) as e:
        await exchange_code(
            http, login, code=None, state=callback["state"], error=callback["error"]
        )
    assert e.value.error == "access_denied"


async def test_another_redirect_uri_is_refused(
    sandbox_url: str, http: aiohttp.ClientSession
) -> None:
    login = new_login(sandbox_url)
    callback = await authorize(http, login, "Alice")
    moved = dataclasses.replace(login, redirect_uri="http://127.0.0.1:1/elsewhere")
    with pytest.raises(OAuthError, match="invalid_grant"):
        await exchange_code(http, moved, code=callback["code"], state=callback["state"])


async def test_an_authorize_request_without_challenge_is_rejected(
    sandbox_url: str, http: aiohttp.ClientSession
) -> None:
    async with http.get(
        f"{sandbox_url}/oauth",
        params={"response_type": "code", "client_id": CLIENT, "redirect_uri": REDIRECT},
    ) as resp:
        assert resp.status == 400
        assert "code_challenge" in await resp.text()


async def test_account_with_a_revoked_or_unknown_token_is_401(
    sandbox_url: str, http: aiohttp.ClientSession
) -> None:
    with pytest.raises(LichessHTTPError) as e:
        await fetch_account(http, sandbox_url, "lio_not_a_token")
    assert e.value.status == 401
