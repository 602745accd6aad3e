"""Every season's pages at stable URLs (issue 28): ``/2021/standings``, ``/2021/candidates``,
``/2021/players/alice``, ``/2021/calendar.ics``, ``/2021/qualification.trf``... are the public
pages of that season, read through the same read models as the season in play's (the reads
answer for the season named: :func:`storage.repo_seasons.viewing`; an archived season's players
are its kept entries, its rules its own settings). ``/seasons`` lists every season with its
champion and runner-up: the roll of champions and the way to each season's pages."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web

from bot.service.seasons import final_order, season_rules
from bot.views.qualification import trf_export
from bot.web.core import (
    SEASON_CONFIG,
    SEASON_SHOWN,
    SeasonShown,
    context,
    not_found,
    page_words,
    render,
)
from rules.core.words import N_
from storage.models import SeasonState
from storage.repo_seasons import viewing

__all__ = ["SEASON_PAGES", "add_routes"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SEASON_PAGES = (
    "",
    "/pairings",
    "/standings",
    "/candidates",
    "/knockout",
    "/players",
    "/players/{player}",
    "/players/{player}/calendar.ics",
    "/calendar.ics",
    "/rules",
    "/qualification.trf",
)
"""The public pages every season has under its year."""


def in_season(handler: Handler) -> Handler:
    """``handler`` answering for the season of the URL's year."""

    async def wrapped(request: web.Request) -> web.StreamResponse:
        ctx = context(request)
        try:
            year = int(request.match_info["year"])
        except ValueError:
            raise not_found(N_("There is no such season.")) from None
        async with ctx.db.reads() as uow:
            season = await uow.seasons.by_year(year)
        if season is None:
            said = page_words().gettext("There is no %(year)s season.")
            raise not_found(said % {"year": year})
        config = ctx.config
        if not season.is_open:
            rules = season_rules(config.rules, season)
            config = dataclasses.replace(config, rules=rules)
        token = SEASON_CONFIG.set(config)
        shown = SEASON_SHOWN.set(SeasonShown(year, archived=not season.is_open))
        try:
            with viewing(season.id):
                return await handler(request)
        finally:
            SEASON_SHOWN.reset(shown)
            SEASON_CONFIG.reset(token)

    return wrapped


async def qualification_trf(request: web.Request) -> web.StreamResponse:
    """The season's qualification as a FIDE TRF file (what ``trf export`` writes)."""
    ctx = context(request)
    async with ctx.db.reads() as uow:
        text = await trf_export(uow, ctx.config)
    return web.Response(
        text=text,
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": 'inline; filename="qualification.trf"'},
    )


async def seasons_page(request: web.Request) -> web.StreamResponse:
    """The roll of champions: every season, its champion and second (the season in play's as
    soon as its final is decided), each with its pages."""
    async with context(request).db.reads() as uow:
        rows = [r for r in await uow.seasons.all() if r.state != SeasonState.DRAFT and r.year]
        live = await final_order(uow)
    seasons = []
    for r in rows:
        final = live if r.is_open else list(r.final_order or ())
        seasons.append(
            {
                "year": r.year,
                "open": r.is_open,
                "champion": final[0] if final else None,
                "second": final[1] if len(final) > 1 else None,
            }
        )
    return await render(
        request, "seasons.html", {"title": page_words().gettext("Seasons"), "seasons": seasons}
    )


def add_routes(app: web.Application, pages: Mapping[str, Handler]) -> None:
    """``/seasons``, the TRF file of the season in play, and each of ``pages`` (path ->
    handler) under every season's year."""
    app.router.add_get("/seasons", seasons_page)
    app.router.add_get("/qualification.trf", qualification_trf)
    found = {**pages, "/qualification.trf": qualification_trf}
    for path in SEASON_PAGES:
        app.router.add_get(r"/{year:\d{4}}" + path, in_season(found[path]))
