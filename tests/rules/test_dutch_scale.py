"""The Dutch engine at any size: a field in which nobody has played yet is paired without
matchings, exactly as the matchings pair it."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from rules.core.colour import Colour
from rules.swiss.dutch import (
    Board,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    RoundRecord,
    SwissPlayer,
    pair_round,
)
from rules.swiss.dutch.brackets import RoundPairer
from rules.swiss.dutch.bye import determine_bye
from rules.swiss.dutch.colours import colour_of
from rules.swiss.dutch.state import player_states


def _by_matchings(players: list[SwissPlayer], round_number: int, initial: Colour) -> RoundPairing:
    """The general method (brackets and matchings) on the same field."""
    states = player_states(
        players, round_number=round_number, total_rounds=9, points_for_win=Fraction(1)
    )
    pairs, bye = RoundPairer(states, determine_bye(states, frozenset()), frozenset(), 0).run()
    boards = []
    for u, v in sorted(pairs):
        higher, lower = states[u], states[v]
        if colour_of(higher, lower, initial) is Colour.WHITE:
            boards.append(Board(higher.number, lower.number))
        else:
            boards.append(Board(lower.number, higher.number))
    return RoundPairing(tuple(boards), None if bye is None else states[bye].number)


@pytest.mark.parametrize("seed", range(40))
def test_a_fresh_field_is_paired_as_the_matchings_pair_it(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(2, 60)
    round_number = rng.choice((1, 1, 2, 3))
    absent_record = RoundRecord(RoundKind.ABSENT, Fraction(0))
    players = [
        SwissPlayer(
            PlayerNumber(number),
            (absent_record,) * (round_number - 1),
            present=rng.random() > 0.15,
        )
        for number in range(1, count + 1)
    ]
    initial = rng.choice((Colour.WHITE, Colour.BLACK))
    if sum(player.present for player in players) < 2:
        return
    fast = pair_round(players, round_number=round_number, total_rounds=9, initial_colour=initial)
    assert fast == _by_matchings(players, round_number, initial)


def test_forbidden_pairs_in_a_fresh_field_go_to_the_matchings() -> None:
    players = [SwissPlayer(PlayerNumber(number), ()) for number in range(1, 9)]
    pairing = pair_round(
        players, round_number=1, total_rounds=5, forbidden=frozenset({frozenset((1, 5))})
    )
    assert frozenset((1, 5)) not in {frozenset((b.white, b.black)) for b in pairing.boards}
    assert len(pairing.boards) == 4


def test_ten_thousand_players_with_byes_are_paired_in_round_one() -> None:
    absent = set(range(7, 10_000, 83))
    players = [
        SwissPlayer(PlayerNumber(number), (), present=number not in absent)
        for number in range(1, 10_001)
    ]
    pairing = pair_round(players, round_number=1, total_rounds=9)
    present = [number for number in range(1, 10_001) if number not in absent]
    half = len(present) // 2
    assert len(present) % 2 == 1
    assert pairing.bye == present[-1]
    assert {frozenset((b.white, b.black)) for b in pairing.boards} == {
        frozenset((present[i], present[i + half])) for i in range(half)
    }
