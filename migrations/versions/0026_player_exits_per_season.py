"""player_exits: an exit belongs to a season; a player may leave each season they enter

A withdrawal or disqualification (rules 8) is one season's: ``player_exits.tournament_id``
names it (filled from the season of the player's entry), and the one-exit-a-player constraint
becomes one exit a player a season, so a player who left one season may enter the next, and
leave it too. The stages read the exits of the season they play only.

Expand only (``contract = False``): a new nullable column, and a unique constraint made wider
(the previous version never enters a player twice, so it never meets the difference). SQLite
rebuilds the table to change the constraint; no other table refers to it.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-04 13:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""A new nullable column and a wider unique constraint: the previous version runs as before."""


def upgrade() -> None:
    op.add_column("player_exits", sa.Column("tournament_id", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE player_exits SET tournament_id = "
        "(SELECT players.tournament_id FROM players WHERE players.id = player_exits.player_id)"
    )
    with op.batch_alter_table("player_exits") as batch:
        batch.drop_constraint("uq_player_exits_player_id", type_="unique")
        batch.create_unique_constraint(
            "uq_player_exits_season_player", ["tournament_id", "player_id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("player_exits") as batch:
        batch.drop_constraint("uq_player_exits_season_player", type_="unique")
        batch.create_unique_constraint("uq_player_exits_player_id", ["player_id"])
    with op.batch_alter_table("player_exits") as batch:
        batch.drop_column("tournament_id")
