"""The sandbox Lichess against the official spec (``spec/lichess-api.bundled.yaml``), and the
real client against the sandbox.

Every route of the fake (the ``/_sandbox`` admin API aside) must be a path and method of the
spec, with the spec's path parameters; every query parameter or form field a handler reads
must be one the spec declares, and every parameter the spec requires must be enforced. The
bodies the fake answers must validate against the spec's schemas and carry no field the spec
does not declare. The sandbox writes them with its own types and encoders and imports nothing
from the service, so the last part of this module can check the client against it: what the
client decodes from each endpoint the service uses is what the sandbox sent, and every field
the client reads from a game is one the spec declares and the sandbox writes.
"""

from __future__ import annotations

import ast
import asyncio
import datetime as dt
import functools
import inspect
import json
import pathlib
import re
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import jsonschema
import pytest
import yaml
from aiohttp import web
from lichess_helpers import HANG

from bot.lichess.broadcasts import LichessBroadcasts
from bot.lichess.challenges import LichessChallenges, open_challenge_form
from bot.lichess.client import LichessClient
from bot.lichess.games import game_from_export, game_from_stream, parse_stream_line
from bot.lichess.oauth import exchange_code, fetch_account, pkce_challenge, start_login
from bot.runtime.clock import FakeClock
from bot.sandbox.app import make_app
from bot.sandbox.challenges import accept_challenge
from bot.sandbox.encode import game_json, game_stream_json
from bot.sandbox.schemas import GAME_STATUS_ID, GameClock, GameJson, from_millis, make_game, millis
from bot.sandbox.state import SandboxState
from bot.service.challenges import ChallengeSpec
from rules.core.model import Colour, Game

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
        names.update(schema_fields(media.get("schema", {})))
    return names


def schema_fields(schema: Any) -> set[str]:
    """The properties a schema declares, its ``allOf`` and ``oneOf`` parts included (a broadcast
    round's form is one of several shapes)."""
    schema = resolve(schema)
    names = set(schema.get("properties", {}))
    for part in [*schema.get("allOf", []), *schema.get("oneOf", [])]:
        names |= schema_fields(part)
    return names


SERVICE_ENDPOINTS = (
    ("get", "/api/user/{username}"),
    ("get", "/api/games/user/{username}"),
    ("post", "/api/games/export/_ids"),
    ("get", "/api/users/status"),
    ("post", "/api/users"),
    ("post", "/inbox/{username}"),
    ("post", "/team/{teamId}/pm-all"),
    ("post", "/api/stream/games-by-users"),
    ("get", "/oauth"),
    ("post", "/api/token"),
    ("get", "/api/account"),
    ("post", "/api/challenge/open"),
    ("post", "/broadcast/new"),
    ("post", "/broadcast/{broadcastTournamentId}/new"),
)
"""What the service asks Lichess (``bot/lichess``)."""


def test_the_fake_serves_the_endpoints_the_service_uses() -> None:
    served = {(m, p) for m, p, _ in ROUTES}
    assert served >= set(SERVICE_ENDPOINTS)


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


SCOPES_BEYOND_THE_SPEC = {("post", "/api/challenge/open"): {"challenge:write"}}
"""Scopes lila checks that the spec does not list: ``openCreate`` is
``AnonOrScopedBody(...)(_.Challenge.Write)`` in ``app/controllers/Challenge.scala``, so a token
sent there must have ``challenge:write`` although the call needs none."""


@pytest.mark.parametrize(("method", "path", "handler"), ROUTES, ids=ROUTE_IDS)
def test_scopes_match_the_spec(method: str, path: str, handler: Any) -> None:
    security = operation(method, path).get("security") or []
    spec_scopes = {s for entry in security for s in entry.get("OAuth2", [])}
    spec_scopes |= SCOPES_BEYOND_THE_SPEC.get((method, path), set())
    fake_scope = getattr(handler, "required_scope", None)
    assert ({fake_scope} if fake_scope else set()) == spec_scopes


# --- bodies ------------------------------------------------------------------------------------


