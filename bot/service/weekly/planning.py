"""A match's deadline rows kept in line with its state (rules 4.5, 5, 6.3; DESIGN.md: deadlines
are rows)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.service.weekly.log import games_started, is_decided
from rules.core.ruleset import Ruleset
from rules.week.conduct import pause_check_due
from rules.week.deadlines import DeadlineKind, MatchFacts, plan_deadlines
from rules.week.negotiation import Negotiation
from storage.match_log import break_calls, game_spans
from storage.models import DeadlineRow, MatchRow
from storage.models_weekly import MatchEventRow
from storage.uow import UnitOfWork

__all__ = ["PAUSE_CHECK", "plan_pause_check", "replan_deadlines"]

PAUSE_CHECK = "pause_check"
"""A deadline row at the moment the pause after a match's last game overruns (rules 6.1, 6.4):
the TDs hear of it, and a leaver's or a breaker's opponent may claim, at once rather than when
(if ever) the next game arrives."""


async def plan_pause_check(
    uow: UnitOfWork,
    ruleset: Ruleset,
    row: MatchRow,
    events: Sequence[MatchEventRow],
    *,
    now: dt.datetime,
    deadlines: Sequence[DeadlineRow] | None = None,
) -> dt.datetime | None:
    """Plan the pause check of ``row``'s current pause, cancelling the check of a pause that
    is over (a game came) or moved (a break was called); when it is due (``None``: none).
    ``deadlines``: the match's deadline rows, read already in this unit of work (its pause
    checks are only ever written here)."""
    due = None
    if not is_decided(row):
        games = await uow.games.for_match(row.id)
        due = pause_check_due(game_spans(games), break_calls(events), conduct=ruleset.conduct)
    if deadlines is None:
        deadlines = await uow.weekly.deadlines(row.id)
    planned = [
        r
        for r in deadlines
        if r.kind == PAUSE_CHECK and r.fired_at is None and r.cancelled_at is None
    ]
    for r in planned:
        if r.due_at != due:
            r.cancelled_at = now
    if due is None or any(r.due_at == due for r in planned):
        return due
    await uow.deadlines.add(
        DeadlineRow(
            kind=PAUSE_CHECK,
            due_at=due,
            match_id=row.id,
            subject=due.isoformat(),
            payload={"week": row.week},
            created_at=now,
        )
    )
    return due


async def replan_deadlines(
    uow: UnitOfWork,
    ruleset: Ruleset,
    row: MatchRow,
    negotiation: Negotiation,
    *,
    now: dt.datetime,
    deadlines: Sequence[DeadlineRow] | None = None,
) -> tuple[int, int]:
    """Bring the match's deadline rows in line with its state (rules/deadlines.plan_deadlines).

    Rows the plan no longer calls for are cancelled (``cancelled_at``); new ones are added; a
    cancelled row the plan calls for again is restored; fired rows stay as history and are never
    planned twice. Returns (added, cancelled). The caller wakes the runner after committing.
    ``deadlines``: the match's deadline rows, read already in this unit of work.
    """
    started = await games_started(uow, row, negotiation.week.start) > 0
    plan = plan_deadlines(
        MatchFacts(negotiation, started=started, completed=is_decided(row)), ruleset=ruleset
    )
    wanted = {(d.kind.value, d.due, d.subject): d for d in plan}
    kinds = {k.value for k in DeadlineKind}
    if deadlines is None:
        deadlines = await uow.weekly.deadlines(row.id)
    existing = [r for r in deadlines if r.kind in kinds]
    have = {(r.kind, r.due_at, r.subject): r for r in existing}
    added = cancelled = 0
    for key, deadline in wanted.items():
        found = have.get(key)
        if found is None:
            await uow.deadlines.add(
                DeadlineRow(
                    kind=deadline.kind.value,
                    due_at=deadline.due,
                    match_id=row.id,
                    subject=deadline.subject,
                    payload={"week": row.week},
                    created_at=now,
                )
            )
            added += 1
        elif found.cancelled_at is not None and found.fired_at is None:
            found.cancelled_at = None
            added += 1
    for key, found in have.items():
        if key not in wanted and found.fired_at is None and found.cancelled_at is None:
            found.cancelled_at = now
            cancelled += 1
    await uow.flush()
    return added, cancelled
