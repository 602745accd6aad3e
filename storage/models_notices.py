"""Tables of the notices feature: holds on talking to Lichess, shared by every process.

A hold is one row by name: ``rate_limit`` (Lichess answered 429: every process waits until
``until``), ``outbox`` (Lichess refused the token: the outbox stops, ``reason`` says why, until a
start-up check passes), ``dm-refused:<player>`` (the player's preferences refuse the bot's DMs).
Rows rather than variables, so the service and a command line run on the same database keep
the same pause.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base

__all__ = ["HoldRow"]


class HoldRow(Base):
    __tablename__ = "lichess_holds"

    name: Mapped[str] = mapped_column(String(60), primary_key=True)
    since: Mapped[dt.datetime]
    until: Mapped[dt.datetime | None]
    reason: Mapped[str | None] = mapped_column(Text)
