"""The absolute criteria between two players (C.04.3 Article 2.1): C1 (no rematch, and the
arbiter's forbidden pairs) and C3 (no two non-topscorers with the same absolute colour
preference)."""

from __future__ import annotations

from collections.abc import Sequence

from rules.core.colour import Colour
from rules.swiss.dutch.state import PlayerState


def compatible(a: PlayerState, b: PlayerState, forbidden: frozenset[frozenset[int]]) -> bool:
    """Absolute criteria C1 and C3 (and the arbiter's forbidden pairs, treated as C1)."""
    if b.number in a.met or frozenset((a.number, b.number)) in forbidden:
        return False
    return (
        not a.absolute
        or not b.absolute
        or a.preference is not b.preference
        or a.topscorer
        or b.topscorer
    )


def blocked_pairs(
    states: Sequence[PlayerState], forbidden: frozenset[frozenset[int]]
) -> list[list[int]]:
    """Per player, the players he may not meet for C1 (met before, or forbidden)."""
    index_of: dict[int, int] = {state.number: index for index, state in enumerate(states)}
    blocked: list[list[int]] = [
        sorted((index_of[number] for number in state.met if number in index_of), key=int)
        for state in states
    ]
    for pair in sorted(forbidden, key=sorted):
        numbers = sorted(pair)
        if len(numbers) == 2 and numbers[0] in index_of and numbers[1] in index_of:
            first, second = index_of[numbers[0]], index_of[numbers[1]]
            blocked[first].append(second)
            blocked[second].append(first)
    return blocked


def c3_class(state: PlayerState) -> Colour | None:
    """The colour of a non-topscorer's absolute preference: two such players of the same
    colour may not meet (C3)."""
    return state.preference if state.absolute and not state.topscorer else None
