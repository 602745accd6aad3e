"""The match room: one player's current match, and every action they can take on it.

Every action, whether typed in the text box or sent by a button, becomes a line of the one offer
grammar (rules/talk/commands.py) and goes through the one door for a player's text
(:class:`bot.service.weekly.texts.PlayerTexts`) with ``via="web"``; the room itself never changes
the match. A button only builds the equivalent text ("accept 2").
Only the match's two players may act; the TDs may look, and relay from the desk.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from bot.errors import OperationError
from bot.service.registration import season_window
from bot.service.weekly.texts import PlayerTexts
from bot.views import matches as views
from bot.views.match_room import match_view
from bot.views.notices import player_notices
from bot.web.core import (
    Viewer,
    WebContext,
    bad_request,
    context,
    forbidden,
    match_id_of,
    not_found,
    page_words,
    read_form,
    redirect_with,
    render,
    require_login,
    when,
    whole_number,
)
from rules.core.errors import RulesError
from rules.core.states import RoundState
from rules.core.words import N_
from rules.talk.commands import MAX_LENGTH, ChooseTime, Offer, ProposeChange, format_command
from rules.talk.help import offer_duty
from rules.week.calendar import UTC, label_duration, match_week
from storage.errors import WriteConflict
from storage.models import MatchRow
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

OFFER_FIELDS = ("time1", "time2", "time3")
LOCAL_INPUT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
TIME_VERBS: dict[str, type[ProposeChange] | type[ChooseTime]] = {
    "change": ProposeChange,
    "choose": ChooseTime,
}
BUTTON_COMMANDS = ("accept change", "decline change", "status", "help")
HANDS = ("rock", "paper", "scissors")
FIELD_LIMITS = {
    "action": 20,
    "text": MAX_LENGTH,
    "report": MAX_LENGTH - len("report "),
    "index": 6,
    "bid": 10,
    "hand": 10,
    "command": 30,
    "verb": 10,
    "time": 40,
    **{name: 40 for name in OFFER_FIELDS},
}


def parse_local_input(value: str) -> dt.datetime:
    """A ``datetime-local`` value (``2021-10-14T18:00``), read as UTC as the form's label says."""
    text = value.strip()
    if not LOCAL_INPUT.match(text):
        said = page_words().gettext(
            "'%(value)s' is not a date and time: use the picker, or type 2021-10-14T18:00."
        )
        raise bad_request(said % {"value": value})
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        said = page_words().gettext("'%(value)s' is not a date that exists.")
        raise bad_request(said % {"value": value}) from None
    return parsed.replace(tzinfo=UTC)


def _typed(values: dict[str, str]) -> str:
    text = values.get("text", "").strip()
    if not text:
        raise bad_request(N_("Type a command, e.g. `offer thu 18:00` or `status`."))
    return text


def _offer(values: dict[str, str]) -> str:
    times = [parse_local_input(values[f]) for f in OFFER_FIELDS if values.get(f, "").strip()]
    if not times:
        raise bad_request(N_("Pick at least one start time to offer."))
    return format_command(Offer(tuple(times)))


def _accept(values: dict[str, str]) -> str:
    index = whole_number(values.get("index", "").strip(), digits=6)
    if index is None:
        raise bad_request(N_("Say which offer to accept."))
    return f"accept {index}"


def _time(values: dict[str, str]) -> str:
    verb = TIME_VERBS.get(values.get("verb", ""))
    if verb is None or not values.get("time", "").strip():
        raise bad_request(N_("Pick a time."))
    return format_command(verb(parse_local_input(values["time"])))


def _report(values: dict[str, str]) -> str:
    text = " ".join(values.get("report", "").split())
    if not text:
        raise bad_request(N_("Write what you want the TDs to know."))
    return f"report {text}"


def _bid(values: dict[str, str]) -> str:
    bid = values.get("bid", "").strip()
    if not bid:
        raise bad_request(N_("Give your bid, e.g. 3:30."))
    return f"bid {bid}"


def _rps(values: dict[str, str]) -> str:
    hand = values.get("hand", "")
    if hand not in HANDS:
        raise bad_request(N_("Pick rock, paper or scissors."))
    return f"rps {hand}"


def _button(values: dict[str, str]) -> str:
    """A canned command a button carries (accept change, decline change, ...)."""
    command = " ".join(values.get("command", "").split())
    withdrawn = command.removeprefix("withdraw offer ")
    if command.startswith("withdraw offer ") and whole_number(withdrawn, digits=6) is not None:
        return command
    if command not in BUTTON_COMMANDS:
        raise bad_request(N_("That button carries no command the room knows."))
    return command


_FORMS: dict[str, Callable[[dict[str, str]], str]] = {
    "text": _typed,
    "offer": _offer,
    "accept": _accept,
    "time": _time,
    "report": _report,
    "bid": _bid,
    "rps": _rps,
    "claim": lambda _: "claim win",
    "break": lambda _: "break",
    "button": _button,
}
"""Each action of the room's forms: the grammar's text for it (a 400 page for an impossible one)."""


