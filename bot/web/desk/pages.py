"""The desk's main page and its actions: pending decisions, result corrections, relayed texts,
forum posts to mark posted, and the audit log."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from aiohttp import web

from bot.config import USERNAME
from bot.errors import OperationError
from bot.service.forum import AlreadyPostedError, NotADraftError
from bot.service.preview import Preview, preview
from bot.service.registration import run_scopes
from bot.views import matches as views
from bot.views.candidates import points_text
from bot.views.candidates import pools as candidates_pools
from bot.web.auth import safe_next
from bot.web.core import (
    bad_request,
    context,
    int_field,
    not_found,
    read_form,
    redirect_with,
    render,
    require_td,
    when,
    whole_number,
)
from bot.web.desk.decisions import REASON_LIMIT, Choice, Decision, Ruling, audit_text
from bot.web.desk.rulings import RESULT_CHOICES
from bot.web.desk.sources import pending_decisions, source
from bot.web.room import say_and_commit
from rules.core.errors import RulesError
from rules.core.model import normalise_username
from rules.talk.commands import MAX_LENGTH
from storage.models import OutboxRow, OutboxStatus
from storage.uow import UnitOfWork

__all__ = [
    "TOOLS",
    "audit_page",
    "confirm_page",
    "correct_result",
    "desk",
    "mark_posted",
    "relay",
    "result_preview",
    "settle",
    "settle_preview",
]


TOOLS: list[str] = [
    "desk_tool_result.html",
    "desk_tool_adjudicate.html",
    "desk_tool_relay.html",
    "desk_tool_exit.html",
    "desk_tool_sync.html",
]
"""The desk's "Rulings by hand" section, in order: one template each (a form that calls the
service operation the command line's command calls). A feature adds its own here."""


def current_drafts(pending: Iterable[OutboxRow]) -> list[OutboxRow]:
    """Forum posts still to paste, without those a newer draft replaced: of one kind about one
    match (an agreed time that changed), only the newest is worth posting. The older stay
    stored, as everything does."""
    newest: dict[tuple[str, int], int] = {}
    rows = list(pending)
    for row in rows:
        if row.notice is not None and row.match_id is not None:
            newest[(row.notice, row.match_id)] = max(
                row.id, newest.get((row.notice, row.match_id), 0)
            )
    return [
        row
        for row in rows
        if row.notice is None
        or row.match_id is None
        or newest[(row.notice, row.match_id)] == row.id
    ]


async def desk(request: web.Request) -> web.StreamResponse:
    require_td(request)
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.reads() as uow:
        decisions = await pending_decisions(uow, ctx.services, now=now)
        drafts = await uow.web.forum_drafts()
        notes = await uow.outbox.recent_notes()
        rounds = await views.published_rounds(uow)
        pools = await candidates_pools(uow, ctx.config)
        posted_by = {
            int(r.details.get("outbox", 0)): r.actor
            for r in await uow.web.audit_actions("forum.posted")
        }
        stopped = await uow.holds.get("outbox")  # Lichess refused the token (runtime/outbox)
    return await render(
        request,
        "desk.html",
        {
            "title": "TD desk",
            "outbox_stopped": None if stopped is None else stopped.reason,
            "scopes": run_scopes(ctx.config),
            "decisions": [d for d in decisions if not d.optional],
            "rulings": [d for d in decisions if d.optional],
            "drafts": current_drafts(
                d for d in drafts if d.status is not OutboxStatus.POSTED or d.revised_body
            ),
            "notes": notes,
            "posted": [d for d in drafts if d.status is OutboxStatus.POSTED][-10:],
            "posted_by": posted_by,
            "current": rounds[:1],
            "pools": pools,
            "points": points_text,
            "when": lambda t: when(t, now),
            "results": list(RESULT_CHOICES),
            "max_text": MAX_LENGTH,
            "tools": TOOLS,
        },
    )


DECIDE_LIMITS = {"kind": 20, "key": 200, "choice": 40, "reason": REASON_LIMIT}


@dataclass(frozen=True, slots=True)
class Pick:
    """One button of one pending decision, as a TD pressed it."""

    actor: str
    values: dict[str, str]
    decision: Decision
    choice: Choice
    reason: str


