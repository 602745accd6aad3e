"""The quality criteria as edge weights (C.04.3 Article 2.2-2.4, C6-C21): one big integer per
pair whose bit fields, most significant first, hold the criteria in their order of priority."""

from __future__ import annotations

from collections.abc import Sequence

from rules.swiss.dutch.absolute import blocked_pairs, c3_class
from rules.swiss.dutch.bye import ByeContext
from rules.swiss.dutch.colours import preferences_compatible
from rules.swiss.dutch.state import Float, PlayerState


class Layout:
    """Bit layout of an edge weight: criteria fields, most significant first.

    Every field is wide enough to hold its sum over any matching, so comparing two matchings'
    total weights compares their criteria lexicographically. Score-indexed fields have one digit
    per score level, the highest score most significant.
    """

    def __init__(self, states: Sequence[PlayerState], rounds_played: int, c9_width: int) -> None:
        n = max(len(states), 2)
        counts: dict[int, int] = {}
        for state in states:
            counts[state.level] = counts.get(state.level, 0) + 1
        levels = max(counts, default=0) + 1
        count_bits = n.bit_length() + 1
        digit_bits = [(2 * counts.get(level, 0) + 1).bit_length() for level in range(levels)]
        # Offsets of each level's digit inside a score-indexed field (level 0 least significant).
        self.level_offset: list[int] = []
        offset = 0
        for bits in digit_bits:
            self.level_offset.append(offset)
            offset += bits
        level_bits = offset
        self.probe_bits = n.bit_length() + 2
        self.index_shift = self.probe_bits
        self.exchange_shift = self.index_shift + (n * n).bit_length() + 2
        self.low_bits = self.exchange_shift + count_bits + 1
        self.rounds_played = rounds_played
        widths: list[tuple[str, int]] = [
            ("top", (4 * n).bit_length() + 1),
            ("c6", count_bits),
            ("c7", level_bits),
            ("c8a", count_bits),
            ("c8b", level_bits),
            ("c9", c9_width),
            ("c10", count_bits),
            ("c11", count_bits),
            ("c12", count_bits),
            ("c13", count_bits),
            ("c14", count_bits),
            ("c15", count_bits),
            ("c16", count_bits),
            ("c17", count_bits),
            ("c18", level_bits),
            ("c19", level_bits),
            ("c20", level_bits),
            ("c21", level_bits),
        ]
        self.shift: dict[str, int] = {}
        position = self.low_bits
        for name, width in reversed(widths):
            self.shift[name] = position
            position += width

    def level_digit(self, level: int) -> int:
        return 1 << self.level_offset[level]

    def exchange_addend(self, position: int, s1_size: int) -> int:
        """What the exchange weights add to a remainder pair whose higher player stands at
        ``position``: one exchange field when he is in S1, less the lower he stands."""
        return (int(position < s1_size) << self.exchange_shift) - (position << self.index_shift)

    def exchange_potential(self, position: int, s1_size: int) -> int:
        """The exchange addends as a potential of the player at ``position`` (doubled
        weights, see rules/swiss/matching.py).

        With E the exchange unit, I the index unit and K the last S1 position, an S1 player
        at position p gets E + (K - 2p) I and an S2 player E - K I. An S1-S2 pair's two
        potentials are then exactly twice its addend; two S1 players' exceed it by
        2 (K - p') I, two S2 players' by 2 (E - (K - q) I), both at least 0 (E is far above
        any K I); every potential is positive. A cold start from these pairs S1 with S2 at
        once."""
        unit = 1 << self.exchange_shift
        step = 1 << self.index_shift
        last = s1_size - 1
        if position < s1_size:
            return unit + (last - 2 * position) * step
        return unit - last * step


