"""The progression from one stage to the next, through a registry of stage formats (rules 3.ii,
3.v.4, 3.vi-3.viii, 4.2).

Each stage kind has a :class:`StageRunner`: its pure :class:`rules.stages.formats.StageFormat`
and the work of opening it from the stage before (Candidates pools, the semifinals, the final
matches) or, for the last stage, of concluding the championship. :meth:`Progression.advance`
moves on only when :func:`rules.stages.order.stage_progress` finds nothing missing. The next
stage's rounds are created ``proposed``: the stage advance is the TDs' approval of them all (the
rules fix them, rules 3.vi-3.viii), so with ``tournament.publish_fixed_rounds`` the daily job
(:mod:`bot.service.digest`) publishes each on its Tuesday, the first one too: the advance runs
the job at once, so a round whose day is today goes out now. Otherwise a TD publishes them one at
a time (:class:`~bot.service.stages.rounds.StageRounds`).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from typing import Protocol

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.service.player_tokens import SWEEP, plan_forget
from bot.service.stages.placement import PlacementRunner
from bot.service.stages.runner import AdvanceReport, Handover, StageRunner
from bot.views.qualification import entrants
from bot.views.scores import decided_outcome
from bot.views.tournament import require_tournament, stage_rounds, stage_row
from rules.core.ruleset import StageKind
from rules.core.states import StageState
from rules.stages.formats import STAGE_FORMATS, PlacementStage, StageFormat, next_stage
from rules.stages.order import MatchStatus, StageProgress, stage_progress
from storage.convert import to_match
from storage.uow import UnitOfWork

__all__ = [
    "AdvanceReport",
    "Handover",
    "KnockoutSync",
    "Progression",
    "StageRunner",
    "record_advance",
]


class KnockoutSync(Protocol):
    async def sync(self, uow: UnitOfWork, *, now: dt.datetime) -> list[str]: ...


def _missing_error(kind: StageKind, prog: StageProgress) -> OperationError:
    items = "\n".join(f"  - {m.text}" for m in prog.missing)
    return OperationError(f"the {kind.value} stage is not complete yet:\n{items}")


class Progression:
    def __init__(
        self,
        config: Config,
        runners: Mapping[StageKind, StageRunner],
        knockout: KnockoutSync,
        notifier: Notifier,
    ) -> None:
        self.config = config
        self.runners = dict(runners)
        self.knockout = knockout
        self.notifier = notifier

    def runner(self, kind: StageKind) -> StageRunner:
        """``kind``'s own runner, or the generic one of a stage played from a placement."""
        if kind in self.runners:
            return self.runners[kind]
        fmt = STAGE_FORMATS.get(kind)
        if isinstance(fmt, PlacementStage):
            return PlacementRunner(self.config, fmt)
        raise OperationError(f"no stage format is registered for {kind.value}")

    async def _round_count(self, uow: UnitOfWork, fmt: StageFormat) -> int:
        field = 0
        if not fmt.fixed_rounds:  # paired round by round: as many rounds as its field asks
            field = len(await entrants(uow, await stage_row(uow, fmt.kind)))
        return fmt.round_count(entrants=field, ruleset=self.config.rules)

    async def progress(self, uow: UnitOfWork, kind: StageKind) -> StageProgress:
        """What ``kind`` still lacks before the next stage (rules/stages.stage_progress).

        ``StageKind.FINAL`` covers the third place playoff too.
        """
        fmt = self.runner(kind).format
        statuses: list[MatchStatus] = []
        rounds = await self._round_count(uow, fmt)
        for member in fmt.members:
            stage = await stage_row(uow, member)
            rounds_rows = await stage_rounds(uow, stage)
            await uow.games.preload(r.id for _, rows in rounds_rows for r in rows)
            for rnd, rows in rounds_rows:
                if rows and all(r.black_first is None for r in rows):  # pragma: no cover
                    rounds = max(rounds, rnd.number)  # a round of byes only counts as paired
                for row in rows:
                    if row.black_first is None:
                        continue  # a bye is complete by itself
                    outcome = await decided_outcome(uow, row)
                    assert outcome is not None
                    statuses.append(MatchStatus(to_match(row, round=rnd.number), outcome))
        return stage_progress(fmt.kind, statuses, rounds=rounds)

    async def advance(
        self,
        uow: UnitOfWork,
        *,
        now: dt.datetime,
        actor: str,
        rng: random.Random | None = None,
    ) -> AdvanceReport:
        """Move from the current stage to the next, only when the current one is complete.

        Raises :class:`OperationError` listing what is missing (rules/stages.stage_progress).
        ``rng`` draws the colours of the final matches (rules/knockout.pair_finals); by default
        a system random source, and the draw is in the audit log.
        """
        tournament = await require_tournament(uow)
        current = self.runner(StageKind(tournament.current_stage)).format.kind
        stage = await stage_row(uow, current)
        if stage.state == StageState.COMPLETE:
            raise OperationError(
                "the championship is over: there is no stage after the final"
                if next_stage(current, self.config.rules) is None
                else f"the championship is over: the TDs ended it with the {current.value}"
                " (rules 1.3, 5.10)"
            )
        await self.knockout.sync(uow, now=now)
        prog = await self.progress(uow, current)
        if not prog.complete:
            raise _missing_error(current, prog)
        following = next_stage(current, self.config.rules)
        if following is None:
            report = await self.runner(current).conclude(uow, now=now)
        else:
            handover = Handover(current, await self.runner(current).hand_over(uow))
            report = await self.runner(following).open(uow, handover, now=now, actor=actor, rng=rng)
        if report.entered is not None:
            tournament.current_stage = report.entered
        await record_advance(uow, report, now=now, actor=actor)
        if await uow.tokens.player_ids():  # the players out of the stage now need none
            await plan_forget(uow, subject=SWEEP, why="stage", now=now)
        if report.entered is not None and self.config.tournament.publish_fixed_rounds:
            await self.notifier.schedule_digest(uow, now=now, at_once=True)
        await uow.flush()
        return report


async def record_advance(
    uow: UnitOfWork, report: AdvanceReport, *, now: dt.datetime, actor: str
) -> None:
    """The audit line of a stage left (and the one entered, or the final placement)."""
    await uow.audit.record(
        at=now,
        actor=actor,
        action="stage.advance",
        details={
            "left": report.left.value,
            "entered": None if report.entered is None else report.entered.value,
            "earliest_publication": None
            if report.earliest_publication is None
            else report.earliest_publication.isoformat(),
            "lines": list(report.lines),
            "placement": list(report.placement),
        },
    )
