"""The runner of a stage played from the placement the stage before hands over
(:class:`rules.stages.formats.PlacementStage`): a stage that declares its pairings and the
placement after it needs no runner of its own."""

from __future__ import annotations

import datetime as dt
import random

from bot.config import Config
from bot.errors import OperationError
from bot.service.stages.rounds import complete_stage, new_match, start_stage
from bot.service.stages.runner import AdvanceReport, Handover
from bot.views.scores import decided_outcome
from bot.views.tournament import stage_rounds, stage_row
from rules.core.model import PlayerId
from rules.core.scoring import Outcome
from rules.core.states import RoundState
from rules.stages.formats import PlacementStage, StageFormat, stage_title
from storage.models import RoundRow, StageEntrantRow
from storage.uow import UnitOfWork

__all__ = ["PlacementRunner"]


class PlacementRunner:
    def __init__(self, config: Config, fmt: PlacementStage) -> None:
        self.config = config
        self.placement_stage = fmt
        self.kind = fmt.kind

    @property
    def format(self) -> StageFormat:
        return self.placement_stage

    async def hand_over(self, uow: UnitOfWork) -> tuple[PlayerId, ...]:
        stage = await stage_row(uow, self.kind)
        entrants = sorted(await uow.stages.entrants(stage.id), key=lambda e: e.number)
        placement = tuple(PlayerId(e.player_id) for e in entrants)
        winners: dict[frozenset[PlayerId], PlayerId | None] = {}
        for _, rows in await stage_rounds(uow, stage):
            for row in rows:
                if row.black_first is None:
                    continue
                white, black = PlayerId(row.white_first), PlayerId(row.black_first)
                outcome = await decided_outcome(uow, row)
                winner = {Outcome.FIRST_WINS: white, Outcome.SECOND_WINS: black}.get(
                    outcome or Outcome.TIED
                )
                winners[frozenset((white, black))] = winner
        after = self.placement_stage.placement_after(placement, winners, self.config.rules)
        places = {player: place for place, player in enumerate(after, start=1)}
        for entrant in entrants:
            entrant.placement = places.get(PlayerId(entrant.player_id))
        return after

    async def open(
        self,
        uow: UnitOfWork,
        handover: Handover,
        *,
        now: dt.datetime,
        actor: str,
        rng: random.Random | None,
    ) -> AdvanceReport:
        ruleset = self.config.rules
        await complete_stage(uow, handover.previous, now=now)
        stage, earliest = await start_stage(
            uow,
            ruleset,
            self.kind,
            after=(handover.previous,),
            break_weeks=self.format.break_weeks_before(ruleset),
            now=now,
            actor=actor,
        )
        for number, player in enumerate(handover.placement, start=1):
            await uow.stages.add_entrant(
                StageEntrantRow(stage_id=stage.id, player_id=player, number=number)
            )
        rnd = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=1, state=RoundState.PROPOSED)
        )
        lines = []
        pairings = self.placement_stage.pairings(handover.placement, ruleset)
        for board, (white, black) in enumerate(pairings, start=1):
            await uow.matches.add(new_match(rnd, self.kind, board, white, black, ruleset))
            lines.append(f"{board}. {white} v {black}")
        lines.append(f"{stage_title(self.kind)}: {len(pairings)} matches proposed")
        return AdvanceReport(handover.previous, self.kind, earliest, tuple(lines))

    async def conclude(self, uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
        raise OperationError(f"the {stage_title(self.kind)} is not the last stage")
