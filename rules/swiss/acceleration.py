"""Accelerated rounds (C.04.5): the virtual points each player carries into each round, from a
file's ``250`` records or by the Baku Acceleration Method (C.04.5.1).

Baku, as C.04.5.1 says: before round 1 the players are split in GA, the first half of them
rounded up to an even number (2 x ceil(N / 4): 82 of 161), and GB, the rest. The accelerated
rounds are the first half of the rounds, rounded up (5 of 9); GA's players carry 1 virtual
point into the first half of those, rounded up (3 of 5), and 1/2 into the others; GB's none.
bbpPairings 6 puts ceil(N / 2) players in GA (81 of 161): a file that writes its ``250``
records, as the generator's do, is paired alike by both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from rules.swiss.trf_model import TrfAcceleration

__all__ = ["baku_records", "virtual_points"]

ONE = Fraction(1)
HALF = Fraction(1, 2)


def baku_records(players: int, rounds: int) -> tuple[TrfAcceleration, ...]:
    """The ``250`` records of the Baku method for ``players`` (numbered 1..players in the
    initial order) and ``rounds``."""
    group = 2 * -(-players // 4)
    accelerated = -(-rounds // 2)
    full = -(-accelerated // 2)
    if group == 0 or accelerated == 0:
        return ()
    records = [TrfAcceleration(ONE, 1, full, 1, min(group, players))]
    if accelerated > full:
        records.append(TrfAcceleration(HALF, full + 1, accelerated, 1, min(group, players)))
    return tuple(records)


def virtual_points(
    records: Sequence[TrfAcceleration], numbers: Sequence[int]
) -> Mapping[int, tuple[Fraction, ...]]:
    """Each player's virtual points per round (round 1 first), from ``records`` in order (a
    later record replaces an earlier one's points where they overlap, as bbpPairings reads
    them). Players no record names are left out."""
    out: dict[int, list[Fraction]] = {}
    for record in records:
        for number in numbers:
            if record.first_player <= number <= record.last_player:
                points = out.setdefault(number, [])
                points.extend([Fraction(0)] * (record.last_round - len(points)))
                points[record.first_round - 1 : record.last_round] = [record.points] * (
                    record.last_round - record.first_round + 1
                )
    return {number: tuple(points) for number, points in out.items()}
