"""audit_log: the entries of a database of several seasons named by the season open when written

0033 named the season of the entries written before it only in a database holding one season;
in one holding several (played between 0025 and 0033) it left them all unnamed, and the desk's
audit view read every one of them with the open season's. The season open when an entry was
written can be told from the seasons themselves: the first season (the one a database held
before any was made with ``acwc season new``: never confirmed, never a draft) is open until the
first confirmation, and each confirmed season from its confirmation (the ``season.confirm``
entry naming its year, written in the confirming transaction; without one, its first entry at
or after ``tournaments.confirmed_at``) until the next. Entries are taken in the order they were
written (their id). A draft was never open and names none.

Left unnamed, because it cannot be told: the entries written before the first confirmation
when the database holds no first season, or more than one season never confirmed. Entries
0033 or the code since named are not touched.

Expand only (``contract = False``): it fills a nullable column in place, changes no schema;
the previous version reads the entries as before (it reads named ones already). Downgrading
leaves the names (0033's downgrade drops the column).

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-04 18:50:00
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
contract = False
"""Data only: the previous version's statements run as before."""


def upgrade() -> None:
    bind = op.get_bind()
    seasons = bind.execute(
        sa.text("SELECT id, year, state, confirmed_at FROM tournaments ORDER BY id")
    ).fetchall()
    played = [s for s in seasons if s.state != "draft"]
    if len(played) < 2:
        return  # none, or one: 0033 named every entry already
    starts = _starts(bind, [s for s in played if s.confirmed_at is not None])
    first = [s.id for s in played if s.confirmed_at is None]
    if len(first) == 1:
        starts.insert(0, (None, first[0]))
    for (since, season), (until, _) in zip(starts, [*starts[1:], (None, 0)], strict=True):
        where = ["tournament_id IS NULL"]
        if since is not None:
            where.append("id >= :since")
        if until is not None:
            where.append("id < :until")
        bind.execute(
            sa.text(f"UPDATE audit_log SET tournament_id = :season WHERE {' AND '.join(where)}"),
            {"season": season, "since": since, "until": until},
        )


def _starts(bind: sa.Connection, confirmed: Sequence[Any]) -> list[tuple[int | None, int]]:
    """Each confirmed season's first entry (its id) with the season's id, in order; a season
    with no entry at or after its confirmation is left out (nothing of it to name)."""
    marks: dict[int, int] = {}  # year -> the id of its season.confirm entry
    for row in bind.execute(
        sa.text("SELECT id, details FROM audit_log WHERE action = 'season.confirm' ORDER BY id")
    ):
        details = json.loads(row.details) if isinstance(row.details, str) else row.details
        year = (details or {}).get("year")
        if isinstance(year, int):
            marks.setdefault(year, row.id)
    out = []
    for season in confirmed:
        start = marks.get(season.year)
        if start is None:
            start = bind.execute(
                sa.text("SELECT MIN(id) FROM audit_log WHERE at >= :at"),
                {"at": season.confirmed_at},  # as the column holds it (SQLite: its text)
            ).scalar()
        if start is not None:
            out.append((int(start), int(season.id)))
    return sorted(out)


def downgrade() -> None:
    """Nothing to undo: 0033's downgrade drops the column with the names in it."""
