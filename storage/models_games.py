"""Tables of the games played on Lichess: the bot's challenges and the live broadcasts.

* ``challenges``: each open challenge the bot made for a match game (or an armageddon), restricted
  to the two players. Lichess gives the game the challenge's id, so intake knows a match game by
  its id before anything else.
* ``broadcasts`` and ``broadcast_rounds``: the Lichess broadcast of a stage, and its round of
  each week with the players whose games it follows (``syncUsers``).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from rules.core.ruleset import StageKind
from storage.base import Base
from storage.types import EnumText

__all__ = ["Base", "BroadcastRoundRow", "BroadcastRow", "ChallengeRow"]


class ChallengeRow(Base):
    """An open challenge the bot made for game ``game_number`` of a match's week."""

    __tablename__ = "challenges"
    __table_args__ = (Index("ix_challenges_match", "match_id"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)  # Lichess id = the game's id
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    week: Mapped[int]
    game_number: Mapped[int]
    armageddon: Mapped[bool] = mapped_column(Boolean, default=False)
    white: Mapped[str] = mapped_column(String(30))
    black: Mapped[str] = mapped_column(String(30))
    name: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(200))
    clock_limit: Mapped[int]
    clock_increment: Mapped[int]
    created_at: Mapped[dt.datetime]
    expires_at: Mapped[dt.datetime]


class BroadcastRow(Base):
    """The Lichess broadcast of one stage."""

    __tablename__ = "broadcasts"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)  # Lichess tournament id
    stage: Mapped[StageKind] = mapped_column(EnumText(StageKind, 20), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime]


class BroadcastRoundRow(Base):
    """A broadcast's round of one week (one of our rounds), following its players' games."""

    __tablename__ = "broadcast_rounds"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)  # Lichess round id
    broadcast_id: Mapped[str] = mapped_column(ForeignKey("broadcasts.id"))
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(200))
    players: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[dt.datetime]
