"""What the account page shows of a player's permission to start their games (issue 25); the
routes that change it are :mod:`bot.web.games_permission`."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.web.core import context, viewer, when

__all__ = ["permission_view"]


async def permission_view(request: web.Request) -> dict[str, Any] | None:
    """What the account page's block shows a player (``None``: not offered, or no player)."""
    who = viewer(request)
    ctx = context(request)
    tokens = ctx.services.player_tokens
    if who is None or not who.is_player or tokens is None or not tokens.offered:
        return None
    async with ctx.db.reads() as uow:
        found = await tokens.permission(uow, who.user_id)
    return {
        "allowed": found.allowed,
        "since": found.since,
        "dropped": when(found.dropped, ctx.now()),  # a TD deleted it, Lichess did not revoke it
    }
