"""Broadcasts on the fake Lichess: ``POST /broadcast/new`` and ``POST /broadcast/{id}/new``.

A tournament has a name (3 to 80 characters, the spec's ``BroadcastForm``); a round has a name and,
here, the Lichess users whose games it follows (``syncSource=users``, ``syncUsers``: up to 100
names separated by spaces, the spec's ``BroadcastRoundForm``). Both need ``study:write``. The
state keeps what was made, so tests can read which players each round follows.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.sandbox.schemas import millis, user_id

__all__ = ["BroadcastRound", "BroadcastTour", "broadcast_routes"]

SYNC_USERS_LIMIT = 100


@dataclass
class BroadcastRound:
    id: str
    name: str
    slug: str
    created_at: dt.datetime
    sync_users: tuple[str, ...]
    url: str


@dataclass
class BroadcastTour:
    id: str
    name: str
    slug: str
    owner: str
    created_at: dt.datetime
    markdown: str | None = None
    rounds: list[BroadcastRound] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"https://lichess.org/broadcast/{self.slug}/{self.id}"


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "-"


def _new_id(prefix: str, taken: Callable[[str], bool]) -> str:
    """An 8-character id like Lichess's, the same every run of a seeded demo."""
    n = 0
    while True:
        n += 1
        bid = f"{prefix}{n:06d}"
        if not taken(bid):
            return bid


def _name(value: str | None, what: str) -> str:
    name = (value or "").strip()
    if not 3 <= len(name) <= 80:
        raise ValueError(f"name: the {what}'s name must have 3 to 80 characters")
    return name


def tour_json(tour: BroadcastTour) -> dict[str, Any]:
    """``BroadcastTour``."""
    out: dict[str, Any] = {
        "id": tour.id,
        "name": tour.name,
        "slug": tour.slug,
        "createdAt": millis(tour.created_at),
        "url": tour.url,
    }
    return out


def round_json(rnd: BroadcastRound) -> dict[str, Any]:
    """``BroadcastRoundInfo``."""
    return {
        "id": rnd.id,
        "name": rnd.name,
        "slug": rnd.slug,
        "createdAt": millis(rnd.created_at),
        "url": rnd.url,
    }


StateOf = Callable[[web.Request], Any]
"""The app's :class:`~bot.sandbox.state.SandboxState` of a request (``Any``: the state module
imports this one)."""
Error = Callable[[int, str], web.Response]
Authed = Callable[..., Callable[..., Callable[[web.Request], Awaitable[web.StreamResponse]]]]


def broadcast_routes(state_of: StateOf, error: Error, authed: Authed) -> list[web.RouteDef]:
    """The routes, given how the app finds its state, writes an error and checks tokens."""

    @authed(required=True, scope="study:write")
    async def broadcast_tour_create(request: web.Request, token: Any) -> web.StreamResponse:
        """POST /broadcast/new"""
        assert token is not None
        state = state_of(request)
        form = await request.post()
        try:
            name = _name(str(form.get("name") or ""), "broadcast")
        except ValueError as e:
            return error(400, str(e))
        markdown = form.get("markdown")
        tour = BroadcastTour(
            id=_new_id("bt", lambda b: b in state.broadcasts),
            name=name,
            slug=_slug(name),
            owner=token.user,
            created_at=state.now(),
            markdown=markdown if isinstance(markdown, str) else None,
        )
        state.broadcasts[tour.id] = tour
        return web.json_response({"tour": tour_json(tour), "rounds": []})

    @authed(required=True, scope="study:write")
    async def broadcast_round_create(request: web.Request, token: Any) -> web.StreamResponse:
        """POST /broadcast/{broadcastTournamentId}/new"""
        assert token is not None
        state = state_of(request)
        tour = state.broadcasts.get(request.match_info["broadcastTournamentId"])
        if tour is None:
            return error(404, "Not found")
        if tour.owner != token.user:
            return error(403, "Not your broadcast")
        form = await request.post()
        try:
            name = _name(str(form.get("name") or ""), "round")
        except ValueError as e:
            return error(400, str(e))
        source = form.get("syncSource") or "push"
        raw_users = str(form.get("syncUsers") or "")
        names = [n for n in raw_users.split() if n]
        if source != "users" and names:
            return error(400, "syncUsers: set syncSource to users")
        if len(names) > SYNC_USERS_LIMIT:
            return error(400, f"syncUsers: at most {SYNC_USERS_LIMIT} usernames")
        unknown = [n for n in names if user_id(n) not in state.users]
        if unknown:
            return error(400, f"syncUsers: no such user {unknown[0]}")
        taken = {x.id for t in state.broadcasts.values() for x in t.rounds}
        rid = _new_id("br", taken.__contains__)
        slug = _slug(name)
        rnd = BroadcastRound(
            id=rid,
            name=name,
            slug=slug,
            created_at=state.now(),
            sync_users=tuple(user_id(n) for n in names),
            url=f"https://lichess.org/broadcast/{tour.slug}/{slug}/{rid}",
        )
        tour.rounds.append(rnd)
        return web.json_response({"round": round_json(rnd), "tour": tour_json(tour), "study": {}})

    return [
        web.post("/broadcast/new", broadcast_tour_create),
        web.post("/broadcast/{broadcastTournamentId}/new", broadcast_round_create),
    ]
