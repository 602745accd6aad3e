"""Too few qualifiers for the Candidates' pools (rules 3.v.4, 3.vi: a withdrawal, a small field).

The regulations do not say what happens then; they leave it to the TDs (rules 1.3, 5.10), and
nothing waits on it but the Candidates' start. The desk puts three ways on to them:

- **smaller pools**: every qualifier, placed by the regulations' table with the places nobody
  reached left out (:func:`rules.stages.candidates.smaller_pools`);
- **fill from the next places**: the standings' next places are taken already (a player who left
  is passed over, :func:`rules.stages.qualification.qualifiers`), so the empty places go to the
  next players in the championship who did not play the qualification: registered after its
  field was fixed (reserves), by seed rating, best first, as the qualification ranked its own;
- **end the stage**: the qualification is closed and the championship ends with it; its
  standings are the final placement.

The choice is a setting (:data:`SMALL_FIELD`), kept in the audit log with the TD's reason.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass

from bot.errors import OperationError
from bot.service.stages.candidates import SMALL_FIELD, CandidatesStage, reserves
from bot.service.stages.registry import AdvanceReport, Progression, record_advance
from bot.service.stages.rounds import complete_stage
from bot.views.qualification import qualification_stage, standings
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.states import StageState
from rules.stages.qualification import qualifiers
from storage.uow import UnitOfWork

__all__ = ["Shortage", "SmallFieldChoice", "choose", "shortage"]


class SmallFieldChoice(enum.StrEnum):
    SMALLER_POOLS = "smaller_pools"
    FILL = "fill_next_places"
    END = "end_stage"


@dataclass(frozen=True, slots=True)
class Shortage:
    """The qualifiers the standings give, how many the pools need, the reserves who could fill
    the empty places, and the ways on that can be taken."""

    qualifiers: tuple[PlayerId, ...]
    needed: int
    reserves: tuple[PlayerId, ...]

    @property
    def missing(self) -> int:
        return self.needed - len(self.qualifiers)

    @property
    def choices(self) -> tuple[SmallFieldChoice, ...]:
        fill = (SmallFieldChoice.FILL,) if len(self.reserves) >= self.missing else ()
        return (SmallFieldChoice.SMALLER_POOLS, *fill, SmallFieldChoice.END)


def _candidates(progression: Progression) -> CandidatesStage:
    runner = progression.runner(StageKind.CANDIDATES)
    if not isinstance(runner, CandidatesStage):  # pragma: no cover - bootstrap registers it
        raise OperationError("the Candidates have no stage runner")
    return runner


async def shortage(uow: UnitOfWork, progression: Progression) -> Shortage | None:
    """The shortage, when the qualification is complete and too few qualify; else None."""
    tournament = await uow.tournaments.current()
    if tournament is None or StageKind(tournament.current_stage) is not StageKind.QUALIFICATION:
        return None
    qual = await qualification_stage(uow)
    if qual.state == StageState.COMPLETE:
        return None
    chosen, needed = await _candidates(progression).qualifiers(uow)
    if len(chosen) >= needed:
        return None
    return Shortage(chosen, needed, await reserves(uow))


async def choose(
    uow: UnitOfWork,
    progression: Progression,
    choice: SmallFieldChoice,
    *,
    reason: str,
    now: dt.datetime,
    actor: str,
) -> AdvanceReport:
    """Take one way on (rules 1.3, 5.10) and act on it: start the Candidates with smaller or
    filled pools, or end the championship with the qualification.

    Raises :class:`OperationError` when there is no shortage (any more), when the qualification
    is not complete, or when the choice cannot be taken (too few reserves to fill); a
    :class:`~rules.core.errors.RulesError` when even smaller pools cannot be made.
    """
    found = await shortage(uow, progression)
    if found is None:
        raise OperationError("enough players qualify for the Candidates: nothing to choose")
    if choice not in found.choices:
        raise OperationError(
            f"{len(found.reserves)} reserve(s) cannot fill the {found.missing} empty place(s)"
        )
    prog = await progression.progress(uow, StageKind.QUALIFICATION)
    if not prog.complete:
        raise OperationError("the qualification is not complete yet")
    await uow.settings.set(SMALL_FIELD, choice.value)
    await uow.audit.record(
        at=now,
        actor=actor,
        action="stage.small_field",
        reason=reason,
        details={
            "choice": choice.value,
            "qualifiers": len(found.qualifiers),
            "needed": found.needed,
            "reserves": list(found.reserves[: found.missing])
            if choice is SmallFieldChoice.FILL
            else [],
        },
    )
    if choice is not SmallFieldChoice.END:
        return await progression.advance(uow, now=now, actor=actor)
    return await _end_with_the_qualification(uow, now=now, actor=actor, progression=progression)


async def _end_with_the_qualification(
    uow: UnitOfWork, *, now: dt.datetime, actor: str, progression: Progression
) -> AdvanceReport:
    table = await standings(uow, progression.config.rules)
    qual = await qualification_stage(uow)
    for entrant in await uow.stages.entrants(qual.id):
        entrant.placement = table.row(PlayerId(entrant.player_id)).rank
    await complete_stage(uow, StageKind.QUALIFICATION, now=now)
    places = qualifiers(table, count=len(table.rows))  # those still in it, in standings order
    lines = (
        "the TDs ended the championship with the qualification (rules 1.3, 5.10)",
        *(f"{i}. {p}" for i, p in enumerate(places, start=1)),
    )
    report = AdvanceReport(StageKind.QUALIFICATION, None, None, lines, places)
    await record_advance(uow, report, now=now, actor=actor)
    return report
