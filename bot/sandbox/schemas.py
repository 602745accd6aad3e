"""What the fake Lichess knows, typed after the official spec's schemas, in Lichess's own words.

Each class is named after a schema of ``lichess-api.bundled.yaml`` (``components/schemas``) and
its fields carry the field names of that schema (``createdAt``, ``lastMoveAt``, ``ratingDiff``,
``tosViolation``), with the spec's enumerations as ``Literal`` types. Nothing here comes from the
service's own model or from its Lichess client: the sandbox describes games as Lichess does, so
a field the client reads wrongly makes a test fail instead of being encoded with the same mistake
it is decoded with. :mod:`bot.sandbox.encode` writes these values as the API's JSON.

Times are epoch milliseconds, as the API writes them (:func:`millis`, :func:`from_millis`).
:func:`make_game` builds a game from plain arguments, for tests and the demo.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Literal, cast, get_args

__all__ = [
    "GAME_STATUS_ID",
    "GameClock",
    "GameColor",
    "GameJson",
    "GamePlayerUser",
    "GamePlayers",
    "GameSource",
    "GameStatusName",
    "LightUser",
    "Perf",
    "PerfType",
    "Speed",
    "Title",
    "User",
    "VariantKey",
    "from_millis",
    "game_color",
    "game_status",
    "is_finished",
    "is_over",
    "is_rating_result",
    "make_game",
    "millis",
    "perf_of",
    "speed_of",
    "user_id",
    "variant_key",
]

GameStatusName = Literal[
    "created",
    "started",
    "aborted",
    "mate",
    "resign",
    "stalemate",
    "timeout",
    "draw",
    "outoftime",
    "cheat",
    "noStart",
    "unknownFinish",
    "insufficientMaterialClaim",
    "variantEnd",
]
"""``GameStatusName``: the ``status`` of an exported game and the stream's ``statusName``."""

GAME_STATUS_ID: Final[Mapping[GameStatusName, int]] = MappingProxyType(
    {
        "created": 10,
        "started": 20,
        "aborted": 25,
        "mate": 30,
        "resign": 31,
        "stalemate": 32,
        "timeout": 33,
        "draw": 34,
        "outoftime": 35,
        "cheat": 36,
        "noStart": 37,
        "unknownFinish": 38,
        "insufficientMaterialClaim": 39,
        "variantEnd": 60,
    }
)
"""``GameStatusId``, the stream's numeric ``status``: the spec lists the ids and the names in the
same order (lila's ``chess.Status``)."""

GameColor = Literal["white", "black"]
VariantKey = Literal[
    "standard",
    "chess960",
    "crazyhouse",
    "antichess",
    "atomic",
    "horde",
    "kingOfTheHill",
    "racingKings",
    "threeCheck",
    "fromPosition",
]
Speed = Literal["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"]
PerfType = Literal[
    "ultraBullet",
    "bullet",
    "blitz",
    "rapid",
    "classical",
    "correspondence",
    "chess960",
    "crazyhouse",
    "antichess",
    "atomic",
    "horde",
    "kingOfTheHill",
    "racingKings",
    "threeCheck",
]
GameSource = Literal[
    "lobby",
    "friend",
    "ai",
    "api",
    "tournament",
    "position",
    "import",
    "importlive",
    "simul",
    "relay",
    "pool",
    "arena",
    "swiss",
]
Title = Literal["GM", "WGM", "IM", "WIM", "FM", "WFM", "NM", "CM", "WCM", "WNM", "LM", "BOT"]

_VARIANTS: tuple[str, ...] = get_args(VariantKey)
_MATE = GAME_STATUS_ID["mate"]
_NO_RATING = frozenset({"aborted", "noStart", "unknownFinish"})


def user_id(username: str) -> str:
    """A Lichess user id: the username in lower case."""
    return username.strip().lower()


def millis(when: dt.datetime) -> int:
    """Epoch milliseconds, as the API writes times."""
    return int(when.timestamp() * 1000)


