"""outbox: what a message reports, as columns (notice kind, event, match, player)

The TD desk lists alerts by these columns instead of reading message texts. Rows written
before this revision get them here, once, from their dedupe keys and the rows those keys name
(deadlines, games, reports, armageddons); a key this revision does not know leaves them empty,
and the desk still lists such an alert, without a match link.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# dedupe-key prefix -> notice kind (for step and deadline keys, see _classify)
_PREFIXES = {
    "round": "round_pairings",
    "pairing": "pairing",
    "agreed": "time_agreed",
    "result": "result",
    "dq": "disqualification_due",
    "dq-confirmed": "disqualified",
    "claim": "claim",
    "noshow": "no_show",
    "pause": "pause",
    "pause-claim": "claim_right",
    "report": "cheat_report",
    "intake": "game_refused",
    "intake-alert": "game_flagged",
    "repeat": "knockout_repeat",
    "armageddon-start": "armageddon_bidding",
    "armageddon-rps": "armageddon_rps",
    "armageddon-clocks": "armageddon_colours",
    "armageddon-td": "armageddon_needs_td",
    "armageddon-extra": "armageddon_game",
    "armageddon-clock": "armageddon_game",
    "armageddon-early": "armageddon_game",
    "armageddon-check": "armageddon_game",
    "armageddon-result": "armageddon_result",
    "exit-award": "exit_award",
    "rebuild": "knockout_repaired",
}
_DEADLINE_NOTICES = {
    "reply_reminder": "reply_reminder",
    "offers_check": "offers_verdict",
    "weekend_check": "weekend_fault",
    "completion_check": "match_overdue",
}
_MATCH_IN_KEY = {"pairing", "agreed", "result", "claim", "noshow", "pause", "pause-claim",
                 "repeat", "exit-award", "rebuild", "step"}
_GAME_IN_KEY = {"intake", "intake-alert", "armageddon-extra", "armageddon-clock",
                "armageddon-early", "armageddon-check"}
_ARMAGEDDON_IN_KEY = {"armageddon-start", "armageddon-rps", "armageddon-clocks", "armageddon-td",
                      "armageddon-result"}


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _backfill(bind: sa.engine.Connection) -> None:
    outbox = sa.table(
        "outbox",
        sa.column("id", sa.Integer), sa.column("kind", sa.String), sa.column("recipient", sa.String),
        sa.column("dedupe_key", sa.String), sa.column("notice", sa.String),
        sa.column("event", sa.String), sa.column("match_id", sa.Integer),
        sa.column("player", sa.String),
    )
    deadlines = dict(bind.execute(sa.text("SELECT id, kind FROM deadlines")).all())
    deadline_match = dict(bind.execute(sa.text("SELECT id, match_id FROM deadlines")).all())
    game_match = dict(bind.execute(sa.text("SELECT id, match_id FROM games")).all())
    report_match = dict(bind.execute(sa.text("SELECT id, match_id FROM cheat_reports")).all())
    arm_match = dict(bind.execute(sa.text("SELECT id, match_id FROM armageddons")).all())
    rows = bind.execute(
        sa.select(outbox.c.id, outbox.c.kind, outbox.c.recipient, outbox.c.dedupe_key).where(
            outbox.c.dedupe_key.is_not(None)
        )
    ).all()
    for row_id, channel, recipient, key in rows:
        event = key
        suffix = ":" + str(recipient).lower()
        if event.endswith(suffix):
            event = event[: -len(suffix)]
        elif channel == "team_update" and event.endswith(":team"):
            event = event[: -len(":team")]
        parts = event.split(":")
        prefix, rest = parts[0], parts[1:]
        notice = _PREFIXES.get(prefix)
        match_id = player = None
        if prefix == "step":
            notice = "negotiation_step" if channel == "dm" else None
        elif prefix == "deadline" and rest:
            deadline_id = _int(rest[0])
            notice = _DEADLINE_NOTICES.get(deadlines.get(deadline_id, ""))
            match_id = deadline_match.get(deadline_id)
        elif prefix == "report" and rest:
            if rest[-1] == "receipt":
                notice = "report_receipt"
            match_id = report_match.get(_int(rest[0]))
        if rest and prefix in _MATCH_IN_KEY:
            match_id = _int(rest[0])
        elif rest and prefix in _GAME_IN_KEY:
            match_id = game_match.get(rest[0])
        elif rest and prefix in _ARMAGEDDON_IN_KEY:
            match_id = arm_match.get(_int(rest[0]))
        if prefix in ("dq", "dq-confirmed") and rest:
            player = rest[0]
        if channel == "dm" and player is None:
            player = str(recipient).lower()
        bind.execute(
            outbox.update()
            .where(outbox.c.id == row_id)
            .values(notice=notice, event=event[:200], match_id=match_id, player=player)
        )


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('notice', sa.String(length=40), nullable=True))
        batch_op.add_column(sa.Column('event', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('match_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('player', sa.String(length=30), nullable=True))
        batch_op.create_index('ix_outbox_notice', ['kind', 'notice'], unique=False)
    _backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index('ix_outbox_notice')
        batch_op.drop_column('player')
        batch_op.drop_column('match_id')
        batch_op.drop_column('event')
        batch_op.drop_column('notice')