def validate(instance: Any, schema: Any, *, undeclared: frozenset[str] = frozenset()) -> None:
    """Validate against a spec schema (its ``#/components/...`` refs resolve in the spec), and
    find no field the schema does not declare but the ``undeclared`` ones: JSON Schema lets a
    misspelt optional field through, and the client would never see it."""
    rooted = dict(resolve(schema))
    rooted["components"] = spec()["components"]
    jsonschema.Draft202012Validator(rooted).validate(instance)
    extra = set(undeclared_fields(instance, schema))
    assert extra <= undeclared, f"fields the spec does not declare: {sorted(extra - undeclared)}"


def declared_properties(schema: Any) -> dict[str, Any]:
    """The properties an object schema declares, its ``allOf`` parts merged."""
    schema = resolve(schema)
    found = dict(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        found.update(declared_properties(part))
    return found


def undeclared_fields(instance: Any, schema: Any, path: str = "") -> list[str]:
    """The paths (``players.white.user.id``; ``[]`` for an array item) of ``instance``'s fields
    that ``schema`` does not declare. Free-form objects (no properties) declare everything."""
    schema = resolve(schema)
    if isinstance(instance, list):
        items = schema.get("items")
        if items is None:
            return []
        return [f for item in instance for f in undeclared_fields(item, items, f"{path}[].")]
    if not isinstance(instance, dict):
        return []
    declared = declared_properties(schema)
    if not declared:
        return []
    out: list[str] = []
    for key, value in instance.items():
        if key in declared:
            out += undeclared_fields(value, declared[key], f"{path}{key}.")
        else:
            out.append(f"{path}{key}")
    return out


def schema_of(name: str) -> Any:
    return spec()["components"]["schemas"][name]


def test_the_undeclared_field_finder_sees_a_misspelt_field() -> None:
    game = {"id": "x", "players": {"white": {"user": {"id": "a", "name": "A"}, "ratng": 1}}}
    assert undeclared_fields(game, schema_of("GameJson")) == ["players.white.ratng"]
    assert undeclared_fields([{"id": "a", "nam": "A"}], {"items": schema_of("LightUser")}) == [
        "[].nam"
    ]


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
    validate(body, schema_of("User"))


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
    # ``playingId`` is documented in the ``withGameIds`` parameter, not in the answer's schema
    validate(
        body,
        response_schema("get", "/api/users/status", 200),
        undeclared=frozenset({"[].playingId"}),
    )


async def test_users_by_ids_body_validates(lichess: tuple[str, SandboxState]) -> None:
    url, _ = lichess
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{url}/api/users", data="alice,nosuchplayer9,bob,closed") as resp,
    ):
        body = await resp.json()
    assert [u["id"] for u in body] == ["alice", "bob", "closed"]
    validate(body, response_schema("post", "/api/users", 200))


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
        async with asyncio.timeout(HANG):
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


# --- the sandbox's own types -------------------------------------------------------------------

SANDBOX_DIR = pathlib.Path(__file__).resolve().parents[2] / "bot" / "sandbox"


