"""The fake Lichess' teams: ``GET /api/team/{teamId}`` (the team and its leaders) and
``GET /api/team/{teamId}/users`` (its members as NDJSON, most recent first), as the spec shapes
them. The admin API adds members (``POST /_sandbox/teams/{teamId}/members``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from aiohttp import web

from bot.sandbox.encode import error_json
from bot.sandbox.schemas import millis
from bot.sandbox.state import SandboxState

__all__ = ["team_routes"]


def team_routes(state_of: Callable[[web.Request], SandboxState]) -> list[web.RouteDef]:
    async def team_show(request: web.Request) -> web.StreamResponse:
        state = state_of(request)
        team_id = request.match_info["teamId"]
        if team_id not in state.team_leaders:
            return web.json_response(error_json("Not found"), status=404)
        leaders = [
            {"name": state.users[u].username if u in state.users else u, "id": u}
            for u in sorted(state.team_leaders[team_id])
        ]
        body = {
            "id": team_id,
            "name": team_id,
            "open": True,
            "leader": leaders[0] if leaders else None,
            "leaders": leaders,
            "nbMembers": len(state.team_members.get(team_id, {})),
        }
        return web.json_response({k: v for k, v in body.items() if v is not None})

    async def team_users(request: web.Request) -> web.StreamResponse:
        state = state_of(request)
        team_id = request.match_info["teamId"]
        if team_id not in state.team_leaders:
            return web.json_response(error_json("Not found"), status=404)
        members = sorted(state.team_members.get(team_id, {}).items(), key=lambda m: m[1])
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        for uid, joined in reversed(members):
            user = state.users.get(uid)
            line = {
                "joinedTeamAt": millis(joined),
                "id": uid,
                "name": user.username if user else uid,
            }
            await resp.write(json.dumps(line).encode() + b"\n")
        await resp.write_eof()
        return resp

    # Lichess asks for the token only when the member list is private; the sandbox's is public.
    team_users.required_scope = "team:read"  # type: ignore[attr-defined]
    team_users.requires_token = False  # type: ignore[attr-defined]

    async def admin_join(request: web.Request) -> web.StreamResponse:
        state = state_of(request)
        team_id = request.match_info["teamId"]
        data = await request.json()
        users = data.get("users") if isinstance(data, dict) else None
        if team_id not in state.team_leaders or not isinstance(users, list):
            return web.json_response(error_json("a known team and users are required"), status=400)
        for user in users:
            state.join_team(team_id, str(user))
        return web.json_response({"ok": True})

    return [
        web.get("/api/team/{teamId}", team_show),
        web.get("/api/team/{teamId}/users", team_users),
        web.post("/_sandbox/teams/{teamId}/members", admin_join),
    ]