async def _pick(request: web.Request, uow: UnitOfWork) -> Pick | str:
    """The pending decision and the button the form names, or what is wrong with it."""
    who, values = await read_form(request, DECIDE_LIMITS)
    ctx = context(request)
    kind, key, choice = values.get("kind", ""), values.get("key", ""), values.get("choice", "")
    reason = " ".join(values.get("reason", "").split())
    source(kind)  # 404 for a kind that does not exist
    pending = {
        d.key: d
        for d in await pending_decisions(uow, ctx.services, now=ctx.now())
        if d.kind == kind
    }
    decision = pending.get(key)
    if decision is None:
        return "That decision was already settled or is gone."
    picked = next((c for c in decision.choices if c.value == choice), None)
    if picked is None:
        raise bad_request("That is not one of this decision's buttons.")
    if picked.needs_reason and not reason:
        return "Give a reason: it goes into the audit log."
    return Pick(who.username, values | {"reason": reason}, decision, picked, reason)


async def _settle(request: web.Request, uow: UnitOfWork, pick: Pick) -> str:
    ctx = context(request)
    return await source(pick.decision.kind).settle(
        uow,
        ctx.services,
        Ruling(
            key=pick.decision.key,
            choice=pick.choice.value,
            reason=pick.reason,
            actor=pick.actor,
            now=ctx.now(),
        ),
    )


async def settle(request: web.Request) -> web.StreamResponse:
    """``POST /desk/decide``: one button of one pending decision."""
    return await _decide(request, keep=True)


async def settle_preview(request: web.Request) -> web.StreamResponse:
    """``POST /desk/decide/preview``: what the button would do and the standings lines it
    changes (rank, player, points before -> after); nothing is kept. The page's button makes
    the decision (``POST /desk/decide``)."""
    return await _decide(request, keep=False)


async def _decide(request: web.Request, *, keep: bool) -> web.StreamResponse:
    require_td(request)
    ctx = context(request)
    async with ctx.db.uow() as uow:
        pick = await _pick(request, uow)
        if isinstance(pick, str):
            return redirect_with(request, "/desk", pick, ok=False)
        try:
            if keep:
                message = await _settle(request, uow, pick)
            else:
                tried = await preview(uow, ctx.config, lambda: _settle(request, uow, pick))
        except (OperationError, RulesError) as e:
            return redirect_with(request, "/desk", str(e), ok=False)
        if keep:
            await uow.audit.record(
                at=ctx.now(),
                actor=pick.actor,
                action="desk.settle",
                reason=pick.reason or None,
                match_id=pick.decision.match_id,
                details={
                    "kind": pick.decision.kind,
                    "key": pick.decision.key,
                    "choice": pick.choice.value,
                },
            )
            await uow.commit()
        # (a preview leaves the unit of work without a commit: the decision is dropped)
    if keep:
        ctx.changed()
        return redirect_with(request, "/desk", message)
    return await confirm_page(
        request,
        tried,
        heading=pick.decision.title,
        action=pick.choice.label,
        reason=pick.reason,
        to="/desk/decide",
        fields={k: pick.values.get(k, "") for k in DECIDE_LIMITS},
    )


async def confirm_page(
    request: web.Request,
    tried: Preview[str],
    *,
    heading: str,
    action: str,
    reason: str,
    to: str,
    fields: dict[str, str],
    back: str = "/desk",
) -> web.StreamResponse:
    """The decision as it would be, the standings lines it changes, and the button that makes
    it (a form to ``to`` with the same ``fields``)."""
    return await render(
        request,
        "desk_confirm.html",
        {
            "title": "Confirm",
            "heading": heading,
            "action": action.removeprefix("Confirm: "),  # the page's heading says "Confirm:"
            "reason": reason,
            "outcome": tried.outcome,
            "changes": tried.changes,
            "confirm_to": to,
            "fields": fields,
            "back": back,
        },
    )


RESULT_LIMITS = {"match_id": 10, "game": 4, "result": 10, "reason": REASON_LIMIT}


async def _record_result(
    request: web.Request, uow: UnitOfWork, actor: str, values: dict[str, str]
) -> str:
    ctx = context(request)
    match_id = int_field(values, "match_id", low=1)
    game = int_field(values, "game", low=1, high=100)
    state = await ctx.services.results.record(
        uow,
        match_id,
        game_number=game,
        result=values.get("result", ""),
        reason=" ".join(values.get("reason", "").split()),
        now=ctx.now(),
        actor=actor,
    )
    return f"Match {match_id}: game {game} recorded; score {state.score}."


async def correct_result(request: web.Request) -> web.StreamResponse:
    """``POST /desk/result``: record or correct one game of a match, with a reason (rules 1.3)."""
    require_td(request)
    who, values = await read_form(request, RESULT_LIMITS)
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            message = await _record_result(request, uow, who.username, values)
        except OperationError as e:
            return redirect_with(request, "/desk#results", str(e), ok=False)
        await uow.commit()
    ctx.changed()
    return redirect_with(request, "/desk#results", message)


