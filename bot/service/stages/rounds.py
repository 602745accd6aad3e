"""Rounds of the later stages: the matches they are made of, the calendar floor a started stage
keeps, and their publication by a TD (rules 4.1-4.2)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.config import Config
from bot.errors import OperationError
from bot.service.weekly.publication import Publication, publication_date
from bot.views.tournament import stage_row
from rules.core.ruleset import Ruleset, StageKind
from rules.core.states import MatchState, RoundState, StageState
from rules.stages.formats import stage_format
from storage.convert import fraction_to_text
from storage.models import MatchRow, RoundRow, StageRow
from storage.uow import UnitOfWork

__all__ = [
    "StageRounds",
    "complete_stage",
    "earliest_publication",
    "new_match",
    "start_stage",
]


def new_match(
    round_row: RoundRow, stage: StageKind, board: int, white: str, black: str, ruleset: Ruleset
) -> MatchRow:
    """A match of ``stage`` in the stage's format, scheduled if its round is published."""
    fmt = stage_format(stage).match_format(ruleset, stage)
    return MatchRow(
        round_id=round_row.id,
        stage=stage.value,
        board=board,
        white_first=white,
        black_first=black,
        games=fmt.games,
        clinch_at=fraction_to_text(fmt.clinch_at),
        tiebreak=fmt.tiebreak.value,
        max_weeks=fmt.max_weeks,
        week=1,
        state=MatchState.SCHEDULED
        if round_row.state is RoundState.PUBLISHED
        else MatchState.PROPOSED,
    )


async def _last_publication(uow: UnitOfWork, kinds: Sequence[StageKind]) -> dt.date | None:
    latest: dt.date | None = None
    for kind in kinds:
        stage = await stage_row(uow, kind)
        for rnd in await uow.tournaments.rounds(stage.id):
            if rnd.week_start is not None:
                day = rnd.week_start.date()
                latest = day if latest is None or day > latest else latest
    return latest


async def earliest_publication(uow: UnitOfWork, stage_id: int, number: int) -> dt.date | None:
    """The first date round ``number`` of a started later stage may be published (rules 4.1-4.2).

    ``None`` when the stage has no plan (the qualification).
    """
    plan = await uow.later_stages.plan(stage_id)
    if plan is None:
        return None
    return plan.earliest_publication + dt.timedelta(weeks=number - 1)


async def start_stage(
    uow: UnitOfWork,
    ruleset: Ruleset,
    kind: StageKind,
    *,
    after: Sequence[StageKind],
    break_weeks: int,
    now: dt.datetime,
    actor: str,
) -> tuple[StageRow, dt.date]:
    """Mark ``kind`` active with its calendar floor: a week after the last round of the stages
    ``after`` plus ``break_weeks`` (rules 4.2)."""
    stage = await stage_row(uow, kind)
    last = await _last_publication(uow, after)
    if last is None:
        earliest = publication_date(now, ruleset)
    else:
        earliest = last + dt.timedelta(weeks=1 + break_weeks)
    await uow.later_stages.set_plan(stage.id, earliest_publication=earliest, now=now, actor=actor)
    stage.state, stage.started_at = StageState.ACTIVE, now
    return stage, earliest


async def complete_stage(uow: UnitOfWork, kind: StageKind, *, now: dt.datetime) -> None:
    stage = await stage_row(uow, kind)
    stage.state, stage.completed_at = StageState.COMPLETE, now


class StageRounds:
    """A TD publishes the proposed rounds of a later stage, one a week."""

    def __init__(self, config: Config, publication: Publication) -> None:
        self.config = config
        self.publication = publication

    async def approve_round(
        self,
        uow: UnitOfWork,
        *,
        stage: StageKind,
        number: int | None = None,
        now: dt.datetime,
        actor: str,
    ) -> RoundRow:
        """Approve and publish a proposed round of a later stage.

        ``number`` defaults to the stage's first proposed round. Refuses a round whose earlier
        round is not published, a stage that has not started, and a publication before the
        round's earliest date (rules 4.1-4.2: one round a week, the break between stages).
        """
        if not stage_format(stage).fixed_rounds:  # the TDs pair it round by round
            raise OperationError(
                f"{stage.value} rounds are approved with their own Approve pairings card"
            )
        row = await stage_row(uow, stage)
        if row.state is not StageState.ACTIVE:
            raise OperationError(f"the {stage.value} stage has not started (it is {row.state})")
        rounds = list(await uow.tournaments.rounds(row.id))
        if number is None:
            proposed = [r for r in rounds if r.state == RoundState.PROPOSED]
            if not proposed:
                raise OperationError(f"the {stage.value} stage has no proposed round")
            target = proposed[0]
        else:
            found = [r for r in rounds if r.number == number]
            if not found:
                raise OperationError(f"the {stage.value} stage has no round {number}")
            target = found[0]
        if target.state != RoundState.PROPOSED:
            raise OperationError(
                f"{stage.value} round {target.number} is {target.state}, not proposed"
            )
        earlier = [r for r in rounds if r.number < target.number and r.state == RoundState.PROPOSED]
        if earlier:
            raise OperationError(
                f"publish {stage.value} round {earlier[0].number} before round {target.number}"
            )
        floor = await earliest_publication(uow, row.id, target.number)
        day = publication_date(now, self.config.rules)
        previous = [r for r in rounds if r.number < target.number and r.week_start is not None]
        if previous:
            after_previous = max(r.week_start for r in previous if r.week_start).date()
            after_previous += dt.timedelta(weeks=1)
            floor = after_previous if floor is None else max(floor, after_previous)
        if floor is not None and day < floor:
            raise OperationError(
                f"{stage.value} round {target.number} cannot be published before"
                f" {floor:%a %Y-%m-%d} (rules 4.1-4.2: one match a week, the break between"
                f" stages); the next publication day now would be {day:%a %Y-%m-%d}"
            )
        target.state, target.approved_by, target.approved_at = RoundState.APPROVED, actor, now
        await self.publication.publish_round(uow, target, now=now, actor=actor)
        return target
