"""indexes: the pending messages of one kind, a match's open deadlines

Two more lookups of every game and every DM read rows that grow with the season (issue 31):
a DM queued asks when the DMs already waiting for its reader go out (``status`` and ``kind``:
SQLite otherwise searched by ``kind`` alone, every DM ever sent), and a match's open deadline
rows (SQLite otherwise searched every open deadline of the season). The index of a match's
rows becomes one of its rows by state and time, which serves both. Expand only: indexes,
which a running previous version neither reads nor minds (``contract = False``).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04 08:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Indexes only: the previous version's statements run as before."""


def upgrade() -> None:
    op.create_index("ix_outbox_pending", "outbox", ["status", "kind"], unique=False)
    op.create_index(
        "ix_deadlines_match_open",
        "deadlines",
        ["match_id", "fired_at", "cancelled_at", "due_at"],
        unique=False,
    )
    op.drop_index("ix_deadlines_match", table_name="deadlines")


def downgrade() -> None:
    op.create_index("ix_deadlines_match", "deadlines", ["match_id"], unique=False)
    op.drop_index("ix_deadlines_match_open", table_name="deadlines")
    op.drop_index("ix_outbox_pending", table_name="outbox")
