"""The web app: pages, static files and middlewares on the service's aiohttp Application."""

from __future__ import annotations

import datetime as dt
import logging
import re
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web
from markupsafe import Markup, escape

from bot.web import auth, desk, games_permission, live, privacy, public, register, room, seasons
from bot.web.core import (
    CONTEXT,
    WebContext,
    WebRuntime,
    error_middleware,
    headers_middleware,
    page_words,
    season_links,
    season_url,
    viewer_middleware,
)
from bot.web.limits import ActionLimiter
from bot.web.security import Signer, session_key

__all__ = ["WebRuntime", "environment", "setup_web"]

log = logging.getLogger(__name__)

HERE = Path(__file__).parent


def environment(app: web.Application) -> jinja2.Environment:
    env = aiohttp_jinja2.setup(
        app,
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    # `_()` in a template: the words of the page's reader (bot.web.core.PAGE_WORDS)
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda message: page_words().gettext(message),
        ngettext=lambda one, many, n: page_words().ngettext(one, many, n),
        pgettext=lambda context, message: page_words().pgettext(context, message),
        newstyle=True,
    )
    env.filters["capitalize_first"] = capitalize_first
    env.filters["code_spans"] = code_spans
    env.globals["season_url"] = season_url  # a link within the season the page shows
    env.filters["season_links"] = season_links
    return env


_CODE = re.compile(r"`([^`\n]{1,80})`")


def code_spans(text: object) -> Markup:
    """Plain text whose `backticked` commands show as code, not as backticks (the bot's
    replies are written for Lichess messages, where a backtick is how a command stands out)."""
    escaped = str(escape(str(text)))
    return Markup(_CODE.sub(r"<code>\1</code>", escaped))


def capitalize_first(text: object) -> str:
    """The first letter in upper case, the rest as written (``capitalize`` would lower a
    player's name or a quoted word)."""
    words = str(text)
    return words[:1].upper() + words[1:]


def setup_web(app: web.Application, runtime: WebRuntime) -> None:
    """Add the pages, the static files and the middlewares to ``app``.

    Raises ``bot.web.security.MissingSecretError`` when a real deployment has no session secret.
    """
    config = runtime.services.config
    public_url = config.service.public_url
    app[CONTEXT] = WebContext(
        runtime=runtime,
        signer=Signer(session_key(config)),
        secure_cookies=public_url.startswith("https://") and not config.service.uses_sandbox,
        room_limiter=ActionLimiter(
            limit=config.service.room_actions_limit,
            window=dt.timedelta(minutes=config.service.room_actions_minutes),
        ),
    )
    environment(app)
    app.middlewares.extend([headers_middleware, error_middleware, viewer_middleware])
    public.add_routes(app)
    seasons.add_routes(app, public.PAGES)
    auth.add_routes(app)
    games_permission.add_routes(app)
    privacy.add_routes(app)
    room.add_routes(app)
    desk.add_routes(app)
    register.add_routes(app)
    live.add_routes(app)
    add_static_files(app, HERE / "static")


def add_static_files(app: web.Application, folder: Path) -> None:
    """``GET /static/{name}`` for the files the folder holds when the app starts, and no other.

    A name is looked up in that list, never joined to a path, so no request (a long name, "..",
    an escaped byte) reaches the file system: anything else is a plain 404.
    """
    files = {path.name: path for path in folder.iterdir() if path.is_file()}

    async def static_file(request: web.Request) -> web.StreamResponse:
        path = files.get(request.match_info["name"])
        if path is None:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def favicon(_request: web.Request) -> web.StreamResponse:
        """Browsers ask for ``/favicon.ico`` whatever the page says: the SVG icon."""
        return web.FileResponse(files["favicon.svg"], headers={"Content-Type": "image/svg+xml"})

    app.router.add_get("/static/{name}", static_file, name="static")
    if "favicon.svg" in files:
        app.router.add_get("/favicon.ico", favicon)
