"""The players' data (issue 28): the privacy page, a player's download of their data, and their
request that it be removed.

``GET /privacy`` says what is stored, why, for how long, who sees it, and how to download or
remove it (linked from every page's footer). ``GET /account/data`` is the logged-in viewer's own
data as one JSON file (it reads only). ``POST /account/data/remove`` asks the TDs to remove it:
a card on their desk (:mod:`bot.web.desk.privacy_cards`), which removes what the record does
not need once a TD presses its button.
"""

from __future__ import annotations

import json

from aiohttp import web

from bot.errors import OperationError
from bot.web.core import (
    bad_request,
    context,
    page_words,
    read_form,
    redirect_with,
    render,
    require_login,
)
from bot.web.security import SESSION_LIFETIME
from rules.core.words import N_

__all__ = ["add_routes"]


async def privacy_page(request: web.Request) -> web.StreamResponse:
    """``GET /privacy``: what the site keeps about a player, and what they can do about it."""
    config = context(request).config
    return await render(
        request,
        "privacy.html",
        {
            "title": page_words().gettext("Your data"),
            "session_days": SESSION_LIFETIME.days,
            "tds": config.tournament.tds,
            "bulk_pairing": config.games.bulk_pairing,
        },
    )


async def download(request: web.Request) -> web.StreamResponse:
    """``GET /account/data``: every row about the viewer, as one JSON file."""
    who = require_login(request)
    ctx = context(request)
    data = ctx.services.player_data
    if data is None:
        raise bad_request(N_("This service keeps no players' data to download."))
    async with ctx.db.reads() as uow:
        rows = await data.download(uow, who.user_id, now=ctx.now())
    body = json.dumps(rows, indent=1, sort_keys=True, ensure_ascii=False, default=str)
    return web.Response(
        text=body,
        content_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="acwc-data-{who.user_id}.json"',
            "Cache-Control": "no-store",
        },
    )


async def ask_removal(request: web.Request) -> web.StreamResponse:
    """``POST /account/data/remove``: the viewer asks the TDs to remove their data."""
    who, _ = await read_form(request, {})
    ctx = context(request)
    data = ctx.services.player_data
    if data is None:
        raise bad_request(N_("This service keeps no players' data to remove."))
    try:
        async with ctx.db.uow() as uow:
            await data.ask_removal(uow, who.user_id, actor=who.username, now=ctx.now())
            await uow.commit()
    except OperationError as e:
        return redirect_with(request, "/account", page_words().gettext(str(e)), ok=False)
    ctx.changed()
    return redirect_with(
        request,
        "/account",
        page_words().gettext(
            "The TDs have your request: once one of them confirms it, your data is removed and "
            "you are logged out (your results stay on record under your Lichess name)."
        ),
    )


def add_routes(app: web.Application) -> None:
    app.router.add_get("/privacy", privacy_page)
    app.router.add_get("/account/data", download)
    app.router.add_post("/account/data/remove", ask_removal)
