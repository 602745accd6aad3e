"""The qualification stage: the entrants fixed at the first pairing, each round paired by the
Dutch system as a proposal, and its approval (rules 3.v, 4.3)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.config import Config
from bot.errors import OperationError
from bot.service.stages.registry import AdvanceReport, Handover
from bot.service.weekly.publication import Publication
from bot.views.qualification import (
    RoundView,
    StoredRound,
    entrants,
    pairing_input,
    qualification_stage,
    round_view,
    rounds,
    standings,
)
from rules.core.model import Player, PlayerId, normalise_username
from rules.core.ruleset import Ruleset, StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState, PlayerStatus, RoundState, StageState
from rules.stages.formats import QualificationFormat, StageFormat
from rules.stages.manual_pairing import colours_as_preferences
from rules.stages.qualification import number_of_rounds, qualifiers, rank_entrants
from rules.swiss.dutch import NoLegalPairingError, RoundPairing, SwissPlayer, pair_round
from rules.swiss.results import Entrant
from storage.convert import fraction_to_text
from storage.models import ForbiddenPairRow, MatchRow, RoundRow, StageEntrantRow, StageRow
from storage.uow import UnitOfWork

__all__ = [
    "Qualification",
    "QualificationStage",
    "engine_pairing",
    "fix_entrants",
    "next_round",
    "store_pairing",
]


async def fix_entrants(
    uow: UnitOfWork, stage: StageRow, ruleset: Ruleset, *, now: dt.datetime, actor: str
) -> tuple[Entrant, ...]:
    """Rank the registered players into pairing numbers once, at the first pairing (rules 3.v.3)."""
    existing = await entrants(uow, stage)
    if existing:
        return existing
    players = [
        Player(id=PlayerId(p.id), username=p.username, seed_rating=p.seed_rating)
        for p in await uow.players.list(status=PlayerStatus.ACTIVE)
    ]
    ranked = rank_entrants(players, seeding=ruleset.seeding)
    if len(ranked) < 2:
        raise OperationError(
            f"{len(ranked)} entrant(s) for the qualification: at least 2 are needed to pair"
        )
    for e in ranked:
        await uow.stages.add_entrant(
            StageEntrantRow(
                stage_id=stage.id,
                player_id=e.player,
                number=e.pairing_number,
                seed_rating=e.seed_rating,
            )
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="qualification.entrants",
        details={"entrants": [[e.pairing_number, e.username, e.seed_rating] for e in ranked]},
    )
    return ranked


async def next_round(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, actor: str
) -> tuple[StageRow, tuple[Entrant, ...], StoredRound | None, int]:
    """The qualification round to pair next: its stage, the entrants (fixed at the first
    pairing), the proposal standing (re-paired) and its number. Refuses when the stage is
    complete, every round is paired, or the previous round has unfinished matches (rules 4.5:
    a TD decides them first)."""
    stage = await qualification_stage(uow)
    if stage.state == StageState.COMPLETE:
        raise OperationError("the qualification is complete")
    field = await fix_entrants(uow, stage, config.rules, now=now, actor=actor)
    stored = await rounds(uow, stage)
    proposal = stored[-1] if stored and stored[-1].row.state == RoundState.PROPOSED else None
    if proposal is None and stored and not stored[-1].is_finished:
        unfinished = [m.id for m in stored[-1].matches if m.state != MatchState.COMPLETE]
        raise OperationError(
            f"round {stored[-1].row.number} has unfinished matches {unfinished}: they must "
            "finish or be adjudicated by the TDs before the next pairing"
        )
    number = proposal.row.number if proposal else len(stored) + 1
    total = number_of_rounds(len(field))
    if number > total:
        raise OperationError(f"all {total} qualification rounds have been paired")
    return stage, field, proposal, number


def engine_pairing(
    ruleset: Ruleset,
    players: Sequence[SwissPlayer],
    number: int,
    total: int,
    forbidden: frozenset[frozenset[int]],
) -> RoundPairing:
    """The Dutch engine's pairing, the colours of game 1 read as the settings say (rules
    3.v.6; :mod:`rules.stages.manual_pairing`). Raises an :class:`OperationError` that sends
    the TDs to the pairing editor when there is none."""
    given = players if ruleset.stages.absolute_colours else colours_as_preferences(players)
    try:
        return pair_round(given, round_number=number, total_rounds=total, forbidden=forbidden)
    except NoLegalPairingError as e:
        raise OperationError(
            f"the FIDE Dutch rules find no pairing for round {number} ({e}): the TDs pair it "
            "by hand (rules 3.v.6) on the desk's pairing editor"
        ) from e


async def store_pairing(
    uow: UnitOfWork,
    ruleset: Ruleset,
    stage: StageRow,
    proposal: StoredRound | None,
    number: int,
    *,
    boards: Sequence[tuple[PlayerId, PlayerId]],
    bye: PlayerId | None,
    now: dt.datetime,
) -> None:
    """Keep a round's pairing as the proposal the TDs approve (replacing a standing one): the
    engine's and the TDs' own go the same way to the same approval and publication."""
    if proposal is not None:
        await uow.matches.delete(proposal.matches)
        round_row = proposal.row
    else:
        round_row = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=number, state=RoundState.PROPOSED)
        )
    if stage.state == StageState.PENDING:
        stage.state, stage.started_at = StageState.ACTIVE, now
    fmt = ruleset.formats.qualification
    for board, (white, black) in enumerate(boards, 1):
        await uow.matches.add(
            MatchRow(
                round_id=round_row.id,
                stage=StageKind.QUALIFICATION.value,
                board=board,
                white_first=white,
                black_first=black,
                games=fmt.games,
                clinch_at=fraction_to_text(fmt.clinch_at),
                tiebreak=fmt.tiebreak.value,
                max_weeks=fmt.max_weeks,
                state=MatchState.PROPOSED,
            )
        )
    if bye is not None:
        await uow.matches.add(
            MatchRow(
                round_id=round_row.id,
                stage=StageKind.QUALIFICATION.value,
                board=len(boards) + 1,
                white_first=bye,
                black_first=None,
                games=0,
                clinch_at=None,
                tiebreak=fmt.tiebreak.value,
                state=MatchState.PROPOSED,
                outcome=Outcome.FIRST_WINS,
                decided_by=DecidedBy.BYE,
            )
        )


class Qualification:
    def __init__(self, config: Config, publication: Publication) -> None:
        self.config = config
        self.publication = publication

    async def propose_round(
        self,
        uow: UnitOfWork,
        *,
        now: dt.datetime,
        actor: str,
        forbid: Sequence[tuple[str, str]] = (),
        swap: Sequence[tuple[str, str]] = (),
    ) -> RoundView:
        """Pair the next qualification round by the Dutch system and keep it as a proposal.

        A proposal already standing is re-paired (with the new ``forbid`` pairs, stage-wide, and
        ``swap`` pairs: each swapped player's proposed pairing is forbidden for this round, so the
        engine finds the best pairing without it; nothing is ever edited by hand). Refuses while the
        previous round has unfinished matches (rules 4.5; a TD adjudicates them first).
        """
        config = self.config
        stage, field, proposal, number = await next_round(uow, config, now=now, actor=actor)
        ids = {e.player for e in field}
        for a, b in [*forbid, *swap]:
            for name in (a, b):
                if normalise_username(name) not in ids:
                    raise OperationError(f"{name} is not a qualification entrant")
        if swap and proposal is None:
            raise OperationError("a swap works on a proposed round: pair it first")
        made = _ForbiddenPairs(stage.id, actor, now)
        for a, b in forbid:
            await uow.stages.add_forbidden(
                made.row(normalise_username(a), normalise_username(b), None, "forbid")
            )
        if proposal is not None:
            for a, b in swap:
                for white, black in _proposed_pairs_of(proposal.matches, (a, b)):
                    await uow.stages.add_forbidden(made.row(white, black, number, f"swap {a} {b}"))
        field, players, total, forbidden = await pairing_input(uow, stage, config, number)
        pairing = engine_pairing(config.rules, players, number, total, forbidden)
        by_number = {e.pairing_number: e.player for e in field}
        await store_pairing(
            uow,
            config.rules,
            stage,
            proposal,
            number,
            boards=[(by_number[p.white], by_number[p.black]) for p in pairing.boards],
            bye=None if pairing.bye is None else by_number[pairing.bye],
            now=now,
        )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="round.propose",
            details={
                "round": number,
                "boards": [[by_number[p.white], by_number[p.black]] for p in pairing.boards],
                "bye": None if pairing.bye is None else by_number[pairing.bye],
                "forbid": [list(p) for p in forbid],
                "swap": [list(p) for p in swap],
            },
        )
        await uow.flush()
        return await round_view(uow, config, number)

    async def approve_proposed(self, uow: UnitOfWork, *, now: dt.datetime, actor: str) -> RoundRow:
        """A TD fixes the proposed round; it is published into its match week (rules 3.v.6,
        4.3-4.4)."""
        stage = await qualification_stage(uow)
        stored = await rounds(uow, stage)
        if not stored or stored[-1].row.state != RoundState.PROPOSED:
            raise OperationError("there is no proposed round to approve: pair the round first")
        row = stored[-1].row
        row.state, row.approved_by, row.approved_at = RoundState.APPROVED, actor, now
        for m in stored[-1].matches:
            if m.black_first is None:
                m.state, m.completed_at = MatchState.COMPLETE, now
        await uow.audit.record(
            at=now, actor=actor, action="round.approve", details={"round": row.number}
        )
        await self.publication.publish_round(uow, row, now=now, actor=actor)
        return row

    async def approve_round(self, uow: UnitOfWork, *, now: dt.datetime, actor: str) -> RoundView:
        """:func:`approve_proposed`, then the published round's boards with scores and colours."""
        row = await self.approve_proposed(uow, now=now, actor=actor)
        return await round_view(uow, self.config, row.number)


