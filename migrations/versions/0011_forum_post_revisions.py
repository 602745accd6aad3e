"""outbox: a posted forum draft's revised text (the desk offers it to paste over the post)

A round's pairings post is kept current (agreed times, results); once a TD has pasted it, a
change is kept in ``revised_body`` for the desk to offer as an edit (Lichess lets an author
edit a post). Nothing is lost: a new, empty column.

Revision ID: 0011
Revises: 0007
Create Date: 2026-12-01 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Expand only (a new nullable column): the previous version runs on."""


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('revised_body', sa.Text(), nullable=True))


def downgrade() -> None:
    # The revised text of a posted draft becomes its body: the newest words are kept.
    bind = op.get_bind()
    bind.execute(
        sa.text(
            "UPDATE outbox SET body = revised_body WHERE revised_body IS NOT NULL"
        )
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('revised_body')
