"""A player lets the bot start their games, or withdraws it, on ``/account`` (issue 25).

``POST /account/games/allow`` sends the player to Lichess to grant ``challenge:write`` (the
attempt is bound to the browser by a signed, short-lived cookie, as the login's); the callback
checks that the token is the logged-in player's and has that scope, and hands it to
:class:`~bot.service.player_tokens.PlayerTokens`, which keeps it encrypted. ``POST
/account/games/withdraw`` forgets it and revokes it on Lichess (``DELETE /api/token``). The
account page shows the block of ``_games_permission.html`` (:mod:`bot.web.games_view`).
"""

from __future__ import annotations

import logging

from aiohttp import web

from bot.errors import OperationError
from bot.lichess.errors import LichessError, OAuthError
from bot.lichess.oauth import (
    PendingLogin,
    exchange_code,
    fetch_account,
    revoke_token,
    start_login,
    token_scopes,
)
from bot.service.player_tokens import GAME_SCOPE
from bot.web.auth import HTTP, _login_cookie, _read_login_cookie, client_id
from bot.web.core import (
    bad_request,
    context,
    page_words,
    read_form,
    redirect,
    redirect_with,
    require_login,
)
from bot.web.security import LOGIN_LIFETIME
from rules.core.words import N_

__all__ = ["add_routes", "revoke_on_lichess"]

log = logging.getLogger(__name__)

COOKIE = "acwc_games_grant"
PATH = "/account/games"


async def allow(request: web.Request) -> web.StreamResponse:
    """``POST /account/games/allow``: off to Lichess to grant ``challenge:write``."""
    who, _form = await read_form(request, {})
    ctx = context(request)
    base = ctx.base_url(request)
    pending = start_login(
        base_url=ctx.runtime.lichess_url,
        client_id=client_id(base),
        redirect_uri=f"{base}{PATH}/callback",
        scopes=(GAME_SCOPE,),
        username_hint=who.username,
    )
    response = redirect(pending.url, status=303)
    value = _login_cookie(pending, ctx.now() + LOGIN_LIFETIME, "/account")
    response.set_cookie(
        COOKIE,
        ctx.signer.sign("games", value),
        max_age=int(LOGIN_LIFETIME.total_seconds()),
        httponly=True,
        samesite="Lax",
        secure=ctx.secure_cookies,
        path=PATH,
    )
    return response


async def callback(request: web.Request) -> web.StreamResponse:
    """``GET /account/games/callback``: the token, if it is this player's with the scope."""
    who = require_login(request)
    ctx = context(request)
    attempt = _read_login_cookie(
        ctx.signer.unsign("games", request.cookies.get(COOKIE)) or "", ctx.now()
    )
    if attempt is None:
        raise bad_request(N_("This permission was not asked from this browser, or took too long."))
    base = ctx.base_url(request)
    pending = PendingLogin(
        base_url=ctx.runtime.lichess_url.rstrip("/"),
        client_id=client_id(base),
        redirect_uri=f"{base}{PATH}/callback",
        state=attempt[0],
        code_verifier=attempt[1],
        url="",
    )
    http = request.app[HTTP]
    try:
        token = await exchange_code(
            http,
            pending,
            code=request.query.get("code", "")[:500] or None,
            state=request.query.get("state", "")[:200] or None,
            error=request.query.get("error", "")[:100] or None,
        )
        user = await fetch_account(http, ctx.runtime.lichess_url, token)
        scopes = await token_scopes(http, ctx.runtime.lichess_url, token)
    except OAuthError as e:
        if e.error == "access_denied":
            return _done(request, _("You did not give the permission on Lichess."), ok=False)
        raise bad_request(N_("Lichess did not confirm the permission; please try again.")) from None
    except LichessError:
        raise bad_request(N_("Lichess could not be reached; please try again.")) from None
    if user.id != who.user_id:
        await revoke_on_lichess(request, token)
        return _done(
            request,
            _("That was %(account)s's Lichess account, not yours.") % {"account": user.username},
            ok=False,
        )
    try:
        async with ctx.db.uow() as uow:
            assert ctx.services.player_tokens is not None
            earlier = await ctx.services.player_tokens.allow(
                uow, who.user_id, token, scopes, now=ctx.now()
            )
            await uow.commit()
    except OperationError as e:
        await revoke_on_lichess(request, token)
        return _done(request, _(str(e)), ok=False)
    if earlier is not None:  # the token it replaces: no longer kept, so revoked
        await revoke_on_lichess(request, earlier)
    return _done(
        request,
        _(
            "The bot may now start your games: when your opponent allowed it too, Lichess "
            "creates each game at its time, and you just play."
        ),
    )


async def withdraw(request: web.Request) -> web.StreamResponse:
    """``POST /account/games/withdraw``: forget the token here and revoke it on Lichess."""
    who, _form = await read_form(request, {})
    ctx = context(request)
    tokens = ctx.services.player_tokens
    if tokens is None:
        raise bad_request(N_("The bot does not start games for players in this tournament."))
    async with ctx.db.uow() as uow:
        token = await tokens.withdraw(uow, who.user_id, now=ctx.now(), actor=who.username)
        await uow.commit()
    if token is not None and not await revoke_on_lichess(request, token):
        return redirect_with(
            request,
            "/account",
            _(
                "The bot forgot your permission, but Lichess could not be reached to revoke "
                "it: you may revoke it yourself in your Lichess account's security settings."
            ),
            ok=False,
        )
    return redirect_with(request, "/account", _("The bot no longer starts your games."))


async def revoke_on_lichess(request: web.Request, token: str) -> bool:
    """Revoke ``token`` on Lichess; whether it went (a failure is logged, never shown)."""
    try:
        await revoke_token(request.app[HTTP], context(request).runtime.lichess_url, token)
    except LichessError as e:
        log.warning("could not revoke a player's token on Lichess: %s", e.__class__.__name__)
        return False
    return True


def _(text: str) -> str:
    """``text`` in the page's language (the reader's)."""
    return page_words().gettext(text)


def _done(request: web.Request, message: str, *, ok: bool = True) -> web.StreamResponse:
    response = redirect_with(request, "/account", message, ok=ok)
    response.del_cookie(COOKIE, path=PATH)
    return response


def add_routes(app: web.Application) -> None:
    app.router.add_post(f"{PATH}/allow", allow)
    app.router.add_get(f"{PATH}/callback", callback)
    app.router.add_post(f"{PATH}/withdraw", withdraw)
