"""Login with Lichess (OAuth2 authorization code with PKCE), sessions and logout.

``GET /login`` keeps the state and the PKCE verifier in a signed, short-lived cookie that binds
the attempt to this browser (nothing is kept on the server, so no flood of ``/login`` requests can
push a real login out), and sends the browser to Lichess with no scope: identifying the player
through ``GET /api/account`` needs none. ``GET /login/callback`` checks the state, trades the
code and verifier for a token, asks Lichess who it belongs to, revokes it (``DELETE
/api/token``: the app only needed the name, once) and opens a session. The player's token is
never kept.
"""

from __future__ import annotations

import datetime as dt
import logging
import posixpath
import re
import string
from collections.abc import AsyncIterator
from urllib.parse import quote, unquote, urlsplit

import aiohttp
from aiohttp import web

from bot.errors import OperationError
from bot.lichess.errors import LichessError, OAuthError
from bot.lichess.oauth import (
    PendingLogin,
    exchange_code,
    fetch_account,
    revoke_token,
    start_login,
)
from bot.notify.languages import DEFAULT, LANGUAGES, words
from bot.web.core import (
    LANGUAGE_COOKIE,
    bad_request,
    context,
    not_found,
    page_words,
    read_form,
    redirect,
    redirect_with,
    render,
    viewer,
)
from bot.web.games_view import permission_view
from bot.web.security import (
    LOGIN_COOKIE,
    LOGIN_LIFETIME,
    SESSION_COOKIE,
    SESSION_LIFETIME,
    new_token,
    token_id,
)
from rules.core.words import N_
from storage.models_web import WebSessionRow

log = logging.getLogger(__name__)


NEXT_LIMIT = 300
"""The longest ``next`` kept: a path of this site is short; a longer one falls back to ``/``."""
_NEXT_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~/?=&%+:@,;!*'()")
"""What a path of this site is written with: no whitespace, no control character, no backslash,
no ``#``, nothing outside ASCII (so no look-alike of ``/`` or ``.``)."""
_ENCODED_SEPARATORS = ("%2f", "%5c")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def safe_next(value: str | None) -> str:
    """A path of this site to go to after a login, else ``/`` (never another host: no open
    redirect).

    The value is decoded as often as it is encoded (a browser or a proxy may decode again), and
    every layer must be a plain path: it starts with one ``/``, has no ``//`` (a host to a
    browser), no backslash, no control character, tab or newline (a browser drops them, and
    ``/\t/evil.example`` becomes ``//evil.example``), no encoded slash, nothing outside ASCII.
    The answer is the path with its dot segments resolved, and its query.
    """
    if not value or len(value) > NEXT_LIMIT or not set(value) <= _NEXT_CHARACTERS:
        return "/"
    layer = value
    for _ in range(4):
        if not _plain_path(layer):
            return "/"
        try:
            decoded = unquote(layer, errors="strict")
        except UnicodeDecodeError:
            return "/"
        if decoded == layer:
            break
        layer = decoded
    else:
        return "/"  # encoded over and over: no path of this site is
    parts = urlsplit(value)
    path = posixpath.normpath(parts.path) + ("/" if parts.path.endswith("/") else "")
    path = path.replace("//", "/")
    return f"{path}?{parts.query}" if parts.query else path


def _plain_path(text: str) -> bool:
    """One layer of a ``next`` value: a path of this site, nothing a browser reads as a host."""
    if not text.startswith("/") or "//" in text or "\\" in text:
        return False
    if not text.isascii() or any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in text):
        return False
    if any(sep in text.lower() for sep in _ENCODED_SEPARATORS) or _BAD_ESCAPE.search(text):
        return False
    parts = urlsplit(text)
    return not parts.scheme and not parts.netloc


def client_id(base_url: str) -> str:
    """Lichess needs no registered client; the app names itself by its address."""
    return base_url.split("://", 1)[-1].split("/", 1)[0] or "acwc-bot"


def _login_cookie(pending: PendingLogin, expires: dt.datetime, next_path: str) -> str:
    """The attempt as the browser keeps it: state, PKCE verifier, expiry and where to go after.

    Signed, so it cannot be altered; nothing of it is kept on the server, so no flood of
    unfinished logins can push out a real one.
    """
    kept = quote(next_path, safe="/?=&").replace(".", "%2E")  # a signed value has no "."
    if len(kept) > 300:
        kept = "/"
    return f"{pending.state}~{pending.code_verifier}~{int(expires.timestamp())}~{kept}"


