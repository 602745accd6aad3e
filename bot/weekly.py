"""The weekly flow of a round (DESIGN.md "The flow of one week"): publication, negotiation,
deadlines, no-shows and forfeits (rules 4, 5, 6).

``publish_round`` is the one door every stage uses to put approved pairings into play.
"""

from __future__ import annotations

import datetime as dt

from bot.app import Hooks
from bot.config import Config
from rules.week import MatchWeek, match_week
from storage.models import RoundRow
from storage.uow import UnitOfWork


def publication_date(now: dt.datetime, config: Config) -> dt.date:
    """The publication weekday (Tuesday) on or after ``now``, never before the first one."""
    day = max(now.date(), config.rules.calendar.first_publication)
    while day.weekday() != config.rules.calendar.publish_weekday:
        day += dt.timedelta(days=1)
    return day


async def publish_round(
    uow: UnitOfWork, config: Config, round_row: RoundRow, *, now: dt.datetime, actor: str
) -> MatchWeek:
    """Put an approved round into play: its match week, and its matches scheduled."""
    week = match_week(publication_date(now, config), config.rules)
    round_row.state = "published"
    round_row.published_at = now
    round_row.week_start, round_row.week_end = week.start, week.end
    for match in await uow.matches.for_round(round_row.id):
        if match.black_first is not None and match.state == "proposed":
            match.state = "scheduled"
    await uow.audit.record(
        at=now,
        actor=actor,
        action="round.publish",
        details={
            "round": round_row.id,
            "number": round_row.number,
            "week_start": week.start.isoformat(),
            "week_end": week.end.isoformat(),
        },
    )
    await uow.session.flush()
    return week


def register(hooks: Hooks) -> None:
    """Deadline handlers and match hooks of the weekly flow."""
