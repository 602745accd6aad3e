"""players: the language a player reads their notices and pages in

Every text a player reads goes through a message catalogue (issue 28); a player picks their
language on their account page. Nothing is lost: a new column, empty (English) for everyone.

Revision ID: 0031
Revises: 0023
Create Date: 2026-12-04 13:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0031'
down_revision: str | None = '0023'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Expand only (a new nullable column): the previous version runs on."""


def upgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sa.String(length=10), nullable=True))


def downgrade() -> None:
    # Only a preference: the player reads English again.
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('language')
