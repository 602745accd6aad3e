"""Players register themselves (issue 17): ``/register`` with Login with Lichess while the
config's registration window is open. The eligibility check reads the player's games from
Lichess at lila's pace (minutes for a long history), so it runs in the background (issue 25,
:mod:`bot.service.registration_queue`): the button answers at once that the check is running,
and the page (live: it updates by itself) shows the games read so far, then each reason the
player may not play, the team to join first, or the registration. A player may withdraw before
the first round. The TDs see the list at ``/register/list`` and add or refuse a Lichess account
by hand with a reason (audited), one that never registered too: a refusal stands, listed there,
until a TD adds the account (rules 2.2.4)."""

from __future__ import annotations

from aiohttp import web

from bot.config import USERNAME
from bot.errors import OperationError
from bot.service.player_tokens import PlayerTokens
from bot.service.registration import (
    Registration,
    SelfRegistration,
    season_window,
    standing_refusals,
    td_hand,
)
from bot.service.registration_queue import CheckState, check_of
from bot.views.matches import published_rounds
from bot.web.core import (
    bad_request,
    context,
    page_language,
    page_words,
    read_form,
    redirect_with,
    render,
    require_td,
    viewer,
    when,
)
from bot.web.games_permission import revoke_on_lichess
from rules.core.model import normalise_username
from rules.talk.registration import read_back

__all__ = ["add_routes"]

REASON_LIMIT = 500


def _read(request: web.Request, text: str) -> str:
    """A reason or a check's problem kept in English, in the page's words."""
    registration = context(request).services.registration
    if registration is None:
        return read_back(text, page_words())
    return registration.read(text, page_words())


def _refused(request: web.Request, error: OperationError) -> web.Response:
    """A refusal of the registration (a fixed sentence is marked; read in the page's words)."""
    return redirect_with(request, "/register", page_words().gettext(str(error)), ok=False)


def _registration(request: web.Request) -> Registration:
    registration = context(request).services.registration
    if registration is None:
        raise bad_request(
            page_words().gettext("Registration needs Lichess, and this service runs without it.")
        )
    return registration


async def _page(
    request: web.Request,
    *,
    registered: bool,
    result: SelfRegistration | None,
    check: CheckState | None = None,
) -> web.StreamResponse:
    ctx = context(request)
    async with ctx.db.reads() as uow:
        reg = await season_window(uow, ctx.config)
    if check is not None and not check.running and result is None and not registered:
        result = check.result  # the last check's verdict, until the player asks again
    return await render(
        request,
        "register.html",
        {
            "title": page_words().gettext("Register"),
            "window_open": reg.is_open(ctx.now()),
            "when": lambda t: when(t, ctx.now()),
            "opens": reg.opens,
            "closes": reg.closes,
            "registered": registered,
            "result": result,
            # the reasons are kept in English; each is read in the page's words
            "reasons": [_read(request, r) for r in result.reasons] if result else [],
            "check": check if check is not None and check.running else None,
            "problem": _read(request, check.problem) if check and check.problem else None,
            "season_started": await _season_started(request),
        },
    )


async def register_page(request: web.Request) -> web.StreamResponse:
    """``GET /register``: the window, the button, and whether you are registered."""
    ctx = context(request)
    who = viewer(request)
    registered = False
    check = None
    if who is not None:
        async with ctx.db.reads() as uow:
            registered = await uow.players.get(normalise_username(who.username)) is not None
            check = await check_of(uow, who.username)
    return await _page(request, registered=registered, result=None, check=check)


async def _season_started(request: web.Request) -> bool:
    """Pairings are out: a registration can no longer be taken back here (the TDs handle a
    withdrawal then)."""
    async with context(request).db.reads() as uow:
        return bool(await published_rounds(uow))


async def register(request: web.Request) -> web.StreamResponse:
    """``POST /register``: what is known at once (the window, the TDs' refusal, an entry made),
    or the account's check queued for the background: the page says it runs."""
    who, _ = await read_form(request, {})
    ctx = context(request)
    checks = ctx.services.registration_checks
    if checks is None:
        raise bad_request(
            page_words().gettext("Registration needs Lichess, and this service runs without it.")
        )
    try:
        async with ctx.db.uow() as uow:
            found = await checks.request(
                uow,
                who.username,
                now=ctx.now(),
                words=page_words(),
                language=page_language(request),
            )
            await uow.commit()
    except OperationError as e:
        return _refused(request, e)
    if isinstance(found, CheckState):
        checks.wake()
        said = page_words().gettext("Your account is being checked: this page shows how far.")
        return redirect_with(request, "/register", said)
    return await _page(request, registered=found.registered, result=found)


