"""Typed results of the Lichess calls, and the pure functions that read them from JSON."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.lichess.errors import LichessPayloadError
from rules.core.model import PlayerId, normalise_username

__all__ = ["LichessUser", "UserStatus", "status_from_json", "user_from_json"]


@dataclass(frozen=True, slots=True)
class LichessUser:
    """``GET /api/user/{username}`` or ``GET /api/account``, reduced to what the TDs need.

    ``created_at`` is ``None`` for a closed account (Lichess then sends only the names and
    ``disabled``). ``title`` is ``"BOT"`` for a bot account (rules 2.ii.5).
    """

    id: PlayerId
    username: str
    created_at: dt.datetime | None
    title: str | None = None
    tos_violation: bool = False
    disabled: bool = False
    antichess_rating: int | None = None
    antichess_games: int | None = None
    play_time: int | None = None
    """Seconds played in finished games with a clock (``playTime.total``): lila adds each one
    as it ends, so an unchanged value means no such game ended since."""
    games_by_perf: Mapping[str, int] = field(default_factory=dict)
    """Rated games per perf (``perfs.{perf}.games``)."""

    @property
    def is_bot(self) -> bool:
        return self.title == "BOT"


@dataclass(frozen=True, slots=True)
class UserStatus:
    """``GET /api/users/status``: whether a player is online and playing (no-show evidence)."""

    id: PlayerId
    name: str
    online: bool
    playing: bool
    playing_id: str | None = None


def user_from_json(data: Any) -> LichessUser:
    if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
        raise LichessPayloadError(f"not a Lichess user: {repr(data)[:120]}")
    created = data.get("createdAt")
    perfs = data.get("perfs")
    antichess = perfs.get("antichess") if isinstance(perfs, Mapping) else None
    rating = games = None
    if isinstance(antichess, Mapping):
        rating = _int_or_none(antichess.get("rating"))
        games = _int_or_none(antichess.get("games"))
    by_perf: dict[str, int] = {}
    for key, perf in perfs.items() if isinstance(perfs, Mapping) else ():
        count = _int_or_none(perf.get("games")) if isinstance(perf, Mapping) else None
        if count is not None:
            by_perf[str(key)] = count
    play_time = data.get("playTime")
    total = _int_or_none(play_time.get("total")) if isinstance(play_time, Mapping) else None
    return LichessUser(
        id=normalise_username(data["id"]),
        username=str(data.get("username") or data["id"]),
        created_at=_when(created),
        title=data.get("title") if isinstance(data.get("title"), str) else None,
        tos_violation=bool(data.get("tosViolation", False)),
        disabled=bool(data.get("disabled", False)),
        antichess_rating=rating,
        antichess_games=games,
        play_time=total,
        games_by_perf=by_perf,
    )


def status_from_json(data: Any) -> UserStatus:
    if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
        raise LichessPayloadError(f"not a user status: {repr(data)[:120]}")
    playing_id = data.get("playingId")
    return UserStatus(
        id=normalise_username(data["id"]),
        name=str(data.get("name") or data["id"]),
        online=bool(data.get("online", False)),
        playing=bool(data.get("playing", False)),
        playing_id=playing_id if isinstance(playing_id, str) else None,
    )


def _when(value: Any) -> dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(value / 1000, dt.UTC)
    raise LichessPayloadError(f"not a timestamp: {value!r}")


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
