"""Normalising the stream and export shapes into one Game, on the spec's own examples."""

from __future__ import annotations

import datetime as dt
import functools
import json
import pathlib
from typing import Any

import pytest
import yaml

from bot.lichess.errors import LichessPayloadError
from bot.lichess.games import (
    STATUS_BY_ID,
    game_from_export,
    game_from_stream,
    game_to_export_json,
    game_to_stream_json,
    parse_stream_line,
)
from rules.core.model import Colour, Game, GameId, GameStatus, PlayerId

SPEC_DIR = pathlib.Path(__file__).parent / "spec"


def _example(name: str) -> Any:
    return yaml.safe_load((SPEC_DIR / "examples" / name).read_text())["value"]


@functools.cache
def _stream_examples() -> list[Any]:
    spec = yaml.load((SPEC_DIR / "lichess-api.bundled.yaml").read_text(), Loader=yaml.CSafeLoader)
    return list(spec["components"]["schemas"]["GameStream"]["example"])


def _ms(value: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(value / 1000, dt.UTC)


EXPORT_TABLE = [
    (
        "games-apiGamesUserJson.json.yaml",
        dict(
            id="nfjOkkBQ",
            white="lance5500",
            black="cherrywall",
            status=GameStatus.RESIGN,
            winner=Colour.WHITE,
            variant="standard",
            rated=False,
            clock=(60, 0),
            created=1783377244194,
            last_move=1783377361082,
            ratings=(2813, 2330),
            diffs=(None, None),
        ),
    ),
    (
        "games-gamesExportIds.json.yaml",
        dict(
            id="TJxUmbWK",
            white="arex",
            black="jerc-12jesus",
            status=GameStatus.RESIGN,
            winner=Colour.WHITE,
            variant="standard",
            rated=True,
            clock=(600, 0),
            created=1504125627542,
            last_move=1504126012148,
            ratings=(1627, 1740),
            diffs=(15, -15),
        ),
    ),
    (
        "games-exportOneGame.json.yaml",
        dict(
            id="q7ZvsdUF",
            white="lance5500",
            black="tryinghard87",
            status=GameStatus.DRAW,
            winner=None,
            variant="standard",
            rated=True,
            clock=(300, 3),
            created=1514505150384,
            last_move=1514505592843,
            ratings=(2389, 2498),
            diffs=(4, -4),
        ),
    ),
]


@pytest.mark.parametrize(("example", "expected"), EXPORT_TABLE)
def test_export_examples_normalise(example: str, expected: dict[str, Any]) -> None:
    game = game_from_export(_example(example))
    assert game.id == expected["id"]
    assert (game.white, game.black) == (expected["white"], expected["black"])
    assert game.status is expected["status"]
    assert game.winner is expected["winner"]
    assert game.variant == expected["variant"]
    assert game.rated is expected["rated"]
    assert (game.clock_limit, game.clock_increment) == expected["clock"]
    assert game.created_at == _ms(expected["created"])
    assert game.last_move_at == _ms(expected["last_move"])
    assert (game.white_rating, game.black_rating) == expected["ratings"]
    assert (game.white_rating_diff, game.black_rating_diff) == expected["diffs"]


def test_stream_examples_normalise_start_then_finish() -> None:
    started, finished = (game_from_stream(e) for e in _stream_examples())
    assert started.id == finished.id == GameId("A5fcMO3k")
    assert (started.white, started.black) == (PlayerId("kastorcito"), PlayerId("er_or"))
    assert started.status is GameStatus.STARTED
    assert started.winner is None
    assert finished.status is GameStatus.RESIGN
    assert finished.winner is Colour.WHITE
    assert (finished.clock_limit, finished.clock_increment) == (60, 0)
    assert finished.created_at == _ms(1525789431889)
    assert finished.last_move_at is None  # the stream does not send it
    assert (finished.white_rating, finished.black_rating) == (2617, 2288)


def test_berserk_datetimes_are_accepted_like_milliseconds() -> None:
    data = _example("games-gamesExportIds.json.yaml")
    converted = dict(data, createdAt=_ms(data["createdAt"]), lastMoveAt=_ms(data["lastMoveAt"]))
    assert game_from_export(converted) == game_from_export(data)


@pytest.mark.parametrize(
    ("number", "name", "status"),
    [
        (20, "started", GameStatus.STARTED),
        (25, "aborted", GameStatus.ABORTED),
        (30, "mate", GameStatus.MATE),
        (31, "resign", GameStatus.RESIGN),
        (32, "stalemate", GameStatus.STALEMATE),
        (33, "timeout", GameStatus.TIMEOUT),
        (34, "draw", GameStatus.DRAW),
        (35, "outoftime", GameStatus.OUTOFTIME),
        (36, "cheat", GameStatus.CHEAT),
        (37, "noStart", GameStatus.NO_START),
        (38, "unknownFinish", GameStatus.UNKNOWN_FINISH),
        (39, "insufficientMaterialClaim", GameStatus.DRAW),
        (60, "variantEnd", GameStatus.VARIANT_END),
    ],
)
def test_status_number_and_name_agree(number: int, name: str, status: GameStatus) -> None:
    base = _stream_examples()[0]
    by_number = {k: v for k, v in base.items() if k != "statusName"} | {"status": number}
    by_name = dict(base, status=number, statusName=name)
    assert game_from_stream(by_number).status is status
    assert game_from_stream(by_name).status is status
    export = dict(_example("games-apiGamesUserJson.json.yaml"), status=name)
    assert game_from_export(export).status is status
    assert STATUS_BY_ID[number] is status


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"not json\n", "not JSON"),
        (b'{"players": {}}\n', "without an id"),
        (b'{"id": "x", "status": 99, "players": {"white": {}, "black": {}}}', "status"),
        (
            b'{"id": "x", "statusName": "resign", "createdAt": 1, "variant": "antichess",'
            b' "players": {"white": {"userId": "a"}, "black": {}}}',
            "two Lichess users",
        ),
        (
            b'{"id": "x", "statusName": "resign", "variant": "antichess",'
            b' "players": {"white": {"userId": "a"}, "black": {"userId": "b"}}}',
            "createdAt",
        ),
        (b"[1, 2]", "not a JSON object"),
    ],
)
def test_malformed_lines_raise_payload_errors(line: bytes, message: str) -> None:
    with pytest.raises(LichessPayloadError, match=message):
        parse_stream_line(line)


