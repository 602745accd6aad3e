"""FIDE's rating tables (Handbook B.02, Art. 8.1) and the performance ratings C.07 builds on
them: the tournament performance rating (TPR) and the perfect tournament performance (PTP).

Table 8.1(a) gives the rating difference ``dp`` a percentage score stands for; table 8.1(b)
the expected score ``PD`` of a rating difference (0 to 800 points; a larger difference counts
as 800). Both are written here as FIDE prints them, in whole hundredths. (FIDE's tie-break
checker, TieBreakServer, has 0.93 for a difference of 411 and 0.99 for 610, where the printed
table has 0.92 and 0.98; with those two entries alike the two compute the same TPRs and PTPs.)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "average_rating",
    "expected_score",
    "perfect_performance",
    "performance_rating",
    "rating_difference",
]

# Table 8.1(a): dp for a score of 50 %, 51 %, ..., 100 % (below 50 % it is the negative of the
# value for 100 % less the score).
_DP = (
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65,
    72, 80, 87, 95, 102, 110, 117, 125, 133, 141,
    149, 158, 166, 175, 184, 193, 202, 211, 220, 230,
    240, 251, 262, 273, 284, 296, 309, 322, 336, 351,
    366, 383, 401, 422, 444, 470, 501, 538, 589, 677,
    800,
)  # fmt: skip

# Table 8.1(b): the highest rating difference for which the higher rated player's expected
# score is 0.50, 0.51, ..., 0.99 (above the last, 1.00).
_PD_LIMITS = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68,
    76, 83, 91, 98, 106, 113, 121, 129, 137, 145,
    153, 162, 170, 179, 188, 197, 206, 215, 225, 235,
    245, 256, 267, 278, 290, 302, 315, 328, 344, 357,
    374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
)  # fmt: skip


def _half_up(value: Fraction) -> int:
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def average_rating(ratings: Sequence[int]) -> int:
    """The average of ``ratings``, rounded to the nearest integer, half up (0 for none)."""
    if not ratings:
        return 0
    return _half_up(Fraction(sum(ratings), len(ratings)))


def rating_difference(score: Fraction, games: int) -> int:
    """Table 8.1(a): the ``dp`` of ``score`` points out of ``games`` (the percentage rounded
    to a whole one, half up)."""
    percent = _half_up(100 * score / games)
    if percent >= 50:
        return _DP[percent - 50]
    return -_DP[50 - percent]


def expected_score(rating: int, opponent: int) -> Fraction:
    """Table 8.1(b): the score ``rating`` is expected to make against ``opponent``."""
    difference = min(abs(rating - opponent), 800)
    higher = Fraction(50 + bisect_left(_PD_LIMITS, difference), 100)
    return higher if rating >= opponent else 1 - higher


def performance_rating(score: Fraction, ratings: Sequence[int]) -> int:
    """TPR (C.07): the opponents' average rating plus the ``dp`` of the score (0 for none)."""
    if not ratings:
        return 0
    return average_rating(ratings) + rating_difference(score, len(ratings))


def perfect_performance(score: Fraction, ratings: Sequence[int]) -> int:
    """PTP (C.07): the lowest whole rating whose expected scores against ``ratings`` add up to
    at least ``score``; for no points the lowest rating less 800 (0 for no opponents). For
    every point that is the highest rating plus 736 (table 8.1(b) gives 1.00 from a difference
    of 736), as FIDE's tie-break checker computes it."""
    if not ratings:
        return 0
    if score <= 0:
        return min(ratings) - 800
    low, high = min(ratings) - 800, max(ratings) + 800  # expected: none at low, all at high

    def reaches(rating: int) -> bool:
        return sum((expected_score(rating, r) for r in ratings), Fraction(0)) >= score

    while high - low > 1:  # invariant: ``low`` does not reach the score, ``high`` does
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high
