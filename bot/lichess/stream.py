"""Watching match games live: ``POST /api/stream/games-by-users`` with backfill after gaps.

:class:`GameWatcher` keeps one NDJSON stream open per chunk of at most 300 players (Lichess'
limit; a chunk always holds both players of a pairing, since the stream only reports games
where both players are listed). Each game is handed to ``on_game`` when it starts and when it
ends, straight from the socket, with no polling.

The stream is read with the bot's token once the token is known valid (lila's
``gamesByUsersStream`` is ``AnonOrScopedBody(...)()``: any valid token, no scope, and 500 names
instead of 300), and without it if Lichess ever refuses it.

After any gap (start-up, a dropped or refused stream, a change of players) the watcher asks the
game export for what it may have missed: per pairing ``GET /api/games/user/{a}?vs={b}&since=``
(or per player without pairings), plus ``POST /api/games/export/_ids`` for games it saw start
but not end. ``since`` is the last moment the watcher knew it was up to date, minus
``lookback`` so a game that started before the gap and ended inside it is still found.

A game is delivered at most once as started and once as finished (a finished game is never
followed by its start). The streams' lines are read as they come and handed over by one task
(:meth:`GameWatcher._drain`), in the order read: the games read while the ones before were
being taken are handed over together, ``on_batch`` first (the intake asks the export once for
every finished one: a burst of game ends was one export request a game, each queued behind the
bot's other calls to Lichess; then it stores them together), then each to ``on_game`` (which
takes on its own a game the batch did not store). That task waits on an event set by each
line read, cleared before it takes what has arrived, so a game read while a batch is taken (or
while the mark is saved after it) is always in the next batch. ``last_seen`` is loaded at
start and saved through callbacks, so a restarted service backfills from the database's notion
of "up to date". It is saved at most every ``save_every`` (10 minutes) of service time, and
after each backfill: an older mark only makes the next backfill start earlier (one export call
per pairing whatever its length), it never makes one miss a game. A game ``on_game`` fails on
(its source lookup failed, say) is kept and handed to it again with backoff until it is taken,
and the mark never passes it meanwhile: the mark moves only past games that are stored or known
to be someone else's. A game being taken when the watcher stops (the lead lost) is forgotten as
delivered and stays at the queue's front, so the watcher run again takes it.
"""

from __future__ import annotations

import asyncio
import collections
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

import aiohttp

from bot.lichess.client import LichessClient
from bot.lichess.errors import (
    LichessError,
    LichessHTTPError,
    LichessPayloadError,
    LichessTransportError,
    RateLimitedError,
    http_error,
)
from bot.lichess.games import parse_stream_line
from bot.runtime.clock import Clock
from rules.core.model import Game, GameId, PlayerId, normalise_username

__all__ = ["STREAM_USERS_LIMIT", "GameWatcher", "chunk_players"]

log = logging.getLogger(__name__)

STREAM_USERS_LIMIT = 300

Pair = tuple[PlayerId, PlayerId]
OnGame = Callable[[Game], Awaitable[None]]
OnBatch = Callable[[Sequence[Game]], Awaitable[None]]
PairsProvider = Callable[[], Awaitable[Iterable[Pair]]]
LoadLastSeen = Callable[[], Awaitable[dt.datetime | None]]
SaveLastSeen = Callable[[dt.datetime], Awaitable[None]]


def chunk_players(
    players: Iterable[PlayerId], pairs: Iterable[Pair], *, limit: int = STREAM_USERS_LIMIT
) -> list[frozenset[PlayerId]]:
    """Split players into stream lists of at most ``limit`` names.

    Both players of every pair share at least one list; every player is in some list. Groups
    of players linked by pairings are kept whole when they fit; a group larger than ``limit``
    is covered pair by pair (a player may then be in several lists).
    """
    if limit < 2:
        raise ValueError("a stream list must hold at least the two players of a game")
    edges = sorted({tuple(sorted(pair)) for pair in pairs if pair[0] != pair[1]})
    everyone = set(players)
    for a, b in edges:
        everyone.update((a, b))
    chunks: list[set[PlayerId]] = []
    for group in _linked_groups(everyone, edges):
        if len(group) <= limit:
            target = next((c for c in chunks if len(c) + len(group) <= limit), None)
            if target is None:
                chunks.append(set(group))
            else:
                target.update(group)
        else:
            _cover_pair_by_pair(chunks, group, edges, limit)
    return [frozenset(c) for c in chunks]


