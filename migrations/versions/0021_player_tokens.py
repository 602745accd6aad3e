"""player_tokens, bulk_games: players' encrypted tokens, and the games made with them

A player may let the bot create their match games by Lichess's bulk pairing (issue 25); the
token with challenge:write they give for it is kept encrypted, one row a player; each game the
bot asked Lichess to create is a row of bulk_games. New tables: nothing else changes.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-04 03:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""New tables only: a running previous version neither reads nor minds them."""


def upgrade() -> None:
    op.create_table(
        'player_tokens',
        sa.Column('player_id', sa.String(length=30), nullable=False),
        sa.Column('secret', sa.Text(), nullable=False),
        sa.Column('scopes', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['player_id'],
            ['players.id'],
            name=op.f('fk_player_tokens_player_id_players'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('player_id', name=op.f('pk_player_tokens')),
    )
    op.create_table(
        'bulk_games',
        sa.Column('game_id', sa.String(length=40), nullable=False),
        sa.Column('bulk_id', sa.String(length=40), nullable=False),
        sa.Column('white', sa.String(length=30), nullable=False),
        sa.Column('black', sa.String(length=30), nullable=False),
        sa.Column('pair_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('cancelled_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('game_id', name=op.f('pk_bulk_games')),
    )
    op.create_index('ix_bulk_games_players', 'bulk_games', ['white', 'black'], unique=False)


def downgrade() -> None:
    # The tokens are lost (the players allow it again on their account page), and the record
    # of the games made by bulk pairing (their challenge rows keep the games' ids).
    op.drop_index('ix_bulk_games_players', table_name='bulk_games')
    op.drop_table('bulk_games')
    op.drop_table('player_tokens')
