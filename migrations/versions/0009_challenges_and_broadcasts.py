"""challenges and broadcasts: the bot's open challenges of match games, the stages' broadcasts

New tables only; nothing existing changes.

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-01 18:29:38.309845
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('broadcasts',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('stage', sa.String(length=20), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('url', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_broadcasts')),
    sa.UniqueConstraint('stage', name=op.f('uq_broadcasts_stage'))
    )
    op.create_table('broadcast_rounds',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('broadcast_id', sa.String(length=40), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('url', sa.String(length=200), nullable=False),
    sa.Column('players', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['broadcast_id'], ['broadcasts.id'], name=op.f('fk_broadcast_rounds_broadcast_id_broadcasts')),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_broadcast_rounds_round_id_rounds')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_broadcast_rounds')),
    sa.UniqueConstraint('round_id', name=op.f('uq_broadcast_rounds_round_id'))
    )
    op.create_table('challenges',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.Column('week', sa.Integer(), nullable=False),
    sa.Column('game_number', sa.Integer(), nullable=False),
    sa.Column('armageddon', sa.Boolean(), nullable=False),
    sa.Column('white', sa.String(length=30), nullable=False),
    sa.Column('black', sa.String(length=30), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('url', sa.String(length=200), nullable=False),
    sa.Column('clock_limit', sa.Integer(), nullable=False),
    sa.Column('clock_increment', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_challenges_match_id_matches')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_challenges'))
    )
    with op.batch_alter_table('challenges', schema=None) as batch_op:
        batch_op.create_index('ix_challenges_match', ['match_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('challenges', schema=None) as batch_op:
        batch_op.drop_index('ix_challenges_match')

    op.drop_table('challenges')
    op.drop_table('broadcast_rounds')
    op.drop_table('broadcasts')