def colour_fields(lower: PlayerState, higher: PlayerState) -> tuple[int, int, int, int]:
    """Whether the pair complies with C10, C11, C12 and C13 (1 = complies)."""
    same = lower.preference is higher.preference and lower.preference is not None
    c10 = not (lower.imbalance > 1 and higher.imbalance > 1 and same)
    if not (lower.absolute and higher.absolute and same):
        c11 = True
    elif lower.imbalance == higher.imbalance:
        c11 = lower.repeated is None or lower.repeated is not higher.repeated
    else:
        # The player with the smaller imbalance yields the colour (rule 5.2.2).
        yielding = higher if lower.imbalance > higher.imbalance else lower
        assert lower.preference is not None
        c11 = yielding.repeated is not lower.preference.opposite
    c12 = preferences_compatible(lower.preference, higher.preference)
    c13 = (
        (not lower.strong and not lower.absolute)
        or (not higher.strong and not higher.absolute)
        or (lower.absolute and higher.absolute)
        or lower.preference is not higher.preference
    )
    return int(c10), int(c11), int(c12), int(c13)


class Weights:
    """Computes edge weights for one round."""

    def __init__(
        self,
        states: Sequence[PlayerState],
        layout: Layout,
        bye: ByeContext,
        forbidden: frozenset[frozenset[int]],
    ) -> None:
        self.states = states
        self.layout = layout
        self.bye = bye
        self.forbidden = forbidden
        self.blocked = [frozenset(row) for row in blocked_pairs(states, forbidden)]
        self.c3 = [c3_class(state) for state in states]
        # Players alike in everything :meth:`bracket` reads share a kind, so a bracket's
        # weights are computed once per pair of kinds (and flags), not once per pair.
        kinds: dict[tuple[object, ...], int] = {}
        self.kind = [
            kinds.setdefault(
                (
                    state.level,
                    bye.c9_value[index] if state.score == bye.score else None,
                    state.preference,
                    state.absolute,
                    state.strong,
                    state.imbalance,
                    state.repeated,
                    state.floats,
                ),
                len(kinds),
            )
            for index, state in enumerate(states)
        ]
        # One player of each kind, who stands for the kind in :meth:`kind_pair`.
        self.kind_member = [0] * len(kinds)
        for index in range(len(states) - 1, -1, -1):
            self.kind_member[self.kind[index]] = index
        self.kind_weights: dict[tuple[int, bool, bool, bool], dict[int, int]] = {}

    def float_part(self, index: int) -> int:
        """The part of each of the player's pairs with a player of his own score that the
        float criteria give for his own floats (C14, C16, C18, C20: the pair keeps a player
        who floated down one or two rounds ago in his bracket): the same in all those pairs,
        so that a player who floated down is joined to every resident by heavier pairs."""
        layout = self.layout
        shift = layout.shift
        state = self.states[index]
        part = 0
        for back, count_down, score_down in ((1, "c14", "c18"), (2, "c16", "c20")):
            if layout.rounds_played >= back and state.floats[back - 1] is Float.DOWN:
                part += (1 << shift[count_down]) + (
                    layout.level_digit(state.level) << shift[score_down]
                )
        return part

    def moved_down_part(self, index: int, level: int) -> int:
        """What a moved-down player adds to each of his pairs with a resident at score
        ``level`` over what a pair of two residents weighs (C7: the higher player's score
        counts): the same in all those pairs."""
        layout = self.layout
        own = layout.level_digit(self.states[index].level)
        return max(own - layout.level_digit(level), 0) << layout.shift["c7"]

    def compatible(self, u: int, v: int) -> bool:
        """Absolute criteria C1 and C3 (as :func:`compatible`)."""
        if v in self.blocked[u]:
            return False
        colour = self.c3[u]
        return colour is None or colour is not self.c3[v]

    def pair(self, hi: int, lo: int, *, in_current: bool, in_next: bool, c9: bool) -> int:
        """:meth:`bracket`, computed once per pair of kinds (and flags)."""
        if lo in self.blocked[hi]:
            return 0
        lo_c3 = self.c3[lo]
        if lo_c3 is not None and self.c3[hi] is lo_c3:
            return 0
        return self.kind_pair(self.kind[hi], self.kind[lo], in_current, in_next, c9)

    def kind_pair(
        self, hi_kind: int, lo_kind: int, in_current: bool, in_next: bool, c9: bool
    ) -> int:
        """The criteria weight of a compatible pair of players of these kinds (the higher
        ranked first)."""
        known = self.kind_weights.get((lo_kind, in_current, in_next, c9))
        if known is None:
            known = self.kind_weights[(lo_kind, in_current, in_next, c9)] = {}
        weight = known.get(hi_kind)
        if weight is None:
            weight = known[hi_kind] = self._criteria(
                self.kind_member[hi_kind],
                self.kind_member[lo_kind],
                in_current=in_current,
                in_next=in_next,
                c9=c9,
            )
        return weight

    def bracket(self, hi: int, lo: int, *, in_current: bool, in_next: bool, c9: bool) -> int:
        """Criteria weight of the pair (higher ``hi``, lower ``lo``) while pairing a bracket,
        without the completion field, which the solver adds."""
        if not self.compatible(hi, lo):
            return 0
        return self._criteria(hi, lo, in_current=in_current, in_next=in_next, c9=c9)

    def _criteria(self, hi: int, lo: int, *, in_current: bool, in_next: bool, c9: bool) -> int:
        """:meth:`bracket` for two players taken as compatible: it reads only what makes
        their kinds, so one pair of players stands for every pair of the same kinds."""
        layout = self.layout
        shift = layout.shift
        hs = self.states[hi]
        ls = self.states[lo]
        weight = 0
        if in_current:
            weight |= 1 << shift["c6"]
            weight |= layout.level_digit(hs.level) << shift["c7"]
        if in_next:
            weight |= 1 << shift["c8a"]
            weight |= layout.level_digit(hs.level) << shift["c8b"]
        if c9 and self.bye.score is not None:
            value = 0
            if hs.score == self.bye.score:
                value += self.bye.c9_value[hi]
            if ls.score == self.bye.score:
                value += self.bye.c9_value[lo]
            weight += value << shift["c9"]
        if not in_current:
            return weight
        c10, c11, c12, c13 = colour_fields(ls, hs)
        weight |= (
            (c10 << shift["c10"])
            | (c11 << shift["c11"])
            | (c12 << shift["c12"])
            | (c13 << shift["c13"])
        )
        mdp_pair = hs.score > ls.score
        rounds = layout.rounds_played
        for back, count_down, count_up, score_down, score_up in (
            (1, "c14", "c15", "c18", "c19"),
            (2, "c16", "c17", "c20", "c21"),
        ):
            if rounds < back:
                continue
            lower_float = ls.floats[back - 1]
            higher_float = hs.floats[back - 1]
            repeated_down = int(lower_float is Float.DOWN) + int(
                not mdp_pair and higher_float is Float.DOWN
            )
            weight += repeated_down << shift[count_down]
            upfloat_again = mdp_pair and lower_float is Float.UP
            weight |= int(not upfloat_again) << shift[count_up]
            digits = 0
            if lower_float is Float.DOWN:
                digits += layout.level_digit(ls.level)
            if higher_float is Float.DOWN:
                digits += layout.level_digit(hs.level)
            weight += digits << shift[score_down]
            if not upfloat_again:
                weight += layout.level_digit(hs.level) << shift[score_up]
        return weight


class CompatibleRows:
    """Each player's compatible players (C1, C3) among a group, in the group's order,
    computed once per player."""

    __slots__ = ("blocked", "c3", "group", "rows")

    def __init__(self, group: Sequence[int], weights: Weights) -> None:
        self.group = group
        self.blocked = weights.blocked
        self.c3 = weights.c3
        self.rows: dict[int, list[int]] = {}

    def __call__(self, vertex: int) -> list[int]:
        row = self.rows.get(vertex)
        if row is None:
            blocked = self.blocked[vertex]
            colour = self.c3[vertex]
            if colour is None:
                row = [other for other in self.group if other != vertex and other not in blocked]
            else:
                c3 = self.c3
                row = [
                    other
                    for other in self.group
                    if other != vertex and other not in blocked and c3[other] is not colour
                ]
            self.rows[vertex] = row
        return row
