"""Broadcasts on the fake Lichess: ``POST /broadcast/new``, ``POST /broadcast/{id}/new`` and
``POST /broadcast/round/{id}/edit``, with the round lifecycle of lila (``app/controllers/
RelayTour.scala``, ``RelayRound.scala``; ``modules/relay/src/main/RelayRoundForm.scala``,
``RelayApi.scala``, ``RelayRound.scala``, ``RelayFetch.scala``).

A tournament has a name (3 to 80 characters); a round has a name and, here, the Lichess users whose
games it follows (``syncSource=users``, ``syncUsers``: 2 to 100 names). Both need ``study:write``
and an account that is not a BOT. A round's life, as lila's:

* Created without ``status=new`` it is *started* at once (``RelayRoundForm.Data.make``) and
  never syncs: lila's auto-start takes only rounds not started yet. With ``status=new`` and a
  ``startsAt`` less than an hour ahead (or up to a day past) it starts syncing (``autoStart``).
* A syncing round follows its users' games: a game is shown when both its players are listed
  and it is going on while the round syncs. Each move keeps the sync alive for an hour more
  (``Sync.play``: ``until`` resets on move); after an hour without one the sync stops.
* A started round that does not sync is finished 3 hours after it started
  (``autoFinishNotSyncing``), and a finished round shows nothing more.
* Editing a round with ``status=new`` and a new ``startsAt`` un-finishes it and starts it again
  (``RelayApi.update`` then ``autoStart``): how a round is woken for another match day.

The lifecycle runs on the sandbox's clock, on every request and every game event.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.sandbox.schemas import from_millis, millis, user_id

__all__ = ["BroadcastRound", "BroadcastTour", "broadcast_routes"]

SYNC_USERS_LIMIT = 100


IDLE = dt.timedelta(hours=1)
"""A syncing round stops after this long without a move (3 h for official broadcasts)."""
AUTO_FINISH = dt.timedelta(hours=3)
"""A started round that does not sync is finished this long after it started."""
EARLY = dt.timedelta(minutes=60)
"""lila starts a round's sync up to this long before its ``startsAt``."""
LATE = dt.timedelta(days=1)
"""... and not for a ``startsAt`` further in the past than this."""


@dataclass
class BroadcastRound:
    id: str
    name: str
    slug: str
    created_at: dt.datetime
    sync_users: tuple[str, ...]
    url: str
    starts_at: dt.datetime | None = None
    started_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    sync_until: dt.datetime | None = None
    """While the round syncs: when it stops unless a move comes first."""
    shown: set[str] = field(default_factory=set)
    """The games the round showed (each synced while going on)."""

    def syncing(self, now: dt.datetime) -> bool:
        return self.finished_at is None and self.sync_until is not None and now < self.sync_until

    def follows(self, white: str, black: str) -> bool:
        return white in self.sync_users and black in self.sync_users

    def tick(self, now: dt.datetime) -> None:
        """lila's scheduled jobs for this round at ``now``: auto-start, idle stop, auto-finish."""
        if self.finished_at is not None:
            return
        if self.sync_until is not None and now >= self.sync_until:
            self.sync_until = None  # an hour without a move: the sync stops
        if (
            self.started_at is None
            and self.sync_until is None
            and self.starts_at is not None
            and now - LATE < self.starts_at <= now + EARLY
            and self.sync_users
        ):
            self.sync_until = now + IDLE
            self.started_at = now
        if (
            self.sync_until is None
            and self.started_at is not None
            and now - self.started_at >= AUTO_FINISH
            and (self.starts_at is None or self.starts_at < now)
        ):
            self.finished_at = now

    def see(self, game_id: str, now: dt.datetime) -> None:
        """A move of a followed game going on: shown, and the sync lives an hour more."""
        if self.syncing(now):
            self.shown.add(game_id)
            self.sync_until = now + IDLE


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


MAX_ROUNDS = 64
"""lila's ``RelayTour.maxRelays``."""


@dataclass(frozen=True)
class RoundFields:
    name: str
    users: tuple[str, ...]
    starts_at: dt.datetime | None
    status: str | None


def _round_fields(form: Any, *, known: Callable[[str], bool]) -> RoundFields:
    """A round's form as lila reads it; raises ``ValueError`` for one it would refuse."""
    name = _name(str(form.get("name") or ""), "round")
    source = form.get("syncSource") or "push"
    raw_users = str(form.get("syncUsers") or "")
    names = [n for n in raw_users.replace(",", " ").split() if n]
    if source != "users" and names:
        raise ValueError("syncUsers: set syncSource to users")
    if source == "users" and not 2 <= len(names) <= SYNC_USERS_LIMIT:
        raise ValueError(f"syncUsers: 2 to {SYNC_USERS_LIMIT} usernames")
    unknown = [n for n in names if not known(user_id(n))]
    if unknown:
        raise ValueError(f"syncUsers: no such user {unknown[0]}")
    starts_at = None
    raw_start = form.get("startsAt")
    if raw_start:
        try:
            starts_at = from_millis(int(raw_start))
        except ValueError:
            raise ValueError(f"startsAt: not a timestamp: {raw_start}") from None
    status = form.get("status") or None
    if status not in (None, "new", "started", "finished"):
        raise ValueError(f"status: unknown value {status}")
    return RoundFields(name, tuple(user_id(n) for n in names), starts_at, status)


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
        user = state.users.get(token.user)
        if state.sender(token.user).bot or (user is not None and user.tosViolation):
            state.refused(request.path, 403)  # lila's RelayTour controller: NoLameOrBot
            return error(403, "This account is a BOT or marked: it cannot broadcast")
        form = await request.post()
        try:
            name = _name(str(form.get("name") or ""), "broadcast")
        except ValueError as e:
            return error(400, str(e))
        if not _within(state, "broadcast.tournament.user", token.user):
            state.refused(request.path, 429)
            return error(429, "Too many requests. Try again later.")
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

    return [
        web.post("/broadcast/new", broadcast_tour_create),
        *_round_routes(state_of, error, authed),
    ]