def command_from_form(values: dict[str, str]) -> str:
    """The grammar's text for what the form asked; raises a 400 page for an impossible form."""
    action = values.get("action", "text")
    form = _FORMS.get(action)
    if form is None:
        raise bad_request(N_("That is not something the match room can do."))
    return form(values)


async def say(
    uow: UnitOfWork,
    texts: PlayerTexts,
    *,
    match_id: int,
    player: str,
    text: str,
    now: dt.datetime,
    via: str,
    relayed_by: str | None = None,
) -> tuple[str, bool, bool]:
    """One line of the grammar from ``player`` on ``match_id``, through the one door for a
    player's text.

    Returns (the reply, whether it was a success, whether its changes may be committed: not
    after an exception, so a refusal changes nothing).
    """
    try:
        reply = await texts.handle(
            uow,
            match_id=match_id,
            player=player,
            text=text,
            now=now,
            via=via,
            relayed_by=relayed_by,
        )
    except (RulesError, OperationError) as e:
        return str(e), False, False
    return reply.text, reply.ok, reply.changed


AfterSay = Callable[[UnitOfWork, str, bool], Awaitable[None]]

ATTEMPTS = 3


async def say_and_commit(
    ctx: WebContext,
    *,
    match_id: int,
    player: str,
    text: str,
    via: str,
    relayed_by: str | None = None,
    after: AfterSay | None = None,
) -> tuple[str, bool]:
    """:func:`say` in a unit of work of its own, committed when the text changed something.

    Two texts on one match committed at the same instant collide on the match log's sequence
    number; the loser is simply read and carried out again (the texts door's contract).
    ``after(uow, reply, ok)`` adds to the same transaction (the desk's audit of a relay).
    """
    for attempt in range(1, ATTEMPTS + 1):
        async with ctx.db.uow() as uow:
            try:
                message, ok, keep = await say(
                    uow,
                    ctx.services.texts,
                    match_id=match_id,
                    player=player,
                    text=text,
                    now=ctx.now(),
                    via=via,
                    relayed_by=relayed_by,
                )
                if not keep:
                    return message, ok
                if after is not None:
                    await after(uow, message, ok)
                await uow.commit()
            except WriteConflict:  # at the insert (flush) or at the commit
                if attempt == ATTEMPTS:
                    raise
                log.info("match %s: a simultaneous text won; trying again", match_id)
                continue
        ctx.changed()
        return message, ok
    raise AssertionError("unreachable")  # pragma: no cover


def week_deadlines(row: MatchRow, week_start: dt.datetime | None, ruleset: Any) -> list[Any]:
    """The match week's deadlines: offers (rules 5.1) and completion (rules 4.5)."""
    if week_start is None:
        return []
    shift = dt.timedelta(weeks=max(row.week - 1, 0))
    try:
        week = match_week(week_start.date(), ruleset)
    except ValueError:
        return []
    words = page_words()
    return [
        (words.gettext("Offers deadline (rules 5.1)"), week.offer_deadline + shift),
        (words.gettext("Match complete by (rules 4.5)"), week.end + shift),
    ]


async def _load(request: web.Request, who: Viewer) -> tuple[MatchRow, bool]:
    ctx = context(request)
    match_id = match_id_of(request)
    async with ctx.db.reads() as uow:
        row = await uow.matches.get(match_id)
        if row is None:
            raise not_found(N_("There is no such match."))
        rnd = await uow.tournaments.round(row.round_id)
    is_mine = who.user_id in (row.white_first, row.black_first)
    if not is_mine and not who.is_td:
        raise forbidden(N_("This is not your match: you can only open your own match room."))
    if (
        rnd is None or rnd.state not in (RoundState.PUBLISHED, RoundState.COMPLETE)
    ) and not who.is_td:
        raise not_found(N_("This match has not been published yet."))
    return row, is_mine


async def my_match(request: web.Request) -> web.StreamResponse:
    """``GET /match``: the viewer's current match room."""
    who = require_login(request)
    ctx = context(request)
    async with ctx.db.reads() as uow:
        row = await views.current_match(uow, who.user_id)
        window = await season_window(uow, ctx.config)
    if row is None:
        if who.is_td:
            raise web.HTTPFound("/desk")
        return await render(
            request,
            "no_match.html",
            {
                "title": page_words().gettext("Your match"),
                "registration_open": window.is_open(ctx.now()),
            },
        )
    raise web.HTTPFound(f"/match/{row.id}")


