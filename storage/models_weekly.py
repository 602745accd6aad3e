"""Tables of the weekly feature: the per-match event log, forfeits and private reports.

``match_events`` is the match's history and the source of its scheduling state: the negotiation
is rebuilt by replaying the accepted steps through the pure functions of
:mod:`rules.week.negotiation` (:mod:`storage.match_log`), so nothing is ever patched in place and
nothing is lost. Conduct facts (break
calls, no-show checks, claim rights, claims and their decisions) are events in the same log.

Cheat reports (rules 7.1) live in their own table and never enter the log or any public output.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base

__all__ = ["Base", "CheatReportRow", "ForfeitRow", "MatchEventRow"]


class MatchEventRow(Base):
    """One accepted step in a match's history; ``seq`` orders the steps of a match (1, 2, ...)."""

    __tablename__ = "match_events"
    __table_args__ = (UniqueConstraint("match_id", "seq", name="uq_match_events_match_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    week: Mapped[int] = mapped_column(Integer, default=1)  # the match's week (tied finals repeat)
    seq: Mapped[int]
    at: Mapped[dt.datetime]
    actor: Mapped[str] = mapped_column(String(30))  # a player id, a TD, or "bot"
    kind: Mapped[str] = mapped_column(String(40))
    via: Mapped[str | None] = mapped_column(String(20))  # web / td-relay / cli / deadline
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class ForfeitRow(Base):
    """A forfeit charged to a player (rules 5.6, 6.2-6.4); two in different matches: rules 6.5."""

    __tablename__ = "forfeits"
    __table_args__ = (Index("ix_forfeits_player", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    kind: Mapped[str] = mapped_column(String(10))  # match / game (rules.forfeits.ForfeitKind)
    reason: Mapped[str] = mapped_column(String(20))  # offers / no_show / conduct / td
    at: Mapped[dt.datetime]
    recorded_by: Mapped[str] = mapped_column(String(30))
    waived: Mapped[bool] = mapped_column(Boolean, default=False)
    waived_by: Mapped[str | None] = mapped_column(String(30))
    note: Mapped[str | None] = mapped_column(Text)


class CheatReportRow(Base):
    """A private report to the TDs (rules 7.1). Never shown in public output."""

    __tablename__ = "cheat_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference: Mapped[str] = mapped_column(String(60))
    reporter: Mapped[str] = mapped_column(String(30))
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"))
    text: Mapped[str] = mapped_column(Text)
    made_at: Mapped[dt.datetime]
    via: Mapped[str] = mapped_column(String(20))
