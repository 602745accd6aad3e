"""stage plans, knockout bracket, armageddons

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 07:28:13.323912
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('knockout_brackets',
    sa.Column('tournament_id', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'], name=op.f('fk_knockout_brackets_tournament_id_tournaments')),
    sa.PrimaryKeyConstraint('tournament_id', name=op.f('pk_knockout_brackets'))
    )
    op.create_table('stage_plans',
    sa.Column('stage_id', sa.Integer(), nullable=False),
    sa.Column('earliest_publication', sa.Date(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by', sa.String(length=30), nullable=False),
    sa.Column('settings', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['stage_id'], ['stages.id'], name=op.f('fk_stage_plans_stage_id_stages')),
    sa.PrimaryKeyConstraint('stage_id', name=op.f('pk_stage_plans'))
    )
    op.create_table('armageddons',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.Column('phase', sa.String(length=20), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('white', sa.String(length=30), nullable=True),
    sa.Column('white_seconds', sa.Integer(), nullable=True),
    sa.Column('game_id', sa.String(length=40), nullable=True),
    sa.Column('winner', sa.String(length=30), nullable=True),
    sa.Column('findings', sa.JSON(), nullable=False),
    sa.Column('played_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_armageddons_match_id_matches')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_armageddons')),
    sa.UniqueConstraint('match_id', name=op.f('uq_armageddons_match_id'))
    )
    op.create_table('armageddon_steps',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('armageddon_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('player', sa.String(length=30), nullable=True),
    sa.Column('value', sa.String(length=20), nullable=True),
    sa.Column('salt', sa.Text(), nullable=True),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['armageddon_id'], ['armageddons.id'], name=op.f('fk_armageddon_steps_armageddon_id_armageddons')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_armageddon_steps')),
    sa.UniqueConstraint('armageddon_id', 'seq', name=op.f('uq_armageddon_steps_armageddon_id'))
    )


def downgrade() -> None:
    op.drop_table('armageddon_steps')
    op.drop_table('armageddons')
    op.drop_table('stage_plans')
    op.drop_table('knockout_brackets')
