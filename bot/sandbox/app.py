"""The fake Lichess: an aiohttp app serving the endpoints the service uses, at the root.

Paths, parameters, JSON and NDJSON shapes, scopes and error codes follow the official spec
(``lichess-api.bundled.yaml``; ``tests/lichess/test_conformance.py`` checks it). Everything under
``/_sandbox/`` is not Lichess: it is the admin API that lets another process (the demo) feed the
state and read what the bot sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from bot.sandbox.admin import admin_routes
from bot.sandbox.broadcasts import broadcast_routes
from bot.sandbox.bulk import bulk_routes
from bot.sandbox.challenges import challenge_routes
from bot.sandbox.encode import (
    error_json,
    game_json,
    game_stream_json,
    ok_json,
    user_json,
    user_status_json,
    users_item_json,
)
from bot.sandbox.history import OffBoardGame, offboard_game_json
from bot.sandbox.inbox import Verdict
from bot.sandbox.oauth import oauth_routes
from bot.sandbox.schemas import GameJson, is_over, millis, user_id
from bot.sandbox.state import (
    InboxMessage,
    Knobs,
    SandboxState,
    StreamListener,
    TeamUpdate,
    Token,
)
from bot.sandbox.teams import team_routes
from bot.sandbox.tokens import token_routes

__all__ = ["STATE_KEY", "make_app", "run_sandbox"]

log = logging.getLogger(__name__)

STATE_KEY = web.AppKey("sandbox_state", SandboxState)
NDJSON = "application/x-ndjson"
STREAM_USERS_LIMIT = 300
STREAM_USERS_LIMIT_WITH_TOKEN = 500
EXPORTS_PER_IP = 2
"""Game exports one IP may run at once (lila's ``GlobalConcurrencyLimitPerIP``): a 429 beyond."""
EXPORT_PER_SECOND = {False: 20, True: 30}
"""Games a second a user's export streams, without and with a token (lila's
``Game.apiExportByUser``: ``MaxPerSecond``)."""
EXPORT_IDS_PER_SECOND = 30
"""Games a second the export by ids streams (``Game.exportByIds``: ``MaxPerSecond(30)``)."""
EXPORT_IDS_LIMIT = 300
STATUS_IDS_LIMIT = 100
USERS_IDS_LIMIT = 300
"""``POST /api/users`` reads the first 300 names (``Api.usersByIds``)."""
MESSAGE_MAX = 8000
TEAM_UPDATE_MAX = 9000
"""lila cuts a private message at this many characters (``MsgApi``)."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def make_app(state: SandboxState | None = None) -> web.Application:
    """The fake Lichess over ``state`` (a fresh one by default)."""
    app = web.Application(middlewares=[_knobs_middleware])
    app[STATE_KEY] = state or SandboxState()
    app.add_routes(
        [
            web.get("/api/user/{username}", user_public_data),
            web.get("/api/games/user/{username}", export_games_of_user),
            web.post("/api/games/export/_ids", export_games_by_ids),
            web.get("/api/users/status", users_status),
            web.post("/api/users", users_by_ids),
            web.get("/api/team/of/{username}", teams_of_player),
            web.post("/inbox/{username}", send_message),
            web.post("/team/{teamId}/pm-all", team_update),
            web.post("/api/stream/games-by-users", stream_games_by_users),
            web.get("/api/account", account),
            # the admin API, not Lichess
            *admin_routes(_state, _error),
            *team_routes(_state),
            *token_routes(_state),
            *oauth_routes(_state, _authed),
            *challenge_routes(_state, _error, _authed),
            *broadcast_routes(_state, _error, _authed),
            *bulk_routes(_state, _authed),
        ]
    )
    app.on_shutdown.append(_close_streams)
    return app


async def _close_streams(app: web.Application) -> None:
    app[STATE_KEY].drop_streams()


def _state(request: web.Request) -> SandboxState:
    return request.app[STATE_KEY]


def _error(status: int, message: str) -> web.Response:
    return web.json_response(error_json(message), status=status)


@web.middleware
async def _knobs_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith("/_sandbox/") or request.path == "/oauth":
        return await handler(request)
    state = _state(request)
    state.requests.append((request.method, request.path))
    streaming = request.path.startswith("/api/stream/")
    if not streaming:
        state.in_flight += 1
        state.max_in_flight = max(state.max_in_flight, state.in_flight)
    try:
        knobs = state.knobs
        if knobs.delay_seconds > 0:
            await asyncio.sleep(knobs.delay_seconds)
        if knobs.rate_limit_next > 0:
            knobs.rate_limit_next -= 1
            return _error(429, "Too many requests. Try again in a minute.")
        if knobs.server_error_next > 0:
            knobs.server_error_next -= 1
            return _error(knobs.server_error_status, "The sandbox is having a bad day.")
        if state.is_down():
            return _error(knobs.server_error_status, "Lichess is down for maintenance.")
        if state.broadcasts:
            state.relay_tick()
        return await handler(request)
    finally:
        if not streaming:
            state.in_flight -= 1


# --- auth ----------------------------------------------------------------------------------


class _AuthError(Exception):
    def __init__(self, response: web.Response) -> None:
        self.response = response


def _token(request: web.Request, *, required: bool, scope: str | None = None) -> Token | None:
    """The request's token, checked as lila's ``LilaController`` checks it: an ``Auth``/``Scoped``
    action wants one; an ``AnonOrScoped`` action takes none, but a token that *is* sent must be
    known (401) and hold the action's scope (403 ``{"error": "Missing scope: SCOPE"}``, as
    ``OAuthServer.MissingScope`` words it)."""
    state = _state(request)
    header = request.headers.get("Authorization", "")
    if not header:
        if required:
            state.refused(request.path, 401)
            raise _AuthError(_error(401, "No such token"))
        return None
    kind, _, value = header.partition(" ")
    token = state.tokens.get(value.strip()) if kind.lower() == "bearer" else None
    if token is None:
        state.refused(request.path, 401)
        raise _AuthError(_error(401, "No such token"))
    if scope is not None and scope not in token.scopes:
        state.refused(request.path, 403)
        raise _AuthError(_error(403, f"Missing scope: {scope}"))  # lila's OAuthServer
    return token


def _authed(
    *, required: bool, scope: str | None = None
) -> Callable[[Callable[[web.Request, Token | None], Awaitable[web.StreamResponse]]], Handler]:
    def wrap(
        fn: Callable[[web.Request, Token | None], Awaitable[web.StreamResponse]],
    ) -> Handler:
        @functools.wraps(fn)
        async def handler(request: web.Request) -> web.StreamResponse:
            try:
                token = _token(request, required=required, scope=scope)
            except _AuthError as e:
                return e.response
            return await fn(request, token)

        handler.required_scope = scope  # type: ignore[attr-defined]
        handler.requires_token = required  # type: ignore[attr-defined]
        return handler

    return wrap


# --- parameters ------------------------------------------------------------------------------


class _BadParam(Exception):
    pass


def _bool_param(request: web.Request, name: str, default: bool | None) -> bool | None:
    """A boolean query parameter as Lichess reads it: ``true`` or ``1``, anything else is false.

    So ``rated=True`` (what requests writes for a Python ``True``) means *false* on Lichess,
    as berserk users found (rhgrant10/berserk#26); the sandbox keeps that trap.
    """
    raw = request.query.get(name)
    if raw is None or raw == "":
        return default
    return raw in ("true", "1")


def _int_param(request: web.Request, name: str, *, minimum: int | None = None) -> int | None:
    raw = request.query.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise _BadParam(f"{name}: not an integer: {raw}") from None
    if minimum is not None and value < minimum:
        raise _BadParam(f"{name}: must be at least {minimum}")
    return value


def _wants_ndjson(request: web.Request) -> bool:
    return NDJSON in request.headers.get("Accept", "")


def _ids_body(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


# --- users -----------------------------------------------------------------------------------


@_authed(required=False)
async def user_public_data(request: web.Request, token: Token | None) -> web.StreamResponse:
    """GET /api/user/{username}"""
    state = _state(request)
    user = state.users.get(user_id(request.match_info["username"]))
    if user is None:
        return _error(404, "Not found")
    return web.json_response(user_json(user, seen_at=millis(state.now())))


async def users_by_ids(request: web.Request) -> web.StreamResponse:
    """POST /api/users: lila's ``Api.usersByIds`` (``app/controllers/Api.scala``), an
    ``AnonBodyOf`` action (no token looked at): the first 300 comma-separated names, the known
    ones in the order given, each as ``JsonView.full`` writes it (``tosViolation``, ``title``,
    ``createdAt``; a closed account its names and ``disabled``)."""
    state = _state(request)
    names = _ids_body((await request.text()).replace("\n", ""))[:USERS_IDS_LIMIT]
    seen_at = millis(state.now())
    found = (state.users.get(user_id(n)) for n in names)
    return web.json_response([users_item_json(u, seen_at=seen_at) for u in found if u])


@_authed(required=True)
async def account(request: web.Request, token: Token | None) -> web.StreamResponse:
    """GET /api/account"""
    assert token is not None
    state = _state(request)
    return web.json_response(user_json(state.users[token.user], seen_at=millis(state.now())))


@_authed(required=False)
async def teams_of_player(request: web.Request, token: Token | None) -> web.StreamResponse:
    """GET /api/team/of/{username}: the teams a player is a member of (an unknown player is a
    member of none)."""
    state = _state(request)
    teams = []
    for team_id in state.teams_of(request.match_info["username"]):
        leaders = sorted(state.team_leaders.get(team_id, ()))
        teams.append(
            {
                "id": team_id,
                "name": team_id,
                "open": True,
                "nbMembers": len(state.team_members.get(team_id, ())),
                "leaders": [
                    {"id": u, "name": state.users[u].username} for u in leaders if u in state.users
                ],
            }
        )
    return web.json_response(teams)


async def users_status(request: web.Request) -> web.StreamResponse:
    """GET /api/users/status?ids="""
    state = _state(request)
    raw = request.query.get("ids")
    if not raw:
        return _error(400, "ids: This field is required")
    ids = _ids_body(raw)
    if len(ids) > STATUS_IDS_LIMIT:
        return _error(400, f"Too many ids: {len(ids)}, expected up to {STATUS_IDS_LIMIT}")
    try:
        with_game_ids = _bool_param(request, "withGameIds", False)
    except _BadParam as e:
        return _error(400, str(e))
    out = []
    for raw_id in ids:
        user = state.users.get(user_id(raw_id))
        if user is None or user.disabled:
            continue
        playing = state.playing(user.id)
        out.append(user_status_json(user, playing_id=playing, with_game_id=bool(with_game_ids)))
    return web.json_response(out)


# --- games -----------------------------------------------------------------------------------


def _export_line(game: GameJson) -> bytes:
    return json.dumps(game_json(game)).encode() + b"\n"


@dataclass(frozen=True, slots=True)
class _ExportFilter:
    """The games of ``uid`` that ``GET /api/games/user/{username}`` keeps, from its query."""

    uid: str
    since: int | None
    until: int | None
    limit: int | None
    rated: bool | None
    ongoing: bool | None
    finished: bool | None
    vs_id: str | None
    perfs: frozenset[str]
    color: str | None

    @classmethod
    def of(cls, request: web.Request, uid: str) -> _ExportFilter:
        """Raises :class:`_BadParam` for a parameter lila would refuse."""
        vs = request.query.get("vs")
        return cls(
            uid=uid,
            since=_int_param(request, "since", minimum=1356998400070),
            until=_int_param(request, "until", minimum=1356998400070),
            limit=_int_param(request, "max", minimum=1),
            rated=_bool_param(request, "rated", None),
            ongoing=_bool_param(request, "ongoing", False),
            finished=_bool_param(request, "finished", True),
            vs_id=user_id(vs) if vs else None,
            perfs=frozenset(_ids_body(request.query.get("perfType", ""))),
            color=request.query.get("color"),
        )

    def keeps(self, game: GameJson) -> bool:
        # As lila's query: with ``finished`` (the default) the user's games, only those over
        # (status >= mate: not the aborted ones) unless ``ongoing``; without it the games being
        # played, and only with ``ongoing``. ``since`` is inclusive, ``until`` exclusive.
        white, black = game.user_ids
        if game.status == "created":
            return False
        if self.finished and not (self.ongoing or is_over(game.status)):
            return False
        if not self.finished and not (self.ongoing and game.status == "started"):
            return False
        if not self._in_window(game.createdAt):
            return False
        if self.vs_id is not None and self.vs_id not in (white, black):
            return False
        if self.rated is not None and game.rated != self.rated:
            return False
        if self.perfs and game.perf not in self.perfs:
            return False
        if self.color == "white" and white != self.uid:
            return False
        return not (self.color == "black" and black != self.uid)

    def keeps_offboard(self, game: OffBoardGame) -> bool:
        # never rated, and never against ``vs`` (a user)
        return (
            game.user.id == self.uid
            and self.vs_id is None
            and not self.rated
            and (not self.perfs or game.variant in self.perfs)
            and self._in_window(game.createdAt)
            and (self.color is None or game.color == self.color)
        )

    def _in_window(self, created_at: int) -> bool:
        return (self.since is None or created_at >= self.since) and (
            self.until is None or created_at < self.until
        )


@_authed(required=False)
async def export_games_of_user(request: web.Request, token: Token | None) -> web.StreamResponse:
    """GET /api/games/user/{username} (NDJSON only in the sandbox)"""
    state = _state(request)
    uid = user_id(request.match_info["username"])
    if uid not in state.users:
        return _error(404, "Not found")
    if not _wants_ndjson(request):
        return _error(406, "The sandbox exports games as application/x-ndjson only")
    try:
        wanted = _ExportFilter.of(request, uid)
    except _BadParam as e:
        return _error(400, str(e))
    sort = request.query.get("sort", "dateDesc")
    if sort not in ("dateAsc", "dateDesc"):
        return _error(400, f"sort: unknown value {sort}")
    games: list[GameJson | OffBoardGame] = [g for g in state.games_of(uid) if wanted.keeps(g)]
    games += [g for g in state.offboard if wanted.keeps_offboard(g)]
    games.sort(key=lambda g: (g.createdAt, g.id), reverse=sort == "dateDesc")
    if wanted.limit is not None:
        games = games[: wanted.limit]
    lines = [
        _export_line(g)
        if isinstance(g, GameJson)
        else json.dumps(offboard_game_json(g)).encode() + b"\n"
        for g in games
    ]
    return await _export(request, state, lines, per_second=EXPORT_PER_SECOND[token is not None])


async def _export(
    request: web.Request,
    state: SandboxState,
    lines: list[bytes],
    *,
    per_second: int,
    slow: bool = True,
) -> web.StreamResponse:
    """An export as lila streams it: two at once per IP (``GlobalConcurrencyLimitPerIP
    .download``, a 429 beyond), ``per_second`` games a second when the knob says so."""
    if state.exports_running >= EXPORTS_PER_IP:
        state.refused(request.path, 429)
        return _error(429, "Please only run 2 request(s) at a time")
    state.exports_running += 1
    try:
        pace = per_second if state.knobs.export_throttle else None
        return await _ndjson(request, lines, slow=slow, per_second=pace)
    finally:
        state.exports_running -= 1


async def export_games_by_ids(request: web.Request) -> web.StreamResponse:
    """POST /api/games/export/_ids (NDJSON only in the sandbox): lila's ``Game.exportByIds``:
    the first 300 ids (the rest unread, no error), under the same two downloads at once per
    IP as the user export, at 30 games a second."""
    state = _state(request)
    if not _wants_ndjson(request):
        return _error(406, "The sandbox exports games as application/x-ndjson only")
    ids = _ids_body(await request.text())[:EXPORT_IDS_LIMIT]  # lila reads the first 300
    games = [state.games[gid] for gid in ids if gid in state.games]
    games = [g for g in games if g.status != "created"]
    games.sort(key=lambda g: (g.createdAt, g.id), reverse=True)
    lines = [_export_line(g) for g in games]
    return await _export(request, state, lines, per_second=EXPORT_IDS_PER_SECOND, slow=False)


async def _ndjson(
    request: web.Request,
    lines: list[bytes],
    *,
    slow: bool = False,
    per_second: int | None = None,
) -> web.StreamResponse:
    resp = web.StreamResponse(headers={"Content-Type": NDJSON})
    await resp.prepare(request)
    knobs = _state(request).knobs
    if slow and knobs.export_silence_seconds > 0:
        # lila's GameApiV2 writes ``{}`` after each keep-alive interval without a game
        silent, step = knobs.export_silence_seconds, knobs.export_keepalive_seconds
        while silent > 0:
            await asyncio.sleep(min(step, silent))
            silent -= step
            if silent > 0:
                await resp.write(b"{}\n")
    for i, line in enumerate(lines):
        if per_second is not None and i and i % per_second == 0:
            _state(request).export_pauses += 1
            await asyncio.sleep(1.0)  # lila's export throttle (``MaxPerSecond``), real time
        await resp.write(line)
    await resp.write_eof()
    return resp


@_authed(required=False)
async def stream_games_by_users(request: web.Request, token: Token | None) -> web.StreamResponse:
    """POST /api/stream/games-by-users: lila's ``Api.gamesByUsersStream``
    (``app/controllers/Api.scala``), ``AnonOrScopedBody(...)()``: any valid token (an unknown
    one is a 401), which raises the list's limit from 300 names to 500."""
    state = _state(request)
    knobs = state.knobs
    if knobs.stream_unavailable:
        return _error(503, "Streams are unavailable")
    users = frozenset(user_id(u) for u in _ids_body(await request.text()))
    limit = STREAM_USERS_LIMIT_WITH_TOKEN if token is not None else STREAM_USERS_LIMIT
    if len(users) > limit:
        return _error(400, f"Too many users: {len(users)}, expected up to {limit}")
    try:
        with_current = _bool_param(request, "withCurrentGames", False)
    except _BadParam as e:
        return _error(400, str(e))
    listener = StreamListener(users=users)
    if with_current:
        for current in state.games.values():
            if current.status == "started" and listener.wants(current):
                listener.queue.put_nowait(current)
    state.listeners.append(listener)
    resp = web.StreamResponse(headers={"Content-Type": NDJSON})
    try:
        await resp.prepare(request)
        await _pump(resp, listener, knobs)
        await resp.write_eof()
    except ConnectionResetError:
        pass  # the client went away
    finally:
        with contextlib.suppress(ValueError):
            state.listeners.remove(listener)
    return resp


async def _pump(resp: web.StreamResponse, listener: StreamListener, knobs: Knobs) -> None:
    """Write the listener's games until told to stop or to drop the stream."""
    lines = 0
    while True:
        try:
            game = await asyncio.wait_for(listener.queue.get(), knobs.keepalive_seconds)
        except TimeoutError:
            await resp.write(b"\n")
            continue
        if game is None:
            return
        if knobs.malformed_lines_next > 0:
            knobs.malformed_lines_next -= 1
            await resp.write(b'{"id": "broken", "players": \n')
        line = json.dumps(game_stream_json(game)).encode() + b"\n"
        await resp.write(line)
        if knobs.repeat_lines:
            await resp.write(line)
        lines += 1
        if knobs.drop_stream_after_lines is not None and lines >= knobs.drop_stream_after_lines:
            return


# --- messages --------------------------------------------------------------------------------


@_authed(required=True, scope="msg:write")
async def send_message(request: web.Request, token: Token | None) -> web.StreamResponse:
    """POST /inbox/{username}: lila's ``Msg.apiPost`` (``app/controllers/Msg.scala``), which
    answers 429 over the sender's budget and 400 for any other refusal."""
    assert token is not None
    state = _state(request)
    form = await request.post()
    text = form.get("text")
    if not isinstance(text, str) or not text.strip():
        return _error(400, "text: This field is required")
    text = text[:MESSAGE_MAX]
    to = user_id(request.match_info["username"])
    user = state.users.get(to)
    if user is None or user.disabled or to == token.user:
        state.refused(request.path, 400)
        return _error(400, "The message was rejected")
    knobs = state.knobs
    limits = (knobs.new_conversations_per_day, knobs.replies_per_minute)
    verdict = state.messaging.verdict(
        state.sender(token.user),
        state.sender(to),
        text,
        state.now(),
        limits=limits if knobs.dm_limits else None,
        leads_team_of=state.leads_team_of,
    )
    if verdict is Verdict.REJECTED:
        state.refused(request.path, 400)
        return _error(400, "The message was rejected")
    if verdict is Verdict.LIMITED:
        return _error(429, "Too many requests. Try again later.")
    state.inbox.append(InboxMessage(sender=token.user, to=to, text=text, at=state.now()))
    return web.json_response(ok_json())


@_authed(required=True, scope="team:lead")
async def team_update(request: web.Request, token: Token | None) -> web.StreamResponse:
    """POST /team/{teamId}/pm-all: lila's ``Team.pmAllSubmit`` (``app/controllers/Team.scala``,
    ``modules/team/src/main/TeamMsgApi.scala``). A leader without the team's "Updates"
    permission is redirected to the team page (303), not given an error status. The text goes
    into the team's feed of updates, read by the members who did not unsubscribe from them: it
    is no DM in anyone's inbox."""
    assert token is not None
    state = _state(request)
    team_id = request.match_info["teamId"]
    leaders = state.team_leaders.get(team_id)
    if leaders is None:
        state.refused(request.path, 404)
        return _error(404, "Not found")
    if token.user not in leaders or (team_id, token.user) in state.without_updates:
        # lila's WithOwnedTeam: a redirect to the team page, before the text is read
        state.refused(request.path, 303)
        raise web.HTTPSeeOther(f"/team/{team_id}")
    form = await request.post()
    message = form.get("message")
    if not isinstance(message, str) or not 3 <= len(message.strip()) <= TEAM_UPDATE_MAX:
        state.refused(request.path, 400)
        return _error(400, f"message: 3 to {TEAM_UPDATE_MAX} characters")
    if state.knobs.rate_limits and not state.limits.fresh_text(team_id, message, state.now()):
        state.refused(request.path, 400)  # TeamMsgApi's dedup
        return _error(400, "You already sent this message recently")
    if not state.within_limit("team.pm.all", team_id, cost=5):  # 8 a week per team
        state.refused(request.path, 429)
        return _error(429, "Too many requests. Try again later.")
    state.team_updates.append(
        TeamUpdate(team_id=team_id, sender=token.user, message=message, at=state.now())
    )
    return web.json_response(ok_json())


# --- admin API (not Lichess) -----------------------------------------------------------------


async def run_sandbox(
    state: SandboxState | None = None, *, host: str = "127.0.0.1", port: int = 8765
) -> None:
    """Serve the sandbox until cancelled."""
    runner = web.AppRunner(make_app(state), shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    log.info("sandbox Lichess on http://%s:%d", host, port)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
