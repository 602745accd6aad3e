"""Games of a player's history that are not between two Lichess users: against the AI, or against
an anonymous player. They are in a user's export like any other game.

lila writes the other side of such a game without a ``user``: ``{"aiLevel": 3}`` for the AI (with
``source: ai``), ``{}`` for an anonymous player (lila's ``GameApiV2`` adds ``user`` and
``rating`` only when there are some). The spec's ``GamePlayerUser`` requires both, so these
lines do not validate against it; the conformance test says so. Only a user's export serves them
(the stream follows games between two listed users, so never these).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from bot.sandbox.schemas import (
    GameClock,
    GameColor,
    GameSource,
    GameStatusName,
    LightUser,
    VariantKey,
    game_color,
    game_status,
    millis,
    perf_of,
    speed_of,
    variant_key,
)

__all__ = ["OffBoardGame", "make_offboard_game", "offboard_game_json"]


@dataclass(frozen=True, slots=True)
class OffBoardGame:
    """A finished game of ``user`` (playing ``color``) against the AI at ``ai_level``, or, with no
    level, against an anonymous player."""

    id: str
    user: LightUser
    rating: int
    color: GameColor
    ai_level: int | None
    source: GameSource
    createdAt: int
    lastMoveAt: int
    status: GameStatusName
    winner: GameColor | None
    variant: VariantKey
    clock: GameClock | None
    rated: bool = False  # games against the AI or an anonymous player are never rated


def make_offboard_game(
    user: LightUser,
    *,
    id: str,
    created_at: dt.datetime,
    color: str = "white",
    ai_level: int | None = None,
    status: str = "mate",
    winner: str | None = "white",
    variant: str = "antichess",
    clock: tuple[int, int] | None = (120, 5),
    rating: int = 1500,
) -> OffBoardGame:
    """A history game against the AI (``ai_level`` 1-8) or an anonymous player (no level)."""
    side = game_color(color)
    if side is None:
        raise ValueError("color must be white or black")
    if ai_level is not None and not 1 <= ai_level <= 8:
        raise ValueError(f"the AI plays at levels 1 to 8, not {ai_level}")
    created = millis(created_at)
    return OffBoardGame(
        id=id,
        user=user,
        rating=rating,
        color=side,
        ai_level=ai_level,
        source="ai" if ai_level is not None else "lobby",
        createdAt=created,
        lastMoveAt=created,
        status=game_status(status),
        winner=game_color(winner),
        variant=variant_key(variant),
        clock=GameClock(*clock) if clock is not None else None,
    )


def offboard_game_json(game: OffBoardGame) -> dict[str, Any]:
    """The export line of ``game``, as lila writes it."""
    user_side: dict[str, Any] = {
        "user": {"name": game.user.name, "id": game.user.id},
        "rating": game.rating,
    }
    other: dict[str, Any] = {} if game.ai_level is None else {"aiLevel": game.ai_level}
    out: dict[str, Any] = {
        "id": game.id,
        "rated": game.rated,
        "variant": game.variant,
        "speed": speed_of(game.clock),
        "perf": perf_of(game.variant, game.clock),
        "createdAt": game.createdAt,
        "lastMoveAt": game.lastMoveAt,
        "status": game.status,
        "source": game.source,
        "players": {
            "white": user_side if game.color == "white" else other,
            "black": other if game.color == "white" else user_side,
        },
    }
    if game.winner is not None:
        out["winner"] = game.winner
    if game.clock is not None:
        out["clock"] = {
            "initial": game.clock.initial,
            "increment": game.clock.increment,
            "totalTime": game.clock.totalTime,
        }
    return out
