"""What a stage runner is: the service's side of one kind of stage (its format, how it opens
from the stage before, what it hands to the next), and what an advance reports."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Protocol

from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.stages.formats import StageFormat
from storage.uow import UnitOfWork

__all__ = ["AdvanceReport", "Handover", "StageRunner"]


@dataclass(frozen=True, slots=True)
class AdvanceReport:
    """What ``advance`` did: the stage left, the stage entered, and what was created."""

    left: StageKind
    entered: StageKind | None
    earliest_publication: dt.date | None
    lines: tuple[str, ...]
    placement: tuple[PlayerId, ...] = ()

    def text(self) -> str:
        head = f"{self.left.value} complete"
        if self.entered is not None:
            head += f"; {self.entered.value} started"
        if self.earliest_publication is not None:
            head += f", first publication not before {self.earliest_publication:%a %Y-%m-%d}"
        return "\n".join((head, *self.lines))


@dataclass(frozen=True, slots=True)
class Handover:
    """What a complete stage hands to the stage it opens: its kind, and its players who go on,
    best first (empty when the next stage reads its own: the knockout reads the pools)."""

    previous: StageKind
    placement: tuple[PlayerId, ...]


class StageRunner(Protocol):
    """One kind of stage in the service: its format and how it starts (or ends it all)."""

    @property
    def format(self) -> StageFormat: ...

    async def hand_over(self, uow: UnitOfWork) -> tuple[PlayerId, ...]:
        """This stage is complete: record its places and give the players who go on to the
        next stage, best first."""
        ...

    async def open(
        self,
        uow: UnitOfWork,
        handover: Handover,
        *,
        now: dt.datetime,
        actor: str,
        rng: random.Random | None,
    ) -> AdvanceReport:
        """Close the stage before this one and start this one (the previous is complete)."""
        ...

    async def conclude(self, uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
        """The last stage only: close it and report the final placement."""
        ...