@pytest.mark.parametrize("line", [b"\n", b"", b"   \r\n", "\n"])
def test_keepalive_lines_are_not_games(line: bytes | str) -> None:
    assert parse_stream_line(line) is None


def _game(**changes: Any) -> Game:
    base = Game(
        id=GameId("abcd1234"),
        white=PlayerId("alice"),
        black=PlayerId("bob"),
        status=GameStatus.VARIANT_END,
        winner=Colour.BLACK,
        variant="antichess",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        created_at=dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC),
        last_move_at=dt.datetime(2021, 10, 14, 18, 9, tzinfo=dt.UTC),
        white_rating=2100,
        black_rating=2200,
        white_rating_diff=-5,
        black_rating_diff=5,
    )
    fields = {f: getattr(base, f) for f in base.__slots__}
    return Game(**(fields | changes))


@pytest.mark.parametrize(
    "game",
    [
        _game(),
        _game(status=GameStatus.STARTED, winner=None, last_move_at=None),
        _game(status=GameStatus.DRAW, winner=None),
        _game(status=GameStatus.TIMEOUT, winner=Colour.WHITE, rated=False),
    ],
)
def test_sandbox_shapes_round_trip(game: Game) -> None:
    stream = game_from_stream(json.loads(json.dumps(game_to_stream_json(game))))
    export = game_from_export(json.loads(json.dumps(game_to_export_json(game))))
    assert export == game if game.last_move_at else export.id == game.id
    # the stream carries neither lastMoveAt nor rating differences
    assert stream == _game(
        **{
            f: getattr(game, f)
            for f in game.__slots__
            if f not in ("last_move_at", "white_rating_diff", "black_rating_diff")
        },
        last_move_at=None,
        white_rating_diff=None,
        black_rating_diff=None,
    )