async def withdraw(request: web.Request) -> web.StreamResponse:
    """``POST /register/withdraw``: take back your registration before your first pairing."""
    who, _ = await read_form(request, {})
    ctx = context(request)
    tokens = ctx.services.player_tokens
    try:
        async with ctx.db.uow() as uow:
            token = None  # a stored token would go with the player row: revoked, not lost
            if tokens is not None:
                token = await tokens.withdraw(
                    uow, who.user_id, now=ctx.now(), actor=who.username, why="withdrawn"
                )
            await _registration(request).withdraw_self(uow, who.username, now=ctx.now())
            await uow.commit()
    except OperationError as e:
        return _refused(request, e)
    ctx.changed()
    if token is not None and not await revoke_on_lichess(request, token):
        said = page_words().gettext(
            "Your registration is withdrawn, but Lichess could not be reached to revoke the "
            "permission you gave the bot to start your games: revoke it yourself in your Lichess "
            "account's security settings."
        )
        return redirect_with(request, "/register", said, ok=False)
    return redirect_with(
        request, "/register", page_words().gettext("Your registration is withdrawn.")
    )


async def td_list(request: web.Request) -> web.StreamResponse:
    """``GET /register/list``: the registered players and the refusals that stand, for the
    TDs."""
    require_td(request)
    ctx = context(request)
    async with ctx.db.reads() as uow:
        players = list(await uow.players.list())
        refused = await standing_refusals(uow)
    return await render(
        request,
        "register_list.html",
        {"title": "Registrations", "players": players, "refused": refused},
    )


async def td_decide(request: web.Request) -> web.StreamResponse:
    """``POST /register/list``: a TD adds (``add``) or refuses (``refuse``) a player by hand."""
    require_td(request)
    who, values = await read_form(request, {"username": 30, "action": 10, "reason": REASON_LIMIT})
    ctx = context(request)
    now = ctx.now()
    username = values.get("username", "").strip()
    reason = " ".join(values.get("reason", "").split())
    action = values.get("action", "")
    if not USERNAME.match(username):
        return redirect_with(request, "/register/list", "Give a Lichess username.", ok=False)
    if not reason:
        return redirect_with(
            request, "/register/list", "Give a reason: it goes into the audit log.", ok=False
        )
    if action not in ("add", "refuse"):
        raise bad_request("That is not one of the buttons.")
    tokens = ctx.services.player_tokens if action == "refuse" else None
    if tokens is not None and not await _revoked_first(request, tokens, username):
        return redirect_with(
            request,
            "/register/list",
            f"Lichess did not revoke {username}'s stored token (it cannot be reached?): nothing "
            "is changed; refuse again when Lichess answers.",
            ok=False,
        )
    async with ctx.db.uow() as uow:
        try:
            if tokens is not None:  # revoked above: the row goes with the player's
                pid = normalise_username(username)
                await tokens.withdraw(uow, pid, now=now, actor=who.username, why="refused")
            await td_hand(
                uow,
                ctx.services.players,
                username,
                refuse=action == "refuse",
                reason=reason,
                now=now,
                actor=who.username,
            )
        except OperationError as e:
            return redirect_with(request, "/register/list", str(e), ok=False)
        await uow.commit()
    ctx.changed()
    done = "added" if action == "add" else "refused"
    return redirect_with(request, "/register/list", f"{username} {done}.")


async def _revoked_first(request: web.Request, tokens: PlayerTokens, username: str) -> bool:
    """A player's stored token revoked on Lichess before their row (and the token's with it)
    goes, as ``acwc player remove`` does; whether it is gone there (or there was none)."""
    pid = normalise_username(username)
    async with context(request).db.reads() as uow:
        token = await tokens.stored(uow, pid)
    return token is None or await revoke_on_lichess(request, token)


def add_routes(app: web.Application) -> None:
    app.router.add_get("/register", register_page)
    app.router.add_post("/register", register)
    app.router.add_post("/register/withdraw", withdraw)
    app.router.add_get("/register/list", td_list)
    app.router.add_post("/register/list", td_decide)
