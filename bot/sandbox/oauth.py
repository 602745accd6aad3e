"""The sandbox's OAuth: the login page (no passwords: pick a user), PKCE codes, tokens, revocation.

lila's own flow (``OAuthCode``, S256 only, one use per code); split out of ``app.py``, whose
handlers it shares through the state and token checks handed to ``oauth_routes``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn
from urllib.parse import urlencode

from aiohttp import web

from bot.sandbox.encode import access_token_json, oauth_error_json
from bot.sandbox.schemas import user_id
from bot.sandbox.state import OAuthCode, SandboxState, Token

TOKEN_LIFETIME = 31536000  # a year, in seconds, as lila's personal tokens

_OAUTH_FIELDS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "code_challenge_method",
    "code_challenge",
    "scope",
    "state",
)


def _oauth_request_problem(params: Any) -> str | None:
    if params.get("response_type") != "code":
        return "response_type must be code"
    if params.get("code_challenge_method") != "S256":
        return "code_challenge_method must be S256"
    for name in ("client_id", "redirect_uri", "code_challenge"):
        if not params.get(name):
            return f"{name} is required"
    return None


def _issue_code(state: SandboxState, params: Any, username: str) -> str:
    uid = user_id(username)
    if uid not in state.users:
        state.add_user(username)
    code = "liu_" + secrets.token_urlsafe(24)
    state.codes[code] = OAuthCode(
        code=code,
        user=uid,
        client_id=params["client_id"],
        redirect_uri=params["redirect_uri"],
        code_challenge=params["code_challenge"],
        scopes=frozenset(params.get("scope", "").split()),
    )
    return code


def _redirect(uri: str, query: dict[str, str]) -> NoReturn:
    joiner = "&" if "?" in uri else "?"
    raise web.HTTPFound(uri + joiner + urlencode(query))


async def oauth_authorize(state: SandboxState, request: web.Request) -> web.StreamResponse:
    """GET /oauth: a page to pick the user who logs in (the sandbox has no passwords)."""
    params = request.query
    problem = _oauth_request_problem(params)
    if problem is not None:
        return web.Response(status=400, text=f"Invalid OAuth request: {problem}")
    hint = params.get("username", "")
    if state.knobs.auto_approve_oauth and hint:
        code = _issue_code(state, params, hint)
        return _redirect(params["redirect_uri"], _with_state({"code": code}, params))
    hidden = "".join(
        f'<input type="hidden" name="{name}" value="{html.escape(params.get(name, ""))}">'
        for name in _OAUTH_FIELDS
    )
    options = "".join(
        f'<option value="{html.escape(u.username)}">'
        for u in sorted(state.users.values(), key=lambda u: u.id)
    )
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Sandbox Lichess: log in</title></head>
<body><h1>Sandbox Lichess</h1>
<p>{html.escape(params["client_id"])} wants to know who you are
(scopes: {html.escape(params.get("scope", "") or "none")}).</p>
<form method="post" action="/_sandbox/oauth/authorize">{hidden}
<label>Username <input name="username" list="users" value="{html.escape(hint)}" required></label>
<datalist id="users">{options}</datalist>
<button name="decision" value="approve">Authorize</button>
<button name="decision" value="deny" formnovalidate>Cancel</button>
</form></body></html>"""
    return web.Response(text=page, content_type="text/html")


def _with_state(query: dict[str, str], params: Any) -> dict[str, str]:
    if params.get("state"):
        query["state"] = params["state"]
    return query


async def admin_oauth_decide(state: SandboxState, request: web.Request) -> web.StreamResponse:
    """POST /_sandbox/oauth/authorize: the sandbox login form's answer."""
    form = await request.post()
    params = {name: str(form.get(name, "")) for name in _OAUTH_FIELDS}
    problem = _oauth_request_problem(params)
    if problem is not None:
        return web.Response(status=400, text=f"Invalid OAuth request: {problem}")
    if form.get("decision") == "deny":
        return _redirect(
            params["redirect_uri"],
            _with_state(
                {"error": "access_denied", "error_description": "user cancelled authorization"},
                params,
            ),
        )
    username = str(form.get("username", "")).strip()
    if not username:
        return web.Response(status=400, text="Pick a username")
    code = _issue_code(state, params, username)
    return _redirect(params["redirect_uri"], _with_state({"code": code}, params))


def _oauth_error(error: str, description: str) -> web.Response:
    return web.json_response(oauth_error_json(error, description), status=400)


async def oauth_token(state: SandboxState, request: web.Request) -> web.StreamResponse:
    """POST /api/token: authorization code + PKCE verifier -> access token."""
    form = await request.post()
    if form.get("grant_type") != "authorization_code":
        return _oauth_error("unsupported_grant_type", "grant_type must be authorization_code")
    given = {
        "code": form.get("code"),
        "code_verifier": form.get("code_verifier"),
        "redirect_uri": form.get("redirect_uri"),
        "client_id": form.get("client_id"),
    }
    values: dict[str, str] = {}
    for name, value in given.items():
        if not isinstance(value, str) or not value:
            return _oauth_error("invalid_request", f"{name} required")
        values[name] = value
    code = state.codes.get(values["code"])
    if code is None:
        return _oauth_error("invalid_grant", "unknown or expired authorization code")
    if code.used:
        return _oauth_error("invalid_grant", "authorization code already used")
    code.used = True
    if values["redirect_uri"] != code.redirect_uri:
        return _oauth_error("invalid_grant", "redirect_uri does not match")
    if values["client_id"] != code.client_id:
        return _oauth_error("invalid_client", "client_id does not match")
    if pkce_challenge(values["code_verifier"]) != code.code_challenge:
        return _oauth_error("invalid_grant", "hash of code_verifier does not match code_challenge")
    access = "lio_" + secrets.token_urlsafe(24)
    state.tokens[access] = Token(user=code.user, scopes=code.scopes)
    return web.json_response(access_token_json(access, expires_in=TOKEN_LIFETIME))


def pkce_challenge(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)) without padding, as RFC 7636 S256 says."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


StateOf = Callable[[web.Request], SandboxState]
Handler = Callable[[SandboxState, web.Request], Awaitable[web.StreamResponse]]


def oauth_routes(state_of: StateOf, authed: Any) -> list[web.RouteDef]:
    """The routes, given how the app finds its state and checks tokens."""

    def bound(handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def route(request: web.Request) -> web.StreamResponse:
            return await handler(state_of(request), request)

        return route

    async def oauth_revoke(request: web.Request, token: Token | None) -> web.StreamResponse:
        """DELETE /api/token"""
        header = request.headers["Authorization"].partition(" ")[2].strip()
        state_of(request).tokens.pop(header, None)
        return web.Response(status=204)

    return [
        web.get("/oauth", bound(oauth_authorize)),
        web.post("/api/token", bound(oauth_token)),
        web.delete("/api/token", authed(required=True)(oauth_revoke)),
        web.post("/_sandbox/oauth/authorize", bound(admin_oauth_decide)),
    ]
