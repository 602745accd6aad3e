"""``POST /api/token/test``: each token of a comma-separated body, with its user and scopes
(``null`` for an unknown token), as the spec and lila answer it."""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

from bot.sandbox.state import SandboxState

__all__ = ["token_routes"]

MAX_TOKENS = 1000


def token_routes(state_of: Callable[[web.Request], SandboxState]) -> list[web.RouteDef]:
    async def token_test(request: web.Request) -> web.StreamResponse:
        state = state_of(request)
        values = [v.strip() for v in (await request.text()).split(",") if v.strip()]
        answer: dict[str, object] = {}
        for value in values[:MAX_TOKENS]:
            token = state.tokens.get(value)
            answer[value] = (
                None
                if token is None
                else {
                    "userId": token.user,
                    "scopes": ",".join(sorted(token.scopes)),
                    "expires": None,
                }
            )
        return web.json_response(answer)

    return [web.post("/api/token/test", token_test)]
