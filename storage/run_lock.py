"""Who may act on a database: the lock one ``acwc run`` holds while it runs the stream, the
deadlines and the outbox.

* **PostgreSQL**: a session-level advisory lock (``pg_advisory_lock``) on a connection of its
  own. Any number of processes may wait for it; the server gives it to the next one the moment
  the holder's session ends (the process died, its machine went away and the TCP keepalives
  below gave up on it, or it closed the connection).
* **SQLite**: an exclusive ``flock`` on a file beside the database (``acwc.db.run-lock``) that
  says who holds it. There is no standby on SQLite: a second process is refused at once with the
  holder's process id, host and start time. The kernel drops the lock when its holder dies.

Both are what :class:`bot.runtime.leader.Leadership` elects with; nothing here knows the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import errno
import fcntl
import json
import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.db import engine_name, process_name
from storage.fence import Fence

log = logging.getLogger(__name__)

__all__ = [
    "ADVISORY_KEY",
    "AdvisoryLock",
    "FileLock",
    "RunLock",
    "RunLockHeld",
    "run_lock_for",
    "sqlite_path",
]

ADVISORY_KEY = 0x6163_7763_5F72_756E  # "acwc_run": advisory locks are per database
"""The advisory lock's key; one per database, so test databases on one server never meet."""


LEASE_SECONDS = 8.0
"""How long a renewal of the leader's lease holds (real seconds). The leader renews it every
:data:`bot.runtime.leader.CHECK_SECONDS`; a standby ends a holder whose lease ran out."""
LEASE_TRUST = 0.9
"""The part of a lease the leader counts on by its own clock (clocks drift apart a little)."""
SETTLE_POLL = 0.05
"""How often a new leader looks whether the previous one stood down (real seconds)."""

_RAISE_EPOCH = text(
    "UPDATE leadership SET epoch = old.epoch + 1, holder = :me, "
    "lease_until = now() + make_interval(secs => :lease) "
    "FROM (SELECT epoch, holder, ended, lease_until FROM leadership WHERE id = 1 FOR UPDATE) "
    "AS old WHERE leadership.id = 1 "
    "RETURNING leadership.epoch, old.holder, old.ended, old.lease_until < now()"
)
_RENEW = text(
    "UPDATE leadership SET lease_until = now() + make_interval(secs => :lease) "
    "WHERE id = 1 AND epoch = :epoch RETURNING epoch"
)
_END = text(
    "UPDATE leadership SET ended = greatest(ended, :epoch), "
    "lease_until = CASE WHEN epoch = :epoch THEN now() ELSE lease_until END WHERE id = 1"
)
_END_EXPIRED = text(
    "SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a JOIN leadership l "
    "ON l.id = 1 AND a.application_name = l.holder "
    "WHERE l.lease_until < now() AND l.ended < l.epoch AND l.holder <> :me "
    "AND a.pid <> pg_backend_pid() AND a.datname = current_database()"
)
_PREVIOUS_STATE = text(
    "SELECT ended, (SELECT count(*) FROM pg_stat_activity WHERE application_name = :holder "
    "AND datname = current_database()) FROM leadership WHERE id = 1"
)


@dataclass(frozen=True, slots=True)
class Previous:
    """The leadership as this process found it when it took the lock."""

    epoch: int
    holder: str | None
    ended: int
    expired: bool
    """Its lease had run out: it stopped renewing (frozen, or dead) without saying it ended."""


class RunLockHeld(Exception):
    """Another process holds the lock (SQLite: it is refused, not queued)."""


class RunLock(Protocol):
    """The lock :class:`~bot.runtime.leader.Leadership` elects with."""

    async def acquire(self) -> None:
        """Return once this process holds the lock (waits while another holds it)."""

    async def check(self) -> None:
        """Raise if the lock may have been lost (its connection is gone); renew its lease."""

    async def release(self) -> None:
        """Let go of the lock (safe to call when not held or already lost)."""

    @property
    def lost(self) -> asyncio.Event:
        """Set the moment the lock is known lost (its session closed)."""

    def lease_left(self) -> float:
        """Seconds the lock surely holds by this process's own clock."""

    async def settle_previous(self, *, grace: float) -> str:
        """Return once the previous holder acts no more (or ``grace`` seconds passed)."""

    async def end(self) -> None:
        """Say this holder acts no more (before it lets go)."""

    @property
    def ended_holder(self) -> bool:
        """Whether this process, waiting, ended the previous holder's sessions (its lease ran
        out: it may be frozen, and record what it had under way when it wakes)."""


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL, or ``None`` for an in-memory database or another backend."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file::memory:"):
        return None
    return Path(database)


