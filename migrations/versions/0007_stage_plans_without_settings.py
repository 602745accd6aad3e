"""stage_plans: no copy of the settings (one rule set, from the config, everywhere)

Older versions copied part of the config into each started stage's plan so that background
work could run without the config. Every part of the service now gets the config's rule set
when it is built, so the copy goes. Nothing is lost: each plan's copy is written to the audit
log first (action ``stage.plan_settings``), and a downgrade puts it back from there.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 16:30:00
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTION = "stage.plan_settings"


def _settings(value: object) -> dict[str, object]:
    if isinstance(value, str):  # SQLite hands JSON back as text through a plain SELECT
        value = json.loads(value)
    return value if isinstance(value, dict) else {}


def upgrade() -> None:
    bind = op.get_bind()
    audit = sa.table(
        "audit_log",
        sa.column("at", sa.DateTime(timezone=True)),
        sa.column("actor", sa.String),
        sa.column("action", sa.String),
        sa.column("reason", sa.Text),
        sa.column("details", sa.JSON),
    )
    plans = bind.execute(
        sa.text("SELECT stage_id, created_at, settings FROM stage_plans ORDER BY stage_id")
    ).all()
    for stage_id, created_at, settings in plans:
        at = created_at if isinstance(created_at, dt.datetime) else dt.datetime.fromisoformat(
            str(created_at)
        )
        bind.execute(
            audit.insert().values(
                at=at,
                actor="migration",
                action=ACTION,
                reason="revision 0007: the settings now come from the config only",
                details={"stage_id": stage_id, "settings": _settings(settings)},
            )
        )
    with op.batch_alter_table('stage_plans', schema=None) as batch_op:
        batch_op.drop_column('settings')


def downgrade() -> None:
    with op.batch_alter_table('stage_plans', schema=None) as batch_op:
        batch_op.add_column(sa.Column('settings', sa.JSON(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT details FROM audit_log WHERE action = :action ORDER BY id"),
        {"action": ACTION},
    ).all()
    plans = sa.table("stage_plans", sa.column("stage_id", sa.Integer), sa.column("settings", sa.JSON))
    for (details,) in rows:
        data = _settings(details)
        bind.execute(
            plans.update()
            .where(plans.c.stage_id == data.get("stage_id"))
            .values(settings=data.get("settings", {}))
        )
    bind.execute(plans.update().where(plans.c.settings.is_(None)).values(settings={}))
    bind.execute(
        sa.text("DELETE FROM audit_log WHERE action = :action"), {"action": ACTION}
    )
    with op.batch_alter_table('stage_plans', schema=None) as batch_op:
        batch_op.alter_column('settings', existing_type=sa.JSON(), nullable=False)