async def room(request: web.Request) -> web.StreamResponse:
    """``GET /match/{id}``: the match room (its players; TDs read it too)."""
    who = require_login(request)
    row, is_mine = await _load(request, who)
    ctx = context(request)
    config = ctx.config
    now = ctx.now()
    async with ctx.db.reads() as uow:
        line = await views.match_line(uow, row, all_games=True)
        rnd = await uow.tournaments.round(row.round_id)
        view = None
        if row.black_first is not None:
            try:
                view = await match_view(
                    uow,
                    config,
                    match_id=row.id,
                    viewer=who.username,
                    now=now,
                    words=page_words(),
                )
            except (RulesError, OperationError) as e:
                log.info("match view of %s unavailable: %s", row.id, e)
        notices = []
        seen = _seen_up_to(request, who.user_id)
        if is_mine:  # "your notices": new until shown once (the cookie below, no write)
            notices = await player_notices(
                uow,
                player=who.user_id,
                team=config.tournament.team,
                now=now,
                seen_up_to=seen,
                words=page_words(),
            )
    opponent_id = row.black_first if who.user_id == row.white_first else row.white_first
    opponent = line.second if who.user_id == row.white_first else line.first
    deadlines = [
        (label, when(at, now))
        for label, at in week_deadlines(row, rnd.week_start if rnd else None, config.rules)
    ]
    page = await render(
        request,
        "room.html",
        {
            "title": f"Match {row.id}",
            "match": line,
            "is_mine": is_mine,
            "opponent": opponent,
            "opponent_id": opponent_id,
            "deadlines": deadlines,
            "agreed": when(row.agreed_time, now),
            "view": view,
            "notices": notices,
            "when": lambda t: when(t, now),
            "max_text": MAX_LENGTH,
            "can_act": is_mine and row.black_first is not None,
            "offer_duty": offer_duty(config.rules, page_words()),
            "break_length": label_duration(config.rules.conduct.break_length, page_words()),
            "offer_values": {
                f: request.query[f]
                for f in OFFER_FIELDS
                if LOCAL_INPUT.match(request.query.get(f, ""))
            },
        },
    )
    newest = max((n.id for n in notices), default=0)
    if newest > seen:
        page.set_cookie(
            SEEN_COOKIE,
            ctx.signer.sign("seen", f"{who.user_id}:{newest}"),
            max_age=SEEN_COOKIE_AGE,
            httponly=True,
            samesite="Lax",
            secure=ctx.secure_cookies,
            path="/match",
        )
    return page


SEEN_COOKIE = "acwc_seen"
"""The newest notice a player's match room showed them (their id and its id, signed): a GET
writes nothing, so the page's "new" marks rest on what this browser was shown."""
SEEN_COOKIE_AGE = 366 * 24 * 3600


def _seen_up_to(request: web.Request, user_id: str) -> int:
    """The newest notice id ``user_id``'s room showed in this browser (0: none yet)."""
    value = context(request).signer.unsign("seen", request.cookies.get(SEEN_COOKIE)) or ""
    user, _, newest = value.rpartition(":")
    return int(newest) if user == user_id and newest.isdigit() else 0


async def act(request: web.Request) -> web.StreamResponse:
    """``POST /match/{id}/say``: one action of a player on their own match."""
    who, values = await read_form(request, FIELD_LIMITS)
    ctx = context(request)
    match_id = match_id_of(request)
    async with ctx.db.uow() as uow:
        row = await uow.matches.get(match_id)
        if row is None:
            raise not_found(N_("There is no such match."))
        if who.user_id not in (row.white_first, row.black_first):
            raise forbidden(N_("Only the two players of a match can act in its room."))
        if row.black_first is None:
            raise bad_request(N_("A bye has nothing to schedule."))
    text = command_from_form(values)
    now = ctx.now()
    allowed_at = ctx.room_limiter.try_act(who.user_id, now)
    if allowed_at is not None:
        service = ctx.config.service
        return redirect_with(
            request,
            f"/match/{match_id}#reply",
            page_words().gettext(
                "Too many actions: at most %(limit)s in %(minutes)s minutes, so your opponent "
                "is not flooded with messages. Nothing was done; try again in %(wait)s."
            )
            % {
                "limit": service.room_actions_limit,
                "minutes": service.room_actions_minutes,
                "wait": label_duration(allowed_at - now, page_words()),
            },
            ok=False,
        )
    message, ok = await say_and_commit(
        ctx, match_id=match_id, player=who.user_id, text=text, via="web"
    )
    back, anchor = f"/match/{match_id}", "#reply"
    if not ok and values.get("action") == "offer":  # a refused offer keeps its times to fix
        kept = {
            f: values[f].strip()
            for f in OFFER_FIELDS
            if LOCAL_INPUT.match(values.get(f, "").strip())
        }
        if kept:  # back at the form, which says what was refused
            back, anchor = f"{back}?{urlencode(kept)}", "#offer"
    return redirect_with(request, f"{back}{anchor}", message, ok=ok)


def add_routes(app: web.Application) -> None:
    app.router.add_get("/match", my_match)
    app.router.add_get("/match/{match_id}", room)
    app.router.add_post("/match/{match_id}/say", act)
