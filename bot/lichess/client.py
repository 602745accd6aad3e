"""The Lichess REST client: berserk calls, one at a time, in one worker thread.

Lichess asks API clients to make one request at a time and, after a 429, to wait a full minute.
So every call goes through one queue (:class:`_Turns`: first come, first served, but the export
of finished games by id goes before the calls waiting, so a game's result is not recorded after
the DMs and challenges queued meanwhile) into one worker thread where berserk (blocking
``requests``) runs. A 429 pauses the whole queue
for ``rate_limit_pause`` on the service :class:`Clock`, then the same request is tried again, so
nothing is lost; 5xx answers and transport errors are retried with capped exponential backoff.
Every request has a timeout (berserk sets none). The pause is also written to a
:class:`PauseBoard` (a row of the database) when one is given, so every process on the database
keeps the same minute. A 429 from ``POST /inbox`` is not that: it is lila's budget of the bot's
messages, so it pauses nothing and reaches the caller as :class:`InboxLimitedError` (the outbox
delays that recipient's messages); a 400 there is :class:`MessageRefusedError`, and 401/403
anywhere :class:`AuthorizationError`.
Every request has a timeout (berserk sets none). A streamed answer (the NDJSON game exports) reads
with ``stream_timeout``, above the keep-alive interval of Lichess's exports
(:data:`bot.config.LICHESS_KEEPALIVE_SECONDS`): a slow filtered export sends a blank line only
that often.
A game against the AI or an anonymous player in an export is skipped, never an error, and so is
the export's ``{}`` keep-alive line.

The fields berserk lacks (an open challenge's ``users``, broadcasts) go through :meth:`post_form`
(raw HTTP on the same queue), read by :mod:`bot.lichess.challenges` and
:mod:`bot.lichess.broadcasts`.

Callers get typed values (:class:`LichessUser`, :class:`UserStatus`, :class:`rules.core.model.Game`)
and :mod:`bot.lichess.errors` exceptions; no berserk or requests object leaves this module.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
import functools
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import berserk
import requests
import requests.auth
from berserk.exceptions import ApiError, ResponseError
from berserk.formats import JSON, NDJSON, TEXT
from berserk.session import Requestor

from bot.lichess.errors import (
    InboxLimitedError,
    LichessError,
    LichessHTTPError,
    LichessPayloadError,
    LichessTransportError,
    MessageRefusedError,
    MissingScopeError,
    NoUpdatesPermissionError,
    RateLimitedError,
    http_error,
)
from bot.lichess.games import NotBetweenUsers, game_from_export, to_millis
from bot.lichess.types import LichessUser, UserStatus, status_from_json, user_from_json
from bot.runtime.clock import Clock
from rules.core.model import Game, GameId

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_STREAM_TIMEOUT", "LichessClient", "PauseBoard", "TokenInfo"]

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://lichess.org"
EXPORT_IDS_LIMIT = 300
STATUS_IDS_LIMIT = 100
USERS_IDS_LIMIT = 300
"""``POST /api/users`` reads the first 300 names of a request (lila's ``Api.usersByIds``)."""
DEFAULT_STREAM_TIMEOUT = 90.0
"""Above :data:`~bot.config.LICHESS_KEEPALIVE_SECONDS`, the export's keep-alive interval."""
SHARED_PAUSE_READ = dt.timedelta(seconds=1)

T = TypeVar("T")


class PauseBoard(Protocol):
    """Where the pause after a 429 is kept for every process (a database row)."""

    async def paused_until(self) -> dt.datetime | None: ...

    async def pause(self, until: dt.datetime) -> None: ...


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """What ``POST /api/token/test`` says of the bot's token (``user`` None: not valid)."""

    user: str | None
    scopes: frozenset[str]

    def missing(self, needed: Iterable[str]) -> list[str]:
        return sorted(set(needed) - self.scopes) if self.user is not None else sorted(needed)


class _Turns:
    """One request at a time, in the order asked, but a ``first`` one goes before the others
    waiting (never before the one under way)."""

    def __init__(self) -> None:
        self._busy = False
        self._first: collections.deque[asyncio.Future[None]] = collections.deque()
        self._rest: collections.deque[asyncio.Future[None]] = collections.deque()

    @contextlib.asynccontextmanager
    async def turn(self, *, first: bool = False) -> AsyncIterator[None]:
        if self._busy:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            line = self._first if first else self._rest
            line.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._next()  # the turn was handed over as this was cancelled: pass it on
                elif waiter in line:
                    line.remove(waiter)
                raise
        self._busy = True
        try:
            yield
        finally:
            self._next()

    def _next(self) -> None:
        """The turn to the next waiting (it stays taken), else free."""
        for line in (self._first, self._rest):
            while line:
                waiter = line.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._busy = False


class _WithoutToken(requests.auth.AuthBase):
    """Takes the session's token off one request."""

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers.pop("Authorization", None)
        return request


class _Session(requests.Session):
    """A requests session that carries the bot token and a default timeout on every call: a
    streamed answer reads with ``stream_timeout`` (it may be silent up to Lichess's keep-alive
    interval), everything else with ``timeout``."""

    def __init__(self, token: str | None, timeout: float, stream_timeout: float) -> None:
        super().__init__()
        self._default_timeout = timeout
        self._stream_timeout = stream_timeout
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("timeout") is None:
            read = self._stream_timeout if kwargs.get("stream") else self._default_timeout
            kwargs["timeout"] = (self._default_timeout, read)
        return super().request(method, url, *args, **kwargs)


class LichessClient:
    """Typed, serialised access to the Lichess REST API with the bot's token.

    ``base_url`` is ``https://lichess.org`` or the sandbox root (berserk drops any path in it).
    Use as ``async with LichessClient(...) as client`` or call :meth:`aclose`.
    """

    def __init__(
        self,
        *,
        base_url: str = DEFAULT_BASE_URL,
        token: str | None,
        clock: Clock,
        timeout: float = 30.0,
        stream_timeout: float = DEFAULT_STREAM_TIMEOUT,
        max_attempts: int = 5,
        max_rate_limit_waits: int = 5,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        rate_limit_pause: dt.timedelta = dt.timedelta(seconds=60),
        pause_board: PauseBoard | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.base_url = base_url.rstrip("/")
        self._clock = clock
        self._max_attempts = max_attempts
        self._max_rate_limit_waits = max_rate_limit_waits
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._rate_limit_pause = rate_limit_pause
        self._board = pause_board
        self._sharing: set[asyncio.Task[None]] = set()
        self._board_read_at: dt.datetime | None = None
        self._token = token
        self.scopes: frozenset[str] | None = None
        """The token's scopes once :meth:`test_token` answered."""
        self._session = _Session(token, timeout, stream_timeout)
        self._berserk = berserk.Client(session=self._session, base_url=self.base_url)
        # berserk's Teams.message_all_members passes an unknown ``payload`` kwarg to
        # requests and always fails; team updates go through a plain Requestor instead.
        self._requestor: Requestor[Any] = Requestor(self._session, self.base_url, JSON)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lichess-rest")
        self._queue = _Turns()
        self._paused_until: dt.datetime | None = None
        self.requests_made = 0
        self.answers: Counter[tuple[str, str]] = Counter()
        """Requests by (endpoint method, answer): ``ok``, the HTTP status, or the failure
        (``transport``, ``payload``): what ``/metrics`` reports."""
        self.unreachable_since: dt.datetime | None = None
        """Since when every request failed to reach Lichess (no answer, or a 5xx), ``None``
        once one is answered: what ``/healthz`` reports."""
        self.unreachable_reason = ""

    def __repr__(self) -> str:  # never show the token
        return f"LichessClient(base_url={self.base_url!r})"

    async def __aenter__(self) -> LichessClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for task in list(self._sharing):  # a pause nobody is left to keep
            task.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._session.close()

    @property
    def paused_until(self) -> dt.datetime | None:
        """When the queue resumes after a 429 (``None`` when not paused)."""
        if self._paused_until is not None and self._paused_until <= self._clock.now():
            return None
        return self._paused_until

    def note_rate_limit(self) -> None:
        """Pause every queued call for a minute: the games stream got a 429 too."""
        self._paused_until = self._clock.now() + self._rate_limit_pause

    # --- calls -------------------------------------------------------------------------

    async def get_user(self, username: str) -> LichessUser:
        """``GET /api/user/{username}``; raises :class:`NotFoundError` for an unknown name."""
        data = await self._call(
            "get_user", functools.partial(self._berserk.users.get_public_data, username)
        )
        return user_from_json(data)

    async def get_users(self, usernames: Iterable[str]) -> list[LichessUser]:
        """``POST /api/users``: many accounts, 300 a request (lila reads no more); an unknown
        name is left out, a closed account answers ``disabled``."""
        names = list(dict.fromkeys(usernames))
        users: list[LichessUser] = []
        for chunk in _chunks(names, USERS_IDS_LIMIT):
            rows = await self._call(
                "get_users", functools.partial(self._berserk.users.get_by_id, *chunk)
            )
            if not isinstance(rows, list):
                raise LichessPayloadError("/api/users did not answer a list")
            users.extend(user_from_json(row) for row in rows)
        return users

    async def teams_of(self, username: str) -> list[str]:
        """``GET /api/team/of/{username}``: the ids of the teams the player is a member of."""
        data = await self._call(
            "teams_of", functools.partial(self._berserk.teams.teams_of_player, username)
        )
        return [str(t["id"]) for t in data if isinstance(t, dict) and "id" in t]

    async def export_games(
        self,
        username: str,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        vs: str | None = None,
        perf_type: str | None = None,
        rated: bool | None = None,
        max_games: int | None = None,
        on_game: Callable[[], None] | None = None,
    ) -> list[Game]:
        """``GET /api/games/user/{username}`` (NDJSON), newest first, finished games only.
        ``on_game`` is called (from the worker thread) as each game arrives: lila streams a
        user's export at 20-30 games a second, so a long history takes minutes."""
        fn = functools.partial(
            self._berserk.games.export_by_player,
            username,
            as_pgn=False,
            since=to_millis(since) if since is not None else None,
            until=to_millis(until) if until is not None else None,
            vs=vs,
            perf_type=perf_type,  # type: ignore[arg-type]
            rated=_lichess_bool(rated),  # type: ignore[arg-type]
            max=max_games,
            moves=_lichess_bool(False),  # type: ignore[arg-type]
        )
        rows = await self._call("export_games", _consume(fn, on_game))
        return _user_games(rows)

    async def export_games_by_ids(self, ids: Iterable[GameId | str]) -> list[Game]:
        """``POST /api/games/export/_ids`` (NDJSON), 300 ids per request."""
        id_list = list(dict.fromkeys(ids))
        games: list[Game] = []
        for chunk in _chunks(id_list, EXPORT_IDS_LIMIT):
            fn = functools.partial(
                self._berserk.games.export_multi,
                *chunk,
                as_pgn=False,
                moves=_lichess_bool(False),  # type: ignore[arg-type]
            )
            rows = await self._call("export_games_by_ids", _consume(fn), first=True)
            games.extend(_user_games(rows))
        return games

    async def get_statuses(self, user_ids: Iterable[str]) -> list[UserStatus]:
        """``GET /api/users/status?ids=``: online and playing, 100 ids per request."""
        ids = list(dict.fromkeys(user_ids))
        out: list[UserStatus] = []
        for chunk in _chunks(ids, STATUS_IDS_LIMIT):
            fn = functools.partial(
                self._berserk.users.get_realtime_statuses,
                *chunk,
                with_game_ids=_lichess_bool(True),  # type: ignore[arg-type]
            )
            rows = await self._call("get_statuses", fn)
            if not isinstance(rows, list):
                raise LichessPayloadError("users/status did not answer a list")
            out.extend(status_from_json(row) for row in rows)
        return out

    async def send_message(self, username: str, text: str) -> None:
        """``POST /inbox/{username}`` (scope ``msg:write``). Raises :class:`InboxLimitedError`
        on a 429 (nothing is paused) and :class:`MessageRefusedError` on a 400."""
        fn = functools.partial(self._berserk.messaging.send, username, text)
        try:
            await self._call("send_message", fn, pause_on_429=False)
        except RateLimitedError as e:
            raise InboxLimitedError(e.body) from e
        except LichessHTTPError as e:
            if e.status == 400:
                raise MessageRefusedError(e.body) from e
            raise

    async def revoke_token(self, token: str) -> bool:
        """``DELETE /api/token`` with a player's ``token`` (not the bot's), on the queue:
        whether Lichess no longer knows it (a 401: already unknown); a failure is ``False``,
        logged without the token."""
        url = f"{self.base_url}/api/token"

        def send() -> int:
            try:
                resp = self._session.delete(url, headers={"Authorization": f"Bearer {token}"})
            except requests.RequestException as e:
                raise LichessTransportError(f"Lichess unreachable: {e.__class__.__name__}") from e
            if resp.status_code >= 500 or resp.status_code == 429:
                raise http_error(resp.status_code, resp.text)
            return int(resp.status_code)

        try:
            status = await self._call("revoke_token", send)
        except LichessError as e:
            log.warning("could not revoke a player's token: %s", e.__class__.__name__)
            return False
        return status < 400 or status == 401

    async def test_token(self) -> TokenInfo:
        """``POST /api/token/test`` for the bot's own token: its user and scopes."""
        if not self._token:
            return TokenInfo(None, frozenset())
        fn = functools.partial(self._requestor.post, "/api/token/test", data=self._token)
        data = await self._call("test_token", fn)
        if not isinstance(data, dict):
            raise LichessPayloadError("token/test did not answer an object")
        entry = data.get(self._token)
        if entry is None:
            return TokenInfo(None, frozenset())
        if not isinstance(entry, dict) or not isinstance(entry.get("userId"), str):
            raise LichessPayloadError("token/test answered without a userId")
        scopes = str(entry.get("scopes") or "")
        info = TokenInfo(entry["userId"], frozenset(s for s in scopes.split(",") if s))
        self.scopes = info.scopes
        return info

    def stream_headers(self) -> dict[str, str]:
        """The token's header for a call made outside the queue (the games stream), once
        :meth:`test_token` found the token valid; none before, or without a token."""
        if self._token and self.scopes is not None:
            return {"Authorization": f"Bearer {self._token}"}
        return {}

    def has_scope(self, scope: str) -> bool | None:
        """Whether the bot's token has ``scope``: ``None`` while :meth:`test_token` has not
        answered, ``False`` without a token."""
        if not self._token:
            return False
        return None if self.scopes is None else scope in self.scopes

    async def require_scopes(self, needed: Iterable[str]) -> TokenInfo:
        """The token's info; raises :class:`MissingScopeError` naming what it lacks."""
        info = await self.test_token()
        missing = info.missing(needed)
        if missing:
            raise MissingScopeError(missing, info.user)
        return info

    async def team_members(self, team_id: str) -> list[str]:
        """``GET /api/team/{teamId}/users`` (NDJSON): the members' ids, up to 5,000."""
        fn = functools.partial(
            self._requestor.get, f"/api/team/{team_id}/users", stream=True, fmt=NDJSON
        )
        rows = await self._call("team_members", _consume(fn))
        return [str(row["id"]) for row in rows if isinstance(row, dict) and "id" in row]

    async def team_leaders(self, team_id: str) -> list[str]:
        """``GET /api/team/{teamId}``: the ids of its publicly visible leaders."""
        fn = functools.partial(self._requestor.get, f"/api/team/{team_id}")
        data = await self._call("team_leaders", fn)
        leaders = data.get("leaders") if isinstance(data, dict) else None
        if not isinstance(leaders, list):
            return []
        return [str(u["id"]) for u in leaders if isinstance(u, dict) and "id" in u]

    async def post_team_update(self, team_id: str, message: str) -> None:
        """``POST /team/{teamId}/pm-all`` (scope ``team:lead``). lila redirects a leader
        without the team's "Updates" permission to the team page (303) rather than answer an
        error: that raises :class:`NoUpdatesPermissionError`, not a success."""
        fn = functools.partial(
            self._requestor.post,
            f"/team/{team_id}/pm-all",
            data={"message": message},
            allow_redirects=False,
            fmt=TEXT,
        )
        answer = await self._call("post_team_update", fn)
        if '"ok"' not in str(answer):  # a redirect (requests takes a 3xx for a success)
            raise NoUpdatesPermissionError(team_id)

    async def post_status(self, name: str, path: str, data: Mapping[str, str]) -> int:
        """``POST path`` with a form body, once, redirects not followed: the answer's status.
        For a probe whose status is the answer (a 303 is lila's refusal of a team leader)."""
        url = f"{self.base_url}{path}"

        def post() -> int:
            try:
                resp = self._session.post(url, data=dict(data), allow_redirects=False)
            except requests.RequestException as e:
                raise LichessTransportError(f"Lichess unreachable: {e.__class__.__name__}") from e
            if resp.status_code >= 500 or resp.status_code == 429:
                raise http_error(resp.status_code, resp.text)
            return int(resp.status_code)

        return await self._call(name, post)

    async def request_json(
        self, name: str, method: str, path: str, data: Mapping[str, str] | None = None
    ) -> Any:
        """``method path`` with a form body, on the queue, through no logger (berserk's logs
        a request's form at DEBUG: a body with players' tokens goes this way); the JSON
        answer."""
        url = f"{self.base_url}{path}"

        def send() -> Any:
            try:
                resp = self._session.request(method, url, data=None if data is None else dict(data))
            except requests.RequestException as e:
                raise LichessTransportError(f"Lichess unreachable: {e.__class__.__name__}") from e
            if resp.status_code >= 400:
                raise http_error(resp.status_code, resp.text)
            try:
                return resp.json()
            except ValueError as e:
                raise LichessPayloadError(f"{path} answered unreadable JSON") from e

        return await self._call(name, send)

    async def post_form(
        self, name: str, path: str, data: Mapping[str, str], *, anonymous: bool = False
    ) -> Any:
        """``POST path`` with a form body, on the queue; the JSON answer. For the endpoints and
        fields berserk lacks (:mod:`bot.lichess.challenges`, :mod:`bot.lichess.broadcasts`).
        ``anonymous`` sends it without the token (lila checks the scope of any token sent to
        an endpoint that takes anonymous calls)."""
        extra: dict[str, Any] = {"auth": _WithoutToken()} if anonymous else {}
        fn = functools.partial(self._requestor.post, path, data=dict(data), **extra)
        return await self._call(name, fn)

    # --- the queue ---------------------------------------------------------------------

    async def _call(
        self, name: str, fn: Callable[[], T], *, pause_on_429: bool = True, first: bool = False
    ) -> T:
        """``fn`` in its turn (``first``: before the calls waiting, after the one under way)."""
        async with self._queue.turn(first=first):
            attempt = 0
            rate_limit_waits = 0
            while True:
                await self._wait_out_pause()
                try:
                    return await self._run_in_worker(fn, name)
                except RateLimitedError:
                    if not pause_on_429:
                        raise
                    rate_limit_waits += 1
                    self._paused_until = self._clock.now() + self._rate_limit_pause
                    self._share_in_background(self._paused_until)
                    log.warning(
                        "Lichess rate limit on %s: pausing every call until %s",
                        name,
                        self._paused_until.isoformat(),
                    )
                    if rate_limit_waits > self._max_rate_limit_waits:
                        raise
                except (LichessTransportError, LichessHTTPError) as e:
                    if isinstance(e, LichessHTTPError) and not e.is_server_error:
                        raise
                    attempt += 1
                    if attempt >= self._max_attempts:
                        raise
                    delay = min(self._backoff_max, self._backoff_initial * 2 ** (attempt - 1))
                    log.warning(
                        "Lichess %s failed (%s); retry %d in %.1fs", name, e, attempt, delay
                    )
                    await self._clock.sleep(delay)

    async def _wait_out_pause(self) -> None:
        shared = await self._shared_pause()
        if shared is not None and (self._paused_until is None or shared > self._paused_until):
            self._paused_until = shared
        if self._paused_until is not None:
            await self._clock.sleep_until(self._paused_until)
            self._paused_until = None

    async def _shared_pause(self) -> dt.datetime | None:
        """The pause another process wrote, read at most once per ``SHARED_PAUSE_READ`` of
        the clock (a burst of calls at one moment reads the row once)."""
        if self._board is None:
            return None
        now = self._clock.now()
        if self._board_read_at is not None and now - self._board_read_at < SHARED_PAUSE_READ:
            return None
        self._board_read_at = now
        try:
            return await self._board.paused_until()
        except Exception:  # the database is down: the local pause still holds
            log.warning("could not read the shared Lichess pause", exc_info=True)
            return None

    async def pause_shared(self) -> None:
        """Wait until every pause this client met is written for the other processes."""
        while self._sharing:
            writing = list(self._sharing)
            await asyncio.gather(*writing, return_exceptions=True)
            self._sharing.difference_update(writing)

    def _share_in_background(self, until: dt.datetime) -> None:
        """Write the pause for the other processes without waiting for it: the caller may hold
        the database's write lock (a deadline's transaction on SQLite), which the pause's row
        would wait for while the caller waits for this call."""
        task = asyncio.get_running_loop().create_task(self._share_pause(until))
        self._sharing.add(task)
        task.add_done_callback(self._sharing.discard)

    async def _share_pause(self, until: dt.datetime) -> None:
        if self._board is None:
            return
        try:
            await self._board.pause(until)
        except Exception:
            log.warning("could not share the Lichess pause", exc_info=True)

    async def _run_in_worker(self, fn: Callable[[], T], name: str = "") -> T:
        loop = asyncio.get_running_loop()
        self.requests_made += 1
        try:
            result = await loop.run_in_executor(self._executor, _translated, fn)
        except LichessHTTPError as e:
            self.answers[(name, str(e.status))] += 1
            self._reached(not e.is_server_error, f"Lichess answered {e.status}")
            raise
        except LichessTransportError as e:
            self.answers[(name, "transport")] += 1
            self._reached(False, str(e))
            raise
        except LichessError:
            self.answers[(name, "payload")] += 1
            self._reached(True, "")
            raise
        self.answers[(name, "ok")] += 1
        self._reached(True, "")
        return result

    def note_stream(self, failure: BaseException | None) -> None:
        """A games stream connected (``None``) or failed with ``failure``: kept in
        :attr:`unreachable_since` as a request's answer is."""
        if failure is None:
            self._reached(True, "")
        elif isinstance(failure, LichessHTTPError):
            self._reached(not failure.is_server_error, f"Lichess answered {failure.status}")
        elif isinstance(failure, LichessTransportError) or not isinstance(failure, LichessError):
            self._reached(False, f"games stream failed: {failure.__class__.__name__}")

    def _reached(self, answered: bool, failure: str) -> None:
        """Keep :attr:`unreachable_since` after a request Lichess ``answered`` or not."""
        if answered:
            self.unreachable_since = None
            self.unreachable_reason = ""
        elif self.unreachable_since is None:
            self.unreachable_since = self._clock.now()
            self.unreachable_reason = failure


def _lichess_bool(value: bool | None) -> str | None:
    """berserk hands Python booleans to requests, which writes ``True``; Lichess reads only
    ``true`` as true, so a ``rated=True`` filter would silently mean casual games."""
    if value is None:
        return None
    return "true" if value else "false"


def _user_games(rows: Iterable[Any]) -> list[Game]:
    """The games of an export between two Lichess users; a game against the AI or an anonymous
    player is skipped (a history holds them; they never are match games), and so is the ``{}``
    line lila's ``GameApiV2`` writes as the keep-alive of a JSON export that has been silent."""
    games: list[Game] = []
    for row in rows:
        if row == {}:
            continue  # a keep-alive
        try:
            games.append(game_from_export(row))
        except NotBetweenUsers as e:
            log.debug("skipping an exported game: %s", e)
    return games


def _consume(
    fn: Callable[[], Iterator[Any]], on_item: Callable[[], None] | None = None
) -> Callable[[], list[Any]]:
    """Read a berserk NDJSON stream to the end inside the worker thread (calling ``on_item``
    after each line)."""

    def run() -> list[Any]:
        if on_item is None:
            return list(fn())
        items = []
        for item in fn():
            items.append(item)
            on_item()
        return items

    return run


def _translated(fn: Callable[[], T]) -> T:
    """Run ``fn`` and turn berserk/requests failures into the adapter's errors."""
    try:
        return fn()
    except ResponseError as e:
        status = int(e.status_code)
        try:
            body = e.response.text
        except Exception:
            body = ""
        raise http_error(status, body) from e
    except ApiError as e:
        raise LichessTransportError(f"Lichess unreachable: {e.error.__class__.__name__}") from e
    except requests.RequestException as e:  # raised while reading a streamed body
        raise LichessTransportError(f"Lichess transfer failed: {e.__class__.__name__}") from e
    except ValueError as e:  # JSON decoding
        if isinstance(e, LichessError):
            raise
        raise LichessPayloadError(f"Lichess answered unreadable JSON: {e}") from e


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
