"""The TDs' conduct actions on a match (rules 6.2): charge a single game forfeit from the match
room. Small and self-contained: one handler, one form in the room's TD block."""

from __future__ import annotations

from aiohttp import web

from bot.errors import OperationError
from bot.web.core import context, not_found, read_form, redirect_with, require_td, whole_number
from bot.web.desk.decisions import REASON_LIMIT
from rules.core.errors import RulesError

__all__ = ["game_forfeit"]


async def game_forfeit(request: web.Request) -> web.StreamResponse:
    """``POST /desk/match/{match_id}/game-forfeit``: the match's next game is recorded as
    forfeited by the player named (a rematch not offered or not accepted at once, again: rules
    6.2), and the forfeit goes on their record (rules 6.5)."""
    require_td(request)
    who, values = await read_form(request, {"player": 30, "reason": REASON_LIMIT})
    match_id = whole_number(request.match_info.get("match_id"))
    if match_id is None:
        raise not_found("There is no such match.")
    room = f"/match/{match_id}"
    ctx = context(request)
    player = values.get("player", "").strip()
    async with ctx.db.uow() as uow:
        try:
            number = await ctx.services.conduct.charge_game_forfeit(
                uow,
                ctx.services.results,
                match_id=match_id,
                player=player,
                reason=" ".join(values.get("reason", "").split()),
                now=ctx.now(),
                actor=who.username,
            )
        except (OperationError, RulesError) as e:
            return redirect_with(request, room, str(e), ok=False)
        await uow.commit()
    ctx.changed()
    return redirect_with(
        request, room, f"Game {number} recorded as forfeited by {player} (rules 6.2)."
    )
