"""bench/pairing_diff.py's bridge to bbpPairings: the TRF it writes and the output it reads.

The binary is not part of the repository: the one test that runs it is skipped unless
``BBP_PAIRINGS`` names it (bench/pairing_diff.py's docstring says how to build it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.pairing_diff import _bbp_pairing, _boards, _state, bbp_trf, parse_bbp_pairing
from rules.swiss.generator import GeneratorConfig, generate
from rules.swiss.trf import pair_trf_round, parse_trf

_CONFIG = GeneratorConfig(
    players=15, rounds=7, forfeit_rate=6, retired_rate=15, half_point_bye_rate=8, seed=3
)


def test_parse_bbp_pairing_reads_boards_colours_and_the_bye() -> None:
    boards, bye = parse_bbp_pairing("4\n7 3\n1 2\n10 12\n11 0\n")
    assert boards == frozenset({(7, 3), (1, 2), (10, 12)})
    assert bye == 11
    assert parse_bbp_pairing("1\n2 1\n") == (frozenset({(2, 1)}), None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "not a pairing"),
        ("3\n1 2\n", "not a pairing"),
        ("x\n1 2\n", "not a pairing"),
        ("1\n1 b\n", "not a pairing"),
        ("2\n1 2\n3 4 5\n", "not a pair: '3 4 5'"),
        ("3\n1 0\n2 0\n3 4\n", "two byes"),
    ],
)
def test_parse_bbp_pairing_rejects_what_is_not_a_pairing(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_bbp_pairing(text)


def test_bbp_trf_fills_in_scores_that_our_reader_accepts() -> None:
    """Round 4 of this tournament has half-point byes and retirements in its cells: the
    score column must count them, and the file must pair as the state does."""
    made = generate(_CONFIG).tournament
    state = _state(made, 4)
    text = bbp_trf(state, 4)
    scores = [line[80:84] for line in text.splitlines() if line.startswith("001")]
    assert all(score.strip() for score in scores)
    halves = {"1": 2, "=": 1, "0": 0, "+": 2, "-": 0, "U": 2, "F": 2, "H": 1, "Z": 0}
    for player, score in zip(state.players, scores, strict=True):
        # The rounds before round 4 and the player's cell of round 4 (his absence), if any.
        counted = sum(halves[cell.result.value] for cell in player.rounds[:4])
        assert float(score) == counted / 2
    assert any(len(player.rounds) == 4 for player in state.players)  # absences in round 4
    assert pair_trf_round(parse_trf(text), 4) == pair_trf_round(state, 4)


@pytest.mark.skipif(not os.environ.get("BBP_PAIRINGS"), reason="BBP_PAIRINGS not set")
def test_bbp_pairings_pairs_a_state_as_we_do(tmp_path: Path) -> None:
    made = generate(_CONFIG).tournament
    for round_number in (1, 4):
        state = _state(made, round_number)
        theirs = _bbp_pairing(
            Path(os.environ["BBP_PAIRINGS"]), bbp_trf(state, round_number), tmp_path, 60
        )
        assert theirs == _boards(pair_trf_round(state, round_number))