async def result_preview(request: web.Request) -> web.StreamResponse:
    """``POST /desk/result/preview``: the standings lines a recorded or corrected game changes,
    nothing kept; the page's button records it (``POST /desk/result``)."""
    require_td(request)
    who, values = await read_form(request, RESULT_LIMITS)
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            tried = await preview(
                uow, ctx.config, lambda: _record_result(request, uow, who.username, values)
            )
        except OperationError as e:
            return redirect_with(request, "/desk#results", str(e), ok=False)
    return await confirm_page(
        request,
        tried,
        heading=f"Record a result in match {values.get('match_id', '')}",
        action=f"Game {values.get('game', '')}: {values.get('result', '')}",
        reason=" ".join(values.get("reason", "").split()),
        to="/desk/result",
        fields={k: values.get(k, "") for k in RESULT_LIMITS},
        back="/desk#results",
    )


async def relay(request: web.Request) -> web.StreamResponse:
    """``POST /desk/relay``: "alice wrote: offer thu 18:00", through the room's own handler."""
    require_td(request)
    who, values = await read_form(
        request, {"player": 30, "match_id": 10, "text": MAX_LENGTH, "back": 100}
    )
    ctx = context(request)
    now = ctx.now()
    username = values.get("player", "").strip()
    text = values.get("text", "").strip()
    if not USERNAME.match(username):
        raise bad_request("Give the player's Lichess username.")
    if not text:
        raise bad_request("Give what the player wrote, e.g. `offer thu 18:00`.")
    player_id = normalise_username(username)
    back = safe_next(values.get("back")) if values.get("back") else "/desk#relay"
    async with ctx.db.uow() as uow:
        if values.get("match_id", "").strip():
            match_id = int_field(values, "match_id", low=1)
            row = await uow.matches.get(match_id)
        else:
            row = await views.current_match(uow, player_id)
        if row is None or player_id not in (row.white_first, row.black_first):
            return redirect_with(
                request, "/desk#relay", f"{username} has no such match to act on.", ok=False
            )
        match_id = row.id

    async def audit_relay(uow: UnitOfWork, reply: str, ok: bool) -> None:
        await uow.audit.record(
            at=now,
            actor=who.username,
            action="desk.relay",
            player=player_id,
            match_id=match_id,
            details={"text": text, "reply": reply[:500], "ok": ok},
        )

    message, ok = await say_and_commit(
        ctx,
        match_id=match_id,
        player=player_id,
        text=text,
        via="td-relay",
        relayed_by=who.username,
        after=audit_relay,
    )
    return redirect_with(request, back, f"{username} (relayed): {message}", ok=ok)


async def mark_posted(request: web.Request) -> web.StreamResponse:
    """``POST /desk/forum/{id}/posted``: the TD pasted this forum post; never list it again."""
    require_td(request)
    who, _ = await read_form(request, {})
    ctx = context(request)
    now = ctx.now()
    draft_id = whole_number(request.match_info.get("draft_id"))
    if draft_id is None:
        raise not_found("There is no such forum post.")
    async with ctx.db.uow() as uow:
        try:
            await ctx.services.forum.mark_posted(uow, draft_id, now=now, actor=who.username)
        except NotADraftError:
            raise not_found("There is no such forum post.") from None
        except AlreadyPostedError:
            return redirect_with(request, "/desk#forum", "That post was already marked posted.")
        await uow.commit()
    return redirect_with(request, "/desk#forum", "Marked posted.")


AUDIT_PAGE = 100


AUDIT_FILTERS = ("match", "player", "actor", "action")


async def audit_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/audit``: the audit log, newest first, filtered by match, player, actor or
    action (``?match=12&player=alice&actor=Tina&action=claim.``)."""
    require_td(request)
    ctx = context(request)
    query = request.query
    filters = {name: " ".join(query.get(name, "").split())[:60] for name in AUDIT_FILTERS}
    match_id = whole_number(filters["match"])
    if filters["match"] and match_id is None:
        raise bad_request("The match filter must be a match number.")
    async with ctx.db.reads() as uow:
        rows = await uow.web.recent_audit(
            limit=AUDIT_PAGE,
            before=whole_number(query.get("before")),
            match_id=match_id,
            player=normalise_username(filters["player"]) if filters["player"] else None,
            actor=filters["actor"] or None,
            action=filters["action"] or None,
        )
    kept = {name: value for name, value in filters.items() if value}
    older = None
    if len(rows) == AUDIT_PAGE:
        older = "/desk/audit?" + urlencode(kept | {"before": str(rows[-1].id)})
    return await render(
        request,
        "desk_audit.html",
        {
            "title": "Audit log",
            "rows": [(r, audit_text(r)) for r in rows],
            "older": older,
            "filters": filters,
            "filtered": bool(kept),
        },
    )
