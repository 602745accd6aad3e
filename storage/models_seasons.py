"""A season's entries: who entered it, with the seed and the standing they had in it.

``players`` holds people (Lichess accounts) and the entry of their last season; when a season
is archived its entrants' entries are kept here, so an archived season's pages and a player's
history read what was true in that season after the player has entered the next one.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from rules.core.states import PlayerStatus
from storage.base import Base
from storage.types import EnumText

__all__ = ["ENTRY_COLUMNS", "SeasonEntryRow"]


class SeasonEntryRow(Base):
    """One player's entry in one season."""

    __tablename__ = "season_entries"
    __table_args__ = (Index("ix_season_entries_player", "player_id"),)

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    username: Mapped[str] = mapped_column(String(30))  # as Lichess spelt it in that season
    seed_rating: Mapped[int | None]
    seeded_as: Mapped[str | None] = mapped_column(String(20))  # title_holder / runner_up
    status: Mapped[PlayerStatus] = mapped_column(EnumText(PlayerStatus, 20))
    status_reason: Mapped[str | None] = mapped_column(Text)
    engine_mark: Mapped[bool] = mapped_column(Boolean)
    registered_at: Mapped[dt.datetime]
    team_member: Mapped[bool | None]


ENTRY_COLUMNS = (
    "username",
    "seed_rating",
    "seeded_as",
    "status",
    "status_reason",
    "engine_mark",
    "registered_at",
    "team_member",
)
"""The columns of a player's row that are their entry in one season (kept here as they were)."""
