"""The desk's pairing review (every round of every stage; propose and re-pair the next
qualification round) and its withdrawals and disqualifications with the tables before and
after (rules 3.v.6, 8)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiohttp import web

from bot.config import USERNAME
from bot.errors import OperationError
from bot.views import matches as views
from bot.web.core import bad_request, context, read_form, redirect_with, render, require_td, when
from bot.web.desk.decisions import REASON_LIMIT, settled_keys
from rules.core.errors import RulesError
from storage.models import RoundRow

__all__ = ["exit_confirm", "exit_page", "pair_round", "rounds_page"]


async def rounds_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/rounds``: pairing review, every round of every stage."""
    require_td(request)
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.reads() as uow:
        tournament = await uow.tournaments.current()
        names = {p.id: p.username for p in await uow.players.list()}
        stages: list[tuple[str, list[tuple[RoundRow, Sequence[Any]]]]] = []
        if tournament is not None:
            for stage in await uow.tournaments.stages(tournament.id):
                rounds = [
                    (r, await uow.matches.for_round(r.id))
                    for r in await uow.tournaments.rounds(stage.id)
                ]
                if rounds:
                    stages.append((views.STAGE_LABELS.get(stage.kind, stage.kind), rounds))
        done = await settled_keys(uow)
    return await render(
        request,
        "desk_rounds.html",
        {
            "title": "Pairing review",
            "stages": stages,
            "names": names,
            "settled": done,
            "when": lambda t: when(t, now),
        },
    )


PAIR_ACTIONS = ("pair", "forbid", "swap")


async def pair_round(request: web.Request) -> web.StreamResponse:
    """``POST /desk/rounds/pair``: propose the next qualification round, or re-pair the proposal
    with a forbidden pair or a swap (the same operation as ``acwc round pair``: the engine
    re-pairs under the rules; nothing is edited by hand)."""
    require_td(request)
    who, values = await read_form(request, {"action": 10, "first": 30, "second": 30})
    action = values.get("action", "")
    if action not in PAIR_ACTIONS:
        raise bad_request("Choose pair, forbid or swap.")
    pair: list[tuple[str, str]] = []
    if action != "pair":
        first, second = values.get("first", "").strip(), values.get("second", "").strip()
        if (
            not (USERNAME.match(first) and USERNAME.match(second))
            or first.lower() == second.lower()
        ):
            return redirect_with(
                request, "/desk/rounds", "Give two different players' usernames.", ok=False
            )
        pair = [(first, second)]
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            view = await ctx.services.qualification.propose_round(
                uow,
                now=ctx.now(),
                actor=who.username,
                forbid=pair if action == "forbid" else (),
                swap=pair if action == "swap" else (),
            )
        except (OperationError, RulesError) as e:
            return redirect_with(request, "/desk/rounds", str(e), ok=False)
        await uow.commit()
    return redirect_with(
        request,
        "/desk/rounds",
        f"Qualification round {view.number} proposed ({len(view.boards)} boards); "
        "approve it from the desk.",
    )


EXIT_KINDS = ("withdrawal", "disqualification")


async def _exit_preview(
    request: web.Request, values: dict[str, str], actor: str, *, commit: bool
) -> tuple[Any, str | None]:
    """Run the exit in a unit of work: committed to confirm, rolled back for the preview."""
    kind = values.get("kind", "")
    if kind not in EXIT_KINDS:
        raise bad_request("Choose a withdrawal or a disqualification.")
    player = values.get("player", "").strip()
    if not USERNAME.match(player):
        raise bad_request("Give the player's Lichess username.")
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            preview = await ctx.services.exits.exit_player(
                uow,
                player=player,
                kind=kind,
                reason=" ".join(values.get("reason", "").split()),
                engine_mark=values.get("engine") == "1",
                now=ctx.now(),
                actor=actor,
            )
        except (OperationError, RulesError) as e:
            return None, str(e)
        if commit:
            await uow.commit()
    if commit:
        ctx.changed()
        await ctx.runtime.refresh_players()
    return preview, None


EXIT_LIMITS = {"player": 30, "kind": 20, "engine": 1, "reason": REASON_LIMIT}


async def exit_page(request: web.Request) -> web.StreamResponse:
    """``POST /desk/exit/preview``: the standings before and after a withdrawal or
    disqualification (rules 8), nothing changed yet; the page's button confirms it."""
    require_td(request)
    who, values = await read_form(request, EXIT_LIMITS)
    preview, error = await _exit_preview(request, values, who.username, commit=False)
    if error is not None:
        return redirect_with(request, "/desk#exits", error, ok=False)
    return await render(
        request,
        "desk_exit.html",
        {"title": "Confirm the exit", "preview": preview, "values": values},
    )


async def exit_confirm(request: web.Request) -> web.StreamResponse:
    """``POST /desk/exit``: make the withdrawal or disqualification (audited by name)."""
    require_td(request)
    who, values = await read_form(request, EXIT_LIMITS)
    preview, error = await _exit_preview(request, values, who.username, commit=True)
    if error is not None:
        return redirect_with(request, "/desk#exits", error, ok=False)
    return redirect_with(
        request, "/desk", f"{preview.username}: {preview.kind} recorded ({preview.stage} stage)."
    )
