"""Public pages: pairings and agreed times, standings, Candidates, knockout, players, rules, feeds.

Anyone may read these; none of them shows an offer, a report or anything else private.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import icalendar
from aiohttp import web

from bot.config import Config, describe_rules
from bot.errors import OperationError
from bot.notify.languages import words as language_words
from bot.service.registration import season_window
from bot.views import matches as views
from bot.views.bracket import champion
from bot.views.candidates import points_text, pools
from bot.views.qualification import qualifying_places, round_in_play, standings_and_results
from bot.views.seasons import season_history
from bot.web.core import context, not_found, page_words, render, viewer, when
from bot.web.rules_summary import rules_summary
from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.core.scoring import format_points
from rules.core.states import RoundState
from rules.core.words import N_, Words
from rules.swiss.results import ResultKind, RoundResult
from rules.swiss.tiebreaks import PlayerStatus, Standings, StandingsRow
from rules.talk.games import time_control_text

PLAYER_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,29}$")


def _player_id(request: web.Request) -> str:
    raw = request.match_info.get("player", "").lower()
    if not PLAYER_ID.match(raw):
        raise not_found(N_("There is no such player."))
    return raw


async def home(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.reads() as uow:
        rounds = await views.published_rounds(uow, words=page_words())
        mine = None
        who = viewer(request)
        if who is not None and who.is_player:
            row = await views.current_match(uow, who.user_id)
            mine = None if row is None else row.id
        winner = await champion(uow)
        seasons = [s.year for s in await uow.seasons.all() if s.state != "draft" and s.year]
        registration = await season_window(uow, ctx.config)
    current = [r for r in rounds if r.state == RoundState.PUBLISHED] or rounds[:1]
    return await render(
        request,
        "home.html",
        {
            "title": page_words().gettext("Home"),
            "rounds": current,
            "my_match": mine,
            "when": lambda t: when(t, now),
            "champion": winner,
            "seasons": seasons if len(seasons) > 1 else [],
            "registration_open": winner is None and registration.is_open(now),
            "registration_opens": None
            if winner is not None or registration.opens is None or registration.opens <= now
            else when(registration.opens, now),
        },
    )


async def pairings(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.reads() as uow:
        rounds = await views.published_rounds(uow, words=page_words())
    return await render(
        request,
        "pairings.html",
        {
            "title": page_words().gettext("Pairings and times"),
            "rounds": rounds,
            "when": lambda t: when(t, now),
        },
    )


_SIGNS = {Fraction(1): "+", Fraction(1, 2): "=", Fraction(0): "-"}


def _round_cell(
    result: RoundResult, ranks: Mapping[str, int], names: Mapping[str, str]
) -> dict[str, str]:
    """One round of one player as crosstables write it: "+5w" won against the player ranked 5
    with White; the title says it in words."""
    opponent = result.opponent
    sign = _SIGNS.get(result.match_points, format_points(result.match_points))
    who = "" if opponent is None else names.get(opponent, opponent)
    points = f"{format_points(result.game_points)}/{result.games}" if result.games else ""
    kind = result.kind
    words = page_words()
    if kind is ResultKind.BYE:
        return {
            "text": words.gettext("bye"),
            "title": words.gettext("Round %(round)s: a bye") % {"round": result.round},
        }
    if kind in (ResultKind.ABSENT, ResultKind.WITHDRAWN):
        said = (
            words.gettext("Round %(round)s: absent")
            if kind is ResultKind.ABSENT
            else words.gettext("Round %(round)s: withdrawn")
        )
        return {"text": "–", "title": said % {"round": result.round}}
    colour = "" if result.colour is None else ("w" if result.colour is Colour.WHITE else "b")
    forfeit = kind in (ResultKind.FORFEIT_WIN, ResultKind.FORFEIT_LOSS)
    text = f"{sign}{ranks.get(opponent or '', '')}{colour}" + ("F" if forfeit else "")
    said = {
        "+": words.gettext("Round %(round)s: won against %(opponent)s"),
        "=": words.gettext("Round %(round)s: tied against %(opponent)s"),
        "-": words.gettext("Round %(round)s: lost against %(opponent)s"),
    }.get(sign, words.gettext("Round %(round)s: %(points)s against %(opponent)s"))
    title = said % {"round": result.round, "opponent": who, "points": sign}
    if forfeit:
        title += " " + words.gettext("by forfeit")
    if points:
        title += ", " + words.gettext("game points %(points)s") % {"points": points}
    return {"text": text, "title": title}


def _standings_rows(
    table: Standings, results: Iterable[RoundResult] = (), qualifying: int = 0
) -> list[dict[str, Any]]:
    ranks: dict[str, int] = {r.player: r.rank for r in table.rows}
    names: dict[str, str] = {r.player: r.username for r in table.rows}
    by_player: dict[str, dict[int, RoundResult]] = {}
    for result in results:
        by_player.setdefault(result.player, {})[result.round] = result
    rounds = range(1, table.rounds + 1)
    active = 0
    rows = []
    for r in table.rows:
        if r.status is PlayerStatus.ACTIVE:
            active += 1
        mine = by_player.get(r.player, {})
        rows.append(
            {
                "last_qualifier": r.status is PlayerStatus.ACTIVE and active == qualifying,
                "rounds": [
                    _round_cell(mine[n], ranks, names) if n in mine else {"text": "", "title": ""}
                    for n in rounds
                ],
                **_standings_row(r),
            }
        )
    return rows


def _standings_row(r: StandingsRow) -> dict[str, Any]:
    return {
        "rank": r.rank,
        "player": r.player,
        "username": r.username,
        "pairing_number": r.pairing_number,
        "match_points": format_points(r.match_points),
        "buchholz_median": format_points(r.buchholz_median),
        "progressive": format_points(r.progressive),
        "buchholz": format_points(r.buchholz),
        "game_points": format_points(r.game_points),
        "games": r.games,
        "status": r.status.value,
        "cut": ", ".join(
            f"R{c.round} {format_points(c.value)}" for c in sorted(r.cut, key=lambda c: c.round)
        ),
    }


async def standings(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    table: Standings | None = None
    problem = None
    played: list[RoundResult] = []
    qualifying = 0
    in_play = None
    async with ctx.db.reads() as uow:
        try:
            in_play = await round_in_play(uow)
            table, played = await standings_and_results(
                uow, ctx.config.rules, provisional=in_play is not None
            )
            qualifying = await qualifying_places(uow, ctx.config.rules)
        except (OperationError, RulesError) as e:
            problem = str(e)
    return await render(
        request,
        "standings.html",
        {
            "title": page_words().gettext("Qualification standings"),
            "rows": [] if table is None else _standings_rows(table, played, qualifying),
            "rounds": 0 if table is None else table.rounds,
            "qualifying": qualifying,
            "in_play": in_play,
            "edition": None if table is None else table.edition.value,
            "problem": problem,
        },
    )


async def candidates(request: web.Request) -> web.StreamResponse:
    """The pools' crosstables from the one Candidates read model, published rounds only."""
    ctx = context(request)
    async with ctx.db.reads() as uow:
        found = await pools(uow, ctx.config, published_only=True)
    tables = [
        {
            "pool": view.pool.value,
            "players": [row.username for row in view.rows],
            "rows": [
                {
                    "username": row.username,
                    "player_id": row.player,
                    "cells": row.cells,
                    "match_points": points_text(row.match_points),
                    "game_points": points_text(row.game_points),
                }
                for row in view.rows
            ],
        }
        for view in found
    ]
    return await render(
        request, "candidates.html", {"title": page_words().gettext("Candidates"), "tables": tables}
    )


