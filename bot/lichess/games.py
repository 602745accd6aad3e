"""Pure functions that turn Lichess game JSON into :class:`rules.core.model.Game`.

The games stream and the game export describe a game differently:

* stream (``GameStreamGame``): numeric ``status`` plus ``statusName``, ``players.white.userId``,
  ``createdAt`` only;
* export (``GameJson``): ``status`` is the name, ``players.white.user.id``, ``lastMoveAt``,
  ``ratingDiff``.

Both become the same :class:`Game`. Timestamps are epoch milliseconds in the API; berserk turns
them into aware datetimes, so both forms are accepted. A payload without the fields a game
needs raises :class:`LichessPayloadError`; a game against the AI or an anonymous player (a side
without a user) raises its subclass :class:`NotBetweenUsers`, which the exports skip (a
player's history holds such games; they are never match games). The export carries the game's
``source``; the stream does not (lila's ``GamesByUsersStream``), so a stream game's source is
``None``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from bot.lichess.errors import LichessPayloadError
from rules.core.model import Colour, Game, GameId, GameStatus, PlayerId, normalise_username

__all__ = [
    "STATUS_BY_ID",
    "NotBetweenUsers",
    "game_from_export",
    "game_from_stream",
    "game_to_export_json",
    "game_to_stream_json",
    "parse_stream_line",
]

# GameStatusId in the spec; 39 (insufficientMaterialClaim) is a draw by claim.
STATUS_BY_ID: Mapping[int, GameStatus] = {
    10: GameStatus.CREATED,
    20: GameStatus.STARTED,
    25: GameStatus.ABORTED,
    30: GameStatus.MATE,
    31: GameStatus.RESIGN,
    32: GameStatus.STALEMATE,
    33: GameStatus.TIMEOUT,
    34: GameStatus.DRAW,
    35: GameStatus.OUTOFTIME,
    36: GameStatus.CHEAT,
    37: GameStatus.NO_START,
    38: GameStatus.UNKNOWN_FINISH,
    39: GameStatus.DRAW,
    60: GameStatus.VARIANT_END,
}
ID_BY_STATUS: Mapping[GameStatus, int] = {
    status: number for number, status in STATUS_BY_ID.items() if number != 39
}

_EXTRA_STATUS_NAMES: Mapping[str, GameStatus] = {"insufficientMaterialClaim": GameStatus.DRAW}

_WINNER = {"white": Colour.WHITE, "black": Colour.BLACK}


class NotBetweenUsers(LichessPayloadError):
    """A game with a side that is not a Lichess user: the AI, or an anonymous player."""


def parse_stream_line(line: bytes | str) -> Game | None:
    """One NDJSON line of ``/api/stream/games-by-users``: ``None`` for a keep-alive blank line.

    Raises :class:`LichessPayloadError` for a line that is not a game.
    """
    text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
    text = text.strip()
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise LichessPayloadError(f"stream line is not JSON: {text[:120]!r}") from e
    return game_from_stream(data)


def game_from_stream(data: Any) -> Game:
    """A ``GameStreamGame`` object (stream shape) as a :class:`Game`."""
    obj = _object(data)
    _game_id(obj)
    players = _object(obj.get("players"), "players")
    status = _stream_status(obj)
    return _build(
        obj,
        status=status,
        white=_object(players.get("white"), "players.white"),
        black=_object(players.get("black"), "players.black"),
        user_id=lambda side: side.get("userId"),
    )


def game_from_export(data: Any) -> Game:
    """A ``GameJson`` object (export shape) as a :class:`Game`."""
    obj = _object(data)
    _game_id(obj)
    players = _object(obj.get("players"), "players")
    status = _status_name(obj.get("status"))

    def user_id(side: Mapping[str, Any]) -> Any:
        user = side.get("user")
        return user.get("id") if isinstance(user, Mapping) else None

    source = obj.get("source")
    return _build(
        obj,
        status=status,
        white=_object(players.get("white"), "players.white"),
        black=_object(players.get("black"), "players.black"),
        user_id=user_id,
        source=source if isinstance(source, str) else None,
    )


def _build(
    obj: Mapping[str, Any],
    *,
    status: GameStatus,
    white: Mapping[str, Any],
    black: Mapping[str, Any],
    user_id: Any,
    source: str | None = None,
) -> Game:
    game_id = _game_id(obj)
    white_id, black_id = user_id(white), user_id(black)
    if not isinstance(white_id, str) or not isinstance(black_id, str):
        raise NotBetweenUsers(f"game {game_id} is not between two Lichess users")
    winner_name = obj.get("winner")
    if winner_name is not None and winner_name not in _WINNER:
        raise LichessPayloadError(f"game {game_id} has an unknown winner {winner_name!r}")
    clock = obj.get("clock")
    limit = increment = None
    if isinstance(clock, Mapping):
        limit = _optional_int(clock.get("initial"), "clock.initial")
        increment = _optional_int(clock.get("increment"), "clock.increment")
    created = obj.get("createdAt")
    if created is None:
        raise LichessPayloadError(f"game {game_id} has no createdAt")
    variant = obj.get("variant")
    if isinstance(variant, Mapping):  # board/bot event streams nest the variant
        variant = variant.get("key")
    if not isinstance(variant, str):
        raise LichessPayloadError(f"game {game_id} has no variant")
    last_move = obj.get("lastMoveAt")
    fen = obj.get("initialFen")
    return Game(
        id=GameId(game_id),
        white=_player(white_id),
        black=_player(black_id),
        status=status,
        winner=_WINNER[winner_name] if winner_name is not None else None,
        variant=variant,
        rated=bool(obj.get("rated", False)),
        clock_limit=limit,
        clock_increment=increment,
        created_at=_timestamp(created, "createdAt"),
        last_move_at=_timestamp(last_move, "lastMoveAt") if last_move is not None else None,
        white_rating=_optional_int(white.get("rating"), "white.rating"),
        black_rating=_optional_int(black.get("rating"), "black.rating"),
        white_rating_diff=_optional_int(white.get("ratingDiff"), "white.ratingDiff"),
        black_rating_diff=_optional_int(black.get("ratingDiff"), "black.ratingDiff"),
        source=source,
        initial_fen=fen if isinstance(fen, str) and fen else None,
    )


def _game_id(obj: Mapping[str, Any]) -> str:
    game_id = obj.get("id")
    if not isinstance(game_id, str) or not game_id:
        raise LichessPayloadError(f"game without an id: {_short(obj)}")
    return game_id


def _stream_status(obj: Mapping[str, Any]) -> GameStatus:
    name = obj.get("statusName")
    if name is not None:
        return _status_name(name)
    number = obj.get("status")
    if isinstance(number, Mapping):  # {"id": 31, "name": "resign"} in board/bot events
        return _status_name(number.get("name"))
    if isinstance(number, int) and not isinstance(number, bool) and number in STATUS_BY_ID:
        return STATUS_BY_ID[number]
    raise LichessPayloadError(f"unknown game status {number!r}")


def _status_name(name: Any) -> GameStatus:
    if isinstance(name, str):
        if name in _EXTRA_STATUS_NAMES:
            return _EXTRA_STATUS_NAMES[name]
        try:
            return GameStatus(name)
        except ValueError:
            pass
    raise LichessPayloadError(f"unknown game status {name!r}")


def _player(user_id: str) -> PlayerId:
    return normalise_username(user_id)


def _object(data: Any, what: str = "game") -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise LichessPayloadError(f"{what} is not a JSON object: {_short(data)}")
    return data


def _optional_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LichessPayloadError(f"{what} is not a number: {value!r}")
    return int(value)


def _timestamp(value: Any, what: str) -> dt.datetime:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise LichessPayloadError(f"{what} is a naive datetime")
        return value.astimezone(dt.UTC)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LichessPayloadError(f"{what} is not a timestamp: {value!r}")
    return dt.datetime.fromtimestamp(value / 1000, dt.UTC)


def _short(data: Any) -> str:
    return repr(data)[:120]


def to_millis(when: dt.datetime) -> int:
    """Epoch milliseconds, as the API writes times."""
    return int(when.timestamp() * 1000)


def _speed(limit: int | None, increment: int | None) -> str:
    if limit is None:
        return "correspondence"
    estimate = limit + 40 * (increment or 0)
    if estimate < 30:
        return "ultraBullet"
    if estimate < 180:
        return "bullet"
    if estimate < 480:
        return "blitz"
    if estimate < 1500:
        return "rapid"
    return "classical"


def _perf(game: Game) -> str:
    if game.variant in ("standard", "fromPosition"):
        return _speed(game.clock_limit, game.clock_increment)
    return game.variant


def game_to_stream_json(game: Game) -> dict[str, Any]:
    """The stream shape of ``game`` (the sandbox writes it; the inverse of game_from_stream)."""
    out: dict[str, Any] = {
        "id": game.id,
        "rated": game.rated,
        "variant": game.variant,
        "speed": _speed(game.clock_limit, game.clock_increment),
        "perf": _perf(game),
        "createdAt": to_millis(game.created_at),
        "status": ID_BY_STATUS[game.status],
        "statusName": game.status.value,
    }
    if game.clock_limit is not None:
        out["clock"] = _clock_json(game)
    white: dict[str, Any] = {"userId": game.white}
    black: dict[str, Any] = {"userId": game.black}
    if game.white_rating is not None:
        white["rating"] = game.white_rating
    if game.black_rating is not None:
        black["rating"] = game.black_rating
    out["players"] = {"white": white, "black": black}
    if game.winner is not None:
        out["winner"] = "white" if game.winner is Colour.WHITE else "black"
    if game.initial_fen is not None:
        out["initialFen"] = game.initial_fen
    return out


def game_to_export_json(
    game: Game, *, white_name: str | None = None, black_name: str | None = None
) -> dict[str, Any]:
    """The export shape of ``game`` (the sandbox writes it; the inverse of game_from_export)."""
    out: dict[str, Any] = {
        "id": game.id,
        "rated": game.rated,
        "variant": game.variant,
        "speed": _speed(game.clock_limit, game.clock_increment),
        "perf": _perf(game),
        "createdAt": to_millis(game.created_at),
        "lastMoveAt": to_millis(game.last_move_at or game.created_at),
        "status": game.status.value,
        "players": {
            "white": _export_player(
                game.white, white_name, game.white_rating, game.white_rating_diff
            ),
            "black": _export_player(
                game.black, black_name, game.black_rating, game.black_rating_diff
            ),
        },
    }
    if game.winner is not None:
        out["winner"] = "white" if game.winner is Colour.WHITE else "black"
    if game.clock_limit is not None:
        out["clock"] = _clock_json(game)
    if game.source is not None:
        out["source"] = game.source
    if game.initial_fen is not None:
        out["initialFen"] = game.initial_fen
    return out


def _export_player(
    user_id: PlayerId, name: str | None, rating: int | None, diff: int | None
) -> dict[str, Any]:
    side: dict[str, Any] = {"user": {"name": name or user_id, "id": user_id}}
    side["rating"] = rating if rating is not None else 1500
    if diff is not None:
        side["ratingDiff"] = diff
    return side


def _clock_json(game: Game) -> dict[str, int]:
    limit = game.clock_limit or 0
    increment = game.clock_increment or 0
    return {"initial": limit, "increment": increment, "totalTime": limit + 40 * increment}
