"""Invariants of Dutch pairings on random tournaments (hypothesis drives the seeds)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.tournaments import RoundState, simulate
from rules.core.colour import Colour
from rules.swiss.dutch import RoundKind, SwissPlayer


def _colours(player: SwissPlayer) -> list[Colour]:
    return [
        record.colour
        for record in player.history
        if record.kind is RoundKind.PLAYED and record.colour is not None
    ]


def _check_round(state: RoundState, total_rounds: int, byes: dict[int, int]) -> None:
    players = {player.number: player for player in state.players}
    present = {number for number, player in players.items() if player.present}
    pairing = state.pairing
    seen = [number for board in pairing.boards for number in (board.white, board.black)]
    if pairing.bye is not None:
        seen.append(pairing.bye)
    # Everybody present is paired exactly once; nobody absent is.
    assert sorted(seen) == sorted(present)
    assert (pairing.bye is not None) == (len(present) % 2 == 1)
    if pairing.bye is not None:
        byes[pairing.bye] = byes.get(pairing.bye, 0) + 1
        assert byes[pairing.bye] == 1, "a second pairing-allocated bye"
    last_round = state.round_number == total_rounds
    for board in pairing.boards:
        white, black = players[board.white], players[board.black]
        # C1: no rematch.
        assert board.black not in {record.opponent for record in white.history}
        for player, colour in ((white, Colour.WHITE), (black, Colour.BLACK)):
            history = [*_colours(player), colour]
            difference = sum(1 if c is Colour.WHITE else -1 for c in history)
            if not last_round:
                # C.04.1: |colour difference| <= 2 and no colour three times running,
                # which C3 guarantees before the last round.
                assert abs(difference) <= 2
                assert not (len(history) >= 3 and history[-1] == history[-2] == history[-3])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    players=st.integers(min_value=2, max_value=24),
    rounds=st.integers(min_value=1, max_value=9),
    absent_rate=st.sampled_from([0.0, 0.0, 0.1, 0.25]),
)
def test_random_tournaments_keep_swiss_invariants(
    seed: int, players: int, rounds: int, absent_rate: float
) -> None:
    byes: dict[int, int] = {}
    for state in simulate(players, rounds, random.Random(seed), absent_rate=absent_rate):
        _check_round(state, rounds, byes)


def test_pairing_is_deterministic() -> None:
    first = [state.pairing for state in simulate(15, 6, random.Random(7))]
    second = [state.pairing for state in simulate(15, 6, random.Random(7))]
    assert first == second
