"""Bulk pairing on the fake Lichess: ``POST /api/bulk-pairing`` as lila has it.

lila (``app/controllers/BulkPairing.scala``, ``modules/challenge/.../ChallengeBulkSetup.scala``,
``ChallengeBulk.scala``): the caller's token needs ``challenge:bulk``; ``players`` is
``white:black`` token pairs separated by commas, and every token must be valid with
``challenge:write``, or the whole bulk is refused with 400 ``{"tokens": {token: error}}``
(lila's ``BadTokens``); a player twice in one real-time bulk is 400 ``{"duplicateUsers": [...]}``;
``pairAt`` and ``startClocksAt`` are milliseconds, at most 7 days ahead. The answer comes at
once with the bulk's id and its games' ids; lila makes the games at ``pairAt`` (now by default),
colours by token order, started, with ``source: api``. At most 20 bulks wait at a time, and one
with the same players at the same ``pairAt`` is refused.

The sandbox has no timer: :func:`pair_due` makes the games of every bulk whose ``pairAt`` has
come by the sandbox's clock. Every request to the bulk routes runs it first, and so may a test
or the admin route ``POST /_sandbox/bulk/pair-due``.
"""

from __future__ import annotations

import datetime as dt
import secrets
import string
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from aiohttp import web

from bot.sandbox.schemas import GameJson, from_millis, millis
from bot.sandbox.state import SandboxState, Token

__all__ = ["ScheduledBulk", "bulk_routes", "bulks_of", "pair_due"]

MAX_AHEAD = dt.timedelta(days=7)
MAX_BULKS = 20
MAX_GAMES = 500

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Authed = Callable[..., Callable[[Callable[[web.Request, Token | None], Awaitable[Any]]], Handler]]


@dataclass
class ScheduledBulk:
    id: str
    by: str
    games: list[tuple[str, str, str]]
    """(game id, white user id, black user id), in the order of the token pairs."""
    variant: str
    clock: tuple[int, int]
    rated: bool
    pair_at: dt.datetime
    start_clocks_at: dt.datetime | None
    scheduled_at: dt.datetime
    message: str | None
    rules: list[str] = field(default_factory=list)
    paired_at: dt.datetime | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "games": [{"id": g, "white": w, "black": b} for g, w, b in self.games],
            "variant": self.variant,
            "clock": {"limit": self.clock[0], "increment": self.clock[1]},
            "rated": self.rated,
            "pairAt": millis(self.pair_at),
            "startClocksAt": None if self.start_clocks_at is None else millis(self.start_clocks_at),
            "scheduledAt": millis(self.scheduled_at),
            "pairedAt": None if self.paired_at is None else millis(self.paired_at),
        }
        if self.message:
            out["message"] = self.message
        if self.rules:
            out["rules"] = self.rules
        return out


_BULKS: weakref.WeakKeyDictionary[SandboxState, dict[str, ScheduledBulk]] = (
    weakref.WeakKeyDictionary()
)


def bulks_of(state: SandboxState) -> dict[str, ScheduledBulk]:
    """The bulks of ``state`` by id (kept beside it: the state knows nothing of bulks)."""
    return _BULKS.setdefault(state, {})


def pair_due(state: SandboxState) -> list[GameJson]:
    """Make the games of every bulk whose ``pairAt`` has come: started, ``source: api``."""
    made: list[GameJson] = []
    now = state.now()
    for bulk in bulks_of(state).values():
        if bulk.paired_at is not None or bulk.pair_at > now:
            continue
        for game_id, white, black in bulk.games:
            game = state.create_game(
                white,
                black,
                variant=bulk.variant,
                rated=bulk.rated,
                clock_limit=bulk.clock[0],
                clock_increment=bulk.clock[1],
                game_id=game_id,
            )
            state.games[game_id] = replace(game, source="api")
            made.append(state.start_game(game_id))
        bulk.paired_at = now
    return made


class _Refused(Exception):
    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body


def _form_int(form: Any, name: str, *, low: int, high: int, default: int | None = None) -> int:
    raw = form.get(name)
    if raw in (None, ""):
        if default is None:
            raise _Refused({"error": {name: ["This field is required"]}})
        return default
    try:
        value = int(str(raw))
    except ValueError:
        raise _Refused({"error": {name: ["Numeric value expected"]}}) from None
    if not low <= value <= high:
        raise _Refused({"error": {name: [f"Must be between {low} and {high}"]}})
    return value


def _when(form: Any, name: str, now: dt.datetime) -> dt.datetime | None:
    raw = form.get(name)
    if raw in (None, ""):
        return None
    value = _form_int(form, name, low=0, high=millis(now + MAX_AHEAD))
    return from_millis(value)


