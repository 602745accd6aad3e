"""The sandbox Lichess against the official spec (``spec/lichess-api.bundled.yaml``).

Every route of the fake (the ``/_sandbox`` admin API aside) must be a path and method of the
spec, with the spec's path parameters; every query parameter or form field a handler reads
must be one the spec declares, and every parameter the spec requires must be enforced. The
bodies the fake answers must validate against the spec's schemas.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import pathlib
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import jsonschema
import pytest
import yaml
from aiohttp import web

from bot.lichess.oauth import pkce_challenge
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState

SPEC_PATH = pathlib.Path(__file__).parent / "spec" / "lichess-api.bundled.yaml"
HTTP_METHODS = {"get", "post", "put", "delete", "patch"}


@functools.cache
def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load(SPEC_PATH.read_text(), Loader=yaml.CSafeLoader)
    return loaded


def fake_routes() -> list[tuple[str, str, Any]]:
    app = make_app()
    out = []
    for route in app.router.routes():
        path = route.resource.canonical if route.resource is not None else ""
        if path.startswith("/_sandbox") or route.method == "HEAD":
            continue
        out.append((route.method.lower(), path, route.handler))
    return sorted(out, key=lambda r: (r[1], r[0]))


ROUTES = fake_routes()
ROUTE_IDS = [f"{m.upper()} {p}" for m, p, _ in ROUTES]


def operation(method: str, path: str) -> dict[str, Any]:
    op: dict[str, Any] = spec()["paths"][path][method]
    return op


def spec_parameters(method: str, path: str) -> list[dict[str, Any]]:
    item = spec()["paths"][path]
    params = list(item.get("parameters", [])) + list(operation(method, path).get("parameters", []))
    return [resolve(p) for p in params]


def resolve(node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def form_fields(method: str, path: str) -> set[str]:
    body = operation(method, path).get("requestBody")
    if body is None:
        return set()
    names: set[str] = set()
    for media in resolve(body).get("content", {}).values():
        names.update(resolve(media.get("schema", {})).get("properties", {}))
    return names


def test_the_fake_serves_the_endpoints_the_service_uses() -> None:
    served = {(m, p) for m, p, _ in ROUTES}
    assert served >= {
        ("get", "/api/user/{username}"),
        ("get", "/api/games/user/{username}"),
        ("post", "/api/games/export/_ids"),
        ("get", "/api/users/status"),
        ("post", "/inbox/{username}"),
        ("post", "/team/{teamId}/pm-all"),
        ("post", "/api/stream/games-by-users"),
        ("get", "/oauth"),
        ("post", "/api/token"),
        ("get", "/api/account"),
    }


@pytest.mark.parametrize(("method", "path", "handler"), ROUTES, ids=ROUTE_IDS)
def test_route_is_a_path_and_method_of_the_spec(method: str, path: str, handler: Any) -> None:
    assert path in spec()["paths"], f"{path} is not a Lichess API path"
    assert method in spec()["paths"][path], f"Lichess has no {method.upper()} {path}"


@pytest.mark.parametrize(("method", "path", "handler"), ROUTES, ids=ROUTE_IDS)
def test_path_parameters_match_the_spec(method: str, path: str, handler: Any) -> None:
    in_path = set(re.findall(r"{(\w+)}", path))
    declared = {p["name"] for p in spec_parameters(method, path) if p["in"] == "path"}
    assert in_path == declared


@pytest.mark.parametrize(("method", "path", "handler"), ROUTES, ids=ROUTE_IDS)
def test_parameters_the_handler_reads_are_in_the_spec(method: str, path: str, handler: Any) -> None:
    source = inspect.getsource(inspect.unwrap(handler))
    query = set(re.findall(r'request\.query\.get\("(\w+)"', source))
    query |= set(re.findall(r'_(?:bool|int)_param\(request, "(\w+)"', source))
    query |= set(re.findall(r'request\.query\["(\w+)"\]', source))
    form = set(re.findall(r'form\.get\("(\w+)"', source))
    form |= set(
        re.findall(r"for n in \(([^)]*)\)", source)
        and re.findall(r'"(\w+)"', "".join(re.findall(r"for n in \(([^)]*)\)", source)))
    )
    spec_query = {p["name"] for p in spec_parameters(method, path) if p["in"] == "query"}
    assert query <= spec_query, f"not in the spec: {sorted(query - spec_query)}"
    assert form <= form_fields(method, path), (
        f"not in the spec: {sorted(form - form_fields(method, path))}"
    )


@pytest.mark.parametrize(("method", "path", "handler"), ROUTES, ids=ROUTE_IDS)
def test_scopes_match_the_spec(method: str, path: str, handler: Any) -> None:
    security = operation(method, path).get("security") or []
    spec_scopes = {s for entry in security for s in entry.get("OAuth2", [])}
    fake_scope = getattr(handler, "required_scope", None)
    assert ({fake_scope} if fake_scope else set()) == spec_scopes


# --- bodies ------------------------------------------------------------------------------------


def validate(instance: Any, schema: Any) -> None:
    """Validate against a spec schema; its ``#/components/...`` refs resolve in the spec."""
    rooted = dict(resolve(schema))
    rooted["components"] = spec()["components"]
    jsonschema.Draft202012Validator(rooted).validate(instance)


