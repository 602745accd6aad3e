"""Tables of the web feature: login sessions (kept apart so features can grow their own tables).

A session row is looked up by the SHA-256 of the random token in the browser's cookie, so a copy
of the database does not hand out live sessions. Logging out deletes the row, so a cookie copied
before the logout is useless after it.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base

__all__ = ["Base", "WebSessionRow"]


class WebSessionRow(Base):
    """One logged-in browser."""

    __tablename__ = "web_sessions"
    __table_args__ = (Index("ix_web_sessions_expires", "expires_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 hex of the token
    user_id: Mapped[str] = mapped_column(String(30))  # Lichess id (lower case)
    username: Mapped[str] = mapped_column(String(30))
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime]
    expires_at: Mapped[dt.datetime]
