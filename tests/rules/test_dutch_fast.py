"""The fast Dutch engine pairs exactly like the slow one it replaced (dutch_reference.py).

Seeded random tournaments of 2-60 players, with absences (some with bye points), forfeits, pairing
byes and forbidden pairs; every round is paired by both engines from the same histories and must
give the same boards, colours, board order and PAB, or the same error.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from rules.core.colour import Colour
from rules.swiss.dutch import (
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    RoundRecord,
    SwissPlayer,
    pair_round,
)
from tests.rules import dutch_reference

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)


def _outcome(
    players: list[SwissPlayer],
    round_number: int,
    total_rounds: int,
    forbidden: frozenset[frozenset[int]],
    pair: object,
) -> RoundPairing | str:
    assert callable(pair)
    try:
        result = pair(
            players, round_number=round_number, total_rounds=total_rounds, forbidden=forbidden
        )
    except NoLegalPairingError as error:
        return f"no legal pairing: {error}"
    assert isinstance(result, RoundPairing)
    return result


def _play(
    players: list[SwissPlayer], pairing: RoundPairing, rng: random.Random, absent_rate: float
) -> list[SwissPlayer]:
    records: dict[int, RoundRecord] = {}
    for board in pairing.boards:
        roll = rng.random()
        white, black = PlayerNumber(board.white), PlayerNumber(board.black)
        if roll < 0.05:
            # A forfeit: no colours, no meeting for C1.
            winner_white = rng.random() < 0.5
            records[white] = RoundRecord(RoundKind.FORFEIT, WIN if winner_white else LOSS, black)
            records[black] = RoundRecord(RoundKind.FORFEIT, LOSS if winner_white else WIN, white)
            continue
        points = WIN if roll < 0.45 else DRAW if roll < 0.65 else LOSS
        records[white] = RoundRecord(RoundKind.PLAYED, points, black, Colour.WHITE)
        records[black] = RoundRecord(RoundKind.PLAYED, WIN - points, white, Colour.BLACK)
    if pairing.bye is not None:
        records[pairing.bye] = RoundRecord(RoundKind.PAIRING_BYE, WIN)
    result: list[SwissPlayer] = []
    for player in players:
        record = records.get(player.number)
        if record is None:
            # Absent: usually zero, sometimes a requested half- or full-point bye.
            record = RoundRecord(RoundKind.ABSENT, rng.choice([LOSS, LOSS, DRAW, WIN]))
        result.append(
            SwissPlayer(
                number=player.number,
                history=(*player.history, record),
                present=rng.random() >= absent_rate,
            )
        )
    return result


def _tournament(seed: int) -> list[tuple[int, RoundPairing | str, RoundPairing | str]]:
    """Both engines' outcomes for every round of one random tournament."""
    rng = random.Random(seed)
    count = rng.choice([2, 3, 4, 5, 7, 9, 12, 16, 21, 30, 40, 60])
    total_rounds = rng.randint(1, 9)
    absent_rate = rng.choice([0.0, 0.0, 0.05, 0.2])
    numbers = list(range(1, count + 1))
    forbidden = frozenset(
        frozenset(rng.sample(numbers, 2))
        for _ in range(rng.choice([0, 0, 1, 3]))
        if len(numbers) >= 2
    )
    players = [
        SwissPlayer(PlayerNumber(number), (), present=rng.random() >= absent_rate)
        for number in numbers
    ]
    outcomes: list[tuple[int, RoundPairing | str, RoundPairing | str]] = []
    for round_number in range(1, total_rounds + 1):
        fast = _outcome(players, round_number, total_rounds, forbidden, pair_round)
        slow = _outcome(players, round_number, total_rounds, forbidden, dutch_reference.pair_round)
        outcomes.append((round_number, fast, slow))
        if not isinstance(slow, RoundPairing):
            break
        players = _play(players, slow, rng, absent_rate)
    return outcomes


@pytest.mark.parametrize("seed", range(60))
def test_fast_engine_pairs_every_round_like_the_reference_engine(seed: int) -> None:
    for round_number, fast, slow in _tournament(seed):
        assert fast == slow, f"round {round_number}"