def response_schema(method: str, path: str, status: int) -> Any:
    response = resolve(operation(method, path)["responses"][str(status)])
    content = response["content"]
    media = next(iter(content.values()))
    return media["schema"]


@pytest.fixture
async def lichess() -> AsyncIterator[tuple[str, SandboxState]]:
    state = SandboxState()
    state.knobs.keepalive_seconds = 0.2
    state.add_user("Alice", online=True)
    state.add_user("Bob", title="GM", tos_violation=True)
    state.add_user("Closed", disabled=True)
    state.add_token("acwc-bot", token="lip_bot")
    state.add_token("nobody", token="lip_noscope", scopes=())
    state.make_team("acwc", leaders=["acwc-bot"])
    runner = web.AppRunner(make_app(state), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{site.port}", state
    finally:
        state.drop_streams()
        await runner.cleanup()


BOT = {"Authorization": "Bearer lip_bot"}


@pytest.mark.parametrize("name", ["alice", "bob"])
async def test_user_bodies_validate(lichess: tuple[str, SandboxState], name: str) -> None:
    url, _ = lichess
    async with aiohttp.ClientSession() as http, http.get(f"{url}/api/user/{name}") as resp:
        assert resp.status == 200
        validate(await resp.json(), response_schema("get", "/api/user/{username}", 200))


async def test_a_closed_account_answers_its_names_only(lichess: tuple[str, SandboxState]) -> None:
    """lila answers a closed account with ``id``, ``username`` and ``disabled`` only (its user
    ``JsonView.disabled``): no ``url``, which the spec's ``UserExtended`` requires, so the body
    is held to the spec's ``User`` instead."""
    url, _ = lichess
    async with aiohttp.ClientSession() as http, http.get(f"{url}/api/user/closed") as resp:
        assert resp.status == 200
        body = await resp.json()
    assert body == {"id": "closed", "username": "Closed", "disabled": True}
    validate(body, spec()["components"]["schemas"]["User"])


async def test_the_user_export_leaves_out_aborted_games_unless_ongoing(
    lichess: tuple[str, SandboxState],
) -> None:
    """lila's query for it asks ``status >= mate`` unless ``ongoing``."""
    url, state = lichess
    aborted = state.add_finished_game("Alice", "Bob", status="aborted", winner=None)
    ndjson = {"Accept": "application/x-ndjson"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{url}/api/games/user/alice", headers=ndjson) as resp:
            assert await resp.text() == ""
        async with http.get(
            f"{url}/api/games/user/alice", params={"ongoing": "true"}, headers=ndjson
        ) as resp:
            assert [json.loads(line)["id"] for line in (await resp.text()).splitlines()] == [
                aborted.id
            ]


async def test_account_body_validates(lichess: tuple[str, SandboxState]) -> None:
    url, _ = lichess
    async with aiohttp.ClientSession() as http, http.get(f"{url}/api/account", headers=BOT) as resp:
        assert resp.status == 200
        validate(await resp.json(), response_schema("get", "/api/account", 200))


async def test_status_body_validates(lichess: tuple[str, SandboxState]) -> None:
    url, state = lichess
    state.start_game(white="Alice", black="Bob")
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            f"{url}/api/users/status", params={"ids": "alice,bob,closed", "withGameIds": "true"}
        ) as resp,
    ):
        body = await resp.json()
    assert len(body) == 2
    validate(body, response_schema("get", "/api/users/status", 200))


