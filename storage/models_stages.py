"""Tables of the later stages (rules 3.vi-3.ix, 4.2, 8.ii-8.iv).

* ``stage_plans``: when a stage may first be published (the break of rules 4.2). The settings
  themselves are never copied here: every part of the service gets the one rule set of the
  config (revision 0007 moved the copies older versions kept into the audit log).
* ``knockout_brackets``: the knockout as the :class:`rules.stages.knockout.Bracket` value, in JSON.
  It
  is stored, not derived from the matches, because a withdrawal (rules 8.iii-iv) moves players in
  it without any match result changing.
* ``armageddons`` and ``armageddon_steps``: one armageddon procedure per tied knockout match,
  stored as the inputs it was given (start, sealed bids, sealed choices, deadline reveals). The
  procedure is rebuilt by replaying them through
  :class:`rules.stages.armageddon.ArmageddonProcedure`,
  so the stored record and the rules can never disagree.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base

__all__ = ["ArmageddonRow", "ArmageddonStepRow", "Base", "BracketRow", "StagePlanRow"]


class StagePlanRow(Base):
    """A started stage's calendar floor: its first round is not published before it."""

    __tablename__ = "stage_plans"

    stage_id: Mapped[int] = mapped_column(ForeignKey("stages.id"), primary_key=True)
    earliest_publication: Mapped[dt.date] = mapped_column(Date)
    created_at: Mapped[dt.datetime]
    created_by: Mapped[str] = mapped_column(String(30))


class BracketRow(Base):
    """The knockout of a tournament (semifinals, final, third place), as a bracket value."""

    __tablename__ = "knockout_brackets"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[dt.datetime]


class ArmageddonRow(Base):
    """The armageddon of one knockout match (rules 3.ix) and, once played, its game."""

    __tablename__ = "armageddons"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), unique=True)
    phase: Mapped[str] = mapped_column(String(20))  # bidding / rps / needs_td / decided / played
    started_at: Mapped[dt.datetime]
    white: Mapped[str | None] = mapped_column(String(30))
    white_seconds: Mapped[int | None]
    game_id: Mapped[str | None] = mapped_column(String(40))
    winner: Mapped[str | None] = mapped_column(String(30))
    findings: Mapped[list[Any]] = mapped_column(JSON, default=list)
    played_at: Mapped[dt.datetime | None]


class ArmageddonStepRow(Base):
    """One input of an armageddon procedure, in order; replayed to rebuild it."""

    __tablename__ = "armageddon_steps"
    __table_args__ = (UniqueConstraint("armageddon_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    armageddon_id: Mapped[int] = mapped_column(ForeignKey("armageddons.id"))
    seq: Mapped[int]
    kind: Mapped[str] = mapped_column(String(10))  # start / bid / rps / reveal / td
    player: Mapped[str | None] = mapped_column(String(30))
    value: Mapped[str | None] = mapped_column(String(20))  # "m:ss" bid or rps hand
    salt: Mapped[str | None] = mapped_column(Text)
    at: Mapped[dt.datetime]