def _linked_groups(
    everyone: set[PlayerId], edges: Sequence[tuple[PlayerId, ...]]
) -> list[set[PlayerId]]:
    """The players linked by pairings, group by group (union-find), largest first."""
    parent = {p: p for p in everyone}

    def find(p: PlayerId) -> PlayerId:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[PlayerId, set[PlayerId]] = collections.defaultdict(set)
    for p in everyone:
        groups[find(p)].add(p)
    return sorted(groups.values(), key=lambda g: (-len(g), min(g)))


def _cover_pair_by_pair(
    chunks: list[set[PlayerId]],
    group: set[PlayerId],
    edges: Sequence[tuple[PlayerId, ...]],
    limit: int,
) -> None:
    """A group larger than ``limit``: each of its pairs put in a list that holds both players
    (a player may then be in several lists)."""
    for a, b in edges:
        if a not in group or any(a in c and b in c for c in chunks):
            continue
        fitting = next((c for c in chunks if len(c | {a, b}) <= limit), None)
        if fitting is None:
            chunks.append({a, b})
        else:
            fitting.update((a, b))


@dataclass
class _Stream:
    players: frozenset[PlayerId]
    pairs: tuple[Pair, ...]
    seen_at: dt.datetime | None
    backfill_from: dt.datetime | None = None
    open: bool = False
    backfill_task: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def safe_point(self) -> dt.datetime | None:
        return self.backfill_from if self.backfill_from is not None else self.seen_at


