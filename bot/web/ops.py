"""What a TD (or a monitor) reads from outside: ``/healthz`` (JSON) and ``/metrics`` (Prometheus).

Both say whether this process leads or stands by (:mod:`bot.runtime.leader`), how long ago the
games stream last saw a game, the oldest notice not yet delivered, how many deadlines are
overdue, and (``/metrics``) the Lichess requests by endpoint and answer. The figures come from
the database, so a standby reports the season as the leader runs it. ``/healthz`` answers 503
when the database cannot be read, and ``"status": "degraded"`` with the reasons
(:meth:`Health.degraded`) while Lichess is unreachable, the outbox is stopped, or a notice has
waited longer than ``[outbox] late_after_minutes``; the reading does not depend on which
listener serves it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from bot.web.core import VIEWER, page_language

__all__ = ["CACHED_PAGES", "Health", "HealthSource", "PageCache", "add_routes"]

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class Health:
    """One reading of the service's state."""

    now: dt.datetime
    role: str
    """``leader``, ``standby`` or ``starting``."""
    role_since: dt.datetime | None
    stream_last_seen: dt.datetime | None
    """Up to when every game is known (the games stream's mark, kept in the database)."""
    undelivered: int
    """DMs, TD alerts and team updates due and not yet sent."""
    oldest_undelivered: dt.datetime | None
    overdue_deadlines: int
    lichess_answers: Mapping[tuple[str, str], int] = field(default_factory=dict)
    lichess_unreachable_since: dt.datetime | None = None
    """Since when no request reached Lichess (``None``: the last one did)."""
    lichess_unreachable_reason: str = ""
    outbox_stopped: str | None = None
    """Why the outbox is stopped (a refused token), ``None`` while it runs."""
    late_after: dt.timedelta | None = None
    """How long a notice may wait before the service is degraded (``None``: no limit)."""

    def degraded(self) -> list[str]:
        """Why the service is degraded, each in a sentence (empty: it is not)."""
        reasons = []
        if self.lichess_unreachable_since is not None:
            reasons.append(
                f"Lichess unreachable since {self.lichess_unreachable_since.isoformat()}"
                + (
                    f" ({self.lichess_unreachable_reason})"
                    if self.lichess_unreachable_reason
                    else ""
                )
            )
        if self.outbox_stopped:
            reasons.append(f"the outbox is stopped: {self.outbox_stopped}")
        age = self.oldest_undelivered_age_seconds
        if (
            self.late_after is not None
            and age is not None
            and age > self.late_after.total_seconds()
        ):
            minutes = int(age // 60)
            reasons.append(
                f"a notice has waited {minutes} min (more than {self.late_after} allows)"
            )
        return reasons

    @staticmethod
    def _age(now: dt.datetime, when: dt.datetime | None) -> float | None:
        return None if when is None else max((now - when).total_seconds(), 0.0)

    @property
    def stream_lag_seconds(self) -> float | None:
        return self._age(self.now, self.stream_last_seen)

    @property
    def oldest_undelivered_age_seconds(self) -> float | None:
        return self._age(self.now, self.oldest_undelivered)

    def as_json(self) -> dict[str, object]:
        def iso(when: dt.datetime | None) -> str | None:
            return None if when is None else when.isoformat()

        degraded = self.degraded()
        return {
            "ok": True,
            "status": "degraded" if degraded else "ok",
            "degraded": degraded,
            "role": self.role,
            "role_since": iso(self.role_since),
            "now": iso(self.now),
            "stream": {
                "last_seen": iso(self.stream_last_seen),
                "lag_seconds": self.stream_lag_seconds,
            },
            "outbox": {
                "undelivered": self.undelivered,
                "oldest_undelivered": iso(self.oldest_undelivered),
                "oldest_age_seconds": self.oldest_undelivered_age_seconds,
            },
            "deadlines": {"overdue": self.overdue_deadlines},
        }


class HealthSource(Protocol):
    async def health(self) -> Health:
        """Read the figures now (raises if the database cannot be read)."""
        ...


class _Figures(Collector):
    """The last reading as Prometheus metrics (collected at each scrape, after the reading)."""

    def __init__(self) -> None:
        self.health: Health | None = None

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        h = self.health
        if h is None:
            return
        role = GaugeMetricFamily("acwc_leader", "1 if this process leads (acts), 0 if it stands by")
        role.add_metric([], 1.0 if h.role == "leader" else 0.0)
        yield role
        for name, text, value in (
            ("acwc_stream_lag_seconds", "seconds since the games stream last saw a game",
             h.stream_lag_seconds),
            ("acwc_outbox_undelivered", "notices due and not yet delivered", h.undelivered),
            ("acwc_outbox_oldest_undelivered_age_seconds",
             "age of the oldest notice not yet delivered", h.oldest_undelivered_age_seconds),
            ("acwc_deadlines_overdue", "deadlines due and not yet fired", h.overdue_deadlines),
        ):  # fmt: skip
            if value is not None:
                yield GaugeMetricFamily(name, text, value=float(value))
        answers = CounterMetricFamily(
            "acwc_lichess_requests",
            "Lichess requests by endpoint and answer (ok, an HTTP status, transport, payload)",
            labels=["endpoint", "answer"],
        )
        for (endpoint, answer), count in sorted(h.lichess_answers.items()):
            answers.add_metric([endpoint, answer], float(count))
        yield answers


def add_routes(app: web.Application, source: HealthSource) -> None:
    registry = CollectorRegistry(auto_describe=False)
    figures = _Figures()
    registry.register(figures)

    async def healthz(request: web.Request) -> web.Response:
        try:
            health = await source.health()
        except Exception as e:  # the database is down: say so, as a monitor expects
            log.warning("health check failed: %s", e)
            return web.json_response(
                {"ok": False, "status": "error", "error": type(e).__name__}, status=503
            )
        return web.json_response(health.as_json())

    async def metrics(request: web.Request) -> web.Response:
        try:
            figures.health = await source.health()
        except Exception as e:
            log.warning("metrics failed: %s", e)
            return web.Response(status=503, text=f"database unreadable: {type(e).__name__}\n")
        body = generate_latest(registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app.router.add_get("/healthz", healthz, name="healthz")
    app.router.add_get("/metrics", metrics, name="metrics")


CACHED_PAGES = frozenset({"/", "/pairings", "/standings", "/candidates", "/knockout", "/players"})
"""The public pages a crowd reads: an anonymous visitor's copy is shared for a moment."""


class PageCache:
    """Anonymous visitors' public pages, rendered once per ``seconds`` and shared.

    A final's spectators read the same few pages hundreds of times a second, and each is
    recomputed from the database (standings, crosstable, bracket): sharing one rendering is
    what lets one process serve them. A logged-in viewer's page is never cached (it shows
    their own actions). A page is kept once per language (:data:`bot.web.core.LANGUAGE`, the
    visitor's choice or their browser's): a French visitor's copy never reaches an English one.

    No visitor waits for a copy that is merely old: once ``seconds`` have passed, the next
    request gets the copy it finds while one rendering in the background replaces it (another
    process's change shows within ``seconds`` and one rendering). A change this process makes
    (:meth:`clear`, from ``Service.changed``) shows at once: the next visitor waits for the new
    rendering, and those who come while it renders get the copy before it. A page nobody has
    yet is rendered once; concurrent requests for it wait for that rendering.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._pages: dict[str, tuple[float, int, web.Response]] = {}
        """Each page's rendering: when, in which generation (:meth:`clear` starts a new one),
        and the response."""
        self._generation = 0
        self._rendering: dict[str, asyncio.Future[web.Response | None]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self.hits = 0
        self.renders = 0

    def clear(self) -> None:
        """This process changed something: every copy is out of date."""
        self._generation += 1

    async def idle(self) -> None:
        """Wait until no rendering runs in the background (shutdown; tests)."""
        while self._background:
            running = list(self._background)
            await asyncio.gather(*running, return_exceptions=True)
            self._background.difference_update(running)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if (
            request.method != "GET"
            or request.get(VIEWER) is not None
            or request.path not in CACHED_PAGES
        ):
            return await handler(request)
        key = f"{page_language(request)} {request.path_qs}"
        now = asyncio.get_running_loop().time()
        found = self._pages.get(key)
        pending = self._rendering.get(key)
        if found is not None:
            at, generation, response = found
            if generation == self._generation and now - at < self.seconds:
                self.hits += 1
                return _copy(response)
            if pending is not None or generation == self._generation:
                # merely old, or being rendered again: this copy while the new one renders
                if pending is None:
                    self._in_background(key, handler, request)
                self.hits += 1
                return _copy(response)
        elif pending is not None:
            shared = await asyncio.shield(pending)
            if shared is not None:
                self.hits += 1
                return _copy(shared)
            return await handler(request)
        return await self._render(key, handler, request)

    def _in_background(self, key: str, handler: Handler, request: web.Request) -> None:
        rendering = self._start(key)  # (now: a request before the task runs must see it)

        async def render() -> None:
            try:
                await rendering(handler, request)
            except Exception:  # the old copy stays; the next request tries again
                log.exception("rendering %s failed", key)

        task = asyncio.get_running_loop().create_task(render(), name=f"render {key}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _render(self, key: str, handler: Handler, request: web.Request) -> web.StreamResponse:
        return await self._start(key)(handler, request)

    def _start(self, key: str) -> Callable[[Handler, web.Request], Awaitable[web.StreamResponse]]:
        """Mark ``key`` as being rendered (from now on, requests for it share this rendering)
        and return what renders it."""
        loop = asyncio.get_running_loop()
        started, generation = loop.time(), self._generation
        future: asyncio.Future[web.Response | None] = loop.create_future()
        self._rendering[key] = future

        async def render(handler: Handler, request: web.Request) -> web.StreamResponse:
            response: web.StreamResponse | None = None
            try:
                response = await handler(request)
            finally:
                if self._rendering.get(key) is future:
                    del self._rendering[key]
                keep = (
                    response
                    if isinstance(response, web.Response)
                    and response.status == 200
                    and isinstance(response.body, bytes)
                    and not response.cookies
                    else None
                )
                future.set_result(keep)
                if keep is not None:
                    self.renders += 1
                    self._pages[key] = (started, generation, keep)
            return response

        return render


def _copy(response: web.Response) -> web.Response:
    """A fresh response with the rendering's status, body and headers (a response object is
    sent once; the outer middlewares add their headers to the copy)."""
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    return web.Response(status=response.status, body=response.body, headers=headers)