def _read_login_cookie(value: str, now: dt.datetime) -> tuple[str, str, str] | None:
    """(state, verifier, next path) of an unexpired attempt, else None."""
    state, verifier, expires, kept = [*value.split("~", 3), "", "", ""][:4]
    if not state or not verifier or not expires.isascii() or not expires.isdigit():
        return None
    if now.timestamp() > int(expires):
        return None
    return state, verifier, unquote(kept)


async def login(request: web.Request) -> web.StreamResponse:
    """``GET /login``: off to Lichess to say who you are."""
    ctx = context(request)
    now = ctx.browser_now()
    base = ctx.base_url(request)
    pending = start_login(
        base_url=ctx.runtime.lichess_url,
        client_id=client_id(base),
        redirect_uri=f"{base}/login/callback",
    )
    next_path = safe_next(request.query.get("next"))
    response = redirect(pending.url, status=302)
    response.set_cookie(
        LOGIN_COOKIE,
        ctx.signer.sign("login", _login_cookie(pending, now + LOGIN_LIFETIME, next_path)),
        max_age=int(LOGIN_LIFETIME.total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=ctx.secure_cookies,
        path="/login",
    )
    return response


async def callback(request: web.Request) -> web.StreamResponse:
    """``GET /login/callback?code=&state=``: check, exchange, identify, open a session."""
    ctx = context(request)
    now = ctx.now()
    bound = ctx.signer.unsign("login", request.cookies.get(LOGIN_COOKIE))
    state = request.query.get("state", "")[:200]
    if bound is None:
        raise bad_request(
            N_(
                "This login was not started from this browser, or took too long. Please log in "
                "again."
            )
        )
    browser_now = ctx.browser_now()
    attempt = _read_login_cookie(bound, browser_now)
    if attempt is None:
        raise bad_request(N_("This login has expired. Please log in again."))
    bound_state, verifier, next_path = attempt
    base = ctx.base_url(request)
    pending = PendingLogin(
        base_url=ctx.runtime.lichess_url.rstrip("/"),
        client_id=client_id(base),
        redirect_uri=f"{base}/login/callback",
        state=bound_state,
        code_verifier=verifier,
        url="",
    )
    http = request.app[HTTP]
    try:
        token = await exchange_code(
            http,
            pending,
            code=request.query.get("code", "")[:500] or None,
            state=state or None,
            error=request.query.get("error", "")[:100] or None,
        )
        user = await fetch_account(http, ctx.runtime.lichess_url, token)
    except OAuthError as e:
        if e.error == "access_denied":
            raise bad_request(N_("You cancelled the login on Lichess.")) from None
        log.info("web login refused: %s", e.error)
        raise bad_request(
            N_("Lichess did not confirm this login (it may have expired). Please log in again.")
        ) from None
    except LichessError as e:
        log.warning("web login: Lichess could not be reached: %s", e.__class__.__name__)
        raise bad_request(
            N_("Lichess could not be reached to confirm the login; try again.")
        ) from None
    await _forget_login_token(http, ctx.runtime.lichess_url, token)
    session_token = new_token()
    async with ctx.db.uow() as uow:
        repo = uow.web
        await repo.delete_expired(browser_now)
        await repo.add_session(
            WebSessionRow(
                id=token_id(session_token),
                user_id=user.id,
                username=user.username,
                csrf=new_token(),
                created_at=browser_now,
                expires_at=browser_now + SESSION_LIFETIME,
            )
        )
        await uow.audit.record(at=now, actor=user.username, action="web.login", player=user.id)
        await uow.commit()
    log.info("web login: %s", user.username)
    response = redirect(safe_next(next_path))
    response.set_cookie(
        SESSION_COOKIE,
        ctx.signer.sign("session", session_token),
        max_age=int(SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=ctx.secure_cookies,
        path="/",
    )
    response.del_cookie(LOGIN_COOKIE, path="/login")
    return response


async def _forget_login_token(http: aiohttp.ClientSession, lichess_url: str, token: str) -> None:
    """The login's token named the player and is needed no more: revoked on Lichess at once
    (a failure leaves it to lapse there; the site never kept it)."""
    try:
        await revoke_token(http, lichess_url, token)
    except LichessError as e:
        log.info("web login: the login token could not be revoked: %s", e.__class__.__name__)


async def login_page(request: web.Request) -> web.StreamResponse:
    """``GET /account``: who you are logged in as, a player's choices, and the logout
    button."""
    who = viewer(request)
    links_by_dm = None
    if who is not None and who.is_player:
        async with context(request).db.reads() as uow:
            player = await uow.players.get(who.user_id)
        links_by_dm = None if player is None else player.game_links_by_dm
    games = await permission_view(request)
    return await render(
        request,
        "account.html",
        {
            "title": page_words().gettext("Your account"),
            "game_links_by_dm": links_by_dm,
            "games_permission": games,
            "chosen": (who.language if who is not None else None) or DEFAULT,
        },
    )


PREFERENCE_VALUES = {"yes": True, "no": False}


async def preferences(request: web.Request) -> web.StreamResponse:
    """``POST /account/preferences``: a player's choice of each later game's link by DM."""
    who, values = await read_form(request, {"game_links_by_dm": 3})
    raw = values.get("game_links_by_dm")
    if raw not in PREFERENCE_VALUES:
        raise bad_request('The field "game_links_by_dm" must be "yes" or "no".')
    ctx = context(request)
    try:
        async with ctx.db.uow() as uow:
            await ctx.services.players.set_game_links_by_dm(
                uow, who.user_id, wanted=PREFERENCE_VALUES[raw], now=ctx.now()
            )
            await uow.commit()
    except OperationError as e:
        return redirect_with(request, "/account", str(e), ok=False)
    language = page_words()
    said = (
        language.gettext("Each later game's challenge link now comes by DM too.")
        if PREFERENCE_VALUES[raw]
        else language.gettext("Later games' challenge links are in your match room only.")
    )
    return redirect_with(request, "/account", said)


async def choose_language(request: web.Request) -> web.StreamResponse:
    """``POST /account/language``: the language of a player's notices and pages."""
    who, values = await read_form(request, {"language": 10})
    language = values.get("language", "")
    ctx = context(request)
    if language not in LANGUAGES:
        said = page_words().gettext("There is no language '%(code)s': choose one of %(codes)s.")
        return redirect_with(
            request, "/account", said % {"code": language, "codes": ", ".join(LANGUAGES)}, ok=False
        )
    if not who.is_player:
        said = page_words().gettext("Only a registered player has this choice.")
        return redirect_with(request, "/account", said, ok=False)
    try:
        async with ctx.db.uow() as uow:
            await ctx.services.players.set_language(
                uow, who.user_id, language=language, now=ctx.now()
            )
            await uow.commit()
    except OperationError as e:
        return redirect_with(request, "/account", str(e), ok=False)
    # the page that follows is in the new language already
    said = words(language).gettext("Your notices and pages are now in %(language)s.")
    return redirect_with(request, "/account", said % {"language": LANGUAGES[language]})


LANGUAGE_COOKIE_DAYS = 365


async def pick_language(request: web.Request) -> web.StreamResponse:
    """``GET /language/{code}?next=…``: a visitor's pages in that language from now on (a
    cookie; a player's choice stored on ``/account`` comes first), back to the page they read."""
    code = request.match_info["code"]
    if code not in LANGUAGES:
        raise not_found()
    response = redirect(safe_next(request.query.get("next")))
    response.set_cookie(
        LANGUAGE_COOKIE,
        code,
        max_age=LANGUAGE_COOKIE_DAYS * 24 * 3600,
        path="/",
        httponly=True,
        samesite="Lax",
        secure=context(request).secure_cookies,
    )
    return response


async def logout(request: web.Request) -> web.StreamResponse:
    """``POST /logout`` (CSRF checked): the session row goes, so the cookie is dead everywhere."""
    ctx = context(request)
    who, _ = await read_form(request, {})
    async with ctx.db.uow() as uow:
        await uow.web.delete_session(who.session_id)
        await uow.commit()
    said = page_words().gettext("You are logged out.")
    response = redirect_with(request, "/", said, logged_out=True)
    response.del_cookie(SESSION_COOKIE, path="/")
    return response


HTTP = web.AppKey("acwc.http", aiohttp.ClientSession)
"""The web app's own HTTP client (the login's calls to Lichess), open while the app runs."""


async def _http_session(app: web.Application) -> AsyncIterator[None]:
    async with aiohttp.ClientSession() as session:
        app[HTTP] = session
        yield


def add_routes(app: web.Application) -> None:
    app.router.add_get("/login", login)
    app.router.add_get("/login/callback", callback)
    app.router.add_get("/account", login_page)
    app.router.add_post("/account/preferences", preferences)
    app.router.add_post("/account/language", choose_language)
    app.router.add_get("/language/{code}", pick_language)
    app.router.add_post("/logout", logout)
    app.cleanup_ctx.append(_http_session)
