"""seasons: a tournaments row is a season (year, state, settings, seeded, final); entries

A deployment holds every season of the championship (issue 28): a ``tournaments`` row is one
season, with its year, its state (draft, open, archived: one open at a time), its settings over
the config's ``[rules]``, its title holder and runner-up (rules 3.3, 3.4), its final placement
once played (what the next season's Candidates tiebreak reads, rules 3.6.6.4) and the season it
was made from. ``players`` stays the people (Lichess accounts) with the entry of their last
season, which ``players.tournament_id`` now names; ``season_entries`` keeps each season's
entries, so an archived season reads what was true in it.

The single season a database held is carried over: its year from its creation, open, its
seeded entrants from the players seeded as title holder and runner-up, every player's entry
named as its own and copied into ``season_entries``. Nothing is dropped or changed in place.

Expand only: new nullable columns and a new table; the previous version neither reads nor
minds them, and reads the one season as before (``contract = False``).

Revision ID: 0025
Revises: 0031
Create Date: 2026-12-04 12:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""New nullable columns and a new table: the previous version's statements run as before."""

_SEASON_COLUMNS = (
    sa.Column("year", sa.Integer(), nullable=True),
    sa.Column("state", sa.String(length=20), nullable=True),
    sa.Column("rules", sa.JSON(), nullable=True),
    sa.Column("title_holder", sa.String(length=30), nullable=True),
    sa.Column("runner_up", sa.String(length=30), nullable=True),
    sa.Column("final_order", sa.JSON(), nullable=True),
    sa.Column("previous_id", sa.Integer(), nullable=True),
    sa.Column("confirmed_by", sa.String(length=30), nullable=True),
    sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
)


def upgrade() -> None:
    for column in _SEASON_COLUMNS:
        op.add_column("tournaments", column)
    op.add_column("players", sa.Column("tournament_id", sa.Integer(), nullable=True))
    op.create_table(
        "season_entries",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=30), nullable=False),
        sa.Column("username", sa.String(length=30), nullable=False),
        sa.Column("seed_rating", sa.Integer(), nullable=True),
        sa.Column("seeded_as", sa.String(length=20), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column("engine_mark", sa.Boolean(), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("team_member", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    )
    op.create_index("ix_season_entries_player", "season_entries", ["player_id"], unique=False)
    _carry_over()


def _carry_over() -> None:
    """The one season a database held becomes an open season with its entries named."""
    bind = op.get_bind()
    seasons = bind.execute(
        sa.text("SELECT id, created_at FROM tournaments ORDER BY id")
    ).fetchall()
    if not seasons:
        return
    first = seasons[0]
    seeded = dict(
        bind.execute(
            sa.text("SELECT seeded_as, username FROM players WHERE seeded_as IS NOT NULL")
        ).fetchall()
    )
    for row in seasons:
        created = row.created_at
        year = created.year if hasattr(created, "year") else int(str(created)[:4])
        bind.execute(
            sa.text(
                "UPDATE tournaments SET year = :year, state = :state, title_holder = :holder, "
                "runner_up = :runner WHERE id = :id"
            ),
            {
                "year": year,
                "state": "open" if row.id == first.id else "archived",
                "holder": seeded.get("title_holder") if row.id == first.id else None,
                "runner": seeded.get("runner_up") if row.id == first.id else None,
                "id": row.id,
            },
        )
    bind.execute(sa.text("UPDATE players SET tournament_id = :id"), {"id": first.id})
    bind.execute(
        sa.text(
            "INSERT INTO season_entries (tournament_id, player_id, username, seed_rating, "
            "seeded_as, status, status_reason, engine_mark, registered_at, team_member) "
            "SELECT tournament_id, id, username, seed_rating, seeded_as, status, status_reason, "
            "engine_mark, registered_at, team_member FROM players"
        )
    )


def downgrade() -> None:
    op.drop_index("ix_season_entries_player", table_name="season_entries")
    op.drop_table("season_entries")
    # In place (SQLite 3.35 drops a plain column itself): a batch copy of ``players`` would
    # drop the table other rows refer to, which SQLite's foreign keys refuse.
    op.drop_column("players", "tournament_id")
    for column in reversed(_SEASON_COLUMNS):
        op.drop_column("tournaments", column.name)
