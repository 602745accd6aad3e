"""The desk's read-only views and the TDs' rulings that are not a pending decision, each through
the service operation the command line's command calls (one path):

* ``/desk/offers``: every match of the week in play, who made how many offers by the offers
  deadline (rules 5.1), who answered, the agreed time or the ruling;
* ``/desk/forfeits``: every forfeit charged (rules 5.6, 6.2-6.5), each waivable with a reason
  (``Conduct.waive_forfeit``, rules 5.10);
* ``/desk/outbox`` and ``/desk/deadlines``: what the bot sends and when it acts, read only;
* ``POST /desk/sync``: what tied knockout matches are owed (``Knockout.sync``);
* ``POST /desk/adjudicate[/preview]``: a TD decides an unfinished match, tied or won
  (``Results.adjudicate``, rules 1.3, 4.5), the standings before and after first.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.errors import OperationError
from bot.service.preview import preview
from bot.views import matches as views
from bot.views.match_room import match_view
from bot.web.core import (
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
from bot.web.desk.decisions import REASON_LIMIT, player_names
from bot.web.desk.pages import confirm_page
from rules.core.errors import RulesError
from storage.uow import UnitOfWork

__all__ = [
    "adjudicate",
    "adjudicate_preview",
    "deadlines_page",
    "forfeits_page",
    "offers_page",
    "outbox_page",
    "sync",
    "waive",
]

SHOWN = 300
"""A read-only list shows at most this many rows (the newest)."""


async def _table(
    request: web.Request, title: str, intro: str, head: tuple[str, ...], rows: list[tuple[Any, ...]]
) -> web.StreamResponse:
    return await render(
        request,
        "desk_list.html",
        {"title": title, "intro": intro, "head": head, "rows": rows[:SHOWN], "more": len(rows)},
    )


async def outbox_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/outbox[?status=failed&kind=dm]``: the messages, newest first (read only)."""
    require_td(request)
    ctx = context(request)
    status = request.query.get("status") or None
    kind = request.query.get("kind") or None
    async with ctx.db.reads() as uow:
        rows = list(await uow.outbox.list(status=status, kind=kind))
    rows.reverse()
    return await _table(
        request,
        "Outbox",
        "Every message the bot wrote: DMs, TD alerts and notes, team messages, forum drafts.",
        ("#", "Written (UTC)", "Kind", "To", "Status", "Text"),
        [
            (
                r.id,
                f"{r.created_at:%a %d %b %H:%M}",
                r.kind,
                r.recipient,
                f"{r.status} (edited)" if r.revised_body else str(r.status),
                (r.subject or (r.body.splitlines() or [""])[0])[:120]
                + (f" — {r.last_error}" if r.last_error else ""),
            )
            for r in rows
        ],
    )


def _deadline_state(
    fired: dt.datetime | None, cancelled: dt.datetime | None, due: dt.datetime, now: dt.datetime
) -> str:
    if cancelled is not None:
        return "cancelled"
    if fired is not None:
        late = (fired - due).total_seconds()
        return "fired" + (f" ({int(late // 60)} min late)" if late > 60 else "")
    return "overdue" if due <= now else "planned"


async def deadlines_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/deadlines[?match=12&all=1]``: when the bot acts (read only); cancelled rows
    only with ``all``."""
    require_td(request)
    ctx = context(request)
    now = ctx.now()
    match_id = whole_number(request.query.get("match"))
    every = request.query.get("all") == "1"
    async with ctx.db.reads() as uow:
        rows = await uow.weekly.deadlines(match_id)
    shown = [r for r in rows if every or r.cancelled_at is None]
    shown.sort(key=lambda r: (r.fired_at is not None, r.due_at if r.fired_at is None else -r.id))
    return await _table(
        request,
        "Deadlines",
        "When the bot acts: reminders, the offers check, no-show checks, the daily digest. "
        "Planned and overdue first, then the fired ones, newest first.",
        ("#", "Match", "Kind", "Due (UTC)", "State", "Subject"),
        [
            (
                r.id,
                r.match_id or "",
                r.kind.replace("_", " "),
                f"{r.due_at:%a %d %b %H:%M}",
                _deadline_state(r.fired_at, r.cancelled_at, r.due_at, now),
                r.subject,
            )
            for r in shown
        ],
    )


async def forfeits_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/forfeits``: every forfeit, with a waive button on those that count."""
    require_td(request)
    ctx = context(request)
    async with ctx.db.reads() as uow:
        rows = await uow.weekly.forfeits()
        names = await player_names(uow)
    return await render(
        request,
        "desk_forfeits.html",
        {"title": "Forfeits", "rows": list(reversed(rows)), "names": names},
    )


async def waive(request: web.Request) -> web.StreamResponse:
    """``POST /desk/forfeits/{id}/waive``: the forfeit stays on record but no longer counts
    towards a disqualification (rules 5.10, 6.5)."""
    require_td(request)
    who, values = await read_form(request, {"reason": REASON_LIMIT})
    ctx = context(request)
    forfeit_id = whole_number(request.match_info.get("forfeit_id"))
    if forfeit_id is None:
        raise not_found("There is no such forfeit.")
    async with ctx.db.uow() as uow:
        try:
            row = await ctx.services.conduct.waive_forfeit(
                uow, forfeit_id, reason=values.get("reason", ""), now=ctx.now(), actor=who.username
            )
        except OperationError as e:
            return redirect_with(request, "/desk/forfeits", str(e), ok=False)
        await uow.commit()
    ctx.changed()
    return redirect_with(request, "/desk/forfeits", f"Forfeit {row.id} of {row.player_id} waived.")


