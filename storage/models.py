"""The tables. Rows are not rules objects: :mod:`storage.convert` turns one into the other.

Derived figures (match scores, standings, tiebreaks) are never stored: they are recomputed from
the games, so a correction can never leave a stale total behind.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    or_,
    select,
)
from sqlalchemy import false as sa_false
from sqlalchemy.orm import Mapped, mapped_column

from rules.core.model import GameStatus
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState, PlayerStatus, RoundState, StageState
from storage.base import Base
from storage.types import EnumText, UTCDateTime

__all__ = [
    "AuditRow",
    "Base",
    "Channel",
    "DeadlineRow",
    "ForbiddenPairRow",
    "GameRow",
    "MatchRow",
    "OutboxRow",
    "OutboxStatus",
    "PlayerExitRow",
    "PlayerRow",
    "RoundRow",
    "SeasonState",
    "SettingRow",
    "StageEntrantRow",
    "StageRow",
    "TournamentRow",
]


class Channel(enum.StrEnum):
    """How an outbox row goes out (its ``kind`` column)."""

    DM = "dm"  # POST /inbox/{username}
    TD_ALERT = "td_alert"  # a DM to each TD
    TEAM_UPDATE = "team_update"  # POST /team/{id}/pm-all
    FORUM_DRAFT = "forum_draft"  # kept for a TD to paste into the forum, never sent
    TD_NOTE = "td_note"  # information for the TDs, sent in the next daily digest
    ROOM = "room"  # a player's notice the team message carries: in their room, no DM


class OutboxStatus(enum.StrEnum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    POSTED = "posted"  # a forum draft a TD pasted


class SeasonState(enum.StrEnum):
    """Where a season (a ``tournaments`` row) stands: one is open for play at a time."""

    DRAFT = "draft"  # made from the season before it, waiting for the TDs to confirm it
    OPEN = "open"  # the season in play (the only one the service changes)
    ARCHIVED = "archived"  # a season over: read only, its pages kept at their URLs


class TournamentRow(Base):
    """A season of the championship: its year, its settings over the config's ``[rules]``, its
    seeded entrants and, once its final is over, its final placement."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime]
    current_stage: Mapped[StageKind] = mapped_column(EnumText(StageKind, 20))
    year: Mapped[int | None]  # None only in a row the version before seasons wrote
    state: Mapped[SeasonState | None] = mapped_column(EnumText(SeasonState, 20))  # None: open
    rules: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    """The season's own settings, as the config's ``[rules]`` table would write them, read over
    the config's (None: the config's as they are)."""
    title_holder: Mapped[str | None] = mapped_column(String(30))  # rules 3.3, as Lichess spells
    runner_up: Mapped[str | None] = mapped_column(String(30))  # rules 3.4
    final_order: Mapped[list[str] | None] = mapped_column(JSON)
    """The season's final placement, champion first (the final, then the third place playoff),
    written when the season is archived: the next season's rules 3.6.6.4 reads it."""
    previous_id: Mapped[int | None]  # the season it was made from (tournaments.id)
    confirmed_by: Mapped[str | None] = mapped_column(String(30))  # the TD who opened it
    confirmed_at: Mapped[dt.datetime | None]
    registration_opens: Mapped[dt.datetime | None]
    """The season's own registration window (None: the config's ``[registration]``, what the
    first season reads); ``acwc season new`` moves the last season's window with the calendar."""
    registration_closes: Mapped[dt.datetime | None]

    @property
    def champion(self) -> str | None:
        return self.final_order[0] if self.final_order else None

    @property
    def is_open(self) -> bool:
        return self.state in (None, SeasonState.OPEN)


_OPEN_SEASON_ID = (
    select(TournamentRow.id)
    .where(or_(TournamentRow.state.is_(None), TournamentRow.state == SeasonState.OPEN))
    .order_by(TournamentRow.id.desc())
    .limit(1)
    .scalar_subquery()
)
"""The open season's id, as a column default an INSERT computes."""


class PlayerRow(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(30), primary_key=True)  # Lichess id (lower case)
    username: Mapped[str] = mapped_column(String(30))
    seed_rating: Mapped[int | None]
    seeded_as: Mapped[str | None] = mapped_column(String(20))  # title_holder / runner_up
    status: Mapped[PlayerStatus] = mapped_column(
        EnumText(PlayerStatus, 20), default=PlayerStatus.ACTIVE
    )
    status_reason: Mapped[str | None] = mapped_column(Text)
    engine_mark: Mapped[bool] = mapped_column(Boolean, default=False)
    registered_at: Mapped[dt.datetime]
    team_member: Mapped[bool | None]  # in the configured team at the last registration check
    game_links_by_dm: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=sa_false()
    )  # the player's choice: each later game's fresh challenge link by DM too, not only the room
    # the player's choice of the language of their notices and pages (None: English)
    language: Mapped[str | None] = mapped_column(String(10))
    tournament_id: Mapped[int | None]  # tournaments.id (no foreign key: SQLite adds none in place)
    """The season the entry columns above (seed, status, registration) belong to: the player's
    last season (None in a row the version before seasons wrote: the open season). A season's
    entries are kept in ``season_entries`` when it is archived."""


