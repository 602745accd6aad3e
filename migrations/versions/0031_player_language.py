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
    op.add_column('players', sa.Column('language', sa.String(length=10), nullable=True))


def downgrade() -> None:
    # Only a preference: the player reads English again. In place (SQLite 3.35 drops a plain
    # column itself): a batch copy of ``players`` would drop the table other rows refer to,
    # which SQLite's foreign keys refuse.
    op.drop_column('players', 'language')
