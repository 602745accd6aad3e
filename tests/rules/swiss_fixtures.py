"""Builders for qualification results in tests: crosstables written as short codes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import PlayerId
from rules.swiss.results import Entrant, ResultKind, RoundResult

HALF = Fraction(1, 2)

# A pairing: (white in game 1, black in game 1, result) with result one of
# "1-0", "0-1", "=" (a tied match), "+-" / "-+" (forfeit won by White / Black).
Pairing = tuple[int, int, str]
# Unpaired players: number -> "PAB" (pairing-allocated bye, 1), "HPB" (half-point bye),
# "ZPB" (zero-point bye / absence), "W" (round after withdrawal).
Unpaired = Mapping[int, str]
RoundSpec = tuple[tuple[Pairing, ...], dict[int, str]]

_PLAYED = {"1-0": (Fraction(1), Fraction(0)), "0-1": (Fraction(0), Fraction(1)), "=": (HALF, HALF)}


def pid(number: int) -> PlayerId:
    return PlayerId(f"p{number:02d}")


def entrants(count: int) -> tuple[Entrant, ...]:
    return tuple(
        Entrant(pairing_number=n, player=pid(n), username=f"P{n:02d}", seed_rating=2000 - n)
        for n in range(1, count + 1)
    )


def _pair(rnd: int, white: int, black: int, code: str) -> tuple[RoundResult, RoundResult]:
    w, b = pid(white), pid(black)
    if code in _PLAYED:
        wp, bp = _PLAYED[code]
        return (
            RoundResult(w, rnd, ResultKind.PLAYED, wp, b, Colour.WHITE, wp * 10, 10),
            RoundResult(b, rnd, ResultKind.PLAYED, bp, w, Colour.BLACK, bp * 10, 10),
        )
    white_wins = code == "+-"
    assert code in ("+-", "-+"), code
    return (
        RoundResult(
            w,
            rnd,
            ResultKind.FORFEIT_WIN if white_wins else ResultKind.FORFEIT_LOSS,
            Fraction(int(white_wins)),
            b,
        ),
        RoundResult(
            b,
            rnd,
            ResultKind.FORFEIT_LOSS if white_wins else ResultKind.FORFEIT_WIN,
            Fraction(int(not white_wins)),
            w,
        ),
    )


def _unpaired(rnd: int, number: int, code: str) -> RoundResult:
    kind, points = {
        "PAB": (ResultKind.BYE, Fraction(1)),
        "HPB": (ResultKind.ABSENT, HALF),
        "ZPB": (ResultKind.ABSENT, Fraction(0)),
        "W": (ResultKind.WITHDRAWN, Fraction(0)),
    }[code]
    return RoundResult(pid(number), rnd, kind, points)


def crosstable(rounds: Sequence[tuple[Iterable[Pairing], Unpaired]]) -> tuple[RoundResult, ...]:
    out: list[RoundResult] = []
    for rnd, (pairings, unpaired) in enumerate(rounds, start=1):
        for white, black, code in pairings:
            out.extend(_pair(rnd, white, black, code))
        out.extend(_unpaired(rnd, n, code) for n, code in unpaired.items())
    return tuple(out)


# FIDE C.07 "Exercises in Tie-Breaking" (FIDE SPP/TEC, Rev. 2403220900, March 2024), Swiss
# individual crosstable (section 2.1): 16 players, 5 rounds. Source of the data as read here: the
# transcription in github.com/gnutterts/chesspairing, tiebreaker/c07_exercises_1_test.go and
# c07_exercises_2_test.go; the original PDF was not available to this project. Every value
# below was re-derived by hand from Art. 16 before being trusted (see test_tiebreaks.py).
# Player 12 withdrew after round 3.
FIDE_EXERCISE: tuple[RoundSpec, ...] = (
    (
        (
            (10, 2, "0-1"),
            (1, 9, "1-0"),
            (3, 11, "="),
            (12, 4, "0-1"),
            (16, 8, "="),
            (14, 6, "1-0"),
            (5, 13, "0-1"),
            (7, 15, "1-0"),
        ),
        {},
    ),
    (
        (
            (2, 7, "1-0"),
            (13, 1, "="),
            (6, 3, "0-1"),
            (11, 16, "0-1"),
            (15, 5, "1-0"),
            (8, 14, "1-0"),
            (9, 10, "0-1"),
        ),
        {4: "HPB", 12: "PAB"},
    ),
    (
        (
            (1, 2, "="),
            (3, 8, "1-0"),
            (4, 13, "1-0"),
            (16, 7, "1-0"),
            (5, 11, "1-0"),
            (12, 14, "+-"),
            (10, 15, "0-1"),
        ),
        {6: "PAB", 9: "HPB"},
    ),
    (
        (
            (2, 16, "1-0"),
            (15, 1, "0-1"),
            (4, 3, "="),
            (6, 10, "1-0"),
            (7, 5, "="),
            (8, 13, "1-0"),
            (11, 9, "+-"),
        ),
        {14: "ZPB", 12: "W"},
    ),
    (
        (
            (3, 2, "="),
            (1, 4, "="),
            (16, 15, "1-0"),
            (8, 6, "0-1"),
            (5, 10, "1-0"),
            (11, 7, "1-0"),
            (13, 14, "0-1"),
        ),
        {9: "PAB", 12: "W"},
    ),
)

FIDE_SCORES = {
    1: "3.5", 2: "4", 3: "3.5", 4: "3.5", 5: "2.5", 6: "3", 7: "1.5", 8: "2.5",
    9: "1.5", 10: "1", 11: "2.5", 12: "2", 13: "1.5", 14: "2", 15: "2", 16: "3.5",
}  # fmt: skip

# Exercise 9: Buchholz of every player, as published (computed under the 2024 text).
FIDE_BH_2024 = {
    1: "12.5", 2: "13", 3: "15.5", 4: "15", 5: "8.5", 6: "12", 7: "14.5", 8: "13.5",
    9: "9", 10: "13", 11: "13.5", 12: "11.5", 13: "14", 14: "11", 15: "12", 16: "12.5",
}  # fmt: skip

# Exercises 5-8: Buchholz Cut-1, every value the exercises publish.
FIDE_BH_C1_2024 = {
    1: "11", 3: "13", 4: "11.5", 5: "7.5", 7: "12.5", 8: "12", 9: "7.5", 11: "12",
    12: "9.5", 13: "12", 14: "9", 15: "11", 16: "11",
}  # fmt: skip
