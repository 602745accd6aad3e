"""The sandbox Lichess' state: plain data that tests feed and read.

``SandboxState`` holds users, games, the bot's sent messages (``inbox``), team updates, tokens
and OAuth codes, and the failure knobs, in the sandbox's own types (:mod:`bot.sandbox.schemas`,
written from the Lichess spec). Games move created -> started -> finished through
:meth:`SandboxState.start_game` and :meth:`SandboxState.finish_game`; each move is pushed to
the open games streams whose user list holds both players, as Lichess does.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import secrets
import string
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from bot.sandbox.broadcasts import BroadcastRound, BroadcastTour
from bot.sandbox.challenges import OpenChallenge
from bot.sandbox.history import OffBoardGame
from bot.sandbox.inbox import Messaging, Sender
from bot.sandbox.limits import RateLimits
from bot.sandbox.schemas import (
    GameClock,
    GameColor,
    GameJson,
    LightUser,
    Perf,
    Title,
    User,
    from_millis,
    game_color,
    game_status,
    is_finished,
    is_rating_result,
    make_game,
    millis,
    perf_of,
    user_id,
    variant_key,
)

__all__ = [
    "ALL_SCOPES",
    "InboxMessage",
    "Knobs",
    "OAuthCode",
    "SandboxState",
    "StreamListener",
    "TeamUpdate",
    "Token",
]

ALL_SCOPES = frozenset(
    {
        "msg:write",
        "team:lead",
        "team:read",
        "study:write",
        "challenge:read",
        "challenge:write",
        "challenge:bulk",
    }
)
RATING_STEP = 6
"""What a rated win takes from the loser and gives the winner (the sandbox has no Glicko)."""


@dataclass(frozen=True)
class InboxMessage:
    sender: str
    to: str
    text: str
    at: dt.datetime


@dataclass(frozen=True)
class TeamUpdate:
    team_id: str
    sender: str
    message: str
    at: dt.datetime


@dataclass(frozen=True)
class Token:
    user: str
    scopes: frozenset[str]


@dataclass
class OAuthCode:
    code: str
    user: str
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
    keepalive_seconds: float = 50.0
    """Blank keep-alive line period on idle streams (lila's ``ndJson.addKeepAlive``: 50 s)."""
    export_silence_seconds: float = 0.0
    """Each user's game export says nothing for this long (real time) before its games, writing
    ``{}`` keep-alive lines every ``export_keepalive_seconds`` meanwhile, as lila's slow
    exports do."""
    export_keepalive_seconds: float = 70.0
    """lila's ``GameApiV2`` keep-alive interval."""
    auto_approve_oauth: bool = False
    """``GET /oauth`` with a ``username`` hint redirects at once, as if the user approved."""
    dm_limits: bool = True
    """Apply lila's private-message budgets (:mod:`bot.sandbox.inbox`) to ``POST /inbox``
    (on, as on lichess.org; off only for a unit test that is about something else)."""
    new_conversations_per_day: int = 20
    """New conversations a day for an account over 30 days old (lila: 20)."""
    replies_per_minute: int = 20
    """Replies a minute for an account over 30 days old (lila: 20)."""
    export_throttle: bool = True
    """Stream the game exports at lila's pace, in real time: a user's games at 20 a second, 30
    with a token (``Game.apiExportByUser``: ``MaxPerSecond``), games by ids at 30 a second
    (``Game.exportByIds``). On, as on lichess.org; off only for a unit test about something
    else."""
    rate_limits: bool = True
    """Apply lila's rate limits on open challenges, broadcasts and team updates
    (:mod:`bot.sandbox.limits`); on, as on lichess.org."""
    refuse_challenges: str | None = None
    """While set, ``POST /api/challenge/open`` answers 400 with this text (a form lila would
    refuse for a reason the sandbox does not model)."""
    down_from: dt.datetime | None = None
    """With ``down_until``: when the outage begins (``None``: it already has)."""
    down_until: dt.datetime | None = None
    """While the sandbox's clock is before this, every API request (streams included) answers
    ``server_error_status``: Lichess down for a span of the fake clock
    (:meth:`SandboxState.outage`)."""


@dataclass
class StreamListener:
    users: frozenset[str]
    queue: asyncio.Queue[GameJson | None] = field(default_factory=asyncio.Queue)

    def wants(self, game: GameJson) -> bool:
        white, black = game.user_ids
        return white in self.users and black in self.users


def _system_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class SandboxState:
    """Everything the fake Lichess knows. Mutate it directly or through the admin API.

    ``now`` is the sandbox's clock (the system time by default; tests and the demo pass their
    fake clock's ``now``).
    """

    def __init__(self, *, now: Callable[[], dt.datetime] | None = None) -> None:
        self.now = now or _system_now
        self.users: dict[str, User] = {}
        """By user id (the username in lower case)."""
        self.games: dict[str, GameJson] = {}
        self._by_user: dict[str, list[str]] = {}
        self._indexed = 0
        """How many of ``games`` ``_by_user`` covers (games are never removed)."""
        self.inbox: list[InboxMessage] = []
        self.team_updates: list[TeamUpdate] = []
        self.tokens: dict[str, Token] = {}
        self.codes: dict[str, OAuthCode] = {}
        self.team_leaders: dict[str, set[str]] = {}
        self.team_members: dict[str, dict[str, dt.datetime]] = {}
        """By team: each member's id and when they joined (its leaders are members too)."""
        self.without_updates: set[tuple[str, str]] = set()
        """(team, leader) pairs: leaders without the team permission "Updates" (lila's
        ``PmAll``), whose team updates are refused with a redirect."""
        self.messaging = Messaging()
        self.knobs = Knobs()
        self.listeners: list[StreamListener] = []
        self.requests: list[tuple[str, str]] = []
        """Every API request as (method, path), oldest first."""
        self.in_flight = 0
        self.max_in_flight = 0
        """Most REST requests (streams aside) the sandbox was answering at once."""
        self._ids = itertools.count(1)
        self.challenges: dict[str, OpenChallenge] = {}
        """Open challenges by id (:mod:`bot.sandbox.challenges`)."""
        self.broadcasts: dict[str, BroadcastTour] = {}
        """Broadcast tournaments by id, with their rounds (:mod:`bot.sandbox.broadcasts`)."""
        self.offboard: list[OffBoardGame] = []
        """History games against the AI or anonymous players (:mod:`bot.sandbox.history`)."""
        self._streams_cut = False
        self.exports_running = 0
        """Game exports being answered now (lila allows 2 at once per IP)."""
        self.export_pauses = 0
        """Seconds the exports waited for lila's pace (:attr:`Knobs.export_throttle`)."""
        self._live: dict[str, GameJson] = {}
        """The games going on, by id."""
        self.refusals: Counter[str] = Counter()
        """Calls lila's contract refused (a missing scope, an unknown token, a rejected message,
        a form lila would not take), by ``"STATUS path"``: what the demo prints (goal 0)."""
        self.limits = RateLimits()
        """lila's rate limits beyond the message budgets (:mod:`bot.sandbox.limits`)."""
        self.unsubscribed: dict[str, set[str]] = {}
        """By team: members who unsubscribed from its updates (they do not see them)."""

    # --- the contract ----------------------------------------------------------------------

    def refused(self, path: str, status: int) -> None:
        """Count one call lila's contract refused."""
        self.refusals[f"{status} {path}"] += 1

    def within_limit(self, name: str, key: str, *, cost: int = 1) -> bool:
        """Spend ``cost`` of lila's limit ``name`` for ``key`` now (always, with the knob
        ``rate_limits`` off); False: over it (answer 429)."""
        return not self.knobs.rate_limits or self.limits.allow(name, key, self.now(), cost=cost)

    def sender(self, uid: str) -> Sender:
        """What the message budget needs of an account (an unknown one: new, not a BOT)."""
        user = self.users.get(uid)
        if user is None:
            return Sender(id=uid, created_at=self.now())
        return Sender(id=uid, created_at=from_millis(user.createdAt), bot=user.title == "BOT")

    def relay_tick(self) -> None:
        """lila's broadcast jobs at the sandbox's now (:mod:`bot.sandbox.broadcasts`): rounds
        start, stop after an idle hour, finish; a round that starts syncing shows the games
        of its players going on."""
        now = self.now()
        for tour in self.broadcasts.values():
            for rnd in tour.rounds:
                syncing = rnd.syncing(now)
                rnd.tick(now)
                if rnd.syncing(now) and not syncing:
                    for game in self._live.values():
                        if rnd.follows(*game.user_ids):
                            rnd.see(game.id, now)

    def round_shows_its_games(self, rnd: BroadcastRound) -> bool:
        """Whether ``rnd`` showed every challenge game (not aborted) between two of its players
        that started after it was made and before the next round (of any tour) was."""
        later = [
            r.created_at
            for t in self.broadcasts.values()
            for r in t.rounds
            if r.created_at > rnd.created_at
        ]
        end = min(later) if later else None
        for challenge in self.challenges.values():
            game = self.games.get(challenge.game_id or "")
            if game is None or game.status in ("created", "aborted"):
                continue
            created = from_millis(game.createdAt)
            if created < rnd.created_at or (end is not None and created >= end):
                continue
            if rnd.follows(*game.user_ids) and game.id not in rnd.shown:
                return False
        return True

    def is_down(self) -> bool:
        """Whether Lichess is down now (:attr:`Knobs.down_from` to :attr:`Knobs.down_until`):
        the first look inside the span cuts the open games streams."""
        knobs, now = self.knobs, self.now()
        down = (
            knobs.down_until is not None
            and now < knobs.down_until
            and (knobs.down_from is None or knobs.down_from <= now)
        )
        if down and not self._streams_cut:
            self.drop_streams()
        self._streams_cut = down
        return down

    def outage(self, until: dt.datetime, *, start: dt.datetime | None = None) -> None:
        """Lichess is down from ``start`` (now by default) until ``until`` (of the sandbox's
        clock): every API call answers 5xx, the open games streams are cut, and a game that
        moves meanwhile goes out on no stream."""
        self.knobs.down_from, self.knobs.down_until = start, until
        self.is_down()

    # --- feeding -------------------------------------------------------------------------

    def add_user(
        self,
        username: str,
        *,
        created_at: dt.datetime | None = None,
        title: Title | None = None,
        tos_violation: bool = False,
        disabled: bool = False,
        online: bool = False,
        antichess_rating: int = 1500,
        antichess_games: int = 0,
    ) -> User:
        user = User(
            id=user_id(username),
            username=username.strip(),
            createdAt=millis(created_at or dt.datetime(2020, 1, 1, tzinfo=dt.UTC)),
            perfs={"antichess": Perf(games=antichess_games, rating=antichess_rating)},
            title=title,
            tosViolation=tos_violation,
            disabled=disabled,
            online=online,
        )
        self.users[user.id] = user
        return user

    def add_token(
        self, user: str, *, token: str | None = None, scopes: Iterable[str] = ALL_SCOPES
    ) -> str:
        """Register a personal API token for ``user`` and return it."""
        uid = user_id(user)
        if uid not in self.users:
            self.add_user(user)
        value = token or "lip_" + _random_text(20)
        self.tokens[value] = Token(user=uid, scopes=frozenset(scopes))
        return value

    def make_team(self, team_id: str, *, leaders: Iterable[str]) -> None:
        self.team_leaders[team_id] = {user_id(u) for u in leaders}
        members = self.team_members.setdefault(team_id, {})
        for leader in self.team_leaders[team_id]:
            members.setdefault(leader, self.now())

    def join_team(self, team_id: str, user: str) -> None:
        """``user`` joins ``team_id`` (made with no leader if it does not exist)."""
        self.team_leaders.setdefault(team_id, set())
        self.team_members.setdefault(team_id, {}).setdefault(user_id(user), self.now())

    def leads_team_of(self, sender: str, member: str) -> bool:
        """Whether ``sender`` leads a team ``member`` belongs to (lila: ``IsLeaderOf``)."""
        return any(
            sender in leaders and member in self.team_members.get(team, {})
            for team, leaders in self.team_leaders.items()
        )

    def teams_of(self, user: str) -> list[str]:
        uid = user_id(user)
        return sorted(t for t, members in self.team_members.items() if uid in members)

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
    ) -> GameJson:
        """A challenge accepted but not yet started (status ``created``, not streamed).

        The players' ratings are their current ones for the game's perf. Raises ``ValueError``
        for a game id in use or what :func:`~bot.sandbox.schemas.make_game` refuses.
        """
        gid = game_id or self._new_game_id()
        if gid in self.games:
            raise ValueError(f"game {gid} exists")
        clock = None if clock_limit is None else (clock_limit, clock_increment or 0)
        perf = perf_of(variant_key(variant), GameClock(*clock) if clock is not None else None)
        white_user, black_user = self._user(white), self._user(black)
        return self.add_game(
            make_game(
                LightUser(white_user.id, white_user.username, white_user.title),
                LightUser(black_user.id, black_user.username, black_user.title),
                id=gid,
                created_at=created_at or self.now(),
                variant=variant,
                rated=rated,
                clock=clock,
                ratings=(white_user.rating(perf), black_user.rating(perf)),
            )
        )

    def add_game(self, game: GameJson) -> GameJson:
        """Put ``game`` as it is (a history for the exports; not streamed). Its players get an
        account if they have none. Raises ``ValueError`` for a game id in use."""
        if game.id in self.games:
            raise ValueError(f"game {game.id} exists")
        for player in (game.players.white, game.players.black):
            if player.user.id not in self.users:
                self.add_user(player.user.name)
        self.games[game.id] = game
        if self._indexed == len(self.games) - 1:
            self._index(game)
        return game

    def start_game(self, game_id: str | None = None, /, **create: object) -> GameJson:
        """Start a created game, or create and start one (``create`` as in :meth:`create_game`).

        The started game goes out on every stream watching both players.
        """
        game = self.create_game(**create) if game_id is None else self._game(game_id)  # type: ignore[arg-type]
        if game.status != "created":
            raise ValueError(f"game {game.id} is {game.status}, not created")
        started = replace(game, status="started", lastMoveAt=game.createdAt)
        self.games[started.id] = started
        self._publish(started)
        return started

    def finish_game(
        self,
        game_id: str,
        *,
        status: str = "resign",
        winner: str | None = None,
        at: dt.datetime | None = None,
    ) -> GameJson:
        """End a started game with ``status`` (a ``GameStatusName``) and ``winner`` (``white``,
        ``black``, or ``None`` for a draw or no result).

        A rated game with a result moves both players' ratings for the game's perf.
        """
        game = self._game(game_id)
        if is_finished(game.status):
            raise ValueError(f"game {game.id} is already finished")
        name, side = game_status(status), game_color(winner)
        if not is_finished(name):
            raise ValueError(f"{name} is not a finishing status")
        diffs: tuple[int | None, int | None] = (None, None)
        if game.rated and is_rating_result(name):
            diffs = _rating_diffs(side)
        players = game.players
        finished = replace(
            game,
            status=name,
            winner=side,
            lastMoveAt=millis(at or self.now()),
            players=replace(
                players,
                white=replace(players.white, ratingDiff=diffs[0]),
                black=replace(players.black, ratingDiff=diffs[1]),
            ),
        )
        self.games[finished.id] = finished
        if finished.clock is not None and name != "aborted":  # lila's Finisher.incNbGames
            seconds = (finished.lastMoveAt - finished.createdAt) // 1000 + 2
            for uid in set(finished.user_ids):
                if uid in self.users:
                    self.users[uid].playTime += max(2, seconds)
        for uid, diff in zip(finished.user_ids, diffs, strict=True):
            if diff is not None:
                user = self.users[uid]
                perf = user.perfs.get(game.perf, Perf(games=0, rating=1500))
                user.perfs[game.perf] = replace(
                    perf, games=perf.games + 1, rating=perf.rating + diff
                )
        self._publish(finished)
        return finished

    def add_finished_game(
        self,
        white: str,
        black: str,
        *,
        status: str = "resign",
        winner: str | None = "white",
        created_at: dt.datetime | None = None,
        **create: object,
    ) -> GameJson:
        """Create, start and finish a game in one step (history for exports)."""
        game = self.create_game(white, black, created_at=created_at, **create)  # type: ignore[arg-type]
        self.start_game(game.id)
        return self.finish_game(game.id, status=status, winner=winner)

    # --- reading -------------------------------------------------------------------------

    def team_feed_of(self, user: str) -> list[str]:
        """The team updates ``user`` reads in their feed: those of their teams, unless they
        unsubscribed from that team's updates."""
        uid = user_id(user)
        return [
            u.message
            for u in self.team_updates
            if uid in self.team_members.get(u.team_id, {})
            and uid not in self.unsubscribed.get(u.team_id, set())
        ]

    def abort_game(self, game_id: str) -> GameJson:
        """A started game is aborted (no result; the challenge that made it is spent)."""
        if self._game(game_id).status != "started":
            raise ValueError(f"game {game_id} is not started")
        return self.finish_game(game_id, status="aborted", winner=None)

    def inbox_of(self, user: str) -> list[str]:
        uid = user_id(user)
        return [m.text for m in self.inbox if m.to == uid]

    def games_of(self, user: str) -> list[GameJson]:
        """Every game ``user`` (an id) played or plays, as it stands now.

        The exports ask this for every request; an index by player keeps it from reading every
        game of the sandbox each time. A game put into ``games`` directly (tests do) is indexed
        at the next call.
        """
        if self._indexed != len(self.games):
            self._by_user, self._indexed = {}, 0
            for game in self.games.values():
                self._index(game)
        return [self.games[gid] for gid in self._by_user.get(user, ())]

    def _index(self, game: GameJson) -> None:
        for uid in set(game.user_ids):
            self._by_user.setdefault(uid, []).append(game.id)
        self._indexed += 1

    def playing(self, user: str) -> str | None:
        """The game ``user`` (an id) is playing now, if any."""
        for game in self.games.values():
            if game.status == "started" and user in game.user_ids:
                return game.id
        return None

    def drop_streams(self) -> None:
        """Close every open games stream now (as a Lichess restart would)."""
        for listener in self.listeners:
            listener.queue.put_nowait(None)

    # --- internals -----------------------------------------------------------------------

    def _user(self, username: str) -> User:
        """The account of ``username``; an unknown player gets one."""
        return self.users.get(user_id(username)) or self.add_user(username)

    def _game(self, game_id: str) -> GameJson:
        try:
            return self.games[game_id]
        except KeyError:
            raise KeyError(f"no game {game_id}") from None

    def _publish(self, game: GameJson) -> None:
        if game.status == "started":
            self._live[game.id] = game
        else:
            self._live.pop(game.id, None)
        if self.broadcasts:
            self.relay_tick()
            now = self.now()
            for tour in self.broadcasts.values():
                for rnd in tour.rounds:
                    if rnd.follows(*game.user_ids):
                        rnd.see(game.id, now)
        if self.is_down():
            return
        for listener in self.listeners:
            if listener.wants(game):
                listener.queue.put_nowait(game)

    def _new_game_id(self) -> str:
        while True:
            gid = f"sb{next(self._ids):06d}"
            if gid not in self.games:
                return gid


def _rating_diffs(winner: GameColor | None) -> tuple[int, int]:
    if winner is None:
        return 0, 0
    step = RATING_STEP
    return (step, -step) if winner == "white" else (-step, step)


def _random_text(length: int) -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(length))
