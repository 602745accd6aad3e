"""The Candidates (rules 3.v.4, 3.vi): the qualifiers and the seeded entrants in two pools, each
a round-robin by Berger tables, opened once the qualification is complete."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

from bot.config import Config
from bot.errors import OperationError
from bot.service.stages.registry import AdvanceReport, Handover
from bot.service.stages.rounds import complete_stage, new_match, start_stage
from bot.views.qualification import qualification_stage, standings
from rules.core.model import PlayerId, normalise_username
from rules.core.ruleset import Seeding, StageKind
from rules.core.states import PlayerStatus, RoundState
from rules.stages.candidates import Pool, assign_pools, pool_schedule, smaller_pools
from rules.stages.formats import CandidatesFormat, StageFormat
from rules.stages.qualification import qualifier_count, qualifiers
from storage.models import RoundRow, StageEntrantRow
from storage.uow import UnitOfWork

__all__ = ["FILL_NEXT_PLACES", "SMALLER_POOLS", "SMALL_FIELD", "CandidatesStage", "reserves"]


SMALL_FIELD = "candidates.small_field"
"""The setting that records the TDs' choice when too few qualify for two full pools (rules
1.3, 5.10): :data:`SMALLER_POOLS`, :data:`FILL_NEXT_PLACES`, ``end_stage`` (the championship
ended with the qualification), or absent (the regulations' pools, or nothing); see
:mod:`bot.service.stages.small_field`."""
SMALLER_POOLS = "smaller_pools"
FILL_NEXT_PLACES = "fill_next_places"


async def reserves(uow: UnitOfWork) -> tuple[PlayerId, ...]:
    """The players in the championship who are neither seeded nor in the qualification
    (registered after its field was fixed), best seed rating first: the next places when the
    qualification's own are spent (rules 1.3, 5.10)."""
    qual = await qualification_stage(uow)
    entered = {e.player_id for e in await uow.stages.entrants(qual.id)}
    waiting = [
        p
        for p in await uow.players.list(status=PlayerStatus.ACTIVE)
        if not p.seeded_as and p.id not in entered
    ]
    waiting.sort(key=lambda p: (-(p.seed_rating or 0), p.id))
    return tuple(PlayerId(p.id) for p in waiting)


class CandidatesStage:
    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def format(self) -> StageFormat:
        return CandidatesFormat()

    async def _seeded_present(self, uow: UnitOfWork) -> Seeding:
        """The seeding of rules 3.iii-iv with absent seeded entrants as ``None``."""
        seeding = self.config.rules.seeding
        active = await uow.players.list(status=PlayerStatus.ACTIVE)
        present = {p.id for p in active if p.seeded_as}
        holder = seeding.title_holder
        runner = seeding.runner_up
        return replace(
            seeding,
            title_holder=holder if holder and normalise_username(holder) in present else None,
            runner_up=runner if runner and normalise_username(runner) in present else None,
        )

    async def qualifiers(self, uow: UnitOfWork) -> tuple[tuple[PlayerId, ...], int]:
        """The qualifiers the standings give (rules 3.v.4), and how many the pools need: fewer
        than that and the TDs decide (rules 1.3, 5.10; the desk puts it to them)."""
        table = await standings(uow, self.config.rules)
        count = self._qualifier_count(await self._seeded_present(uow))
        return qualifiers(table, count=count), count

    def _qualifier_count(self, present: Seeding) -> int:
        """How many places the qualification gives (rules 3.v.4): one more for each seeded
        entrant who is absent."""
        ruleset = self.config.rules
        names = [n for n in (present.title_holder, present.runner_up) if n]
        return qualifier_count(
            stages=ruleset.stages, seeding=ruleset.seeding, seeded_participants=names
        )

    async def hand_over(self, uow: UnitOfWork) -> tuple[PlayerId, ...]:
        return ()  # the next stage reads what it needs (the semifinals: the pools' tables)

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
        present = await self._seeded_present(uow)
        count = self._qualifier_count(present)
        chosen = handover.placement[:count]
        choice = await uow.settings.get(SMALL_FIELD) if len(chosen) < count else None
        if choice == FILL_NEXT_PLACES:  # the TDs chose: reserves fill the empty places
            chosen = (*chosen, *(await reserves(uow))[: count - len(chosen)])
        if choice == SMALLER_POOLS:
            pools = smaller_pools(chosen, ruleset=ruleset, seeding=present)  # the TDs chose
        else:
            pools = assign_pools(chosen, ruleset=ruleset, seeding=present)
        await complete_stage(uow, handover.previous, now=now)
        stage, earliest = await start_stage(
            uow,
            ruleset,
            StageKind.CANDIDATES,
            after=(handover.previous,),
            break_weeks=self.format.break_weeks_before(ruleset),
            now=now,
            actor=actor,
        )
        ratings = {p.id: p.seed_rating for p in await uow.players.list()}
        lines = []
        schedules = {}
        for pool in (Pool.UPPER, Pool.LOWER):
            entries = pools.entries(pool)
            for number, entry in enumerate(entries, start=1):
                await uow.stages.add_entrant(
                    StageEntrantRow(
                        stage_id=stage.id,
                        player_id=entry.player,
                        number=number,
                        seed_rating=ratings.get(entry.player),
                        pool=pool.value,
                    )
                )
            schedules[pool] = pool_schedule(pools.players(pool), ruleset=ruleset)
            lines.append(f"{pool.value} pool: {', '.join(pools.players(pool))}")
        rounds = max(len(schedules[Pool.UPPER]), len(schedules[Pool.LOWER]))
        for number in range(1, rounds + 1):
            rnd = await uow.tournaments.add_round(
                RoundRow(stage_id=stage.id, number=number, state=RoundState.PROPOSED)
            )
            board = 0
            for pool in (Pool.UPPER, Pool.LOWER):
                if number > len(schedules[pool]):
                    continue  # a smaller pool has played every round already
                for pairing in schedules[pool][number - 1].pairings:
                    board += 1
                    await uow.matches.add(
                        new_match(
                            rnd,
                            StageKind.CANDIDATES,
                            board,
                            pairing.white_first,
                            pairing.black_first,
                            ruleset,
                        )
                    )
        lines.append(f"{rounds} Candidates rounds proposed (Berger tables)")
        return AdvanceReport(handover.previous, StageKind.CANDIDATES, earliest, tuple(lines))

    async def conclude(self, uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
        raise OperationError("the Candidates are not the last stage")
