"""The service's own running state: who leads, under which epoch (issue 31).

One row (``id = 1``). ``epoch`` grows by one each time a process takes the run lock
(:mod:`storage.run_lock`); every acting write checks it in its own transaction
(:mod:`storage.fence`), so a process that lost the lead without knowing it yet writes
nothing. ``lease_until`` is how long the leader's last renewal holds (the database's clock): a
standby that finds it past ends the holder's sessions and takes over (a frozen leader's session
stays open). ``ended`` is the last epoch known to act no more: a new leader waits for it (or for
the old holder's sessions to be gone) before it acts, so an action the old one had under way
is recorded first. Not in backups: it describes the processes running, not the season.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base

__all__ = ["LeadershipRow"]


class LeadershipRow(Base):
    __tablename__ = "leadership"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    epoch: Mapped[int] = mapped_column(BigInteger, default=0)
    holder: Mapped[str | None] = mapped_column(String(64))
    """The leader's ``application_name`` (host and process id): its sessions on the server."""
    lease_until: Mapped[dt.datetime | None]
    ended: Mapped[int] = mapped_column(BigInteger, default=0)
    oldest_code: Mapped[str | None] = mapped_column(String(32))
    """The oldest schema revision whose code can still run on this schema (the last
    migration that contracted it): written by :func:`storage.migrate.upgrade`, read by a
    version's start-up when the database is newer than it knows."""