WHITE_CHOSEN = {
    "lower_bid": N_("by the lower bid"),
    "opponent_no_bid": N_("the only bid"),
    "rps": N_("by rock-paper-scissors after equal bids"),
    "opponent_no_rps": N_("the opponent did not play rock-paper-scissors"),
    "td": N_("by the TDs"),
}
"""How the armageddon's White was chosen (rules 3.ix), in words (read in the page's)."""


async def knockout(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.reads() as uow:
        stages = await views.knockout(uow, ctx.config.rules, words=page_words())
    return await render(
        request,
        "knockout.html",
        {
            "title": page_words().gettext("Semifinals and final"),
            "stages": stages,
            "labels": {kind: views.stage_label(kind, page_words()) for kind in views.STAGE_LABELS},
            "when": lambda t: when(t, now),
            "white_chosen": {k: page_words().gettext(v) for k, v in WHITE_CHOSEN.items()},
        },
    )


async def player_page(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    now = ctx.now()
    player_id = _player_id(request)
    async with ctx.db.reads() as uow:
        row = await views.player(uow, player_id)
        history = await season_history(uow, player_id)
        if row is None and history:  # entered other seasons: their page lists them
            row = await uow.players.person(player_id)
        if row is None:
            raise not_found(N_("There is no such player in this tournament."))
        matches = await views.player_matches(uow, row.id, words=page_words())
    return await render(
        request,
        "player.html",
        {
            "title": row.username,
            "player": row,
            "matches": matches,
            "seasons": history,
            "when": lambda t: when(t, now),
        },
    )


async def players(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    async with ctx.db.reads() as uow:
        rows = await uow.players.list()
    return await render(
        request, "players.html", {"title": page_words().gettext("Players"), "players": rows}
    )


async def rules_page(request: web.Request) -> web.StreamResponse:
    config = context(request).config
    try:
        sections = rules_summary(config, page_words())
    except (AttributeError, TypeError):  # a ruleset shape this summary does not know
        sections = []
    return await render(
        request,
        "rules.html",
        {
            "title": page_words().gettext("Rules"),
            "sections": sections,
            "settings": describe_rules(config.rules),
        },
    )


# --- iCalendar ----------------------------------------------------------------------------------


def _calendar(
    name: str,
    matches: list[views.MatchLine],
    *,
    now: dt.datetime,
    base: str,
    config: Config,
    links: Mapping[int, str],
    words: Words,
) -> bytes:
    """An event for every agreed match time still to be played: a match decided without its
    games (a forfeit, a tie ruled by the TDs) has no time to keep free. ``links``: the bot's
    challenge of a match's next game, where it has one. Written in ``words`` (the matches'
    stage names too: :func:`views.player_matches` and :func:`views.published_rounds` take
    them)."""
    host = base.split("://", 1)[-1].split("/", 1)[0]
    cal = icalendar.Calendar()
    cal.add("prodid", "-//acwc-bot//match times//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", name)
    for m in matches:
        if m.agreed_time is None or m.second is None:
            continue
        if m.outcome is not None and not m.games_played:
            continue  # decided without play: nothing will happen at that time
        event = icalendar.Event()
        event.add("uid", f"match-{m.id}@{host}")
        event.add("dtstamp", now)
        event.add("dtstart", m.agreed_time)
        event.add("dtend", m.agreed_time + dt.timedelta(hours=3))
        event.add("summary", f"{m.first} - {m.second} ({m.stage_label})")
        link = f"{base}/match/{m.id}"
        challenge = links.get(m.id)
        event.add("url", challenge or link)
        game = (
            words.gettext("Game %(number)s's challenge (only you two can join it): %(link)s.")
            % {"number": m.games_played + 1, "link": challenge}
            + " "
            if challenge is not None
            else ""
        )
        said = words.gettext("%(stage)s, round %(round)s: %(games)s games, %(control)s.") % {
            "stage": m.stage_label,
            "round": m.round_number,
            "games": m.games,
            "control": time_control_text(config.rules.time_control, words),
        }
        room = words.gettext("The bot's link to each game is in the match room: %(link)s") % {
            "link": link
        }
        event.add("description", f"{said} {game}{room}")
        cal.add_component(event)
    body: bytes = cal.to_ical()
    return body


def _ics(body: bytes, filename: str) -> web.Response:
    return web.Response(
        body=body,
        content_type="text/calendar",
        charset="utf-8",
        headers={
            "Content-Disposition": f'inline; filename="{filename}"',
            "Cache-Control": "max-age=300",
        },
    )


async def event_calendar(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    said = page_words()  # a calendar app sends no session: the visitor's language, as a page
    async with ctx.db.reads() as uow:
        rounds = await views.published_rounds(uow, words=said)
        matches = [m for r in rounds for m in r.matches]
        links = await views.next_game_links(uow, matches, now=ctx.now())
    base = ctx.base_url(request).rstrip("/")
    body = _calendar(
        ctx.config.tournament.name,
        matches,
        now=ctx.now(),
        base=base,
        config=ctx.config,
        links=links,
        words=said,
    )
    return _ics(body, "acwc.ics")


async def player_calendar(request: web.Request) -> web.StreamResponse:
    ctx = context(request)
    player_id = _player_id(request)
    async with ctx.db.reads() as uow:
        row = await views.player(uow, player_id)
        if row is None:
            raise not_found(N_("There is no such player in this tournament."))
        # the player's own feed is in the language they chose (their calendar app fetches it
        # without a session); a player who chose none, in the visitor's
        said = language_words(row.language) if row.language else page_words()
        matches = await views.player_matches(uow, row.id, words=said)
        links = await views.next_game_links(uow, matches, now=ctx.now())
    body = _calendar(
        f"{ctx.config.tournament.name}: {row.username}",
        matches,
        now=ctx.now(),
        base=ctx.base_url(request).rstrip("/"),
        config=ctx.config,
        links=links,
        words=said,
    )
    return _ics(body, f"acwc-{row.id}.ics")


def sentence(text: str) -> str:
    """``text`` with a capital first letter (``str.capitalize`` would lower "TDs")."""
    return text[:1].upper() + text[1:]


PAGES = {
    "": home,
    "/pairings": pairings,
    "/standings": standings,
    "/candidates": candidates,
    "/knockout": knockout,
    "/players": players,
    "/players/{player}": player_page,
    "/players/{player}/calendar.ics": player_calendar,
    "/calendar.ics": event_calendar,
    "/rules": rules_page,
}
"""The pages every season has at ``/{year}`` + path (:mod:`bot.web.seasons`)."""


def add_routes(app: web.Application) -> None:
    app.router.add_get("/", home)
    app.router.add_get("/pairings", pairings)
    app.router.add_get("/standings", standings)
    app.router.add_get("/candidates", candidates)
    app.router.add_get("/knockout", knockout)
    app.router.add_get("/players", players)
    app.router.add_get("/players/{player}", player_page)
    app.router.add_get("/players/{player}/calendar.ics", player_calendar)
    app.router.add_get("/calendar.ics", event_calendar)
    app.router.add_get("/rules", rules_page)
