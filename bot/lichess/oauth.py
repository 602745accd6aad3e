"""The web login: Lichess OAuth2 authorization code flow with PKCE (S256).

This uses the *player's* token, not the bot's, so it talks to Lichess with aiohttp directly
rather than through the bot's serialised queue. Flow::

    login = start_login(base_url=..., client_id=..., redirect_uri=...)   # keep login in session
    redirect the browser to login.url
    ... Lichess redirects back with ?code=&state=
    token = await exchange_code(session, login, code=..., state=...)
    user = await fetch_account(session, base_url, token)
    await revoke_token(session, base_url, token)    # the login needed the name only

A player who lets the bot start their games gives a second token, with ``challenge:write``
(:func:`token_scopes` says what Lichess granted); it is revoked when they withdraw.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.lichess.errors import (
    LichessPayloadError,
    LichessTransportError,
    OAuthError,
    http_error,
)
from bot.lichess.types import LichessUser, user_from_json

__all__ = [
    "PendingLogin",
    "exchange_code",
    "fetch_account",
    "pkce_challenge",
    "revoke_token",
    "start_login",
    "token_scopes",
]


@dataclass(frozen=True, slots=True)
class PendingLogin:
    """What to keep between the redirect and the callback (the web app keeps it in a signed,
    short-lived cookie)."""

    base_url: str
    client_id: str
    redirect_uri: str
    state: str
    code_verifier: str
    url: str

    def __repr__(self) -> str:  # the verifier is a secret
        return f"PendingLogin(client_id={self.client_id!r}, state={self.state[:4]}...)"


def pkce_challenge(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)) without padding (RFC 7636, S256)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def start_login(
    *,
    base_url: str,
    client_id: str,
    redirect_uri: str,
    scopes: tuple[str, ...] = (),
    username_hint: str | None = None,
    state: str | None = None,
    code_verifier: str | None = None,
) -> PendingLogin:
    """A fresh verifier and state, and the ``/oauth`` URL to send the browser to."""
    verifier = code_verifier or secrets.token_urlsafe(48)
    state_value = state or secrets.token_urlsafe(16)
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "code_challenge_method": "S256",
        "code_challenge": pkce_challenge(verifier),
        "state": state_value,
    }
    if scopes:
        query["scope"] = " ".join(scopes)
    if username_hint:
        query["username"] = username_hint
    root = base_url.rstrip("/")
    return PendingLogin(
        base_url=root,
        client_id=client_id,
        redirect_uri=redirect_uri,
        state=state_value,
        code_verifier=verifier,
        url=f"{root}/oauth?{urlencode(query)}",
    )


async def exchange_code(
    session: aiohttp.ClientSession,
    login: PendingLogin,
    *,
    code: str | None,
    state: str | None,
    error: str | None = None,
) -> str:
    """Check the callback's ``state`` and trade ``code`` for the player's access token.

    Raises :class:`OAuthError` (``state_mismatch``, ``access_denied``, ``invalid_grant``, ...).
    """
    if state is None or not hmac.compare_digest(state.encode(), login.state.encode()):
        raise OAuthError("state_mismatch", "the login answer does not match this login attempt")
    if error:
        raise OAuthError(error, "Lichess did not authorize the login")
    if not code:
        raise OAuthError("invalid_request", "the login answer has no code")
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": login.code_verifier,
        "redirect_uri": login.redirect_uri,
        "client_id": login.client_id,
    }
    data = await _request(session, "POST", f"{login.base_url}/api/token", data=form, oauth=True)
    token = data.get("access_token") if isinstance(data, dict) else None
    if not isinstance(token, str) or not token:
        raise LichessPayloadError("token answer without access_token")
    return token


async def fetch_account(session: aiohttp.ClientSession, base_url: str, token: str) -> LichessUser:
    """``GET /api/account`` with the player's token: who logged in."""
    data = await _request(
        session,
        "GET",
        f"{base_url.rstrip('/')}/api/account",
        headers={"Authorization": f"Bearer {token}"},
    )
    return user_from_json(data)


async def token_scopes(session: aiohttp.ClientSession, base_url: str, token: str) -> frozenset[str]:
    """``POST /api/token/test``: the scopes Lichess gave ``token`` (none for an unknown one)."""
    data = await _request(session, "POST", f"{base_url.rstrip('/')}/api/token/test", data=token)
    entry = data.get(token) if isinstance(data, dict) else None
    scopes = entry.get("scopes") if isinstance(entry, dict) else None
    return frozenset(s for s in str(scopes or "").split(",") if s)


async def revoke_token(session: aiohttp.ClientSession, base_url: str, token: str) -> None:
    """``DELETE /api/token`` with ``token``: Lichess forgets it (lila answers 204)."""
    url = f"{base_url.rstrip('/')}/api/token"
    try:
        async with session.delete(
            url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=aiohttp.ClientTimeout(total=30.0),
        ) as resp:
            if resp.status >= 400 and resp.status != 401:  # 401: already unknown to Lichess
                raise http_error(resp.status, await resp.text())
    except (aiohttp.ClientError, TimeoutError) as e:
        raise LichessTransportError(f"DELETE {url} failed: {e.__class__.__name__}") from e


async def _request(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    oauth: bool = False,
    total_seconds: float = 30.0,
    **kwargs: Any,
) -> Any:
    try:
        async with session.request(
            method, url, timeout=aiohttp.ClientTimeout(total=total_seconds), **kwargs
        ) as resp:
            text = await resp.text()
            if resp.status == 400 and oauth:
                try:
                    body = await resp.json(content_type=None)
                except ValueError:
                    body = {}
                raise OAuthError(
                    str(body.get("error", "invalid_request")),
                    str(body.get("error_description", "")),
                )
            if resp.status >= 400:
                raise http_error(resp.status, text)
            try:
                return await resp.json(content_type=None)
            except ValueError as e:
                raise LichessPayloadError(f"{url} answered unreadable JSON") from e
    except (aiohttp.ClientError, TimeoutError) as e:
        raise LichessTransportError(f"{method} {url} failed: {e.__class__.__name__}") from e
