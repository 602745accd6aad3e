"""Our pairs against caissify-pairings, a Python engine cross-checked against bbpPairings.

Only pairs and the bye are compared: caissify's colour allocation ranks players by pairing
number alone for rule 5.2.4, where C.04.3 1.2 (and bbpPairings) rank by score first.
Rounds where caissify falls back to its backtracking or greedy pairer are not compared.
"""

from __future__ import annotations

import logging
import random
import warnings

import pytest

from bench.tournaments import simulate
from rules.core.colour import Colour
from rules.swiss.dutch import RoundKind, SwissPlayer, float_in_round

caissify = pytest.importorskip("caissify_pairings")

# Rounds where caissify is wrong by the 2025 text, checked by hand:
# seed 1, round 6 (10 players): caissify pairs one pair in the 3.0 bracket, floating 9, 2 and
# 3, while 9-2, 3-5 (floating only 1, who then meets 8) completes the round: C6 prefers ours.
KNOWN_ORACLE_ERRORS = {(1, 6)}


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _caissify_input(
    players: tuple[SwissPlayer, ...],
) -> tuple[list[dict[str, object]], set[tuple[int, int]]]:
    by_number = {player.number: player for player in players}
    entries: list[dict[str, object]] = []
    previous: set[tuple[int, int]] = set()
    for player in players:
        if not player.present:
            continue
        rounds = len(player.history)
        entries.append(
            {
                "id": player.number,
                "score": float(player.score),
                "rating": 3000 - player.number,
                "pairing_number": player.number,
                "starting_number": player.number,
                "color_hist": [
                    "white" if record.colour is Colour.WHITE else "black"
                    for record in player.history
                    if record.kind is RoundKind.PLAYED
                ],
                "float_history": [
                    float_in_round(player, back, by_number) for back in range(rounds, 0, -1)
                ],
                "bye_count": sum(r.kind is RoundKind.PAIRING_BYE for r in player.history),
                "forfeit_win_count": 0,
            }
        )
        for record in player.history:
            if record.kind is RoundKind.PLAYED and record.opponent is not None:
                previous.add((player.number, record.opponent))
    return entries, previous


@pytest.mark.parametrize(
    ("seed", "absent_rate"),
    # Seed 51 with absences: C9 acts in the last bracket, whose leftover gets the PAB.
    [(seed, 0.0) for seed in range(24)] + [(seed, 0.1) for seed in (*range(40, 52),)],
)
def test_pairs_agree_with_caissify(seed: int, absent_rate: float) -> None:
    rng = random.Random(seed)
    players, rounds = rng.randint(8, 20), rng.randint(4, 9)
    handler = _Collect()
    logger = logging.getLogger("caissify_pairings")
    logger.addHandler(handler)
    previous_level = logger.level
    logger.setLevel(logging.INFO)
    compared = 0
    try:
        for state in simulate(players, rounds, rng, absent_rate=absent_rate):
            entries, previous = _caissify_input(state.players)
            handler.messages.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = caissify.generate_pairings(
                    "dutch", entries, previous, state.round_number, rounds
                )
            known = (seed, state.round_number) in KNOWN_ORACLE_ERRORS and not absent_rate
            if handler.messages or known:
                continue
            their_pairs = {
                frozenset((entry["white_id"], entry["black_id"]))
                for entry in theirs
                if not entry.get("bye")
            }
            their_bye = next((entry["white_id"] for entry in theirs if entry.get("bye")), None)
            our_pairs = {frozenset((b.white, b.black)) for b in state.pairing.boards}
            assert (our_pairs, state.pairing.bye) == (their_pairs, their_bye), (
                f"round {state.round_number}"
            )
            compared += 1
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous_level)
    assert compared > 0