@dataclass(frozen=True, slots=True)
class _ForbiddenPairs:
    """The TDs' forbidden pairs of one request: the stage, who asked and when."""

    stage_id: int
    actor: str
    now: dt.datetime

    def row(self, first: str, second: str, round: int | None, reason: str) -> ForbiddenPairRow:
        """``first`` and ``second`` may not meet (in ``round``; None: in the whole stage)."""
        return ForbiddenPairRow(
            stage_id=self.stage_id,
            round=round,
            first=first,
            second=second,
            created_by=self.actor,
            created_at=self.now,
            reason=reason,
        )


def _proposed_pairs_of(matches: Sequence[MatchRow], pair: tuple[str, str]) -> list[tuple[str, str]]:
    """The proposed pairings (byes aside) of each of ``pair``, in the order of ``pair``: a swap
    forbids them for this round, so the engine pairs those players otherwise."""
    return [
        (m.white_first, m.black_first)
        for name in pair
        for m in matches
        if m.black_first is not None and normalise_username(name) in (m.white_first, m.black_first)
    ]


class QualificationStage:
    """The first stage in the registry: nothing opens it (pairing it starts it) and it never
    ends the championship."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def format(self) -> StageFormat:
        return QualificationFormat()

    async def hand_over(self, uow: UnitOfWork) -> tuple[PlayerId, ...]:
        """Each entrant's place in the final standings; those still in it, in that order."""
        table = await standings(uow, self.config.rules)
        qual = await qualification_stage(uow)
        for entrant in await uow.stages.entrants(qual.id):
            entrant.placement = table.row(PlayerId(entrant.player_id)).rank
        return qualifiers(table, count=len(table.rows))

    async def open(
        self,
        uow: UnitOfWork,
        handover: Handover,
        *,
        now: dt.datetime,
        actor: str,
        rng: random.Random | None,
    ) -> AdvanceReport:
        raise OperationError("the qualification starts with its first pairing")

    async def conclude(self, uow: UnitOfWork, *, now: dt.datetime) -> AdvanceReport:
        raise OperationError("the qualification is not the last stage")
