"""lichess_holds (a shared 429 pause, a stopped outbox, players who refuse DMs),
outbox.seen_at (a notice read in the player's match room) and players.team_member (in the
configured team at the last registration check: their pairing goes in the team message)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'lichess_holds',
        sa.Column('name', sa.String(length=60), nullable=False),
        sa.Column('since', sa.DateTime(timezone=True), nullable=False),
        sa.Column('until', sa.DateTime(timezone=True), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_lichess_holds')),
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seen_at', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('team_member', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('team_member')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('seen_at')
    op.drop_table('lichess_holds')