def _within(state: Any, limit: str, user: str) -> bool:
    """lila's ``rateLimitCreation``: a tour or a round costs an ordinary account 10 credits
    of its day's 100 (tours) or 1,000 (rounds), a titled one 5."""
    found = state.users.get(user)
    cost = 5 if found is not None and found.title is not None else 10
    return bool(state.within_limit(limit, user, cost=cost))


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def _owned_round_form(
    request: web.Request, state: Any, tour: BroadcastTour | None, token: Any
) -> RoundFields:
    """The round form of a request on ``tour``, as lila takes it; raises :class:`_Refused`."""
    if tour is None:
        raise _Refused(404, "Not found")
    if tour.owner != token.user:
        raise _Refused(403, "Not your broadcast")
    try:
        return _round_fields(await request.post(), known=lambda u: u in state.users)
    except ValueError as e:
        raise _Refused(400, str(e)) from None


def _new_round(state: Any, tour: BroadcastTour, fields: RoundFields) -> BroadcastRound:
    """``RelayRoundForm.Data.make``: without ``status=new`` the round is started at once."""
    taken = {x.id for t in state.broadcasts.values() for x in t.rounds}
    rid = _new_id("br", taken.__contains__)
    slug = _slug(fields.name)
    now = state.now()
    return BroadcastRound(
        id=rid,
        name=fields.name,
        slug=slug,
        created_at=now,
        sync_users=fields.users,
        url=f"https://lichess.org/broadcast/{tour.slug}/{slug}/{rid}",
        starts_at=fields.starts_at,
        started_at=None if fields.status == "new" else now,
        finished_at=now if fields.status == "finished" else None,
    )


def _update_round(rnd: BroadcastRound, fields: RoundFields, now: dt.datetime) -> None:
    """``RelayRoundForm.Data.update``: every field anew; ``status=new`` un-starts and
    un-finishes the round (a new ``startsAt`` then asks lila's auto-start again)."""
    rnd.name, rnd.sync_users, rnd.starts_at = fields.name, fields.users, fields.starts_at
    if fields.status == "new":
        rnd.started_at = None
    elif fields.status is not None and rnd.started_at is None:
        rnd.started_at = now
    rnd.finished_at = (rnd.finished_at or now) if fields.status == "finished" else None
    if rnd.finished_at is not None:
        rnd.sync_until = None


def _round_routes(state_of: StateOf, error: Error, authed: Authed) -> list[web.RouteDef]:
    """Making and editing rounds."""

    @authed(required=True, scope="study:write")
    async def broadcast_round_create(request: web.Request, token: Any) -> web.StreamResponse:
        """POST /broadcast/{broadcastTournamentId}/new"""
        state = state_of(request)
        tour = state.broadcasts.get(request.match_info["broadcastTournamentId"])
        try:
            fields = await _owned_round_form(request, state, tour, token)
            if len(tour.rounds) >= MAX_ROUNDS:
                raise _Refused(400, f"Maximum rounds per tournament: {MAX_ROUNDS}")
            if not _within(state, "broadcast.round.user", token.user):
                raise _Refused(429, "Too many requests. Try again later.")
        except _Refused as e:
            state.refused(request.path, e.status)
            return error(e.status, str(e))
        rnd = _new_round(state, tour, fields)
        tour.rounds.append(rnd)
        state.relay_tick()
        return web.json_response({"round": round_json(rnd), "tour": tour_json(tour), "study": {}})

    @authed(required=True, scope="study:write")
    async def broadcast_round_update(request: web.Request, token: Any) -> web.StreamResponse:
        """POST /broadcast/round/{broadcastRoundId}/edit"""
        state = state_of(request)
        rid = request.match_info["broadcastRoundId"]
        found = [(t, r) for t in state.broadcasts.values() for r in t.rounds if r.id == rid]
        tour, rnd = found[0] if found else (None, None)
        try:
            fields = await _owned_round_form(request, state, tour, token)
        except _Refused as e:
            state.refused(request.path, e.status)
            return error(e.status, str(e))
        assert tour is not None
        assert rnd is not None
        _update_round(rnd, fields, state.now())
        state.relay_tick()
        return web.json_response({"round": round_json(rnd), "tour": tour_json(tour), "study": {}})

    return [
        web.post("/broadcast/{broadcastTournamentId}/new", broadcast_round_create),
        web.post("/broadcast/round/{broadcastRoundId}/edit", broadcast_round_update),
    ]
