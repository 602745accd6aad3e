"""stage entrants, forbidden pairs, exits, settings

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 07:24:07.893733
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table('settings',
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_settings'))
    )
    op.create_table('player_exits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.String(length=30), nullable=False),
    sa.Column('stage', sa.String(length=20), nullable=False),
    sa.Column('kind', sa.String(length=30), nullable=False),
    sa.Column('last_round', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('decided_by', sa.String(length=30), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_player_exits_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_player_exits')),
    sa.UniqueConstraint('player_id', name=op.f('uq_player_exits_player_id'))
    )
    op.create_table('forbidden_pairs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('stage_id', sa.Integer(), nullable=False),
    sa.Column('round', sa.Integer(), nullable=True),
    sa.Column('first', sa.String(length=30), nullable=False),
    sa.Column('second', sa.String(length=30), nullable=False),
    sa.Column('created_by', sa.String(length=30), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['first'], ['players.id'], name=op.f('fk_forbidden_pairs_first_players')),
    sa.ForeignKeyConstraint(['second'], ['players.id'], name=op.f('fk_forbidden_pairs_second_players')),
    sa.ForeignKeyConstraint(['stage_id'], ['stages.id'], name=op.f('fk_forbidden_pairs_stage_id_stages')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_forbidden_pairs'))
    )
    op.create_table('stage_entrants',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('stage_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.String(length=30), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('seed_rating', sa.Integer(), nullable=True),
    sa.Column('pool', sa.String(length=10), nullable=True),
    sa.Column('placement', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_stage_entrants_player_id_players')),
    sa.ForeignKeyConstraint(['stage_id'], ['stages.id'], name=op.f('fk_stage_entrants_stage_id_stages')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_stage_entrants')),
    sa.UniqueConstraint('stage_id', 'player_id', name=op.f('uq_stage_entrants_stage_id'))
    )



def downgrade() -> None:

    op.drop_table('stage_entrants')
    op.drop_table('forbidden_pairs')
    op.drop_table('player_exits')
    op.drop_table('settings')

