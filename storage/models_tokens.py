"""The players' Lichess tokens that let the bot start their games, and the games it started
with them (bulk pairing, issue 25).

A player who allows it on their account page gives the bot a token with ``challenge:write``;
the bot keeps it only encrypted (``secret``: a Fernet token made with the key in
``ACWC_TOKEN_KEY``), so a copy of the database or of a backup hands out no token without the
key. Revoking deletes the row (and the token on Lichess).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base

__all__ = ["Base", "BulkGameRow", "PlayerTokenRow"]


class PlayerTokenRow(Base):
    """One player's permission, with the token that carries it."""

    __tablename__ = "player_tokens"

    player_id: Mapped[str] = mapped_column(
        String(30), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    secret: Mapped[str] = mapped_column(Text)
    """The Lichess token, encrypted (never the token itself)."""
    scopes: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime]


class BulkGameRow(Base):
    """A game the bot asked Lichess to create by bulk pairing: Lichess gave its id at once and
    creates it at ``pair_at``. Intake knows it by its id, as a challenge's game (the challenge
    row has the same id); a newer time for the same two players cancels a pending one."""

    __tablename__ = "bulk_games"
    __table_args__ = (Index("ix_bulk_games_players", "white", "black"),)

    game_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    bulk_id: Mapped[str] = mapped_column(String(40))
    white: Mapped[str] = mapped_column(String(30))
    black: Mapped[str] = mapped_column(String(30))
    pair_at: Mapped[dt.datetime]
    created_at: Mapped[dt.datetime]
    cancelled_at: Mapped[dt.datetime | None]