async def test_exported_games_validate(lichess: tuple[str, SandboxState]) -> None:
    url, state = lichess
    ids = [
        state.add_finished_game("Alice", "Bob").id,
        state.add_finished_game("Bob", "Alice", status="draw", winner=None).id,
        state.add_finished_game("Alice", "Bob", clock_limit=None, clock_increment=None).id,
    ]
    ndjson = {"Accept": "application/x-ndjson"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{url}/api/games/user/alice", headers=ndjson) as resp:
            by_user = [json.loads(line) for line in (await resp.text()).splitlines()]
        async with http.post(
            f"{url}/api/games/export/_ids", data=",".join(ids), headers=ndjson
        ) as resp:
            by_ids = [json.loads(line) for line in (await resp.text()).splitlines()]
    assert len(by_user) == len(by_ids) == 3
    for game in by_user:
        validate(game, response_schema("get", "/api/games/user/{username}", 200))
        validate(game, spec()["components"]["schemas"]["GameJson"])
    for game in by_ids:
        validate(game, spec()["components"]["schemas"]["GameJson"])


async def test_stream_lines_validate(lichess: tuple[str, SandboxState]) -> None:
    url, state = lichess
    item_schema = response_schema("post", "/api/stream/games-by-users", 200)["$ref"]
    assert item_schema == "#/components/schemas/GameStream"
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/stream/games-by-users", data="alice,bob") as resp,
    ):
        game = state.start_game(white="Alice", black="Bob")
        state.finish_game(game.id, status="variantEnd", winner="black")
        lines: list[Any] = []
        async with asyncio.timeout(10):
            async for raw in resp.content:
                if raw.strip():
                    lines.append(json.loads(raw))
                if len(lines) == 2:
                    break
    validate(lines, spec()["components"]["schemas"]["GameStream"])
    assert [line["statusName"] for line in lines] == ["started", "variantEnd"]


async def test_message_and_team_update_bodies_validate(lichess: tuple[str, SandboxState]) -> None:
    url, _ = lichess
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{url}/inbox/alice", data={"text": "hi"}, headers=BOT) as resp:
            validate(await resp.json(), response_schema("post", "/inbox/{username}", 200))
        async with http.post(f"{url}/inbox/closed", data={"text": "hi"}, headers=BOT) as resp:
            assert resp.status == 400
            validate(await resp.json(), response_schema("post", "/inbox/{username}", 400))
        async with http.post(
            f"{url}/team/acwc/pm-all", data={"message": "Round 1"}, headers=BOT
        ) as resp:
            validate(await resp.json(), response_schema("post", "/team/{teamId}/pm-all", 200))
        async with http.post(f"{url}/team/acwc/pm-all", data={}, headers=BOT) as resp:
            assert resp.status == 400
            validate(await resp.json(), response_schema("post", "/team/{teamId}/pm-all", 400))


async def test_token_bodies_validate(lichess: tuple[str, SandboxState]) -> None:
    url, _ = lichess

    verifier = "v" * 64
    async with aiohttp.ClientSession() as http:
        query = {
            "response_type": "code",
            "client_id": "acwc",
            "redirect_uri": "http://127.0.0.1:1/cb",
            "code_challenge_method": "S256",
            "code_challenge": pkce_challenge(verifier),
            "state": "s",
        }
        async with http.post(
            f"{url}/_sandbox/oauth/authorize",
            data=query | {"username": "Alice"},
            allow_redirects=False,
        ) as resp:
            code = resp.headers["Location"].split("code=")[1].split("&")[0]
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": "http://127.0.0.1:1/cb",
            "client_id": "acwc",
        }
        async with http.post(f"{url}/api/token", data=form) as resp:
            validate(await resp.json(), response_schema("post", "/api/token", 200))
        async with http.post(f"{url}/api/token", data=form) as resp:
            assert resp.status == 400
            validate(await resp.json(), response_schema("post", "/api/token", 400))


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("get", "/api/users/status", {}),
        ("post", "/inbox/alice", {"data": {}, "headers": BOT}),
        ("get", "/oauth", {"params": {"response_type": "code"}}),
        ("post", "/api/token", {"data": {"grant_type": "authorization_code"}}),
    ],
)
async def test_required_parameters_are_enforced(
    lichess: tuple[str, SandboxState], method: str, path: str, kwargs: dict[str, Any]
) -> None:
    url, _ = lichess
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, f"{url}{path}", allow_redirects=False, **kwargs) as resp,
    ):
        assert resp.status == 400


def test_every_required_query_parameter_has_an_enforcement_case() -> None:
    cases = {("get", "/api/users/status"), ("get", "/oauth")}
    for method, path, _ in ROUTES:
        required = [
            p["name"]
            for p in spec_parameters(method, path)
            if p.get("required") and p["in"] == "query"
        ]
        if required:
            assert (method, path) in cases, f"{method.upper()} {path} requires {required}"


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/inbox/alice", {"Authorization": "Bearer lip_noscope"}, 403),
        ("/inbox/alice", {"Authorization": "Bearer lip_wrong"}, 401),
        ("/inbox/alice", {}, 401),
        ("/team/acwc/pm-all", {"Authorization": "Bearer lip_noscope"}, 403),
    ],
)
async def test_scopes_and_tokens_are_checked(
    lichess: tuple[str, SandboxState], path: str, headers: dict[str, str], status: int
) -> None:
    url, state = lichess
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}{path}", data={"text": "x", "message": "x"}, headers=headers) as resp,
    ):
        assert resp.status == status
        assert "error" in await resp.json()
    assert state.inbox == []
    assert state.team_updates == []
