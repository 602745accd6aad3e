"""The pairing-allocated bye (C.04.3 C2, C5 and C9): who may take it, the score it goes to,
and whether the round can be completed at all (C4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.swiss.dutch.absolute import blocked_pairs, compatible
from rules.swiss.dutch.completion import dirac
from rules.swiss.dutch.model import NoLegalPairingError
from rules.swiss.dutch.state import PlayerState
from rules.swiss.matching import max_weight_matching


@dataclass(frozen=True, slots=True)
class ByeContext:
    """What C2, C5 and C9 need: bye candidates, the PAB assignee's score, C9's ranking."""

    candidates: frozenset[int]
    score: Fraction | None
    c9_value: Mapping[int, int]
    c9_first_bracket: bool = False


def top_field(u: int, v: int, bye: ByeContext) -> int:
    """The completion field of a pair (C4), worth more for each player who may not take the
    PAB (C2, C5): a maximum-weight matching pairs as many players as it can, those first."""
    return 1 + (u not in bye.candidates) + (v not in bye.candidates)


def determine_bye(
    states: Sequence[PlayerState], forbidden: frozenset[frozenset[int]]
) -> ByeContext:
    """Check C4 for the whole round and, for an odd number of players, apply C2 and C5."""
    n = len(states)
    eligible = frozenset(index for index, state in enumerate(states) if state.bye_eligible)
    odd = n % 2 == 1
    probe = ByeContext(candidates=eligible if odd else frozenset(), score=None, c9_value={})
    top_score = states[0].score
    if dirac(states, blocked_pairs(states, forbidden), (), range(n)):
        # Any player can be left out of a complete pairing: no PAB for an even number, else
        # the PAB goes to the lowest eligible scoregroup (C5). Only when that is the top
        # scoregroup does C9's first-bracket rule need an actual matching.
        if not odd:
            return ByeContext(candidates=frozenset(), score=None, c9_value={})
        if not eligible:
            raise NoLegalPairingError(
                "Every player who could take the pairing-allocated bye has already scored a "
                "win without playing (C.04.3 C2)."
            )
        lowest = min(states[index].score for index in eligible)
        if lowest < top_score:
            return bye_context(states, eligible, lowest, first=False)
    level_bits = (n * (max((s.level for s in states), default=0) + 1)).bit_length() + 1
    top_bits = n.bit_length() + 1
    edges: list[tuple[int, int, int]] = []
    for u in range(n):
        for v in range(u + 1, n):
            if compatible(states[u], states[v], forbidden):
                weight = (top_field(u, v, probe) << level_bits) + states[u].level + states[v].level
                weight = (weight << top_bits) + int(states[v].score >= top_score)
                edges.append((u, v, weight))
    mate = max_weight_matching(range(n), edges)
    unmatched = [index for index in range(n) if index not in mate]
    if len(unmatched) > (1 if odd else 0):
        raise NoLegalPairingError(
            "No pairing of the present players avoids rematches, forbidden pairs and "
            "absolute colour conflicts (C.04.3 C1, C3)."
        )
    if not odd:
        return ByeContext(candidates=frozenset(), score=None, c9_value={})
    assignee = unmatched[0]
    if assignee not in eligible:
        raise NoLegalPairingError(
            "Every player who could take the pairing-allocated bye has already scored a "
            "win without playing (C.04.3 C2)."
        )
    score = states[assignee].score
    # C9 acts in the first bracket when the PAB goes to a player of the top scoregroup and
    # that scoregroup downfloats nobody else.
    first = score >= top_score and all(
        index not in mate or states[mate[index]].score >= top_score
        for index, state in enumerate(states)
        if state.score >= top_score
    )
    return bye_context(states, eligible, score, first=first)


def bye_context(
    states: Sequence[PlayerState], eligible: frozenset[int], score: Fraction, *, first: bool
) -> ByeContext:
    candidates = frozenset(index for index in eligible if states[index].score <= score)
    most = max(state.played_games for state in states)
    # C9: pairing a player with fewer played games is worth more, so the PAB goes to the
    # candidate with the fewest unplayed games.
    c9_value = {
        index: most - state.played_games
        for index, state in enumerate(states)
        if state.score == score
    }
    return ByeContext(candidates=candidates, score=score, c9_value=c9_value, c9_first_bracket=first)
