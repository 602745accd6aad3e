"""Which tables committed transactions wrote to, counted in memory (for one ``Database``).

A reader that caches what it read (the demo's actors) asks :meth:`TableChanges.version` for the
tables it reads and reads again only when that changed. A table's count goes up *after* a
transaction that wrote to it commits, so a reader never keeps a result older than the count it
stored with it. Writes are seen at flush (ORM rows added, changed or deleted) and in bulk
``insert``/``update``/``delete`` statements run through the session; rolled back writes count
nothing. Only this process's sessions are seen: another process's commits are not.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

__all__ = ["TableChanges"]

log = logging.getLogger(__name__)

_KEY = "acwc.touched"
ORIGIN = "acwc.origin"
"""A session's ``info`` key naming who writes through it (``Database.uow(origin=...)``)."""


def _touched(session: Session) -> set[str]:
    found: set[str] = session.info.setdefault(_KEY, set())
    return found


class TableChanges:
    """Per-table counts of committed writes; :meth:`session_class` makes sessions that count."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.commits = 0
        self.own: Counter[tuple[str, str]] = Counter()
        """Commits per (origin, table) of sessions that named their origin."""
        self._listeners: list[Callable[[frozenset[str]], None]] = []

    def subscribe(self, listener: Callable[[frozenset[str]], None]) -> Callable[[], None]:
        """Call ``listener`` with the tables of each commit that wrote, once the counts are up
        (the live pages wait on it). Returns what unsubscribes it. A listener must be quick and
        must not touch the database: it runs inside the commit."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def version(self, tables: Iterable[str], *, besides: str | None = None) -> tuple[int, ...]:
        """The counts of ``tables``: equal tuples mean none of them changed in between;
        ``besides``: not counting the commits of that origin (a loop that reads its table
        again after its own writes is not woken by them)."""
        if besides is None:
            return tuple(self.counts[t] for t in tables)
        return tuple(self.counts[t] - self.own[besides, t] for t in tables)

    def version_except(self, tables: Iterable[str]) -> tuple[tuple[str, int], ...]:
        """The counts of every table but ``tables``."""
        skip = set(tables)
        return tuple(sorted((t, n) for t, n in self.counts.items() if t not in skip))

    def session_class(self) -> type[Session]:
        """A ``Session`` subclass whose commits update these counts."""
        cls: type[Session] = type("CountingSession", (Session,), {})
        event.listen(cls, "after_flush", self._after_flush)
        event.listen(cls, "do_orm_execute", self._orm_execute)
        event.listen(cls, "after_commit", self._after_commit)
        event.listen(cls, "after_rollback", self._forget)
        return cls

    def _after_flush(self, session: Session, _context: UOWTransaction) -> None:
        touched = _touched(session)
        # ``session.dirty`` holds every row an attribute was set on, even to the value it had
        # (refresh_match sets a match's state on every game): only a real change counts, so a
        # reader is not sent back to the database for nothing.
        dirty = (obj for obj in session.dirty if session.is_modified(obj))
        for obj in (*session.new, *dirty, *session.deleted):
            table = getattr(type(obj), "__tablename__", None)
            if table is not None:
                touched.add(str(table))

    def _orm_execute(self, state: ORMExecuteState) -> None:
        if state.is_insert or state.is_update or state.is_delete:
            table: Any = getattr(state.statement, "table", None)
            name = getattr(table, "name", None)
            _touched(state.session).add(str(name) if name is not None else "*")

    def _after_commit(self, session: Session) -> None:
        touched = session.info.pop(_KEY, set())
        self.commits += 1
        if "*" in touched:  # a write whose table we could not tell: everything may have changed
            touched |= set(self.counts) | {"*"}
        origin = session.info.get(ORIGIN)
        for table in touched:
            self.counts[table] += 1
            if origin is not None:
                self.own[origin, table] += 1
        if touched:
            tables = frozenset(touched)
            for listener in tuple(self._listeners):
                try:
                    listener(tables)
                except Exception:  # a listener's fault never fails a commit that happened
                    log.exception("a listener of committed changes failed")

    def _forget(self, session: Session) -> None:
        session.info.pop(_KEY, None)