def _players(state: SandboxState, raw: str) -> list[tuple[str, str]]:
    """The pairs' user ids, or :class:`_Refused` as lila: every bad token named at once."""
    pairs = [p.split(":") for p in raw.split(",")]
    tokens = [(w.strip(), b.strip()) for w, b in (p for p in pairs if len(p) == 2)]
    tokens = [(w, b) for w, b in tokens if w and b]
    if not tokens:
        raise _Refused({"error": {"players": ["Not enough tokens"]}})
    if len(tokens) > MAX_GAMES:
        raise _Refused({"error": {"players": [f"Too many tokens (max: {MAX_GAMES * 2})"]}})
    bad: dict[str, str] = {}
    users: list[str] = []
    for value in (t for pair in tokens for t in pair):
        token = state.tokens.get(value)
        if token is None:
            bad[value] = "No such token"
        elif "challenge:write" not in token.scopes:
            bad[value] = "Missing scope"
        else:
            users.append(token.user)
    if bad:
        raise _Refused({"tokens": bad})
    duplicates = sorted({u for u in users if users.count(u) > 1})
    if duplicates:
        raise _Refused({"duplicateUsers": duplicates})
    return [(users[i], users[i + 1]) for i in range(0, len(users), 2)]


def _new_id(state: SandboxState, taken: set[str]) -> str:
    alphabet = string.ascii_letters + string.digits
    while True:
        value = "".join(secrets.choice(alphabet) for _ in range(8))
        if value not in state.games and value not in taken:
            return value


def _schedule(state: SandboxState, by: str, form: Any) -> ScheduledBulk:
    now = state.now()
    pairs = _players(state, str(form.get("players") or ""))
    limit = _form_int(form, "clock.limit", low=0, high=10800)
    increment = _form_int(form, "clock.increment", low=0, high=180)
    pair_at = _when(form, "pairAt", now) or now
    bulks = bulks_of(state)
    waiting = [b for b in bulks.values() if b.by == by and b.paired_at is None]
    if len(waiting) >= MAX_BULKS:
        raise _Refused({"error": "Already too many bulks queued"})
    users = {u for pair in pairs for u in pair}
    for other in waiting:
        if other.pair_at == pair_at and users & {u for g in other.games for u in g[1:]}:
            raise _Refused(
                {"error": "A bulk containing the same players is scheduled at the same time"}
            )
    taken = {g[0] for b in bulks.values() for g in b.games}
    games = []
    for white, black in pairs:
        game_id = _new_id(state, taken)
        taken.add(game_id)
        games.append((game_id, white, black))
    rules = [r for r in str(form.get("rules") or "").split(",") if r]
    return ScheduledBulk(
        id=_new_id(state, taken),
        by=by,
        games=games,
        variant=str(form.get("variant") or "standard"),
        clock=(limit, increment),
        rated=str(form.get("rated")) in ("true", "1"),
        pair_at=pair_at,
        start_clocks_at=_when(form, "startClocksAt", now),
        scheduled_at=now,
        message=str(form["message"]) if form.get("message") else None,
        rules=rules,
    )


def bulk_routes(
    state_of: Callable[[web.Request], SandboxState], authed: Authed
) -> list[web.RouteDef]:
    @authed(required=True, scope="challenge:bulk")
    async def create(request: web.Request, token: Token | None) -> web.StreamResponse:
        """POST /api/bulk-pairing"""
        assert token is not None
        state = state_of(request)
        pair_due(state)
        try:
            bulk = _schedule(state, token.user, await request.post())
        except _Refused as e:
            return web.json_response(e.body, status=400)
        bulks_of(state)[bulk.id] = bulk
        pair_due(state)  # pairAt now: the games are made at once
        return web.json_response(bulk.as_json())

    @authed(required=True, scope="challenge:bulk")
    async def listing(request: web.Request, token: Token | None) -> web.StreamResponse:
        """GET /api/bulk-pairing: the caller's bulks."""
        assert token is not None
        state = state_of(request)
        pair_due(state)
        mine = [b.as_json() for b in bulks_of(state).values() if b.by == token.user]
        return web.json_response({"bulks": mine})

    @authed(required=True, scope="challenge:bulk")
    async def cancel(request: web.Request, token: Token | None) -> web.StreamResponse:
        """DELETE /api/bulk-pairing/{id}: a bulk not yet paired, of the caller."""
        assert token is not None
        state = state_of(request)
        pair_due(state)
        bulk = bulks_of(state).get(request.match_info["id"])
        if bulk is None or bulk.by != token.user:
            return web.json_response({"error": "Not found"}, status=404)
        del bulks_of(state)[bulk.id]
        return web.json_response({"ok": True})

    async def admin_pair_due(request: web.Request) -> web.StreamResponse:
        made = pair_due(state_of(request))
        return web.json_response({"games": [g.id for g in made]})

    return [
        web.post("/api/bulk-pairing", create),
        web.get("/api/bulk-pairing", listing),
        web.delete("/api/bulk-pairing/{id}", cancel),
        web.post("/_sandbox/bulk/pair-due", admin_pair_due),
    ]
