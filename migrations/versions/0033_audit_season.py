"""audit_log: each entry names the season it was written in

The desk's audit log read every season's entries as one: after next year's season opened, last
year's rulings, checks and registrations stood among this year's. An entry now names its season
(``audit_log.tournament_id``, the open season's when written), and the desk's view reads the open
season's. The entries written before are named where that is certain: a database holding one
season gives them all to it; one holding more leaves them unnamed (read with the open season's).

Expand only (``contract = False``): a new nullable column, filled in place; the previous version
neither reads nor writes it (its entries are the unnamed ones).

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-04 17:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""A new nullable column: the previous version's statements run as before."""


def upgrade() -> None:
    op.add_column("audit_log", sa.Column("tournament_id", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE audit_log SET tournament_id = (SELECT MIN(id) FROM tournaments) "
        "WHERE (SELECT COUNT(*) FROM tournaments) = 1"
    )


def downgrade() -> None:
    op.drop_column("audit_log", "tournament_id")
