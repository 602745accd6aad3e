"""indexes: a match by its two players, a match's deadlines, the audit log by action

The lookups a season makes on every game and every day read whole tables that grow with the
season (issue 31, the scale of a season): the intake finds a game's match by its two players,
each match change plans its deadline rows again, and the daily look at the accounts reads its
own audit entries. Expand only: new indexes, which a running previous version neither reads
nor minds (``contract = False``).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-04 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""New indexes only: the previous version's statements run as before."""


def upgrade() -> None:
    op.create_index('ix_matches_players', 'matches', ['white_first', 'black_first'], unique=False)
    op.create_index('ix_deadlines_match', 'deadlines', ['match_id'], unique=False)
    op.create_index('ix_audit_action', 'audit_log', ['action'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_audit_action', table_name='audit_log')
    op.drop_index('ix_deadlines_match', table_name='deadlines')
    op.drop_index('ix_matches_players', table_name='matches')