def _describe_holder(path: Path) -> str:
    try:
        found = json.loads(path.read_text() or "{}")
        return (
            f"process {found['pid']} on {found['host']}, started {found['started']}"
            if isinstance(found, dict)
            else "another process"
        )
    except (OSError, ValueError, KeyError):
        return "another process"


class FileLock:
    """The SQLite run lock: ``flock`` on ``<database>.run-lock``, refused if held elsewhere."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = database.with_name(database.name + ".run-lock")
        self._fd: int | None = None
        self.lost = asyncio.Event()  # a flock is never lost while the process lives
        self.ended_holder = False

    def try_acquire(self, *, now: dt.datetime) -> None:
        """Take the lock or raise :class:`RunLockHeld` naming the holder."""
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise RunLockHeld(
                    f"another `acwc run` is running on {self.database} "
                    f"({_describe_holder(self.path)}; lock file {self.path})"
                ) from None
            raise
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": now.isoformat()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)
        self._fd = fd

    async def acquire(self) -> None:
        if self._fd is None:
            raise RunLockHeld(f"the run lock on {self.database} was not taken at start-up")

    async def check(self) -> None:
        """A ``flock`` is never lost while the process lives."""

    def lease_left(self) -> float:
        return float("inf") if self._fd is not None else 0.0

    async def settle_previous(self, *, grace: float) -> str:
        return "no other process can have acted"  # the lock was free: its holder is gone

    async def end(self) -> None:
        """Nothing to say: no other process waits."""

    async def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


class AdvisoryLock:
    """The PostgreSQL run lock: ``pg_advisory_lock`` on a connection kept for it alone, with the
    ``leadership`` row's epoch and lease beside it (:mod:`storage.models_ops`).

    Taking the lock raises the epoch (:attr:`fence`'s, which :mod:`storage.fence` checks in every
    acting write) and starts a lease of ``lease_seconds`` that :meth:`check` renews. A waiting
    process that finds the lease run out (the holder is frozen, or its machine or network
    stalls: its session lives on, so the lock alone would never pass) ends the holder's sessions,
    which lets the lock go. :attr:`lost` is set the moment the lock's connection closes."""

    def __init__(
        self,
        engine: AsyncEngine,
        key: int = ADVISORY_KEY,
        *,
        fence: Fence | None = None,
        lease_seconds: float = LEASE_SECONDS,
        holder: str | None = None,
    ) -> None:
        self.engine = engine
        self.key = key
        self.fence = fence if fence is not None else Fence()
        self.lease_seconds = lease_seconds
        self.holder = holder or _application_name(engine)
        self.lost = asyncio.Event()
        self.previous: Previous | None = None
        """Who led before this process took the lock (set by :meth:`acquire`)."""
        self.renewed_at: float | None = None
        """The event loop's clock (:func:`_seconds`) when the last renewal began: the lease
        holds until then plus ``lease_seconds``, measured without the database."""
        self._conn: AsyncConnection | None = None

    async def acquire(self) -> None:
        if self._conn is not None:
            return
        try:
            conn = await self.engine.connect()
        except (OSError, DBAPIError) as e:
            raise ConnectionError(f"cannot reach the database: {e}") from e
        try:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await self._wait_for_lock(conn)
            self.lost.clear()
            raw = (await conn.get_raw_connection()).driver_connection
            assert raw is not None
            raw.add_termination_listener(lambda _c: self.lost.set())
            started = _seconds()
            self.previous = await self._raise_epoch(conn)
            self.renewed_at = started
        except BaseException as e:
            await _close_quietly(conn)
            if isinstance(e, OSError | DBAPIError):
                raise ConnectionError(f"lost the database while waiting for the lock: {e}") from e
            raise
        self._conn = conn

    async def _wait_for_lock(self, conn: AsyncConnection) -> None:
        """Queue for the lock; meanwhile, every third of a lease, end a holder whose lease ran
        out (its sessions: the lock's among them)."""
        waiting = asyncio.ensure_future(
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": self.key})
        )
        try:
            while True:
                done, _ = await asyncio.wait({waiting}, timeout=self.lease_seconds / 3)
                if done:
                    waiting.result()
                    return
                await self._end_expired_holder()
        finally:
            if not waiting.done():
                waiting.cancel()
                with contextlib.suppress(BaseException):
                    await waiting

    async def _end_expired_holder(self) -> None:
        async with self.engine.connect() as conn:
            ended = await conn.execute(_END_EXPIRED, {"me": self.holder})
            count = len(ended.all())
            await conn.commit()
        if count:
            log.warning("the leader's lease ran out: ended its %d database sessions", count)

    async def _raise_epoch(self, conn: AsyncConnection) -> Previous:
        result = await conn.execute(_RAISE_EPOCH, {"me": self.holder, "lease": self.lease_seconds})
        epoch, holder, ended, expired = result.one()
        self.fence.epoch = int(epoch)
        return Previous(
            epoch=int(epoch) - 1, holder=holder, ended=int(ended), expired=bool(expired)
        )

    async def settle_previous(self, *, grace: float) -> str:
        """Wait until the previous leader acts no more: it said so (its epoch ``ended``), its
        sessions are all gone (it died), or ``grace`` seconds passed (it could not say: its
        last Lichess call has had its time). Returns which, for the log."""
        previous = self.previous
        if (
            previous is None
            or previous.ended >= previous.epoch
            or previous.holder
            in (
                None,
                self.holder,
            )
        ):
            return "nobody was acting"
        deadline = _seconds() + grace
        async with self.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            while True:
                ended, sessions = (
                    await conn.execute(_PREVIOUS_STATE, {"holder": previous.holder})
                ).one()
                if ended >= previous.epoch:
                    return "the previous leader stood down"
                if not sessions:
                    return "the previous leader's sessions are gone"
                if _seconds() >= deadline:
                    return f"the previous leader said nothing for {grace:.0f} s"
                await asyncio.sleep(SETTLE_POLL)

    @property
    def ended_holder(self) -> bool:
        previous = self.previous
        return previous is not None and previous.expired and previous.ended < previous.epoch

    def lease_left(self) -> float:
        """Seconds the lease still holds by this process's own clock (0: ran out)."""
        if self.renewed_at is None or self._conn is None:
            return 0.0
        return max(0.0, self.renewed_at + self.lease_seconds * LEASE_TRUST - _seconds())

    async def check(self) -> None:
        """Renew the lease; raise if the lock may have been lost (its connection is gone, or
        another process's epoch leads)."""
        if self._conn is None or self.lost.is_set():
            raise ConnectionError("the run lock's session is gone")
        started = _seconds()
        try:
            result = await self._conn.execute(
                _RENEW, {"epoch": self.fence.epoch, "lease": self.lease_seconds}
            )
        except (OSError, DBAPIError) as e:
            raise ConnectionError(f"the run lock's session is gone: {e}") from e
        if result.first() is None:
            raise ConnectionError(f"another process leads (epoch {self.fence.epoch} is past)")
        self.renewed_at = started

    async def end(self) -> None:
        """Say that this process's epoch acts no more (best effort: on a fresh connection,
        the lock's may be gone), so the next leader need not wait for it."""
        epoch = self.fence.epoch
        self.fence.epoch = None
        self.renewed_at = None
        if epoch is None:
            return
        with contextlib.suppress(Exception):
            async with self.engine.connect() as conn:
                await conn.execute(_END, {"epoch": epoch})
                await conn.commit()

    async def release(self) -> None:
        conn, self._conn = self._conn, None
        await self.end()
        if conn is not None:
            # Closing the session ends the lock even if the unlock cannot be sent; a broken
            # connection is invalidated rather than handed back to the pool.
            await _close_quietly(conn, unlock=self.key)


async def _close_quietly(conn: AsyncConnection, *, unlock: int | None = None) -> None:
    try:
        if unlock is not None:
            await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": unlock})
        await conn.close()
    except Exception:
        with contextlib.suppress(Exception):
            await conn.invalidate()


def _application_name(engine: AsyncEngine) -> str:
    """The engine's sessions' name on the server (:func:`storage.db.process_name`)."""
    return engine_name(engine) or process_name()


def run_lock_for(url: str, engine: AsyncEngine, fence: Fence | None = None) -> RunLock | None:
    """The run lock of a database: PostgreSQL's advisory lock (keeping its epoch in ``fence``),
    a SQLite file's lock file; ``None`` for an in-memory SQLite database (no other process can
    open it)."""
    if make_url(url).get_backend_name() == "postgresql":
        return AdvisoryLock(engine, fence=fence)
    path = sqlite_path(url)
    return None if path is None else FileLock(path)


def _seconds() -> float:
    """Real seconds on the event loop's monotonic clock (what ``asyncio.sleep`` counts): a
    lease is the network's time, not the tournament's (the service clock may be a fake one).
    It goes on while the process is stopped, as the lease does."""
    return asyncio.get_running_loop().time()
