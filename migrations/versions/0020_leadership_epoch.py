"""leadership: the run lock's epoch and lease, the oldest code served; outbox.claim_epoch

The leadership row holds the run lock's epoch, its lease and the last epoch that ended, and the
oldest code revision the schema still serves; outbox.claim_epoch the epoch that claimed a row.
Expand only (issue 31): a new table and a new nullable column, which a running previous
version neither reads nor minds, so this may run while it serves (``contract = False``). The
previous version does not fence its writes: the operator's guide says to stop it before the new
one leads.

Revision ID: 0020
Revises: 0014
Create Date: 2026-12-04 03:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0020'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Whether code written for the schema before this revision can no longer run on it
(``storage.migrate``: ``acwc db upgrade --check``)."""


def upgrade() -> None:
    leadership = op.create_table(
        'leadership',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('epoch', sa.BigInteger(), nullable=False),
        sa.Column('holder', sa.String(length=64), nullable=True),
        sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True),
        sa.Column('ended', sa.BigInteger(), nullable=False),
        sa.Column('oldest_code', sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_leadership')),
    )
    op.bulk_insert(leadership, [{'id': 1, 'epoch': 0, 'ended': 0}])
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('claim_epoch', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('claim_epoch')
    op.drop_table('leadership')
