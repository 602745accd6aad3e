"""The sandbox's own admin API (``/_sandbox/...``): what a test or the demo sets up and reads
back (users, tokens, teams, games, the inbox, the knobs, dropped streams). Not Lichess's API."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from aiohttp import web

from bot.sandbox.encode import game_json
from bot.sandbox.schemas import GameJson, game_color, user_id
from bot.sandbox.state import InboxMessage, Knobs, SandboxState, TeamUpdate

__all__ = ["admin_routes"]


async def _json_body(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text='{"error": "body is not JSON"}') from None
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(text='{"error": "body is not a JSON object"}')
    return data


def _time(value: Any, name: str) -> dt.datetime | None:
    if value is None:
        return None
    try:
        when = dt.datetime.fromisoformat(str(value))
    except ValueError:
        raise web.HTTPBadRequest(text=json.dumps({"error": f"{name}: not ISO 8601"})) from None
    if when.tzinfo is None:
        raise web.HTTPBadRequest(text=json.dumps({"error": f"{name}: needs a UTC offset"}))
    return when.astimezone(dt.UTC)


def _admin_game(game: GameJson) -> web.Response:
    return web.json_response(game_json(game))


def _message_json(m: InboxMessage) -> dict[str, Any]:
    return {"from": m.sender, "to": m.to, "text": m.text, "at": m.at.isoformat()}


def _update_json(u: TeamUpdate) -> dict[str, Any]:
    return {"team": u.team_id, "from": u.sender, "message": u.message, "at": u.at.isoformat()}


class _Admin:
    """The admin API's handlers, given how a request finds the state and how an error is
    answered."""

    def __init__(
        self,
        state: Callable[[web.Request], SandboxState],
        error: Callable[[int, str], web.Response],
    ) -> None:
        self._state = state
        self._error = error

    async def admin_state(self, request: web.Request) -> web.StreamResponse:
        state = self._state(request)
        return web.json_response(
            {
                "users": sorted(state.users),
                "games": [game_json(g) for g in state.games.values()],
                "inbox": [_message_json(m) for m in state.inbox],
                "team_updates": [_update_json(u) for u in state.team_updates],
            }
        )

    async def admin_add_user(self, request: web.Request) -> web.StreamResponse:
        data = await _json_body(request)
        username = data.get("username")
        if not isinstance(username, str) or not username.strip():
            return self._error(400, "username is required")
        user = self._state(request).add_user(
            username.strip(),
            created_at=_time(data.get("created_at"), "created_at"),
            title=data.get("title"),
            tos_violation=bool(data.get("tos_violation", False)),
            disabled=bool(data.get("disabled", False)),
            online=bool(data.get("online", False)),
            antichess_rating=int(data.get("antichess_rating", 1500)),
            antichess_games=int(data.get("antichess_games", 0)),
        )
        return web.json_response({"id": user.id, "username": user.username})

    async def admin_add_token(self, request: web.Request) -> web.StreamResponse:
        data = await _json_body(request)
        user = data.get("user")
        if not isinstance(user, str) or not user:
            return self._error(400, "user is required")
        scopes = data.get("scopes")
        kwargs: dict[str, Any] = {"token": data.get("token")}
        if isinstance(scopes, list):
            kwargs["scopes"] = [str(s) for s in scopes]
        return web.json_response({"token": self._state(request).add_token(user, **kwargs)})

    async def admin_add_team(self, request: web.Request) -> web.StreamResponse:
        data = await _json_body(request)
        team_id, leaders = data.get("team_id"), data.get("leaders")
        if not isinstance(team_id, str) or not isinstance(leaders, list):
            return self._error(400, "team_id and leaders are required")
        self._state(request).make_team(team_id, leaders=[str(x) for x in leaders])
        return web.json_response({"ok": True})

    async def admin_create_game(self, request: web.Request) -> web.StreamResponse:
        state = self._state(request)
        data = await _json_body(request)
        try:
            game = state.create_game(
                str(data["white"]),
                str(data["black"]),
                variant=str(data.get("variant", "antichess")),
                rated=bool(data.get("rated", True)),
                clock_limit=data.get("clock_limit", 120),
                clock_increment=data.get("clock_increment", 5),
                created_at=_time(data.get("created_at"), "created_at"),
                game_id=data.get("id"),
            )
            if data.get("start", False):
                game = state.start_game(game.id)
        except (KeyError, ValueError) as e:
            return self._error(400, str(e))
        return _admin_game(game)

    async def admin_start_game(self, request: web.Request) -> web.StreamResponse:
        state = self._state(request)
        try:
            game = state.start_game(request.match_info["id"])
        except KeyError as e:
            return self._error(404, str(e))
        except ValueError as e:
            return self._error(400, str(e))
        return _admin_game(game)

    async def admin_finish_game(self, request: web.Request) -> web.StreamResponse:
        state = self._state(request)
        data = await _json_body(request)
        try:
            game = state.finish_game(
                request.match_info["id"],
                status=str(data.get("status", "resign")),
                winner=game_color(data.get("winner")),
                at=_time(data.get("at"), "at"),
            )
        except KeyError as e:
            return self._error(404, str(e))
        except ValueError as e:
            return self._error(400, str(e))
        return _admin_game(game)

    async def admin_inbox(self, request: web.Request) -> web.StreamResponse:
        state = self._state(request)
        to = request.query.get("to")
        wanted = user_id(to) if to else None
        return web.json_response(
            [_message_json(m) for m in state.inbox if wanted is None or m.to == wanted]
        )

    async def admin_team_updates(self, request: web.Request) -> web.StreamResponse:
        return web.json_response([_update_json(u) for u in self._state(request).team_updates])

    async def admin_knobs(self, request: web.Request) -> web.StreamResponse:
        state = self._state(request)
        data = await _json_body(request)
        known = {f.name for f in fields(Knobs)}
        unknown = sorted(set(data) - known)
        if unknown:
            return self._error(400, f"unknown knobs: {', '.join(unknown)}")
        for name, value in data.items():
            setattr(state.knobs, name, value)
        return web.json_response({f.name: getattr(state.knobs, f.name) for f in fields(Knobs)})

    async def admin_drop_streams(self, request: web.Request) -> web.StreamResponse:
        self._state(request).drop_streams()
        return web.json_response({"ok": True})


def admin_routes(
    _state: Callable[[web.Request], SandboxState], _error: Callable[[int, str], web.Response]
) -> list[web.RouteDef]:
    """The admin routes, given how a request finds the state and how an error is answered."""
    admin = _Admin(_state, _error)
    return [
        web.get("/_sandbox/state", admin.admin_state),
        web.post("/_sandbox/users", admin.admin_add_user),
        web.post("/_sandbox/tokens", admin.admin_add_token),
        web.post("/_sandbox/teams", admin.admin_add_team),
        web.post("/_sandbox/games", admin.admin_create_game),
        web.post("/_sandbox/games/{id}/start", admin.admin_start_game),
        web.post("/_sandbox/games/{id}/finish", admin.admin_finish_game),
        web.get("/_sandbox/inbox", admin.admin_inbox),
        web.get("/_sandbox/team-updates", admin.admin_team_updates),
        web.post("/_sandbox/knobs", admin.admin_knobs),
        web.post("/_sandbox/streams/drop", admin.admin_drop_streams),
    ]