class GameWatcher:
    """Deliver every game between the watched players to ``on_game``, once per state.

    ``pairs_provider`` returns the current pairings (used to keep pairs in one stream list and
    to backfill per pairing with ``vs``); without it the backfill asks per player.
    ``load_last_seen``/``save_last_seen`` persist the moment up to which every game is known.
    """

    def __init__(
        self,
        *,
        client: LichessClient,
        clock: Clock,
        on_game: OnGame,
        on_batch: OnBatch | None = None,
        players: Iterable[PlayerId] = (),
        pairs_provider: PairsProvider | None = None,
        load_last_seen: LoadLastSeen | None = None,
        save_last_seen: SaveLastSeen | None = None,
        session: aiohttp.ClientSession | None = None,
        base_url: str | None = None,
        lookback: dt.timedelta = dt.timedelta(hours=1),
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        stall_timeout: float = 300.0,
        save_every: dt.timedelta = dt.timedelta(minutes=10),
        chunk_limit: int = STREAM_USERS_LIMIT,
        dedup_capacity: int = 100_000,
    ) -> None:
        self._client = client
        self._clock = clock
        self._on_game = on_game
        self._on_batch = on_batch
        self._players = frozenset(normalise_username(p) for p in players)
        self._pairs_provider = pairs_provider
        self._load_last_seen = load_last_seen
        self._save_last_seen = save_last_seen
        self._session = session
        self._base_url = (base_url or client.base_url).rstrip("/")
        self._lookback = lookback
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._stall_timeout = stall_timeout
        self._save_every = save_every
        self._chunk_limit = chunk_limit
        self._dedup_capacity = dedup_capacity
        self._restart = asyncio.Event()
        self._delivered: collections.OrderedDict[GameId, bool] = collections.OrderedDict()
        self._ongoing: dict[GameId, Game] = {}
        self._unsettled: dict[GameId, Game] = {}
        """Games ``on_game`` failed on (a lookup failed, the database was away): tried again
        until it takes them, and the last-seen mark stays before them meanwhile."""
        self._retrying: asyncio.Task[None] | None = None
        self._arrived: collections.deque[Game] = collections.deque()
        """Games read from a stream and not yet handed over (:meth:`_drain` takes them)."""
        self._in_hand: list[Game] = []
        """The batch :meth:`_drain` is handing over: the mark stays before these too."""
        self._arrival = asyncio.Event()
        """Set by each game read; :meth:`_drain` clears it before it takes what arrived."""
        self._anonymous = False
        """Lichess refused the token on the stream once: it is read without one since."""
        self._streams: list[_Stream] = []
        self._last_seen: dt.datetime | None = None
        self._saved: dt.datetime | None = None
        self.connections = 0
        """How many times a stream was (re)connected: for tests and the bench."""
        self.connected = asyncio.Event()
        """Set while every stream is open (tests wait on it before making a game start)."""
        self.idle = asyncio.Event()
        """Set while no game read from the streams waits to be taken nor is being taken (the
        deadline runner lets a burst's games be stored before it fires what they caused:
        :meth:`settled`)."""
        self.idle.set()
        self._spell = 0
        """How many times the watcher went from idle to busy (the busy spell's number)."""
        self._waited_out = -1
        """The busy spell :meth:`settled` waited its longest for already."""

    # --- control -------------------------------------------------------------------------

    @property
    def players(self) -> frozenset[PlayerId]:
        return self._players

    @property
    def last_seen(self) -> dt.datetime | None:
        """The moment up to which every game is known to have been delivered."""
        return self._last_seen

    @property
    def pending(self) -> int:
        """Games read from the streams and not yet handed to ``on_game`` (those of the batch
        being handed over included)."""
        return len(self._arrived) + len(self._in_hand)

    def set_players(self, players: Iterable[PlayerId]) -> None:
        """Watch these players from now on; restarts the streams if the set changed, or if
        they are split over several streams: each carries whole pairs (lila streams the games
        between its listed players), and the pairs may have changed (a new round of the same
        players: 512 players' second round was not seen across the two lists)."""
        new = frozenset(normalise_username(p) for p in players)
        if new != self._players or len(self._streams) > 1:
            self._players = new
            self.restart()

    def restart(self) -> None:
        """Reopen the streams (e.g. after the pairings changed), with a backfill."""
        self._restart.set()

    async def wait_backfilled(self) -> None:
        """Return when no backfill is pending (tests and the bench wait on this)."""
        while pending := [
            s.backfill_task
            for s in self._streams
            if s.backfill_task is not None and not s.backfill_task.done()
        ]:
            await asyncio.wait(pending)

    # --- running -------------------------------------------------------------------------

    async def run(self) -> None:
        """Watch until cancelled. Stream failures are retried; a bug in a stream task raises."""
        owned = self._session is None
        session = self._session or aiohttp.ClientSession()
        drain: asyncio.Task[None] | None = None
        try:
            if self._load_last_seen is not None:
                self._last_seen = await self._load_last_seen()
                self._saved = self._last_seen
            drain = asyncio.create_task(self._drain())
            while True:
                self._restart.clear()
                self.connected.clear()
                streams = await self._plan_streams()
                if not streams:
                    await self._restart.wait()
                    continue
                await self._run_streams(session, streams, drain)
        finally:
            self.connected.clear()
            self.idle.set()  # (nothing is taken while the watcher is stopped)
            if drain is not None:
                drain.cancel()
                await asyncio.gather(drain, return_exceptions=True)
            if owned:
                await session.close()

    async def settled(self, longest: float) -> None:
        """Until no game read from the streams waits to be taken (the deadline runner lets a
        burst's games be stored before it fires what the first of them caused), at most
        ``longest`` seconds once a busy spell: a spell that outlasts it (a game whose export
        lila's rate limit holds, say) holds up no later deadline."""
        if self.idle.is_set() or self._waited_out == self._spell:
            return
        spell = self._spell
        try:
            async with asyncio.timeout(longest):
                await self.idle.wait()
        except TimeoutError:
            self._waited_out = spell

    async def _plan_streams(self) -> list[_Stream]:
        pairs: list[Pair] = []
        if self._pairs_provider is not None:
            pairs = [
                (normalise_username(a), normalise_username(b))
                for a, b in await self._pairs_provider()
            ]
        pairs = [p for p in pairs if p[0] in self._players and p[1] in self._players]
        chunks = chunk_players(self._players, pairs, limit=self._chunk_limit)
        if self._pairs_provider is None and len(chunks) > 1:
            log.warning(
                "watching %d players without pairings: games across stream lists are missed",
                len(self._players),
            )
        return [
            _Stream(
                players=chunk,
                pairs=tuple(sorted(p for p in pairs if p[0] in chunk and p[1] in chunk)),
                seen_at=self._last_seen,
            )
            for chunk in sorted(chunks, key=lambda c: sorted(c))
        ]

    async def _run_streams(
        self, session: aiohttp.ClientSession, streams: list[_Stream], drain: asyncio.Task[None]
    ) -> None:
        self._streams = streams
        tasks = [asyncio.create_task(self._keep_streaming(session, s)) for s in streams]
        restart = asyncio.create_task(self._restart.wait())
        try:
            done, _ = await asyncio.wait(
                [restart, drain, *tasks], return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                if task is not restart:
                    task.result()  # a stream task or the drain only ends by a bug (or the
                    # database away while the mark is saved): raise it, the watcher restarts
        finally:
            for s in streams:
                if s.backfill_task is not None:
                    s.backfill_task.cancel()
            for task in [restart, *tasks]:
                task.cancel()
            await asyncio.gather(
                *tasks,
                restart,
                *(s.backfill_task for s in streams if s.backfill_task is not None),
                return_exceptions=True,
            )
            self._streams = []

    async def _keep_streaming(self, session: aiohttp.ClientSession, stream: _Stream) -> None:
        failures = 0
        while True:
            try:
                lines = await self._stream_once(session, stream)
                # a stream that closes before saying anything counts as a failure, so a
                # Lichess that keeps hanging up is not hammered (nor its export, by backfills)
                failures = 0 if lines else failures + 1
                if lines:
                    self._client.note_stream(None)
                log.info("games stream closed by Lichess after %d lines; reconnecting", lines)
            except RateLimitedError:
                log.warning("games stream rate limited: every call waits a minute")
                self._client.note_rate_limit()
                await self._clock.sleep(60)
                continue
            except (LichessError, aiohttp.ClientError, TimeoutError) as e:
                failures += 1
                self._client.note_stream(e)
                log.warning("games stream failed (%s); reconnecting", _describe(e))
            delay = min(self._backoff_max, self._backoff_initial * 2 ** max(0, failures - 1))
            await self._clock.sleep(delay)

    async def _stream_once(self, session: aiohttp.ClientSession, stream: _Stream) -> int:
        """Read one connection to its end; return how many non-empty lines it carried."""
        url = f"{self._base_url}/api/stream/games-by-users"
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=self._stall_timeout)
        body = ",".join(sorted(stream.players))
        token = {} if self._anonymous else self._client.stream_headers()
        async with session.post(
            url,
            data=body,
            params={"withCurrentGames": "true"},
            headers={"Content-Type": "text/plain", "Accept": "application/x-ndjson", **token},
            timeout=timeout,
        ) as resp:
            if resp.status != 200:
                if token and resp.status in (401, 403):
                    self._anonymous = True  # the token went bad: read it without one
                raise http_error(resp.status, await resp.text())
            self.connections += 1
            self._start_backfill(stream)
            stream.open = True
            if all(s.open for s in self._streams):
                self.connected.set()
            lines = 0
            try:
                async for line in resp.content:
                    self._mark_seen(stream)
                    if line.strip():
                        lines += 1
                    try:
                        game = parse_stream_line(line)
                    except LichessPayloadError as e:
                        log.warning("skipping a malformed games stream line: %s", e)
                        continue
                    if game is not None:
                        self._arrive(game)
                    await self._maybe_save()
            except aiohttp.ClientPayloadError as e:
                raise LichessTransportError("games stream cut mid-line") from e
            finally:
                stream.open = False
                self.connected.clear()
            return lines

    def _mark_seen(self, stream: _Stream) -> None:
        stream.seen_at = self._clock.now()

    def _start_backfill(self, stream: _Stream) -> None:
        if stream.backfill_from is not None:
            # an earlier gap's backfill has not finished: redo it from the same point, since
            # it may already be past its fetch and this new gap came after.
            since = stream.backfill_from
        else:
            since = (stream.seen_at or self._clock.now()) - self._lookback
        stream.seen_at = self._clock.now()
        if stream.backfill_task is not None and not stream.backfill_task.done():
            stream.backfill_task.cancel()
        stream.backfill_from = since
        stream.backfill_task = asyncio.create_task(self._backfill(stream, since))

    async def _backfill(self, stream: _Stream, since: dt.datetime) -> None:
        failures = 0
        while True:
            try:
                games = await self._fetch_missed(stream, since)
                break
            except LichessError as e:
                failures += 1
                delay = min(self._backoff_max, self._backoff_initial * 2 ** (failures - 1))
                log.error("games backfill since %s failed (%s); again in %.1fs", since, e, delay)
                await self._clock.sleep(delay)
        await self._deliver_all(sorted(games, key=lambda g: (g.created_at, g.id)))
        stream.backfill_from = None
        await self._maybe_save(force=True)

    async def _fetch_missed(self, stream: _Stream, since: dt.datetime) -> list[Game]:
        found: dict[GameId, Game] = {}
        if stream.pairs:
            for a, b in stream.pairs:
                for game in await self._client.export_games(a, since=since, vs=b):
                    found[game.id] = game
        else:
            for player in sorted(stream.players):
                for game in await self._client.export_games(player, since=since):
                    if game.white in stream.players and game.black in stream.players:
                        found[game.id] = game
        ongoing = sorted(
            gid
            for gid, g in self._ongoing.items()
            if gid not in found and g.white in stream.players and g.black in stream.players
        )
        if ongoing:
            for game in await self._client.export_games_by_ids(ongoing):
                if game.status.is_finished:
                    found[game.id] = game
        return list(found.values())

    def _arrive(self, game: Game) -> None:
        """A game read from a stream: :meth:`_drain` hands it over after those read before it
        (the reader reads on meanwhile, so a burst of game ends makes one batch)."""
        self._arrived.append(game)
        if self.idle.is_set():
            self._spell += 1
            self.idle.clear()
        self._arrival.set()

    async def _drain(self) -> None:
        """Until cancelled: hand over what the streams read, a batch at a time. The event is
        cleared before the batch is taken and the queue looked at again after every await, so
        a game that arrives at any point is in this batch or the next: none waits for another
        game's arrival to be taken."""
        if self._arrived:  # left by a run that stopped (the lead lost, a failure)
            self._arrival.set()
        while True:
            await self._arrival.wait()
            self._arrival.clear()
            while self._arrived:
                self._in_hand = list(self._arrived)
                self._arrived.clear()
                try:
                    await self._deliver_all(self._in_hand)
                except BaseException:
                    # stopped mid-batch: what was not handed over goes back to the queue's
                    # front (a delivered game is not handed over twice: _deliver skips it)
                    self._arrived.extendleft(reversed(self._in_hand))
                    raise
                finally:
                    self._in_hand = []
                await self._maybe_save()
            self.idle.set()

    async def _deliver_all(self, games: Sequence[Game]) -> None:
        """Hand ``games`` over in order; ``on_batch`` first sees those not yet handed over in
        that state, when there are several."""
        fresh = [g for g in games if self._is_new(g)]
        if self._on_batch is not None and len(fresh) > 1:
            try:
                await self._on_batch(fresh)
            except asyncio.CancelledError:
                raise
            except Exception:  # each game it did not store is taken on its own after it
                log.exception("on_batch failed for %d games", len(fresh))
        for game in games:
            await self._deliver(game)

    def _is_new(self, game: Game) -> bool:
        previous = self._delivered.get(game.id)
        return previous is None or (previous is False and game.status.is_finished)

    async def _deliver(self, game: Game) -> None:
        finished = game.status.is_finished
        previous = self._delivered.get(game.id)
        if previous is True or (previous is False and not finished):
            self._unsettled.pop(game.id, None)  # a later state of it was taken
            return
        self._delivered[game.id] = finished
        self._delivered.move_to_end(game.id)
        while len(self._delivered) > self._dedup_capacity:
            self._delivered.popitem(last=False)
        if finished:
            self._ongoing.pop(game.id, None)
        else:
            self._ongoing[game.id] = game
        try:
            await self._on_game(game)
        except asyncio.CancelledError:
            # Stopped while taking it (the lead lost): its transaction rolled back, so the
            # delivery is forgotten and the next run's backfill or queue brings it again.
            self._forget(game.id, previous)
            raise
        except Exception:
            # Forget the delivery so a backfill or a repeated line can bring it again, and
            # keep it to try again: the last-seen mark does not pass it meanwhile.
            self._forget(game.id, previous)
            log.exception("on_game failed for game %s; it is tried again", game.id)
            self._unsettled[game.id] = game
            if self._retrying is None or self._retrying.done():
                self._retrying = asyncio.create_task(self._retry_unsettled())
        else:
            self._unsettled.pop(game.id, None)

    def _forget(self, game_id: GameId, previous: bool | None) -> None:
        if previous is None:
            self._delivered.pop(game_id, None)
        else:
            self._delivered[game_id] = previous

    async def _retry_unsettled(self) -> None:
        """Hand the games ``on_game`` failed on to it again, with backoff, until it takes them
        all (a game lost this way would be lost for good once the mark passed it)."""
        failures = 0
        while self._unsettled:
            failures += 1
            delay = min(self._backoff_max, self._backoff_initial * 2 ** (failures - 1))
            await self._clock.sleep(delay)
            for game in list(self._unsettled.values()):
                await self._deliver(game)
        await self._maybe_save(force=True)

    async def _maybe_save(self, *, force: bool = False) -> None:
        points = [s.safe_point for s in self._streams]
        if not points or any(p is None for p in points):
            return
        point = min(p for p in points if p is not None)
        waiting = [*self._unsettled.values(), *self._arrived, *self._in_hand]
        if waiting:  # never past a game not yet stored nor known to be someone else's
            point = min(point, *(g.created_at for g in waiting))
        self._last_seen = point
        if self._save_last_seen is None:
            return
        if self._saved is not None and point <= self._saved:
            return
        if not force and self._saved is not None and point - self._saved < self._save_every:
            return
        self._saved = point
        await self._save_last_seen(point)


def _describe(e: BaseException) -> str:
    if isinstance(e, LichessHTTPError):
        return f"HTTP {e.status}"
    return f"{e.__class__.__name__}: {e}"
