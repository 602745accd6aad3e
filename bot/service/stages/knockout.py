"""The knockout (rules 3.vii-3.viii): the semifinals from the Candidates pools, the final and the
third place playoff, a tied final's repeat weeks and a tied match's armageddon."""

from __future__ import annotations

import datetime as dt
import random

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.languages import words_of
from bot.service.stages.armageddon import Armageddons
from bot.service.stages.registry import AdvanceReport, Handover
from bot.service.stages.rounds import complete_stage, new_match, start_stage
from bot.service.weekly.publication import Publication
from bot.views.bracket import KNOCKOUT_VALUES, VOID, load_bracket, with_results
from bot.views.candidates import pool_tables
from bot.views.scores import decided_outcome
from bot.views.tournament import require_tournament, stage_row
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState, RoundState
from rules.stages.candidates import Pool
from rules.stages.formats import FinalFormat, SemifinalFormat, StageFormat
from rules.stages.knockout import Bracket, next_week_pairing, pair_finals, start_bracket
from rules.talk.armageddon import knockout_repeat
from storage.convert import to_match
from storage.models import MatchRow, RoundRow
from storage.uow import UnitOfWork

__all__ = ["FinalStage", "Knockout", "SemifinalStage", "save_bracket"]


async def save_bracket(uow: UnitOfWork, bracket: Bracket, *, now: dt.datetime) -> None:
    tournament = await require_tournament(uow)
    await uow.later_stages.save_bracket(tournament.id, bracket, now=now)


async def _stored_bracket(uow: UnitOfWork) -> Bracket:
    bracket = await load_bracket(uow)
    if bracket is None:  # pragma: no cover - the semifinals start with a bracket
        raise OperationError("there is no knockout bracket")
    return await with_results(uow, bracket)