def test_the_sandbox_imports_nothing_from_the_service() -> None:
    """An independent fake: the standard library, aiohttp and itself only, so it cannot share a
    mistake with the client (``bot.lichess``) or the model (``rules``) it is meant to test."""
    foreign = []
    for path in sorted(SANDBOX_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top in sys.stdlib_module_names or top == "aiohttp":
                    continue
                if name == "bot.sandbox" or name.startswith("bot.sandbox."):
                    continue
                foreign.append(f"{path.name}: {name}")
    assert foreign == []


def test_status_ids_and_names_are_the_spec_enumerations() -> None:
    assert list(GAME_STATUS_ID) == schema_of("GameStatusName")["enum"]
    assert list(GAME_STATUS_ID.values()) == schema_of("GameStatusId")["enum"]


def example(name: str) -> Any:
    return yaml.safe_load((SPEC_PATH.parent / "examples" / name).read_text())["value"]


FINISHED = make_game(
    "Arex",
    "Jerc",
    id="TJxUmbWK",
    created_at=dt.datetime(2021, 10, 12, 18, 0, tzinfo=dt.UTC),
    last_move_at=dt.datetime(2021, 10, 12, 18, 7, tzinfo=dt.UTC),
    status="resign",
    winner="white",
    ratings=(1627, 1740),
    rating_diffs=(6, -6),
)
"""A finished rated game with a winner, a clock and rating changes: every field the client
reads from an export is set."""


def test_an_exported_game_has_the_fields_of_the_spec_example() -> None:
    """The spec's example of ``/api/games/export/_ids``, less what needs the moves (``moves``,
    ``opening``, ``division``, not asked for) or a tournament (``arenaTour``)."""
    shown = example("games-gamesExportIds.json.yaml")
    sent = game_json(FINISHED)
    assert set(sent) == set(shown) - {"moves", "opening", "division", "arenaTour"}
    for side in ("white", "black"):
        assert set(sent["players"][side]) == set(shown["players"][side])
        assert set(sent["players"][side]["user"]) <= set(shown["players"][side]["user"])


def test_stream_lines_have_the_fields_of_the_spec_example() -> None:
    """The ``GameStream`` example: a start, then the end with its winner. The clock has no
    ``totalTime``, as lila's stream writes it (the example shows one; the schema does not
    require it)."""
    shown_start, shown_end = schema_of("GameStream")["example"]
    started = replace(FINISHED, status="started", winner=None)
    for sent, shown in (
        (game_stream_json(started), shown_start),
        (game_stream_json(FINISHED), shown_end),
    ):
        assert set(sent) == set(shown)
        assert set(sent["clock"]) == set(shown["clock"]) - {"totalTime"}
        assert {side: set(p) for side, p in sent["players"].items()} == {
            side: set(p) for side, p in shown["players"].items()
        }


# --- the real client reads what the sandbox sends ----------------------------------------------

WINNER = {"white": Colour.WHITE, "black": Colour.BLACK, None: None}


def assert_read_as_sent(read: Game, sent: GameJson, *, stream: bool = False) -> None:
    """The client's game carries every value the sandbox sent, field by field (a stream line
    has no ``lastMoveAt`` and no rating changes)."""
    white, black = sent.players.white, sent.players.black
    assert read.id == sent.id
    assert (read.white, read.black) == (white.user.id, black.user.id)
    assert read.status.value == sent.status
    assert read.winner is WINNER[sent.winner]
    assert (read.variant, read.rated) == (sent.variant, sent.rated)
    clock = (sent.clock.initial, sent.clock.increment) if sent.clock else (None, None)
    assert (read.clock_limit, read.clock_increment) == clock
    assert read.created_at == from_millis(sent.createdAt)
    assert (read.white_rating, read.black_rating) == (white.rating, black.rating)
    if stream:
        assert read.last_move_at is None
        assert (read.white_rating_diff, read.black_rating_diff) == (None, None)
    else:
        assert read.last_move_at == from_millis(sent.lastMoveAt)
        assert (read.white_rating_diff, read.black_rating_diff) == (
            white.ratingDiff,
            black.ratingDiff,
        )


class Reads(dict[str, Any]):
    """A JSON object that notes the path of every field read from it."""

    def __init__(self, data: dict[str, Any], seen: set[str], path: str = "") -> None:
        super().__init__(
            {
                k: Reads(v, seen, f"{path}{k}.") if isinstance(v, dict) else v
                for k, v in data.items()
            }
        )
        self._seen, self._path = seen, path

    def get(self, key: str, default: Any = None) -> Any:
        self._seen.add(self._path + key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self._seen.add(self._path + key)
        return super().__getitem__(key)


def has_path(data: Any, path: str) -> bool:
    for key in path.split("."):
        if not isinstance(data, dict) or key not in data:
            return False
        data = data[key]
    return True


def is_declared(schema: Any, path: str) -> bool:
    for key in path.split("."):
        declared = declared_properties(schema)
        if key not in declared:
            return False
        schema = declared[key]
    return True


STREAM_LACKS = {"lastMoveAt", "players.white.ratingDiff", "players.black.ratingDiff"}
"""What the client asks of a stream line that neither ``GameStreamGame`` nor lila's stream has:
the export and the stream share one decoder. Not harmless: a game that ends while the stream is
up is delivered, and stored for good, with no ``last_move_at`` and no rating changes, so the
long-gap alert (rules.week.intake) and the game spans of rules 6.4 (bot.weekly) never see it.
Pinned here until the client fills them in; a change on either side makes this test fail."""


STREAM_LILA_ONLY = {"initialFen"}
"""What the client reads from a stream line that ``GameStreamGame`` does not declare but lila's
``GamesByUsersStream`` writes (a game from a custom position: refused, rules 3.i)."""

FROM_POSITION = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1"


@pytest.mark.parametrize(
    ("encode", "decode", "schema", "lacking", "lila_only"),
    [
        (game_json, game_from_export, "GameJson", set(), set()),
        (game_stream_json, game_from_stream, "GameStreamGame", STREAM_LACKS, STREAM_LILA_ONLY),
    ],
    ids=["export", "stream"],
)
def test_every_field_the_client_reads_from_a_game_is_in_the_spec_and_sent(
    encode: Any, decode: Any, schema: str, lacking: set[str], lila_only: set[str]
) -> None:
    """The fields are found by watching the client read, not listed by hand: a field the client
    starts to read that the spec does not declare, or that the sandbox does not send, fails."""
    sent = encode(replace(FINISHED, initialFen=FROM_POSITION))
    validate(sent, schema_of(schema), undeclared=frozenset(lila_only))
    seen: set[str] = set()
    read = decode(Reads(sent, seen))
    assert {"id", "createdAt", "players.white.rating", "clock.initial"} <= seen  # it watches
    assert {p for p in seen if not is_declared(schema_of(schema), p)} == lacking | lila_only
    assert {p for p in seen if not has_path(sent, p)} == lacking
    assert_read_as_sent(read, FINISHED, stream=schema == "GameStreamGame")


@pytest.fixture
async def client(lichess: tuple[str, SandboxState]) -> AsyncIterator[LichessClient]:
    url, _ = lichess
    clock = FakeClock(dt.datetime(2021, 10, 12, 18, 0, tzinfo=dt.UTC))
    async with LichessClient(base_url=url, token="lip_bot", clock=clock, max_attempts=1) as c:
        yield c


def history(state: SandboxState) -> list[GameJson]:
    """Games of Alice in every state the exports deal with."""
    start = dt.datetime(2021, 10, 1, 18, 0, tzinfo=dt.UTC)
    games = [
        state.add_finished_game("Alice", "Bob", created_at=start, winner="black"),
        state.add_finished_game("Bob", "Alice", created_at=start, status="draw", winner=None),
        state.add_finished_game("Alice", "Bob", created_at=start, status="outoftime"),
        state.add_finished_game("Alice", "Bob", created_at=start, rated=False),
        state.add_finished_game("Alice", "Bob", created_at=start, variant="standard"),
        state.add_finished_game(
            "Alice", "Bob", created_at=start, clock_limit=None, clock_increment=None
        ),
    ]
    state.start_game(white="Alice", black="Bob", created_at=start)
    return [state.games[g.id] for g in games]


async def reads_users(state: SandboxState, client: LichessClient) -> None:
    for name in ("Alice", "bob"):
        read, sent = await client.get_user(name), state.users[name.lower()]
        assert (read.id, read.username, read.title) == (sent.id, sent.username, sent.title)
        assert (read.tos_violation, read.disabled) == (sent.tosViolation, sent.disabled)
        assert read.created_at == from_millis(sent.createdAt)
        antichess = sent.perfs["antichess"]
        assert (read.antichess_rating, read.antichess_games) == (antichess.rating, antichess.games)
    closed = await client.get_user("closed")
    assert closed.disabled
    assert closed.created_at is None


async def reads_users_by_ids(state: SandboxState, client: LichessClient) -> None:
    read = await client.get_users(["Alice", "nosuchplayer9", "bob", "closed"])
    assert [u.id for u in read] == ["alice", "bob", "closed"]
    for user in read[:2]:
        sent = state.users[user.id]
        assert (user.username, user.title, user.tos_violation) == (
            sent.username,
            sent.title,
            sent.tosViolation,
        )
        assert user.created_at == from_millis(sent.createdAt)
    assert read[2].disabled


async def reads_export(state: SandboxState, client: LichessClient) -> None:
    sent = history(state)
    read = await client.export_games("alice")
    assert sorted(g.id for g in read) == sorted(g.id for g in sent)
    for game in read:
        assert_read_as_sent(game, state.games[game.id])


async def reads_export_by_ids(state: SandboxState, client: LichessClient) -> None:
    sent = history(state)
    read = await client.export_games_by_ids(g.id for g in sent)
    assert sorted(g.id for g in read) == sorted(g.id for g in sent)
    for game in read:
        assert_read_as_sent(game, state.games[game.id])


async def reads_statuses(state: SandboxState, client: LichessClient) -> None:
    game = state.start_game(white="Alice", black="Bob")
    read = {s.id: s for s in await client.get_statuses(["alice", "bob", "closed", "ghost"])}
    assert set(read) == {"alice", "bob"}
    for uid in ("alice", "bob"):
        status = read[uid]  # type: ignore[index]
        assert status.name == state.users[uid].username
        assert (status.online, status.playing, status.playing_id) == (True, True, game.id)


async def reads_message_answer(state: SandboxState, client: LichessClient) -> None:
    await client.send_message("Alice", "Your match starts at 18:00 UTC.")
    assert state.inbox_of("alice") == ["Your match starts at 18:00 UTC."]


async def reads_team_update_answer(state: SandboxState, client: LichessClient) -> None:
    await client.post_team_update("acwc", "Pairings are out.")
    assert [(u.team_id, u.message) for u in state.team_updates] == [("acwc", "Pairings are out.")]


async def reads_stream(state: SandboxState, client: LichessClient) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{client.base_url}/api/stream/games-by-users", data="alice,bob") as resp,
    ):
        started = state.start_game(white="Alice", black="Bob")
        finished = state.finish_game(started.id, status="variantEnd", winner="black")
        read: list[Game] = []
        async with asyncio.timeout(HANG):
            async for raw in resp.content:
                game = parse_stream_line(raw)
                if game is not None:
                    read.append(game)
                if len(read) == 2:
                    break
    assert_read_as_sent(read[0], started, stream=True)
    assert_read_as_sent(read[1], finished, stream=True)


async def reads_login(state: SandboxState, client: LichessClient) -> None:
    """``/oauth``, ``/api/token`` and ``/api/account``: the web login's three steps."""
    state.knobs.auto_approve_oauth = True
    login = start_login(
        base_url=client.base_url,
        client_id="acwc",
        redirect_uri="http://127.0.0.1:1/cb",
        username_hint="Alice",
    )
    async with aiohttp.ClientSession() as http:
        async with http.get(login.url, allow_redirects=False) as resp:
            callback = parse_qs(urlsplit(resp.headers["Location"]).query)
        token = await exchange_code(
            http, login, code=callback["code"][0], state=callback["state"][0]
        )
        user = await fetch_account(http, client.base_url, token)
    sent = state.users["alice"]
    assert (user.id, user.username, user.created_at) == (
        sent.id,
        sent.username,
        from_millis(sent.createdAt),
    )


def challenge_spec(state: SandboxState) -> ChallengeSpec:
    return ChallengeSpec(
        white="Alice",
        black="Bob",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        variant="antichess",
        name="ACWC 2021 Qualification R1: Alice vs Bob, game 1",
        expires_at=state.now() + dt.timedelta(hours=1),
    )


async def reads_open_challenge(state: SandboxState, client: LichessClient) -> None:
    """What the bot asks is what the sandbox keeps, and its game is the challenge's."""
    asked = challenge_spec(state)
    made = await LichessChallenges(client)(asked)
    sent = state.challenges[made.id]
    assert made.url == sent.url
    assert (sent.users, sent.rated, sent.variant) == (("alice", "bob"), True, "antichess")
    assert (sent.clock, sent.name) == (GameClock(120, 5), asked.name)
    assert millis(sent.expires_at) == millis(asked.expires_at)
    game = accept_challenge(state, made.id)
    (read,) = await client.export_games_by_ids([made.id])
    assert (read.id, read.white, read.source) == (made.id, "alice", "friend")
    assert game.source == "friend"


async def reads_broadcasts(state: SandboxState, client: LichessClient) -> None:
    made = LichessBroadcasts(client)
    tour = await made.tour(name="ACWC 2021 Candidates", markdown="Live.")
    rnd = await made.round(tour.id, name="Round 1", players=["Bob", "Alice"], starts_at=state.now())
    sent = state.broadcasts[tour.id]
    assert (tour.url, sent.name, sent.markdown) == (sent.url, "ACWC 2021 Candidates", "Live.")
    assert [(r.id, r.url, r.sync_users) for r in sent.rounds] == [
        (rnd.id, rnd.url, ("alice", "bob"))
    ]
    assert sent.rounds[0].syncing(state.now())  # status=new, startsAt now: lila starts it


async def test_challenge_and_broadcast_bodies_validate(lichess: tuple[str, SandboxState]) -> None:
    url, state = lichess
    form = open_challenge_form(challenge_spec(state))
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{url}/api/challenge/open", data=form) as resp:
            validate(await resp.json(), response_schema("post", "/api/challenge/open", 200))
        async with http.post(f"{url}/api/challenge/open", data={**form, "users": "a"}) as resp:
            assert resp.status == 400
            validate(await resp.json(), response_schema("post", "/api/challenge/open", 400))
        async with http.post(f"{url}/broadcast/new", data={"name": "ACWC"}, headers=BOT) as resp:
            tour = await resp.json()
            validate(tour, response_schema("post", "/broadcast/new", 200))
        path = "/broadcast/{broadcastTournamentId}/new"
        data = {"name": "Round 1", "syncSource": "users", "syncUsers": "Alice Bob"}
        async with http.post(
            f"{url}{path.format(broadcastTournamentId=tour['tour']['id'])}",
            data=data,
            headers=BOT,
        ) as resp:
            validate(await resp.json(), response_schema("post", path, 200))


CLIENT_READS: dict[tuple[str, str], Callable[..., Any]] = {
    ("get", "/api/user/{username}"): reads_users,
    ("get", "/api/games/user/{username}"): reads_export,
    ("post", "/api/games/export/_ids"): reads_export_by_ids,
    ("get", "/api/users/status"): reads_statuses,
    ("post", "/api/users"): reads_users_by_ids,
    ("post", "/inbox/{username}"): reads_message_answer,
    ("post", "/team/{teamId}/pm-all"): reads_team_update_answer,
    ("post", "/api/stream/games-by-users"): reads_stream,
    ("get", "/oauth"): reads_login,
    ("post", "/api/token"): reads_login,
    ("get", "/api/account"): reads_login,
    ("post", "/api/challenge/open"): reads_open_challenge,
    ("post", "/broadcast/new"): reads_broadcasts,
    ("post", "/broadcast/{broadcastTournamentId}/new"): reads_broadcasts,
}


def test_every_endpoint_the_service_uses_has_a_reading_check() -> None:
    assert set(CLIENT_READS) == set(SERVICE_ENDPOINTS)


@pytest.mark.parametrize(
    "endpoint",
    sorted(set(CLIENT_READS.values()), key=lambda f: str(getattr(f, "__name__", f))),
    ids=lambda f: str(getattr(f, "__name__", f)),
)
async def test_the_client_reads_what_the_sandbox_sends(
    lichess: tuple[str, SandboxState], client: LichessClient, endpoint: Any
) -> None:
    _, state = lichess
    await endpoint(state, client)
