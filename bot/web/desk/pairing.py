"""The desk's pairing editor (rules 3.v.6: the TDs own the pairings): the next qualification
round board by board, starting from the proposal standing, the engine's pairing, or (the engine
finds none) the pairing with the fewest warnings; checked and explained before it is kept, kept
as the round's proposal, and published by the same approval as the engine's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiohttp import web

from bot.errors import OperationError
from bot.service.stages.hand_pairing import HandPairingRefused, editor, pair_by_hand
from bot.web.core import context, read_form, redirect_with, render, require_td
from bot.web.desk.decisions import REASON_LIMIT
from rules.core.errors import RulesError
from rules.stages.manual_pairing import Finding, Severity

__all__ = ["MAX_BOARDS", "check_page", "editor_page", "keep"]

MAX_BOARDS = 200
"""The editor's form holds at most this many boards (a field of 400 and a bye)."""


def _limits() -> dict[str, int]:
    limits = {"bye": 30, "reason": REASON_LIMIT}
    for i in range(1, MAX_BOARDS + 1):
        limits[f"white{i}"] = 30
        limits[f"black{i}"] = 30
    return limits


LIMITS = _limits()


def _boards(values: dict[str, str]) -> list[tuple[str, str]]:
    out = []
    for i in range(1, MAX_BOARDS + 1):
        white, black = values.get(f"white{i}", "").strip(), values.get(f"black{i}", "").strip()
        if white or black:
            out.append((white, black))
    return out


async def _page(
    request: web.Request,
    *,
    boards: Sequence[tuple[str, str]] | None = None,
    bye: str | None = None,
    reason: str = "",
    findings: Sequence[Finding] | None = None,
    checked: bool = False,
) -> web.StreamResponse:
    ctx = context(request)
    who = require_td(request)
    async with ctx.db.uow() as uow:  # never committed: the first pairing fixes the entrants
        try:
            view = await editor(uow, ctx.config, now=ctx.now(), actor=who.username)
        except (OperationError, RulesError) as e:
            return redirect_with(request, "/desk/rounds", str(e), ok=False)
    shown = list(view.start if boards is None else boards)
    present = [p for p in view.players if p.present]
    while len(shown) < len(present) // 2:
        shown.append(("", ""))
    data: dict[str, Any] = {
        "title": f"Pair qualification round {view.round}",
        "view": view,
        "boards": shown,
        "bye": view.bye if boards is None else bye,
        "present": present,
        "reason": reason,
        "findings": view.findings if findings is None else findings,
        "checked": checked,
        "refused": any(
            f.severity is Severity.REFUSAL
            for f in (view.findings if findings is None else findings)
        ),
    }
    return await render(request, "desk_pairing.html", data)


async def editor_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/pairing``: the editor, starting from the proposal or the engine's pairing."""
    require_td(request)
    return await _page(request)


async def _try(request: web.Request, *, keep: bool) -> web.StreamResponse:
    who, values = await read_form(request, LIMITS)
    ctx = context(request)
    boards, bye = _boards(values), values.get("bye", "").strip() or None
    reason = " ".join(values.get("reason", "").split())
    async with ctx.db.uow() as uow:
        try:
            number, warnings = await pair_by_hand(
                uow,
                ctx.config,
                boards=boards,
                bye=bye,
                reason=reason,
                now=ctx.now(),
                actor=who.username,
            )
        except HandPairingRefused as e:
            return await _page(
                request, boards=boards, bye=bye, reason=reason, findings=e.findings, checked=True
            )
        except (OperationError, RulesError) as e:
            return redirect_with(request, "/desk/pairing", str(e), ok=False)
        if not keep:  # a check: the findings, nothing kept
            return await _page(
                request, boards=boards, bye=bye, reason=reason, findings=warnings, checked=True
            )
        await uow.commit()
    ctx.changed()
    return redirect_with(
        request,
        "/desk",
        f"Qualification round {number}: your pairing is the round's proposal"
        + (f" ({len(warnings)} warning(s) overridden)" if warnings else "")
        + "; approve it below to publish it.",
    )


async def check_page(request: web.Request) -> web.StreamResponse:
    """``POST /desk/pairing/check``: the pairing's refusals and warnings; nothing is kept."""
    require_td(request)
    return await _try(request, keep=False)


async def keep(request: web.Request) -> web.StreamResponse:
    """``POST /desk/pairing``: keep the TDs' pairing as the round's proposal (audited)."""
    require_td(request)
    return await _try(request, keep=True)