class SemifinalStage:
    """Rules 3.vii: the pool winners meet the other pool's runners-up."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def format(self) -> StageFormat:
        return SemifinalFormat()

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
        tables = await pool_tables(uow, self.config)
        cand = await stage_row(uow, StageKind.CANDIDATES)
        placed = {}
        for _, rows, _ in tables.values():
            for row in rows:
                placed[row.player] = row.rank
        for entrant in await uow.stages.entrants(cand.id):
            entrant.placement = placed.get(PlayerId(entrant.player_id))
        upper = [r.player for r in tables[Pool.UPPER][1]]
        lower = [r.player for r in tables[Pool.LOWER][1]]
        bracket = start_bracket(upper, lower)
        await save_bracket(uow, bracket, now=now)
        await complete_stage(uow, handover.previous, now=now)
        kind = self.format.kind
        stage, earliest = await start_stage(
            uow,
            ruleset,
            kind,
            after=(handover.previous,),
            break_weeks=self.format.break_weeks_before(ruleset),
            now=now,
            actor=actor,
        )
        rnd = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=1, state="proposed")
        )
        lines = []
        for board, pairing in enumerate(bracket.semifinals, start=1):
            await uow.matches.add(
                new_match(
                    rnd,
                    kind,
                    board,
                    pairing.white_first,
                    pairing.black_first,
                    ruleset,
                )
            )
            lines.append(
                f"{pairing.slot.value.upper()}: {pairing.white_first} ({pairing.white_source}) v"
                f" {pairing.black_first} ({pairing.black_source})"
            )
        return AdvanceReport(handover.previous, kind, earliest, tuple(lines))

    async def conclude(self, uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
        raise OperationError("the semifinals are not the last stage")


class FinalStage:
    """Rules 3.viii: the final and the third place playoff, White in game 1 drawn by lot."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def format(self) -> StageFormat:
        return FinalFormat()

    async def hand_over(self, uow: UnitOfWork) -> tuple[PlayerId, ...]:
        return ()  # the next stage reads what it needs (the final matches: the bracket)

    async def open(
        self,
        uow: UnitOfWork,
        handover: Handover,
        *,
        now: dt.datetime,
        actor: str,
        rng: random.Random | None,
    ) -> AdvanceReport:
        bracket = await _stored_bracket(uow)
        bracket = pair_finals(bracket, rng=rng or random.SystemRandom())
        await save_bracket(uow, bracket, now=now)
        await complete_stage(uow, handover.previous, now=now)
        lines = []
        earliest: dt.date | None = None
        for kind, pairing in (
            (StageKind.FINAL, bracket.final),
            (StageKind.THIRD_PLACE, bracket.third_place),
        ):
            assert pairing is not None
            stage, earliest = await start_stage(
                uow,
                self.config.rules,
                kind,
                after=(handover.previous,),
                break_weeks=self.format.break_weeks_before(self.config.rules),
                now=now,
                actor=actor,
            )
            rnd = await uow.tournaments.add_round(
                RoundRow(stage_id=stage.id, number=1, state="proposed")
            )
            await uow.matches.add(
                new_match(rnd, kind, 1, pairing.white_first, pairing.black_first, self.config.rules)
            )
            lines.append(
                f"{kind.value}: {pairing.white_first} ({pairing.white_source}) v"
                f" {pairing.black_first} ({pairing.black_source}); White in game 1 drawn by lot"
            )
        return AdvanceReport(handover.previous, self.format.kind, earliest, tuple(lines))

    async def conclude(self, uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
        bracket = await _stored_bracket(uow)
        await save_bracket(uow, bracket, now=now)
        placement = bracket.placement()
        if any(p is None for p in placement):  # pragma: no cover - progress said complete
            raise OperationError("the final matches have no winner yet")
        for kind in self.format.members:  # the final and the third place playoff
            await complete_stage(uow, kind, now=now)
        places = tuple(PlayerId(p) for p in placement if p is not None)
        lines = tuple(f"{i}. {p}" for i, p in enumerate(places, start=1))
        return AdvanceReport(self.format.kind, None, None, lines, places)


class Knockout:
    """What tied knockout matches are owed: a final's next week (rules 3.viii.3-4) or an
    armageddon (rules 3.vii.2, 3.viii.5); and the match listener that grants them as games
    arrive."""

    def __init__(
        self,
        config: Config,
        notifier: Notifier,
        *,
        publication: Publication,
        armageddons: Armageddons,
    ) -> None:
        self.config = config
        self.notifier = notifier
        self.publication = publication
        self.armageddons = armageddons

    async def ensure_next_week(
        self, uow: UnitOfWork, row: MatchRow, *, now: dt.datetime
    ) -> MatchRow | None:
        """Create next week's match of a tied final (rules 3.viii.3-4), once; colours of game 1
        swap. When its round is published, the new week's negotiation starts in the same
        transaction (the pairing DMs and the week's deadlines)."""
        if row.stage not in KNOCKOUT_VALUES or row.black_first is None:
            return None
        later = [
            r
            for r in await uow.later_stages.matches_of_stages([row.stage])
            if r.board == row.board and r.week > row.week and r.state != VOID
        ]
        if later:
            return None
        pairing = next_week_pairing(to_match(row))
        rnd = await uow.tournaments.round(row.round_id)
        assert rnd is not None
        new = await uow.matches.add(
            MatchRow(
                round_id=row.round_id,
                stage=row.stage,
                board=row.board,
                white_first=pairing.white_first,
                black_first=pairing.black_first,
                games=row.games,
                clinch_at=row.clinch_at,
                tiebreak=row.tiebreak,
                max_weeks=row.max_weeks,
                week=pairing.week,
                state=MatchState.SCHEDULED
                if rnd.state is RoundState.PUBLISHED
                else MatchState.PROPOSED,
            )
        )
        key = notice.knockout_repeat(new.id)
        for player in (pairing.white_first, pairing.black_first):
            text = knockout_repeat(
                row.stage,
                week=row.week,
                match_id=new.id,
                white_first=str(new.white_first),
                words=await words_of(uow, player),
            )
            await self.notifier.dm_player(uow, now=now, player=player, text=text, key=key)
        await uow.audit.record(
            at=now,
            actor="bot",
            action="knockout.repeat",
            match_id=new.id,
            details={"previous": row.id, "week": new.week},
        )
        if new.state == MatchState.SCHEDULED:
            await self.publication.start_match_week(uow, new, now=now, actor="bot")
        return new

    async def sync(self, uow: UnitOfWork, *, now: dt.datetime) -> list[str]:
        """Create what tied knockout matches are owed (repeat weeks, armageddon procedures).

        The match listener does this as games arrive; ``acwc stage advance`` and ``acwc stage
        sync`` catch up on anything missed. Idempotent.
        """
        done = []
        for row in await uow.later_stages.matches_of_stages(KNOCKOUT_VALUES):
            if row.state == VOID or row.black_first is None:
                continue
            outcome = await decided_outcome(uow, row)
            if outcome is Outcome.REPEAT:
                new = await self.ensure_next_week(uow, row, now=now)
                if new is not None:
                    done.append(f"match {row.id} tied: week {new.week} is match {new.id}")
            elif outcome is Outcome.ARMAGEDDON and row.decided_by != DecidedBy.ARMAGEDDON:
                had = await uow.later_stages.armageddon_for_match(row.id)
                if had is None:
                    await self.armageddons.ensure(uow, row, now=now)
                    done.append(f"match {row.id} tied: armageddon bidding started")
        return done

    async def on_match_changed(
        self, uow: UnitOfWork, match_id: int, outcome: Outcome | None
    ) -> None:
        """A tied knockout match gets its next week or its armageddon."""
        if outcome not in (Outcome.REPEAT, Outcome.ARMAGEDDON):
            return
        row = await uow.matches.get(match_id)
        if row is None or row.stage not in KNOCKOUT_VALUES:
            return
        now = row.completed_at
        assert now is not None  # refresh_match stamps a decided outcome
        if outcome is Outcome.REPEAT:
            await self.ensure_next_week(uow, row, now=now)
        else:
            await self.armageddons.ensure(uow, row, now=now)
