"""seasons: each season's registration window; a player's eligibility check names its season

The window in which players register themselves was one ``[registration]`` value of the config
for every season. A season now keeps its own (``tournaments.registration_opens`` and
``registration_closes``): the first season reads the config's while its own are empty, and
``acwc season new`` moves the window with the calendar for the next season.

Nothing is backfilled here: an empty window means "the config's", which is what the single
season read before this revision, so every existing row reads as it did.

Expand only (``contract = False``): two new nullable columns; the previous version neither
reads nor minds them.

Revision ID: 0032
Revises: 0026
Create Date: 2026-12-04 16:55:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Two new nullable columns: the previous version's statements run as before."""

_WINDOW = ("registration_opens", "registration_closes")


def upgrade() -> None:
    for name in _WINDOW:
        op.add_column("tournaments", sa.Column(name, sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    for name in reversed(_WINDOW):
        op.drop_column("tournaments", name)
