"""What every page shares: the web context, who is asking (the viewer), errors, forms, rendering.

Every request passes three middlewares, outermost first: friendly errors (never a traceback),
security headers, and the viewer (the logged-in session, if any, with its role). Pages call
:func:`require_player`, :func:`require_td` or :func:`require_login` on the server for every
request; a form handler calls :func:`read_form`, which checks the CSRF token and bounds every
field before anything else happens.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import aiohttp_jinja2
from aiohttp import web
from markupsafe import Markup
from multidict import MultiDictProxy

from bot.config import Config
from bot.notify.languages import DEFAULT, LANGUAGES, negotiate, words
from bot.notify.spelling import spelled
from bot.runtime.clock import Clock
from bot.service.services import Services
from bot.web.limits import ActionLimiter
from bot.web.security import SESSION_COOKIE, Signer, check_csrf, token_id
from rules.core.words import ENGLISH, N_, Words
from rules.week.calendar import label_duration, label_time
from storage.db import Database

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

MAX_FIELD = 2000
"""Longest value any form field may carry unless the field says otherwise."""


@dataclass(slots=True)
class WebRuntime:
    """What the running service gives its web app when it builds it."""

    services: Services
    """The services of the open season (the running service puts the next season's in when a
    TD confirms it)."""
    lichess_url: str
    public_base: Callable[[], str]
    """Where browsers reach this app: the configured public URL, or (sandbox) where it runs."""
    changed: Callable[[], None]
    """Stored state changed: the outbox and the deadline runner look again."""
    refresh_players: Callable[[], Awaitable[None]]
    """The set of players the games stream watches changed."""
    browser_clock: Clock | None = None
    """The time a browser's login attempt, session and flash message expire in: the service's
    clock unless it is a fake one racing through weeks in seconds (the demo's), where a TD who
    logs in would be told at once that the login expired."""


SEASON_CONFIG: ContextVar[Config | None] = ContextVar("acwc_season_config", default=None)
"""The config of the season a page shows (``bot.web.seasons``; None: the open season's)."""


@dataclass(frozen=True, slots=True)
class SeasonShown:
    """The season a page at ``/{year}/…`` shows: its links stay under its year."""

    year: int
    archived: bool


SEASON_SHOWN: ContextVar[SeasonShown | None] = ContextVar("acwc_season_shown", default=None)
"""Set by ``bot.web.seasons`` for a page under a year (None: the pages of the season in play)."""


def season_url(path: str) -> str:
    """``path`` (a public page: ``/standings``, ``/players/x``; ``/``: home) within the season
    the page in hand shows: under its year when the page is under one, so an archived season's
    pages link to each other, not to the season in play's."""
    shown = SEASON_SHOWN.get()
    if shown is None:
        return path
    return f"/{shown.year}" if path == "/" else f"/{shown.year}{path}"


@dataclass
class WebContext:
    """The web app's state, kept on the aiohttp Application under :data:`CONTEXT`."""

    runtime: WebRuntime
    signer: Signer
    secure_cookies: bool
    room_limiter: ActionLimiter

    def __repr__(self) -> str:
        return "WebContext(...)"

    @property
    def services(self) -> Services:
        return self.runtime.services

    @property
    def config(self) -> Config:
        """The config the page in hand reads: an archived season's page its season's rules."""
        shown = SEASON_CONFIG.get()
        return self.runtime.services.config if shown is None else shown

    @property
    def db(self) -> Database:
        return self.runtime.services.db

    def base_url(self, request: web.Request) -> str:
        return self.runtime.public_base()

    def now(self) -> dt.datetime:
        return self.runtime.services.clock.now()

    def browser_now(self) -> dt.datetime:
        """The time logins, sessions and flashes expire in (:attr:`WebRuntime.browser_clock`)."""
        return (self.runtime.browser_clock or self.runtime.services.clock).now()

    def changed(self) -> None:
        self.runtime.changed()


CONTEXT = web.AppKey("acwc.web", WebContext)


def context(request: web.Request) -> WebContext:
    return request.app[CONTEXT]


@dataclass(frozen=True, slots=True)
class Viewer:
    """A logged-in browser: who, their role, and the session's CSRF token."""

    user_id: str
    username: str
    session_id: str
    csrf: str
    is_td: bool
    is_player: bool
    language: str | None = None  # a player's choice (None: English)

    @property
    def role(self) -> str:
        if self.is_td:
            return "td"
        return "player" if self.is_player else "visitor"


VIEWER = web.RequestKey("acwc.viewer", Viewer)

LANGUAGE = web.RequestKey("acwc.language", str)
"""The language the page is written in (a code of ``LANGUAGES``), set by
:func:`viewer_middleware`: :class:`bot.web.ops.PageCache` keeps one copy of a page per language."""

LANGUAGE_COOKIE = "acwc_lang"
"""A visitor's choice of language (the footer's links), for whoever has none stored."""


def viewer(request: web.Request) -> Viewer | None:
    return request.get(VIEWER)


PAGE_WORDS: contextvars.ContextVar[Words] = contextvars.ContextVar(
    "acwc_page_words", default=ENGLISH
)
"""The language the page being made is written in (:func:`page_language`). Set by
:func:`viewer_middleware`; the templates' ``_()`` and :func:`when` read it (the worker thread
that renders a page gets a copy of the request's context)."""


def page_words() -> Words:
    return PAGE_WORDS.get()


def visitor_language(request: web.Request) -> str:
    """The language of a reader with none stored: the one they picked with the footer's links
    (a cookie), else the best their browser asks for (``Accept-Language``), else English."""
    picked = request.cookies.get(LANGUAGE_COOKIE)
    if picked in LANGUAGES:
        return picked
    return negotiate(request.headers.get("Accept-Language"))


def page_language(request: web.Request) -> str:
    """The language of the page in hand (:data:`LANGUAGE`; English before the viewer is read)."""
    language: str = request.get(LANGUAGE, DEFAULT)
    return language


# --- errors ---------------------------------------------------------------------------------


_TITLES = {
    400: N_("That did not work"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not allowed"),
    413: N_("Too long"),
}
_SOMETHING_WRONG = N_("Something went wrong")


class PageError(Exception):
    """An error the visitor should read: ``status`` and a sentence. The sentence is English,
    marked where it is written (``N_``), or already in the page's words; the error page reads
    it, and its title, in the page's words."""

    def __init__(self, status: int, message: str, *, title: str | None = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.message = message
        self.title = title or _TITLES.get(status, _SOMETHING_WRONG)


def bad_request(message: str) -> PageError:
    return PageError(400, message)


def forbidden(message: str = N_("This page is not yours to use.")) -> PageError:
    return PageError(403, message)


def not_found(message: str = N_("There is no such page.")) -> PageError:
    return PageError(404, message)


_STATUS_TEXT = {
    400: N_("The request could not be understood."),
    403: N_("This page is not yours to use."),
    404: N_("There is no such page."),
    405: N_("That page does not take this kind of request."),
    413: N_("What you sent is too long."),
}


async def _error_page(request: web.Request, status: int, title: str, message: str) -> web.Response:
    language = page_words()  # (an empty text would read the catalogue's header)
    title, message = (language.gettext(t) if t else t for t in (title, message))
    try:
        return aiohttp_jinja2.render_template(
            "error.html",
            request,
            await base_context(request) | {"title": title, "message": message, "status": status},
            status=status,
        )
    except Exception:  # the error page must never fail: plain text then
        log.exception("could not render the error page")
        return web.Response(status=status, text=f"{title}: {message}")


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Friendly pages for every error; the traceback goes to the log, never to the browser."""
    try:
        return await handler(request)
    except PageError as e:
        return await _error_page(request, e.status_code, e.title, e.message)
    except web.HTTPException as e:
        if e.status_code < 400:
            raise
        title = _TITLES.get(e.status_code, _TITLES[400])
        return await _error_page(
            request, e.status_code, title, _STATUS_TEXT.get(e.status_code, e.reason)
        )
    except Exception:
        log.exception("web request %s %s failed", request.method, request.path)
        return await _error_page(
            request,
            500,
            _SOMETHING_WRONG,
            N_(
                "The server could not finish this request. Nothing was changed unless the page "
                "says so; please try again, and tell the TDs if it keeps happening."
            ),
        )


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


@web.middleware
async def headers_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if not request.path.startswith("/static/"):
        if not request.path.endswith(".ics"):  # a feed may be kept a few minutes (_ics)
            response.headers.setdefault("Cache-Control", "no-store")
        # a page's (and a feed's) words follow the browser's language or the visitor's choice
        # (a cookie)
        response.headers.setdefault("Vary", "Accept-Language, Cookie")
    return response


@web.middleware
async def viewer_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Load the session named by the cookie (if it is genuine and alive), the viewer's role
    and the language the page is written in: a player's stored choice, else the visitor's
    (:func:`visitor_language`)."""
    ctx = context(request)
    language = visitor_language(request)
    PAGE_WORDS.set(words(language))  # (a connection's requests share one context)
    token = ctx.signer.unsign("session", request.cookies.get(SESSION_COOKIE))
    if token is not None:
        async with ctx.db.uow() as uow:
            row = await uow.web.get_session(token_id(token), now=ctx.browser_now())
            if row is not None:
                player = await uow.players.get(row.user_id)
                request[VIEWER] = Viewer(
                    user_id=row.user_id,
                    username=row.username,
                    session_id=row.id,
                    csrf=row.csrf,
                    is_td=ctx.config.is_td(row.username),
                    is_player=player is not None,
                    language=None if player is None else player.language,
                )
                if player is not None and player.language is not None:
                    language = player.language
    request[LANGUAGE] = language
    PAGE_WORDS.set(words(language))
    return await handler(request)


# --- roles ----------------------------------------------------------------------------------


def require_login(request: web.Request) -> Viewer:
    who = viewer(request)
    if who is None:
        if request.method == "GET":
            raise web.HTTPFound(f"/login?next={request.path_qs}")
        raise forbidden(N_("Log in with Lichess first."))
    return who


def require_td(request: web.Request) -> Viewer:
    who = require_login(request)
    if not who.is_td:
        raise forbidden(N_("Only the tournament directors can use this page."))
    return who


# --- forms ----------------------------------------------------------------------------------


async def read_form(
    request: web.Request, limits: Mapping[str, int] | None = None
) -> tuple[Viewer, dict[str, str]]:
    """The logged-in viewer and the form's fields, after the CSRF check; each field bounded.

    Unknown fields are dropped; a field longer than its limit is refused with a page that says
    which one. Raises a 403 page for a missing or wrong CSRF token or no session.
    """
    who = viewer(request)
    if who is None:
        raise forbidden(N_("Log in with Lichess first (your session may have ended)."))
    try:
        form: MultiDictProxy[str | bytes | Any] = await request.post()
    except ValueError:
        raise bad_request(N_("The form could not be read.")) from None
    if not check_csrf(who.csrf, form.get("csrf")):
        raise forbidden(
            N_(
                "This form is out of date or did not come from this site. "
                "Reload the page and try again."
            )
        )
    allowed = dict(limits or {})
    values: dict[str, str] = {}
    for name, limit in allowed.items():
        raw = form.get(name)
        if raw is None:
            continue
        if not isinstance(raw, str):
            said = page_words().gettext("The field '%(name)s' must be text.")
            raise bad_request(said % {"name": name})
        if len(raw) > min(limit, MAX_FIELD):
            said = page_words().gettext(
                "The field '%(name)s' is too long: at most %(limit)s characters."
            )
            raise PageError(413, said % {"name": name, "limit": min(limit, MAX_FIELD)})
        values[name] = raw
    return who, values


def int_field(values: Mapping[str, str], name: str, *, low: int = 0, high: int = 10**9) -> int:
    raw = values.get(name, "").strip()
    try:
        number = int(raw)
    except ValueError:
        raise bad_request(
            f"{name.replace('_', ' ').capitalize()} must be a whole number."
        ) from None
    if not low <= number <= high:
        raise bad_request(f"{name.replace('_', ' ').capitalize()} must be from {low} to {high}.")
    return number


def whole_number(raw: str | None, *, digits: int = 9) -> int | None:
    """``raw`` as a non-negative whole number of at most ``digits`` ASCII digits, else None.

    ``str.isdigit()`` alone accepts "²" and other Unicode digits that ``int()`` refuses.
    """
    if not raw or len(raw) > digits or not raw.isascii() or not raw.isdigit():
        return None
    return int(raw)


def match_id_of(request: web.Request) -> int:
    number = whole_number(request.match_info.get("match_id"))
    if number is None:
        raise not_found(N_("There is no such match."))
    return number


# --- rendering ------------------------------------------------------------------------------


def when(value: dt.datetime | None, now: dt.datetime) -> dict[str, Any] | None:
    """A time as templates show it: UTC label, ISO for scripts, and a server-side countdown."""
    if value is None:
        return None
    delta = value - now
    language = page_words()
    if abs(delta) < dt.timedelta(minutes=1):
        relative = language.gettext("now")
    elif delta.total_seconds() >= 0:
        relative = language.gettext("in %(duration)s") % {
            "duration": label_duration(delta, language)
        }
    else:
        relative = language.gettext("%(duration)s ago") % {
            "duration": label_duration(delta, language)
        }
    return {
        "label": label_time(value, language),
        "iso": value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "relative": relative,
        "past": delta.total_seconds() < 0,
    }


async def base_context(request: web.Request) -> dict[str, Any]:
    ctx = context(request)
    config = ctx.config
    now = ctx.now()
    who = viewer(request)
    return {
        "viewer": who,
        "language": page_language(request),
        "languages": LANGUAGES,
        "tournament_name": config.tournament.name,
        "now": when(now, now),
        "path": request.path,
        "page_path": _page_path(request.path),
        "archived_year": _archived_year(),
        "live": _live_source(request),
    } | await _spelled_flash(request)


def season_links(text: str) -> Markup:
    """A translated sentence's links to public pages (``href="/knockout"``) within the season
    the page shows, as :func:`season_url` makes them (the catalogue keeps one sentence)."""
    shown = SEASON_SHOWN.get()
    if shown is None:
        return Markup(text)
    return Markup(str(text).replace('href="/', f'href="/{shown.year}/'))


def _page_path(path: str) -> str:
    """``path`` without the year of the season it is under (the nav marks the page it is on)."""
    shown = SEASON_SHOWN.get()
    if shown is None:
        return path
    return path.removeprefix(f"/{shown.year}") or "/"


def _archived_year() -> int | None:
    """The year of the archived season the page shows (its banner), None for a season in play."""
    shown = SEASON_SHOWN.get()
    return shown.year if shown is not None and shown.archived else None


async def _spelled_flash(request: web.Request) -> dict[str, str | None]:
    """The page's one-line messages, the players in them as they spell their usernames (the
    bot's replies name them by their ids)."""
    found = flash(request)
    if not any(found.values()):
        return found
    ctx = context(request)
    tds = ctx.config.tournament.tds
    async with ctx.db.reads() as uow:
        return {
            key: None if text is None else await spelled(uow, text, tds=tds)
            for key, text in found.items()
        }


LIVE_SOURCE: web.AppKey[Callable[[web.Request], str | None]] = web.AppKey("acwc.live_source")
"""The stream a page listens to, if it is live (:mod:`bot.web.live` sets it)."""


def _live_source(request: web.Request) -> str | None:
    source = request.app.get(LIVE_SOURCE)
    return source(request) if source is not None and request.method == "GET" else None


async def render(
    request: web.Request, template: str, values: Mapping[str, Any], *, status: int = 200
) -> web.Response:
    """The page ``template`` with ``values``. Jinja renders it in a worker thread: a long page
    (the pairings' every match) would otherwise hold the event loop for its whole length, and
    the loop, sharing the interpreter with the thread a few milliseconds at a time, goes on
    serving the others (a crowd reading the cached pages)."""
    context = await base_context(request) | dict(values)
    page = request.config_dict[aiohttp_jinja2.APP_KEY].get_template(template)
    text = await asyncio.to_thread(page.render, context)
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")


def redirect(location: str, *, status: int = 303) -> web.Response:
    """A redirect as a plain response (returning an HTTPException object is deprecated)."""
    return web.Response(status=status, headers={"Location": location})


FLASH_LIFETIME = dt.timedelta(minutes=2)
"""How long a post/redirect/get message link shows its message: long enough to land on it."""


def _flash_purpose(request: web.Request, key: str, *, logged_out: bool = False) -> str:
    who = None if logged_out else viewer(request)
    return f"flash-{key}-{who.session_id if who else 'anonymous'}"


def redirect_with(
    request: web.Request,
    location: str,
    message: str,
    *,
    ok: bool = True,
    logged_out: bool = False,
) -> web.Response:
    """Post/redirect/get with a one-line message.

    The message is signed for this browser's session (``logged_out``: for no session, the page
    after logging out) and expires after :data:`FLASH_LIFETIME`, so nobody can hand someone else
    a link that makes this site show words it never said to them.
    """
    ctx = context(request)
    expires = int((ctx.browser_now() + FLASH_LIFETIME).timestamp())
    text = base64.urlsafe_b64encode(message[:600].encode("utf-8")).rstrip(b"=").decode("ascii")
    key = "ok" if ok else "error"
    signed = ctx.signer.sign(
        _flash_purpose(request, key, logged_out=logged_out), f"{expires}~{text}"
    )
    location, hash_mark, fragment = location.partition("#")
    joiner = "&" if "?" in location else "?"
    return redirect(f"{location}{joiner}{urlencode({key: signed})}{hash_mark}{fragment}")


def _unflash(request: web.Request, key: str) -> str | None:
    ctx = context(request)
    data = ctx.signer.unsign(_flash_purpose(request, key), request.query.get(key))
    if data is None:
        return None
    expires, _, text = data.partition("~")
    if not expires.isdigit() or ctx.browser_now().timestamp() > int(expires):
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("utf-8")
    except ValueError:
        return None


def flash(request: web.Request) -> dict[str, str | None]:
    return {"flash_ok": _unflash(request, "ok"), "flash_error": _unflash(request, "error")}
