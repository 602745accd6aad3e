"""The knockout as stored: the bracket with its results, each match by week, armageddons and the
final placement (rules 3.vii-3.ix). The semifinal on board 1 is SF1, on board 2 SF2; the final and
the third place playoff are board 1 of their stages; a match replaced after a withdrawal is kept
with state ``void``."""

from __future__ import annotations

from typing import Any

from bot.errors import OperationError
from bot.views.scores import decided_outcome, match_state
from rules.core.model import PlayerId, normalise_username
from rules.core.ruleset import Ruleset, StageKind
from rules.core.scoring import Outcome
from rules.stages.armageddon import ArmageddonProcedure
from rules.stages.knockout import Bracket, Slot, record_final, record_semifinal
from storage.armageddon_log import replay_procedure
from storage.models import MatchRow
from storage.models_stages import ArmageddonRow
from storage.uow import UnitOfWork

__all__ = [
    "KNOCKOUT",
    "KNOCKOUT_VALUES",
    "SLOT_PLACE",
    "VOID",
    "armageddon_view",
    "knockout_view",
    "load_bracket",
    "procedure",
    "slot_rows",
    "with_results",
]

KNOCKOUT = (StageKind.SEMIFINAL, StageKind.FINAL, StageKind.THIRD_PLACE)
KNOCKOUT_VALUES = tuple(k.value for k in KNOCKOUT)
SLOT_PLACE = {
    Slot.SF1: (StageKind.SEMIFINAL, 1),
    Slot.SF2: (StageKind.SEMIFINAL, 2),
    Slot.FINAL: (StageKind.FINAL, 1),
    Slot.THIRD_PLACE: (StageKind.THIRD_PLACE, 1),
}
VOID = "void"


async def load_bracket(uow: UnitOfWork) -> Bracket | None:
    tournament = await uow.tournaments.current()
    if tournament is None:
        return None
    return await uow.later_stages.bracket_value(tournament.id)


async def slot_rows(uow: UnitOfWork, slot: Slot) -> list[MatchRow]:
    """The slot's matches that are not void, week 1 first."""
    stage, board = SLOT_PLACE[slot]
    rows = await uow.later_stages.matches_of_stages([stage.value])
    return sorted(
        (r for r in rows if r.board == board and r.state != VOID), key=lambda r: (r.week, r.id)
    )


async def _slot_winner(uow: UnitOfWork, slot: Slot) -> PlayerId | None:
    rows = await slot_rows(uow, slot)
    if not rows:
        return None
    last = rows[-1]
    outcome = await decided_outcome(uow, last)
    if outcome is Outcome.FIRST_WINS:
        return PlayerId(last.white_first)
    if outcome is Outcome.SECOND_WINS and last.black_first is not None:
        return PlayerId(last.black_first)
    return None


async def with_results(uow: UnitOfWork, bracket: Bracket) -> Bracket:
    """``bracket`` with the winners of its decided matches recorded."""
    for slot in (Slot.SF1, Slot.SF2):
        if bracket.winner_of(slot) is None:
            winner = await _slot_winner(uow, slot)
            if winner is not None:
                bracket = record_semifinal(bracket, slot, winner)
    if bracket.final is not None:
        for slot in (Slot.FINAL, Slot.THIRD_PLACE):
            if bracket.winner_of(slot) is None:
                winner = await _slot_winner(uow, slot)
                if winner is not None:
                    bracket = record_final(bracket, slot, winner)
    return bracket


async def champion(uow: UnitOfWork) -> str | None:
    """The winner of the final as Lichess spells them, once the final is decided."""
    bracket = await load_bracket(uow)
    if bracket is None:
        return None
    winner = (await with_results(uow, bracket)).final_winner
    if winner is None:
        return None
    player = await uow.players.get(winner)
    return winner if player is None else player.username


async def procedure(
    uow: UnitOfWork, arm: ArmageddonRow, ruleset: Ruleset
) -> tuple[ArmageddonProcedure, MatchRow]:
    """The armageddon procedure of ``arm``, rebuilt from its stored inputs, and its match."""
    match = await uow.matches.get(arm.match_id)
    assert match is not None
    assert match.black_first is not None
    players = (PlayerId(match.white_first), PlayerId(match.black_first))
    steps = await uow.later_stages.steps(arm.id)
    return replay_procedure(steps, players, ruleset), match


async def armageddon_view(
    uow: UnitOfWork, match_id: int, ruleset: Ruleset, *, viewer: str | None = None
) -> dict[str, Any] | None:
    """The armageddon of a match as ``viewer`` may see it (``None``: public, nothing sealed)."""
    arm = await uow.later_stages.armageddon_for_match(match_id)
    if arm is None:
        return None
    proc, _ = await procedure(uow, arm, ruleset)
    view = proc.view(None if viewer is None else normalise_username(viewer))
    return {
        "match": match_id,
        "phase": arm.phase,
        "players": list(view.players),
        "black_seconds": view.black_seconds,
        "bid_deadline": view.bid_deadline.isoformat(),
        "bids_in": list(view.bids_in),
        "bids": None if view.bids is None else list(view.bids),
        "own_bid": view.own_bid,
        "rps_round": view.rps_round,
        "rps_history": [
            [None if c is None else c.value for c in pair] for pair in view.rps_history
        ],
        "white": view.white,
        "black": view.black,
        "white_seconds": view.white_seconds,
        "decided_by": None if view.decided_by is None else view.decided_by.value,
        "game": arm.game_id,
        "winner": arm.winner,
        "findings": arm.findings,
    }


async def knockout_view(uow: UnitOfWork, ruleset: Ruleset) -> dict[str, Any]:
    """The bracket: each knockout match with its weeks, scores, armageddon, winner; places 1-4."""
    bracket = await load_bracket(uow)
    if bracket is None:
        raise OperationError("the knockout has not started yet")
    bracket = await with_results(uow, bracket)
    slots = []
    for pairing in bracket.pairings():
        weeks = []
        for row in await slot_rows(uow, pairing.slot):
            state = await match_state(uow, row.id)
            weeks.append(
                {
                    "match": row.id,
                    "week": row.week,
                    "white_first": row.white_first,
                    "black_first": row.black_first,
                    "score": None if state.score is None else str(state.score),
                    "state": row.state,
                    "outcome": row.outcome,
                    "decided_by": row.decided_by,
                    "armageddon": await armageddon_view(uow, row.id, ruleset),
                }
            )
        slots.append(
            {
                "slot": pairing.slot.value,
                "white_first": pairing.white_first,
                "black_first": pairing.black_first,
                "white_source": pairing.white_source,
                "black_source": pairing.black_source,
                "weeks": weeks,
                "winner": bracket.winner_of(pairing.slot),
            }
        )
    return {
        "upper": list(bracket.upper),
        "lower": list(bracket.lower),
        "withdrawn": list(bracket.withdrawn),
        "matches": slots,
        "placement": list(bracket.placement()),
    }
