"""players: whether a player wants each later game's fresh challenge link by DM

The bot's challenge of every match game is in the match room; a player may also ask for each
later game's link by DM (issue 14). Nothing is lost: a new column, false for everyone.

Revision ID: 0014
Revises: 0011
Create Date: 2026-12-01 22:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Expand only (a new column with a default): the previous version runs on."""


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'game_links_by_dm', sa.Boolean(), server_default=sa.false(), nullable=False
            )
        )


def downgrade() -> None:
    # Only a preference; the links stay in the match room.
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('game_links_by_dm')
