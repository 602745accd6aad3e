"""The sandbox Lichess' state: plain data that tests feed and read.

``SandboxState`` holds users, games, the bot's sent messages (``inbox``), team updates, tokens
and OAuth codes, and the failure knobs. Games move created -> started -> finished through
:meth:`SandboxState.start_game` and :meth:`SandboxState.finish_game`; each move is pushed to
the open games streams whose user list holds both players, as Lichess does.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import secrets
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from bot.clock import SystemClock
from rules.core.model import Colour, Game, GameId, GameStatus, PlayerId, normalise_username

__all__ = [
    "ALL_SCOPES",
    "InboxMessage",
    "Knobs",
    "OAuthCode",
    "SandboxState",
    "SandboxUser",
    "StreamListener",
    "TeamUpdate",
    "Token",
]

ALL_SCOPES = frozenset({"msg:write", "team:lead", "team:read", "study:write", "challenge:read"})


@dataclass
class SandboxUser:
    username: str
    created_at: dt.datetime
    title: str | None = None
    tos_violation: bool = False
    disabled: bool = False
    online: bool = False
    antichess_rating: int = 1500
    antichess_games: int = 0

    @property
    def id(self) -> PlayerId:
        return normalise_username(self.username)


@dataclass(frozen=True)
class InboxMessage:
    sender: PlayerId
    to: PlayerId
    text: str
    at: dt.datetime


@dataclass(frozen=True)
class TeamUpdate:
    team_id: str
    sender: PlayerId
    message: str
    at: dt.datetime


@dataclass(frozen=True)
class Token:
    user: PlayerId
    scopes: frozenset[str]


@dataclass
class OAuthCode:
    code: str
    user: PlayerId
    client_id: str
    redirect_uri: str
    code_challenge: str
    scopes: frozenset[str]
    used: bool = False


@dataclass
class Knobs:
    """Failure injection. Counters go down by one per request they affect."""

    rate_limit_next: int = 0
    """Answer 429 to the next N API requests (streams included)."""
    server_error_next: int = 0
    """Answer ``server_error_status`` to the next N API requests (streams included)."""
    server_error_status: int = 503
    stream_unavailable: bool = False
    """While set, the games stream answers 503 (Lichess down for streams)."""
    drop_stream_after_lines: int | None = None
    """Close every games stream after this many game lines (keep-alives not counted)."""
    malformed_lines_next: int = 0
    """Write a garbage line before each of the next N game lines."""
    repeat_lines: bool = False
    """Write every game line twice."""
    delay_seconds: float = 0.0
    """Wait this long (real time) before answering any API request."""
    keepalive_seconds: float = 5.0
    """Blank keep-alive line period on idle streams."""
    auto_approve_oauth: bool = False
    """``GET /oauth`` with a ``username`` hint redirects at once, as if the user approved."""


@dataclass
class StreamListener:
    users: frozenset[PlayerId]
    queue: asyncio.Queue[Game | None] = field(default_factory=asyncio.Queue)

    def wants(self, game: Game) -> bool:
        return game.white in self.users and game.black in self.users


class SandboxState:
    """Everything the fake Lichess knows. Mutate it directly or through the admin API."""

    def __init__(self, *, now: Callable[[], dt.datetime] | None = None) -> None:
        self.now = now or SystemClock().now
        self.users: dict[PlayerId, SandboxUser] = {}
        self.games: dict[GameId, Game] = {}
        self._by_user: dict[PlayerId, list[GameId]] = {}
        self._indexed = 0
        """How many of ``games`` ``_by_user`` covers (games are never removed)."""
        self.inbox: list[InboxMessage] = []
        self.team_updates: list[TeamUpdate] = []
        self.tokens: dict[str, Token] = {}
        self.codes: dict[str, OAuthCode] = {}
        self.team_leaders: dict[str, set[PlayerId]] = {}
        self.knobs = Knobs()
        self.listeners: list[StreamListener] = []
        self.requests: list[tuple[str, str]] = []
        """Every API request as (method, path), oldest first."""
        self.in_flight = 0
        self.max_in_flight = 0
        """Most REST requests (streams aside) the sandbox was answering at once."""
        self.finished_at: dict[GameId, dt.datetime] = {}
        self._ids = itertools.count(1)

    # --- feeding -------------------------------------------------------------------------

    def add_user(
        self,
        username: str,
        *,
        created_at: dt.datetime | None = None,
        title: str | None = None,
        tos_violation: bool = False,
        disabled: bool = False,
        online: bool = False,
        antichess_rating: int = 1500,
        antichess_games: int = 0,
    ) -> SandboxUser:
        user = SandboxUser(
            username=username,
            created_at=created_at or dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
            title=title,
            tos_violation=tos_violation,
            disabled=disabled,
            online=online,
            antichess_rating=antichess_rating,
            antichess_games=antichess_games,
        )
        self.users[user.id] = user
        return user

    def add_token(
        self, user: str, *, token: str | None = None, scopes: Iterable[str] = ALL_SCOPES
    ) -> str:
        """Register a personal API token for ``user`` and return it."""
        uid = normalise_username(user)
        if uid not in self.users:
            self.add_user(user)
        value = token or "lip_" + _random_text(20)
        self.tokens[value] = Token(user=uid, scopes=frozenset(scopes))
        return value

    def make_team(self, team_id: str, *, leaders: Iterable[str]) -> None:
        self.team_leaders[team_id] = {normalise_username(u) for u in leaders}

    def create_game(
        self,
        white: str,
        black: str,
        *,
        variant: str = "antichess",
        rated: bool = True,
        clock_limit: int | None = 120,
        clock_increment: int | None = 5,
        created_at: dt.datetime | None = None,
        game_id: str | None = None,
    ) -> Game:
        """A challenge accepted but not yet started (status ``created``, not streamed)."""
        white_id, black_id = normalise_username(white), normalise_username(black)
        for uid, name in ((white_id, white), (black_id, black)):
            if uid not in self.users:
                self.add_user(name)
        gid = GameId(game_id or self._new_game_id())
        if gid in self.games:
            raise ValueError(f"game {gid} exists")
        game = Game(
            id=gid,
            white=white_id,
            black=black_id,
            status=GameStatus.CREATED,
            winner=None,
            variant=variant,
            rated=rated,
            clock_limit=clock_limit,
            clock_increment=clock_increment,
            created_at=created_at or self.now(),
            white_rating=self.users[white_id].antichess_rating,
            black_rating=self.users[black_id].antichess_rating,
        )
        self.games[gid] = game
        if self._indexed == len(self.games) - 1:
            self._index(game)
        return game

    def start_game(self, game_id: str | None = None, /, **create: object) -> Game:
        """Start a created game, or create and start one (``create`` as in :meth:`create_game`).

        The started game goes out on every stream watching both players.
        """
        game = self.create_game(**create) if game_id is None else self._game(game_id)  # type: ignore[arg-type]
        if game.status is not GameStatus.CREATED:
            raise ValueError(f"game {game.id} is {game.status.value}, not created")
        started = replace(game, status=GameStatus.STARTED, last_move_at=game.created_at)
        self.games[started.id] = started
        self._publish(started)
        return started

    def finish_game(
        self,
        game_id: str,
        *,
        status: GameStatus = GameStatus.RESIGN,
        winner: Colour | None = None,
        at: dt.datetime | None = None,
    ) -> Game:
        """End a started game with ``status`` and ``winner`` (``None``: draw or no result)."""
        game = self._game(game_id)
        if game.status.is_finished:
            raise ValueError(f"game {game.id} is already finished")
        if not status.is_finished:
            raise ValueError(f"{status.value} is not a finishing status")
        end = at or self.now()
        diff_white = diff_black = None
        if game.rated and status.is_played:
            diff_white, diff_black = _rating_diffs(winner)
        finished = replace(
            game,
            status=status,
            winner=winner,
            last_move_at=end,
            white_rating_diff=diff_white,
            black_rating_diff=diff_black,
        )
        self.games[finished.id] = finished
        self.finished_at[finished.id] = end
        if finished.rated and status.is_played:
            for uid, diff in ((finished.white, diff_white), (finished.black, diff_black)):
                user = self.users[uid]
                user.antichess_rating += diff or 0
                user.antichess_games += 1
        self._publish(finished)
        return finished

    def add_finished_game(
        self,
        white: str,
        black: str,
        *,
        status: GameStatus = GameStatus.RESIGN,
        winner: Colour | None = Colour.WHITE,
        created_at: dt.datetime | None = None,
        **create: object,
    ) -> Game:
        """Create, start and finish a game in one step (history for exports)."""
        game = self.create_game(white, black, created_at=created_at, **create)  # type: ignore[arg-type]
        self.start_game(game.id)
        return self.finish_game(game.id, status=status, winner=winner)

    # --- reading -------------------------------------------------------------------------

    def inbox_of(self, user: str) -> list[str]:
        uid = normalise_username(user)
        return [m.text for m in self.inbox if m.to == uid]

    def games_of(self, user: PlayerId) -> list[Game]:
        """Every game ``user`` played or plays, as it stands now.

        The exports ask this for every request; an index by player keeps it from reading every
        game of the sandbox each time. A game put into ``games`` directly (tests do) is indexed
        at the next call.
        """
        if self._indexed != len(self.games):
            self._by_user, self._indexed = {}, 0
            for game in self.games.values():
                self._index(game)
        return [self.games[gid] for gid in self._by_user.get(user, ())]

    def _index(self, game: Game) -> None:
        for uid in {game.white, game.black}:
            self._by_user.setdefault(uid, []).append(game.id)
        self._indexed += 1

    def playing(self, user: PlayerId) -> GameId | None:
        for game in self.games.values():
            if game.status is GameStatus.STARTED and user in (game.white, game.black):
                return game.id
        return None

    def drop_streams(self) -> None:
        """Close every open games stream now (as a Lichess restart would)."""
        for listener in self.listeners:
            listener.queue.put_nowait(None)

    # --- internals -----------------------------------------------------------------------

    def _game(self, game_id: str) -> Game:
        try:
            return self.games[GameId(game_id)]
        except KeyError:
            raise KeyError(f"no game {game_id}") from None

    def _publish(self, game: Game) -> None:
        for listener in self.listeners:
            if listener.wants(game):
                listener.queue.put_nowait(game)

    def _new_game_id(self) -> str:
        while True:
            gid = f"sb{next(self._ids):06d}"
            if GameId(gid) not in self.games:
                return gid


def _rating_diffs(winner: Colour | None) -> tuple[int, int]:
    if winner is None:
        return 0, 0
    return (6, -6) if winner is Colour.WHITE else (-6, 6)


def _random_text(length: int) -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(length))
