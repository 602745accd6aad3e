"""The JSON bodies of the fake Lichess, written from the spec's schemas (and lila where it is thin).

One function per body: :func:`game_json` (``GameJson``, a line of the game exports),
:func:`game_stream_json` (``GameStreamGame``, a line of the games stream), :func:`user_json`
(``UserExtended``), :func:`user_status_json` (an item of ``/api/users/status``), and the small
answers (``Ok``, ``Error``, ``OAuthError``, the access token). Optional fields are left out when
unset, as Lichess leaves them out, never written as ``null``.

Where the spec and lila differ, the body is what lila writes, and the conformance test says so:

* a closed account is ``{"id", "username", "disabled": true}`` only (lila's ``JsonView.disabled``),
  so it lacks the ``url`` that ``UserExtended`` requires;
* a stream line's ``clock`` has no ``totalTime`` (lila's ``GamesByUsersStream``; the spec's
  example has one, its schema does not require it).
"""

from __future__ import annotations

from typing import Any

from bot.sandbox.schemas import (
    GAME_STATUS_ID,
    GameClock,
    GameJson,
    GamePlayerUser,
    LightUser,
    Perf,
    User,
)

__all__ = [
    "access_token_json",
    "error_json",
    "game_json",
    "game_stream_json",
    "oauth_error_json",
    "ok_json",
    "user_json",
    "user_status_json",
]


def _light_user_json(user: LightUser) -> dict[str, Any]:
    out: dict[str, Any] = {"name": user.name, "id": user.id}
    if user.title is not None:
        out["title"] = user.title
    return out


def _game_player_json(player: GamePlayerUser) -> dict[str, Any]:
    out: dict[str, Any] = {"user": _light_user_json(player.user), "rating": player.rating}
    if player.ratingDiff is not None:
        out["ratingDiff"] = player.ratingDiff
    if player.provisional:
        out["provisional"] = True
    return out


def _clock_json(clock: GameClock) -> dict[str, int]:
    return {"initial": clock.initial, "increment": clock.increment, "totalTime": clock.totalTime}


def _game_head(game: GameJson) -> dict[str, Any]:
    """The fields the export and the stream write alike."""
    return {
        "id": game.id,
        "rated": game.rated,
        "variant": game.variant,
        "speed": game.speed,
        "perf": game.perf,
        "createdAt": game.createdAt,
    }


def game_json(game: GameJson) -> dict[str, Any]:
    """``GameJson``: a game of ``/api/games/user/{username}`` or ``/api/games/export/_ids``
    (NDJSON, without moves)."""
    out: dict[str, Any] = {
        **_game_head(game),
        "lastMoveAt": game.lastMoveAt,
        "status": game.status,
        "players": {
            "white": _game_player_json(game.players.white),
            "black": _game_player_json(game.players.black),
        },
    }
    if game.source is not None:
        out["source"] = game.source
    if game.initialFen is not None:
        out["initialFen"] = game.initialFen
    if game.winner is not None:
        out["winner"] = game.winner
    if game.clock is not None:
        out["clock"] = _clock_json(game.clock)
    return out


def _stream_player_json(player: GamePlayerUser) -> dict[str, Any]:
    out: dict[str, Any] = {"userId": player.user.id, "rating": player.rating}
    if player.provisional:
        out["provisional"] = True
    return out


def game_stream_json(game: GameJson) -> dict[str, Any]:
    """``GameStreamGame``: a line of ``/api/stream/games-by-users``, sent when a game starts and
    when it ends. The status is a number (``GameStatusId``) with its name beside it."""
    out: dict[str, Any] = {
        **_game_head(game),
        "status": GAME_STATUS_ID[game.status],
        "statusName": game.status,
        "players": {
            "white": _stream_player_json(game.players.white),
            "black": _stream_player_json(game.players.black),
        },
    }
    if game.winner is not None:
        out["winner"] = game.winner
    if game.initialFen is not None:
        out["initialFen"] = game.initialFen
    if game.clock is not None:
        out["clock"] = {"initial": game.clock.initial, "increment": game.clock.increment}
    return out


def _perf_json(perf: Perf) -> dict[str, Any]:
    return {"games": perf.games, "rating": perf.rating, "rd": perf.rd, "prog": perf.prog}


def users_item_json(user: User, *, seen_at: int) -> dict[str, Any]:
    """An item of ``POST /api/users`` (``User``: lila's ``JsonView.full``, without the extended
    fields): a closed account answers its names and ``disabled`` only."""
    out = user_json(user, seen_at=seen_at)
    out.pop("url", None)
    out.pop("count", None)
    return out


def user_json(user: User, *, seen_at: int) -> dict[str, Any]:
    """``UserExtended``, as ``/api/user/{username}`` and ``/api/account`` answer it; a closed
    account answers its names and ``disabled`` only."""
    if user.disabled:
        return {"id": user.id, "username": user.username, "disabled": True}
    games = sum(p.games for p in user.perfs.values())
    out: dict[str, Any] = {
        "id": user.id,
        "username": user.username,
        "perfs": {key: _perf_json(perf) for key, perf in user.perfs.items()},
        "createdAt": user.createdAt,
        "seenAt": seen_at,
        "playTime": {"total": user.playTime, "tv": 0},
        "url": f"https://lichess.org/@/{user.username}",
        "count": {
            "all": games,
            "rated": games,
            "draw": 0,
            "loss": 0,
            "win": 0,
            "bookmark": 0,
            "playing": 0,
            "import": 0,
            "me": 0,
        },
    }
    if user.title is not None:
        out["title"] = user.title
    if user.tosViolation:
        out["tosViolation"] = True
    return out


def user_status_json(user: User, *, playing_id: str | None, with_game_id: bool) -> dict[str, Any]:
    """An item of ``/api/users/status``: ``online`` and ``playing`` only when true; the game
    being played as ``playingId`` when asked (``withGameIds``)."""
    out: dict[str, Any] = {"id": user.id, "name": user.username}
    if user.title is not None:
        out["title"] = user.title
    if user.online or playing_id is not None:
        out["online"] = True
    if playing_id is not None:
        out["playing"] = True
        if with_game_id:
            out["playingId"] = playing_id
    return out


def ok_json() -> dict[str, Any]:
    """``Ok``."""
    return {"ok": True}


def error_json(message: str) -> dict[str, Any]:
    """``Error``."""
    return {"error": message}


def oauth_error_json(error: str, description: str) -> dict[str, Any]:
    """``OAuthError``."""
    return {"error": error, "error_description": description}


def access_token_json(token: str, *, expires_in: int) -> dict[str, Any]:
    """The answer of ``POST /api/token``."""
    return {"token_type": "Bearer", "access_token": token, "expires_in": expires_in}