@dataclass(frozen=True, slots=True)
class OffersLine:
    match_id: int
    round: str
    players: tuple[str, str]
    made: tuple[int, int]
    counted: tuple[int, int]
    required: int
    answered: str
    agreed: str
    state: str


async def _offers_line(
    uow: UnitOfWork, request: web.Request, m: views.MatchLine, round_label: str
) -> OffersLine | None:
    ctx = context(request)
    td = ctx.config.tournament.tds[0] if ctx.config.tournament.tds else "td"
    try:
        v = await match_view(uow, ctx.config, match_id=m.id, viewer=td, now=ctx.now())
    except (OperationError, RulesError):
        return None
    a, b = v.players
    counted = dict(v.offers_counted)
    accepted = [o for o in v.offers if o.state == "accepted"]
    answered = "-"
    if accepted:
        by = v.names[1] if accepted[0].by == a else v.names[0]
        answered = f"{by} accepted {accepted[0].by_name or accepted[0].by}'s offer"
    elif v.chooser:
        answered = f"{v.chooser} chooses"
    return OffersLine(
        match_id=v.match_id,
        round=round_label,
        players=v.names,
        made=(sum(o.by == a for o in v.offers), sum(o.by == b for o in v.offers)),
        counted=(counted.get(v.names[0], 0), counted.get(v.names[1], 0)),
        required=v.required_offers,
        answered=answered,
        agreed=v.agreed_label or v.ruling or "not yet",
        state=m.outcome_label or v.phase.replace("_", " "),
    )


async def offers_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/offers``: every match of the week in play (rules 5.1: offers due by Friday):
    who made how many offers, how many count, who answered, the agreed time or the ruling."""
    require_td(request)
    ctx = context(request)
    async with ctx.db.reads() as uow:
        rounds = await views.published_rounds(uow)
        latest = rounds[0].week_start if rounds else None
        lines = []
        for rnd in (r for r in rounds if r.week_start == latest):
            label = f"{rnd.stage_label} round {rnd.number}"
            for m in rnd.matches:
                if m.second_id is not None:
                    line = await _offers_line(uow, request, m, label)
                    if line is not None:
                        lines.append(line)
    return await render(
        request,
        "desk_offers.html",
        {"title": "Offers by Friday", "lines": lines, "when": lambda t: when(t, ctx.now())},
    )


async def sync(request: web.Request) -> web.StreamResponse:
    """``POST /desk/sync``: create what tied knockout matches are owed (a repeat week, an
    armageddon procedure) if the match listener missed it; idempotent."""
    require_td(request)
    await read_form(request, {})
    ctx = context(request)
    async with ctx.db.uow() as uow:
        done = await ctx.services.knockout.sync(uow, now=ctx.now())
        await uow.commit()
    ctx.changed()
    return redirect_with(
        request, "/desk#tools", "Stage sync: " + ("; ".join(done) if done else "nothing to do.")
    )


ADJUDICATE_LIMITS = {"match_id": 10, "winner": 30, "reason": REASON_LIMIT}


async def _adjudicate(
    request: web.Request, uow: UnitOfWork, actor: str, values: dict[str, str]
) -> str:
    ctx = context(request)
    match_id = int_field(values, "match_id", low=1)
    winner = values.get("winner", "").strip()
    row = await ctx.services.results.adjudicate(
        uow,
        match_id,
        winner=None if winner in ("", "tied") else winner,
        reason=" ".join(values.get("reason", "").split()),
        now=ctx.now(),
        actor=actor,
    )
    return f"Match {row.id}: {str(row.outcome).replace('_', ' ')} (adjudicated)."


async def adjudicate_preview(request: web.Request) -> web.StreamResponse:
    """``POST /desk/adjudicate/preview``: the standings lines an adjudication changes; nothing
    kept. The page's button adjudicates (``POST /desk/adjudicate``)."""
    require_td(request)
    who, values = await read_form(request, ADJUDICATE_LIMITS)
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            tried = await preview(
                uow, ctx.config, lambda: _adjudicate(request, uow, who.username, values)
            )
        except OperationError as e:
            return redirect_with(request, "/desk#adjudicate", str(e), ok=False)
    winner = values.get("winner", "").strip()
    return await confirm_page(
        request,
        tried,
        heading=f"Adjudicate match {values.get('match_id', '')}",
        action="a tied match" if winner in ("", "tied") else f"won by {winner}",
        reason=" ".join(values.get("reason", "").split()),
        to="/desk/adjudicate",
        fields={k: values.get(k, "") for k in ADJUDICATE_LIMITS},
        back="/desk#adjudicate",
    )


async def adjudicate(request: web.Request) -> web.StreamResponse:
    """``POST /desk/adjudicate``: a TD decides an unfinished match (audited with the reason)."""
    require_td(request)
    who, values = await read_form(request, ADJUDICATE_LIMITS)
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            message = await _adjudicate(request, uow, who.username, values)
        except OperationError as e:
            return redirect_with(request, "/desk#adjudicate", str(e), ok=False)
        await uow.commit()
    ctx.changed()
    return redirect_with(request, "/desk", message)