def from_millis(value: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(value / 1000, dt.UTC)


def game_status(name: str) -> GameStatusName:
    """``name`` as a ``GameStatusName``; raises ``ValueError`` for a name the spec lacks."""
    if name not in GAME_STATUS_ID:
        raise ValueError(f"unknown game status {name!r}: one of {', '.join(GAME_STATUS_ID)}")
    return cast(GameStatusName, name)


def game_color(name: str | None) -> GameColor | None:
    """``white``, ``black`` or ``None`` (no winner); raises ``ValueError`` for anything else."""
    if name is not None and name not in get_args(GameColor):
        raise ValueError(f"winner must be white, black or null, not {name!r}")
    return cast(GameColor | None, name)


def variant_key(name: str) -> VariantKey:
    """``name`` as a ``VariantKey``; raises ``ValueError`` for a variant the spec lacks."""
    if name not in _VARIANTS:
        raise ValueError(f"unknown variant {name!r}: one of {', '.join(_VARIANTS)}")
    return cast(VariantKey, name)


def is_finished(status: GameStatusName) -> bool:
    """Over, whatever the way (aborted included)."""
    return GAME_STATUS_ID[status] >= GAME_STATUS_ID["aborted"]


def is_rating_result(status: GameStatusName) -> bool:
    """Over with a result that moves ratings in a rated game."""
    return GAME_STATUS_ID[status] >= _MATE and status not in _NO_RATING


def is_over(status: GameStatusName) -> bool:
    """What lila's game queries call finished (``status >= mate``): aborted games are not."""
    return GAME_STATUS_ID[status] >= _MATE


@dataclass(frozen=True, slots=True)
class LightUser:
    id: str
    name: str
    title: Title | None = None


@dataclass(frozen=True, slots=True)
class GamePlayerUser:
    """One side of an exported game."""

    user: LightUser
    rating: int
    ratingDiff: int | None = None
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class GamePlayers:
    white: GamePlayerUser
    black: GamePlayerUser

    def side(self, color: GameColor) -> GamePlayerUser:
        return self.white if color == "white" else self.black


@dataclass(frozen=True, slots=True)
class GameClock:
    """``GameJson.clock``, in seconds."""

    initial: int
    increment: int

    @property
    def totalTime(self) -> int:
        """Lichess's estimate of a game's length: the limit plus 40 increments."""
        return self.initial + 40 * self.increment


def speed_of(clock: GameClock | None) -> Speed:
    """The speed Lichess files a game under, from its estimated length (lila's ``Speed``)."""
    if clock is None:
        return "correspondence"
    total = clock.totalTime
    if total < 30:
        return "ultraBullet"
    if total < 180:
        return "bullet"
    if total < 480:
        return "blitz"
    if total < 1500:
        return "rapid"
    if total < 21600:
        return "classical"
    return "correspondence"


def perf_of(variant: VariantKey, clock: GameClock | None) -> PerfType:
    """The rating a game counts for: its speed in standard chess, else its variant."""
    if variant in ("standard", "fromPosition"):
        return speed_of(clock)
    return cast(PerfType, variant)


@dataclass(frozen=True, slots=True)
class GameJson:
    """A game as Lichess exports it (``GameJson``); the games stream writes part of it.

    ``speed`` and ``perf`` follow from the clock and the variant, as on Lichess.
    """

    id: str
    rated: bool
    variant: VariantKey
    createdAt: int
    lastMoveAt: int
    status: GameStatusName
    players: GamePlayers
    source: GameSource | None = "friend"
    initialFen: str | None = None
    winner: GameColor | None = None
    clock: GameClock | None = None

    @property
    def speed(self) -> Speed:
        return speed_of(self.clock)

    @property
    def perf(self) -> PerfType:
        return perf_of(self.variant, self.clock)

    @property
    def user_ids(self) -> tuple[str, str]:
        """(white, black)."""
        return self.players.white.user.id, self.players.black.user.id


@dataclass(frozen=True, slots=True)
class Perf:
    """One rating of a user (``Perf``)."""

    games: int
    rating: int
    rd: int = 60
    prog: int = 0


@dataclass
class User:
    """An account: the spec's ``User`` fields, plus whether the user is online (what
    ``/api/users/status`` answers) and the games it played, which Lichess knows but does not
    write in the user's JSON. Mutable: ratings move and tests switch ``online``."""

    id: str
    username: str
    createdAt: int
    perfs: dict[PerfType, Perf] = field(default_factory=dict)
    title: Title | None = None
    tosViolation: bool = False
    disabled: bool = False
    online: bool = False
    playTime: int = 0
    """Seconds played: lila adds each finished game's duration (and 2) when it had a clock
    (``Finisher.incNbGames``); an aborted game adds nothing."""

    def rating(self, perf: PerfType) -> int:
        found = self.perfs.get(perf)
        return found.rating if found is not None else 1500


def make_game(
    white: str | LightUser,
    black: str | LightUser,
    *,
    id: str,
    created_at: dt.datetime,
    status: str = "created",
    winner: str | None = None,
    last_move_at: dt.datetime | None = None,
    variant: str = "antichess",
    rated: bool = True,
    clock: tuple[int, int] | None = (120, 5),
    ratings: tuple[int, int] = (1500, 1500),
    rating_diffs: tuple[int | None, int | None] = (None, None),
    source: GameSource | None = "friend",
    initial_fen: str | None = None,
) -> GameJson:
    """A sandbox game from plain arguments: players by username, times as datetimes, the clock
    as (limit, increment) seconds (``None``: correspondence).

    ``last_move_at`` defaults to ``created_at``. Raises ``ValueError`` for a status, winner or
    variant the spec does not know, a winner in an unfinished game, or a negative clock.
    """
    name = game_status(status)
    side = game_color(winner)
    if side is not None and not is_finished(name):
        raise ValueError(f"a {name} game has no winner")
    if clock is not None and (clock[0] < 0 or clock[1] < 0):
        raise ValueError(f"a clock cannot be negative: {clock}")
    players = [
        p if isinstance(p, LightUser) else LightUser(user_id(p), p.strip()) for p in (white, black)
    ]
    created = millis(created_at)
    return GameJson(
        id=id,
        rated=rated,
        variant=variant_key(variant),
        createdAt=created,
        lastMoveAt=millis(last_move_at) if last_move_at is not None else created,
        status=name,
        players=GamePlayers(
            white=GamePlayerUser(players[0], ratings[0], rating_diffs[0]),
            black=GamePlayerUser(players[1], ratings[1], rating_diffs[1]),
        ),
        source=source,
        initialFen=initial_fen,
        winner=side,
        clock=GameClock(*clock) if clock is not None else None,
    )
