"""Live pages: the match room, the pairings, the standings and the home page update by themselves.

Every commit of this process that writes a table a page shows (:mod:`storage.changes` tells
which tables each commit wrote) moves :class:`LiveFeed` on by one version. ``GET /live`` is a
stream of server-sent events: one ``change`` event per version, at once (the pages' script then
fetches its page again and swaps the parts marked ``data-live``). A page carries the version it
was rendered at, so a change between the rendering and the stream's start is not lost. A browser
without ``EventSource``, or one refused a stream (too many open), polls the page instead.

No event carries any data of the tournament: only "something changed", so a stream reveals
nothing its page does not. A match room's stream is open to whom the room is.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

from aiohttp import web

from bot.web.core import CONTEXT, LIVE_SOURCE, context, not_found, require_login

__all__ = ["LIVE_PAGES", "LiveFeed", "add_routes", "live_source"]

QUIET_TABLES = frozenset({"settings", "web_sessions", "audit_log", "outbox", "lichess_holds"})
"""Tables no live page shows: a commit that wrote only these wakes no page (the games stream's
bookmark, a login, the audit, message delivery)."""
LIVE_PAGES = frozenset({"/", "/pairings", "/standings", "/register"})
"""The public pages that update by themselves (and every match room)."""
CHECKS_PAGE = "/register"
"""The page woken by the players' eligibility checks (their own feed: a check's progress is
written often, to no table another page shows)."""
KEEP_ALIVE_SECONDS = 25.0
"""A comment line this often keeps proxies from closing a quiet stream."""
MAX_STREAMS = 500
"""Open streams at most; past that a browser polls its page instead."""


class LiveFeed:
    """A version that moves on with each commit a live page may show, and waiters on it."""

    def __init__(self) -> None:
        self.version = 0
        self.streams = 0
        self.closed = False
        self._moved = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop the streams wait on; called on that loop's thread."""
        self._loop = loop
        self._thread = threading.get_ident()

    def committed(self, tables: frozenset[str]) -> None:
        """:meth:`storage.changes.TableChanges.subscribe`'s listener (inside the commit).

        A commit on the loop's own thread (SQLAlchemy's sessions commit there, SQLite's too)
        schedules the move plainly: the thread-safe way also wakes the loop through its
        self-pipe, a system call on every commit of the season, streams open or not."""
        if tables <= QUIET_TABLES or self._loop is None:
            return
        if threading.get_ident() == self._thread:
            self._loop.call_soon(self.move)
        else:
            self._loop.call_soon_threadsafe(self.move)

    def move(self) -> None:
        self.version += 1
        moved, self._moved = self._moved, asyncio.Event()
        moved.set()

    def close(self) -> None:
        """The app stops: every stream ends."""
        self.closed = True
        self.move()

    async def wait(self, since: int, *, patience: float) -> int:
        """The version once it differs from ``since``; the same one after ``patience`` seconds."""
        moved = self._moved
        if self.version != since or self.closed:
            return self.version
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(patience):
                await moved.wait()
        return self.version


FEED = web.AppKey("acwc.live", LiveFeed)
CHECKS_FEED = web.AppKey("acwc.live.checks", LiveFeed)


def live_source(request: web.Request) -> str | None:
    """The stream a page listens to (``data-live`` of its body), or None for a page that is not
    live."""
    path = request.path
    if path not in LIVE_PAGES and not _is_room(path):
        return None
    feed = _feed_of(request.app, path)
    return f"/live?page={path}&since={feed.version}"


def _feed_of(app: web.Application, page: str) -> LiveFeed:
    return app[CHECKS_FEED] if page == CHECKS_PAGE else app[FEED]


def _is_room(path: str) -> bool:
    number = path.removeprefix("/match/")
    return path.startswith("/match/") and number.isascii() and number.isdigit() and len(number) < 10


async def stream(request: web.Request) -> web.StreamResponse:
    """``GET /live?page=&since=``: a ``change`` event each time the page's data may have
    changed."""
    page = request.query.get("page", "")
    if page not in LIVE_PAGES and not _is_room(page):
        raise not_found("No live page there.")
    if _is_room(page):
        await _check_room(request, int(page.removeprefix("/match/")))
    feed = _feed_of(request.app, page)
    if feed.streams >= MAX_STREAMS or feed.closed:
        return web.Response(status=503, text="Too many live pages open: this page polls instead.")
    since_text = request.query.get("since", "")
    since = int(since_text) if since_text.isascii() and since_text.isdigit() else feed.version
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-store",
            "X-Accel-Buffering": "no",
        }
    )
    await response.prepare(request)
    async with _counted(feed):
        with contextlib.suppress(ConnectionResetError):  # the page was left: the stream ends
            await response.write(b"retry: 3000\n\n")
            while not feed.closed:
                version = await feed.wait(since, patience=KEEP_ALIVE_SECONDS)
                if version == since:
                    await response.write(b": still here\n\n")
                    continue
                since = version
                await response.write(f"event: change\ndata: {version}\n\n".encode("ascii"))
    return response


@contextlib.asynccontextmanager
async def _counted(feed: LiveFeed) -> AsyncIterator[None]:
    feed.streams += 1
    try:
        yield
    finally:
        feed.streams -= 1


async def _check_room(request: web.Request, match_id: int) -> None:
    """A room's stream only for its two players and the TDs (as the room itself)."""
    who = require_login(request)
    async with context(request).db.reads() as uow:
        row = await uow.matches.get(match_id)
    if row is None:
        raise not_found("There is no such match.")
    if who.user_id not in (row.white_first, row.black_first) and not who.is_td:
        raise not_found("There is no such match.")


async def _feed(app: web.Application) -> AsyncIterator[None]:
    feed = app[FEED]
    feed.bind(asyncio.get_running_loop())
    app[CHECKS_FEED].bind(asyncio.get_running_loop())
    changes = app[CONTEXT].db.changes
    unsubscribe = None if changes is None else changes.subscribe(feed.committed)
    checks = app[CONTEXT].services.registration_checks
    unsubscribe_checks = None if checks is None else checks.subscribe(app[CHECKS_FEED].move)
    yield
    if unsubscribe is not None:
        unsubscribe()
    if unsubscribe_checks is not None:
        unsubscribe_checks()


async def _close(app: web.Application) -> None:
    app[FEED].close()
    app[CHECKS_FEED].close()


def add_routes(app: web.Application) -> None:
    app[FEED] = LiveFeed()
    app[CHECKS_FEED] = LiveFeed()
    app[LIVE_SOURCE] = live_source
    app.router.add_get("/live", stream)
    app.cleanup_ctx.append(_feed)
    app.on_shutdown.append(_close)