class StageRow(Base):
    __tablename__ = "stages"
    __table_args__ = (UniqueConstraint("tournament_id", "kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    kind: Mapped[StageKind] = mapped_column(EnumText(StageKind, 20))
    state: Mapped[StageState] = mapped_column(EnumText(StageState, 20), default=StageState.PENDING)
    started_at: Mapped[dt.datetime | None]
    completed_at: Mapped[dt.datetime | None]


class RoundRow(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("stage_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("stages.id"))
    number: Mapped[int]
    state: Mapped[RoundState] = mapped_column(EnumText(RoundState, 20), default=RoundState.PROPOSED)
    week_start: Mapped[dt.datetime | None]
    week_end: Mapped[dt.datetime | None]
    approved_by: Mapped[str | None] = mapped_column(String(30))
    approved_at: Mapped[dt.datetime | None]
    published_at: Mapped[dt.datetime | None]


class MatchRow(Base):
    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_round", "round_id"),
        Index(
            "ix_matches_players", "white_first", "black_first"
        ),  # a game's intake finds its match
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    stage: Mapped[StageKind] = mapped_column(EnumText(StageKind, 20))
    board: Mapped[int]
    white_first: Mapped[str] = mapped_column(ForeignKey("players.id"))
    black_first: Mapped[str | None] = mapped_column(ForeignKey("players.id"))  # None: a bye
    games: Mapped[int]
    clinch_at: Mapped[str | None] = mapped_column(String(10))  # a Fraction as "11/2"
    tiebreak: Mapped[str] = mapped_column(String(30))
    max_weeks: Mapped[int] = mapped_column(Integer, default=1)
    week: Mapped[int] = mapped_column(Integer, default=1)
    state: Mapped[MatchState] = mapped_column(
        EnumText(MatchState, 20), default=MatchState.SCHEDULED
    )
    outcome: Mapped[Outcome | None] = mapped_column(EnumText(Outcome, 20))
    decided_by: Mapped[DecidedBy | None] = mapped_column(EnumText(DecidedBy, 30))
    agreed_time: Mapped[dt.datetime | None]
    completed_at: Mapped[dt.datetime | None]


class GameRow(Base):
    __tablename__ = "games"
    __table_args__ = (Index("ix_games_match", "match_id"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)  # Lichess id, or td-… by hand
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"))
    white: Mapped[str] = mapped_column(String(30))
    black: Mapped[str] = mapped_column(String(30))
    status: Mapped[GameStatus] = mapped_column(EnumText(GameStatus, 20))
    winner: Mapped[str | None] = mapped_column(String(1))  # "w" / "b" / None
    variant: Mapped[str] = mapped_column(String(30))
    rated: Mapped[bool] = mapped_column(Boolean)
    clock_limit: Mapped[int | None]
    clock_increment: Mapped[int | None]
    created_at: Mapped[dt.datetime]
    last_move_at: Mapped[dt.datetime | None]
    counted: Mapped[bool] = mapped_column(Boolean, default=False)
    refusal: Mapped[str | None] = mapped_column(String(40))  # why it does not count
    source: Mapped[str] = mapped_column(String(10), default="lichess")  # lichess / td
    recorded_at: Mapped[dt.datetime]


class AuditRow(Base):
    """Every state change: who, what, why, when. Append-only."""

    __tablename__ = "audit_log"
    __table_args__ = (
        Index("ix_audit_match", "match_id"),
        Index("ix_audit_player", "player"),
        Index("ix_audit_action", "action"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[dt.datetime]
    actor: Mapped[str] = mapped_column(String(30))  # a username, or "bot"
    action: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str | None] = mapped_column(Text)
    player: Mapped[str | None] = mapped_column(String(30))
    match_id: Mapped[int | None]
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    tournament_id: Mapped[int | None] = mapped_column(default=_OPEN_SEASON_ID)
    """The season it was written in (tournaments.id): the open one's, taken by the INSERT itself
    (no round trip). None: written while no season was open, or before entries named it in a
    database of several seasons where migration 0034 could not tell which was open."""


class OutboxRow(Base):
    """A DM, team update, TD alert or forum draft waiting to go out (DESIGN.md: outbox)."""

    __tablename__ = "outbox"
    __table_args__: tuple[Any, ...] = (
        Index("ix_outbox_status", "status"),
        Index("ix_outbox_notice", "kind", "notice"),
        Index("ix_outbox_pending", "status", "kind"),  # a reader's DMs waiting to merge
        # Retired: when a notice was opened in the room. Neither written nor read now (a GET
        # writes nothing: the room's signed cookie says what it showed, bot/web/room.py), and
        # not mapped, so no statement of this version names it; a later release drops it in a
        # contract migration (ARCHITECTURE.md, "Retiring a column").
        Column("seen_at", UTCDateTime(), nullable=True),
    )
    __mapper_args__ = {"exclude_properties": ["seen_at"]}  # noqa: RUF012

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[dt.datetime]
    kind: Mapped[Channel] = mapped_column(EnumText(Channel, 20))
    recipient: Mapped[str] = mapped_column(String(60))
    subject: Mapped[str | None] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)
    notice: Mapped[str | None] = mapped_column(String(40))  # bot.notify.NoticeKind (None: old row)
    event: Mapped[str | None] = mapped_column(String(200))  # shared by every copy of one event
    match_id: Mapped[int | None]  # the match the message is about
    player: Mapped[str | None] = mapped_column(String(30))  # the player it is about
    status: Mapped[OutboxStatus] = mapped_column(
        EnumText(OutboxStatus, 20), default=OutboxStatus.PENDING
    )
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    next_attempt_at: Mapped[dt.datetime | None]
    sent_at: Mapped[dt.datetime | None]
    claim_epoch: Mapped[int | None] = mapped_column(BigInteger)
    """The leadership epoch that claimed it last, to send it (``storage.fence``)."""
    revised_body: Mapped[str | None] = mapped_column(Text)
    """A posted forum draft's newer text, for a TD to paste over the post (None: unchanged)."""


class DeadlineRow(Base):
    """A moment the service must act at (DESIGN.md: deadlines are rows)."""

    __tablename__ = "deadlines"
    __table_args__ = (
        Index("ix_deadlines_due", "fired_at", "cancelled_at", "due_at"),
        # a match's rows (planned again on each change), and its open ones
        Index("ix_deadlines_match_open", "match_id", "fired_at", "cancelled_at", "due_at"),
        UniqueConstraint("kind", "match_id", "subject", "due_at", name="uq_deadlines_identity"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    due_at: Mapped[dt.datetime]
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"))
    subject: Mapped[str] = mapped_column(String(100), default="")
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime]
    fired_at: Mapped[dt.datetime | None]
    cancelled_at: Mapped[dt.datetime | None]


class StageEntrantRow(Base):
    """A player in a stage: pairing number (qualification), pool and place (candidates)."""

    __tablename__ = "stage_entrants"
    __table_args__ = (UniqueConstraint("stage_id", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("stages.id"))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    number: Mapped[int]  # pairing number (qualification) or seed within the pool
    seed_rating: Mapped[int | None]
    pool: Mapped[str | None] = mapped_column(String(10))  # upper / lower (candidates)
    placement: Mapped[int | None]  # final place in the stage, once known


class ForbiddenPairRow(Base):
    """Two players the TDs keep apart in pairings (rules 1.3); ``round`` None: for the stage."""

    __tablename__ = "forbidden_pairs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage_id: Mapped[int] = mapped_column(ForeignKey("stages.id"))
    round: Mapped[int | None]
    first: Mapped[str] = mapped_column(ForeignKey("players.id"))
    second: Mapped[str] = mapped_column(ForeignKey("players.id"))
    created_by: Mapped[str] = mapped_column(String(30))
    created_at: Mapped[dt.datetime]
    reason: Mapped[str | None] = mapped_column(Text)


class PlayerExitRow(Base):
    """A withdrawal or disqualification (rules 8): which stage, after which round, why."""

    __tablename__ = "player_exits"
    __table_args__ = (
        UniqueConstraint("tournament_id", "player_id", name="uq_player_exits_season_player"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    tournament_id: Mapped[int | None]  # the season it was in (tournaments.id; None: the open one)
    stage: Mapped[str] = mapped_column(String(20))
    kind: Mapped[str] = mapped_column(String(30))  # withdrawal / disqualification / engine_...
    last_round: Mapped[int]
    reason: Mapped[str] = mapped_column(Text)
    decided_by: Mapped[str] = mapped_column(String(30))
    at: Mapped[dt.datetime]


class SettingRow(Base):
    """Small facts the service keeps across restarts (e.g. how far the games stream got)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


# The other tables register on Base.metadata when their modules load: whoever has this module
# has every table (alembic's autogenerate, the tests that compare the schema).
from storage import (  # noqa: E402, F401
    models_games,
    models_notices,
    models_ops,
    models_seasons,
    models_stages,
    models_tokens,
    models_web,
    models_weekly,
)
