"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30 07:12:38.394947
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=30), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("player", sa.String(length=30), nullable=True),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index("ix_audit_match", ["match_id"], unique=False)
        batch_op.create_index("ix_audit_player", ["player"], unique=False)

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("recipient", sa.String(length=60), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=200), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_outbox_dedupe_key")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_status", ["status"], unique=False)

    op.create_table(
        "players",
        sa.Column("id", sa.String(length=30), nullable=False),
        sa.Column("username", sa.String(length=30), nullable=False),
        sa.Column("seed_rating", sa.Integer(), nullable=True),
        sa.Column("seeded_as", sa.String(length=20), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("engine_mark", sa.Boolean(), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("current_stage", sa.String(length=20), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_table(
        "stages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name=op.f("fk_stages_tournament_id_tournaments")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stages")),
        sa.UniqueConstraint("tournament_id", "kind", name=op.f("uq_stages_tournament_id")),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stage_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("week_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("week_end", sa.DateTime(timezone=True), nullable=True),
        sa.Column("approved_by", sa.String(length=30), nullable=True),
        sa.Column("approved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["stage_id"], ["stages.id"], name=op.f("fk_rounds_stage_id_stages")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint("stage_id", "number", name=op.f("uq_rounds_stage_id")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("stage", sa.String(length=20), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("white_first", sa.String(length=30), nullable=False),
        sa.Column("black_first", sa.String(length=30), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("clinch_at", sa.String(length=10), nullable=True),
        sa.Column("tiebreak", sa.String(length=30), nullable=False),
        sa.Column("max_weeks", sa.Integer(), nullable=False),
        sa.Column("week", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("outcome", sa.String(length=20), nullable=True),
        sa.Column("decided_by", sa.String(length=30), nullable=True),
        sa.Column("agreed_time", sa.DateTime(timezone=True), nullable=True),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["black_first"], ["players.id"], name=op.f("fk_matches_black_first_players")
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_matches_round_id_rounds")
        ),
        sa.ForeignKeyConstraint(
            ["white_first"], ["players.id"], name=op.f("fk_matches_white_first_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index("ix_matches_round", ["round_id"], unique=False)

    op.create_table(
        "deadlines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("subject", sa.String(length=100), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancelled_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_deadlines_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deadlines")),
        sa.UniqueConstraint("kind", "match_id", "subject", "due_at", name="uq_deadlines_identity"),
    )
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.create_index(
            "ix_deadlines_due", ["fired_at", "cancelled_at", "due_at"], unique=False
        )

    op.create_table(
        "games",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("white", sa.String(length=30), nullable=False),
        sa.Column("black", sa.String(length=30), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("winner", sa.String(length=1), nullable=True),
        sa.Column("variant", sa.String(length=30), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("clock_limit", sa.Integer(), nullable=True),
        sa.Column("clock_increment", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_move_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("refusal", sa.String(length=40), nullable=True),
        sa.Column("source", sa.String(length=10), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_games_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index("ix_games_match", ["match_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_match")

    op.drop_table("games")
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_index("ix_deadlines_due")

    op.drop_table("deadlines")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_round")

    op.drop_table("matches")
    op.drop_table("rounds")
    op.drop_table("stages")
    op.drop_table("tournaments")
    op.drop_table("players")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status")

    op.drop_table("outbox")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index("ix_audit_player")
        batch_op.drop_index("ix_audit_match")

    op.drop_table("audit_log")
