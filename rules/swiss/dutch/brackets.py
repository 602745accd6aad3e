"""Pairing the brackets of one round from the top down (C.04.3 Articles 3 and 4): the
moved-down players paired, their opponents, S1 and S2, exchanges and transpositions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.swiss.dutch.absolute import blocked_pairs
from rules.swiss.dutch.assignment import S1Assignment
from rules.swiss.dutch.bye import ByeContext
from rules.swiss.dutch.completion import dirac
from rules.swiss.dutch.graph import PairingGraph
from rules.swiss.dutch.model import NoLegalPairingError
from rules.swiss.dutch.state import PlayerState
from rules.swiss.dutch.weights import CompatibleRows, Layout, Weights


class RoundPairer:
    """Pairs the brackets of one round from the top down (C.04.3 Articles 2-4)."""

    def __init__(
        self,
        states: Sequence[PlayerState],
        bye: ByeContext,
        forbidden: frozenset[frozenset[int]],
        rounds_played: int,
    ) -> None:
        self.states = states
        n = len(states)
        c9_width = (2 * n * (rounds_played + 1) + 1).bit_length() + 1
        self.layout = Layout(states, rounds_played, c9_width)
        self.weights = Weights(states, self.layout, bye, forbidden)
        self.bye = bye
        self.graph = PairingGraph(range(n), self.weights)
        self.blocked = blocked_pairs(states, forbidden)
        self.pairs: list[tuple[int, int]] = []
        self.last_mate: dict[int, int] = {}

    # -- helpers ---------------------------------------------------------

    def _base(self, u: int, v: int) -> int:
        return self.graph.base(u, v)

    def _finalize(self, u: int, v: int) -> None:
        self.pairs.append((u, v) if u < v else (v, u))
        self.graph.remove(u)
        self.graph.remove(v)

    # -- the round -------------------------------------------------------

    def run(self) -> tuple[list[tuple[int, int]], int | None]:
        states = self.states
        n = len(states)
        groups: list[list[int]] = []
        for index in range(n):
            if index and states[index].score == states[index - 1].score:
                groups[-1].append(index)
            else:
                groups.append([index])
        c9_active = self.bye.c9_first_bracket
        mdps: list[int] = []
        residents = groups[0] if groups else []
        next_group = 1
        while len(mdps) + len(residents) > 1 or next_group < len(groups):
            if not residents and next_group >= len(groups):
                break
            following = groups[next_group] if next_group < len(groups) else []
            next_group += 1
            if not following and self.bye.score is not None:
                # The last bracket downfloats just the player left over, who gets the PAB.
                c9_active = True
            carried = self._pair_bracket(mdps, residents, following, c9_active)
            c9_active = self._next_c9(carried, following)
            following_set = set(following)
            mdps = [index for index in carried if index not in following_set]
            residents = following
        unpaired = sorted(self.graph.alive, key=lambda vertex: vertex)
        if len(unpaired) > 1:
            raise NoLegalPairingError("The round could not be completed (C.04.3 C4).")
        return self.pairs, (unpaired[0] if unpaired else None)

    def _next_c9(self, carried: Sequence[int], following: Sequence[int]) -> bool:
        """Whether C9 acts in the next bracket: the PAB assignee's score is not below its
        residents' (he may be a moved-down player in it, floated from his own scoregroup),
        and none of its players meets a lower scorer in the matching (as bbpPairings)."""
        score = self.bye.score
        if score is None or not following:
            return False
        resident_score = self.states[following[0]].score
        if score < resident_score:
            return False
        mate = self.last_mate
        return all(
            index not in mate or self.states[mate[index]].score >= resident_score
            for index in carried
        )

    def _pair_bracket(  # noqa: C901 (C.04.3's bracket pairing, one algorithm)
        self,
        mdps: list[int],
        residents: list[int],
        following: list[int],
        c9_active: bool,
    ) -> list[int]:
        """Pair one bracket; return the players carried to the next one (MDPs, then next group)."""
        graph = self.graph
        # Base weights: every pair in this bracket and the next except MDP-MDP pairs, which
        # stay unpaired (they could have met in the bracket they floated from).
        graph.new_bracket(mdps, residents, following, c9_active)
        bracket = mdps + residents
        members = bracket + following
        self._set_scope(bracket, following, members)
        mate = graph.solve()
        resident_lo = residents[0] if residents else len(self.states)
        resident_hi = resident_lo + len(residents)

        def in_residents(index: int | None) -> bool:
            return index is not None and resident_lo <= index < resident_hi

        # Which moved-down players are paired in this bracket (2025 Article 3.3, C6-C7):
        # the highest of each score first.
        chosen: list[int] = []
        position = 0
        while position < len(mdps):
            score = self.states[mdps[position]].score
            same = [index for index in mdps[position:] if self.states[index].score == score]
            position += len(same)
            remaining = len(same)
            matched = sum(1 for index in same if in_residents(mate.get(index)))
            for index in same:
                if matched == 0:
                    # Article 3.3: the others of this score are not paired in the bracket;
                    # left with their resident pairs, a later solve could pair one of them
                    # instead of a chosen one at no cost and leave that one without a mate.
                    for resident in residents:
                        graph.set(index, resident, 0)
                    continue
                if remaining <= matched:
                    chosen.append(index)
                    self._restrict_to(index, residents)
                    continue
                remaining -= 1
                if not in_residents(mate.get(index)):
                    for resident in residents:
                        base = self._base(index, resident)
                        if base:
                            graph.set(index, resident, base + 1)
                    mate = graph.solve()
                    for resident in residents:
                        graph.set(index, resident, self._base(index, resident))
                if in_residents(mate.get(index)):
                    chosen.append(index)
                    matched -= 1
                    self._restrict_to(index, residents)
                else:
                    for resident in residents:
                        graph.set(index, resident, 0)
        # Their opponents: each takes the highest resident the criteria allow.
        for index in chosen:
            best = next((r for r in residents if r in graph.alive and self._base(index, r)), None)
            # The current matching is optimal; if it already gives (or a swap gives at no
            # cost) the highest resident, the bonus cannot change it.
            if mate.get(index) != best and not self._swap(mate, index, best):
                # The bonus starts at 1: the chosen player is paired in some best matching,
                # so every best matching with the bonus pairs him (with 0 for the lowest
                # resident, leaving him over could tie).
                bonus = 1
                for resident in reversed(residents):
                    if resident not in graph.alive:
                        continue
                    base = self._base(index, resident)
                    if base:
                        graph.set(index, resident, base + bonus)
                        bonus += 1
                mate = graph.solve()
            opponent = mate.get(index)
            if opponent is None:  # pragma: no cover - the restriction and bonus give a mate
                raise NoLegalPairingError("A moved-down player lost every opponent.")
            self._finalize(index, opponent)
        # The remainder (homogeneous part): S1 and S2, exchanges, transpositions.
        remainder = [index for index in residents if index in graph.alive]
        if remainder:
            mate = self._pair_remainder(remainder, following, mate, resident_hi)
        self.last_mate = mate
        carried = [index for index in bracket if index in graph.alive]
        return carried + list(following)

    def _set_scope(
        self, bracket: Sequence[int], following: list[int], members: Sequence[int]
    ) -> None:
        """Solve the bracket and the next one without the players below them when a solve can
        show that its pairing of the two brackets completes the round with the best C4-C5
        outcome (see :class:`PairingGraph`)."""
        graph = self.graph
        member_set = frozenset(members)
        lower = [index for index in sorted(graph.alive, key=int) if index not in member_set]
        graph.scope = None
        graph.bracket = None
        graph.lower = lower
        graph.lower_matching = None
        graph.lower_rows = CompatibleRows(lower, self.weights)
        graph.following = following
        graph.following_matching = None
        graph.following_rows = CompatibleRows(following, self.weights)
        graph.takes = {}
        if not lower:
            # The next bracket is the last: the bracket alone may still be solved, the
            # completion check leaving the PAB to one of the next bracket's candidates (C2,
            # C5), when C9 is not in this bracket's weights.
            if not following or (self.bye.score is not None and graph.c9):
                return
        elif self.bye.score is not None and not any(
            index in self.bye.candidates for index in lower
        ):
            return
        graph.scope = member_set
        graph.guaranteed = dirac(self.states, self.blocked, members, lower)
        if following:
            graph.bracket = frozenset(bracket)

    def _swap(self, mate: dict[int, int], player: int, target: int | None) -> bool:
        """Give ``player`` the ``target`` by swapping partners with the target's opponent, if
        that costs nothing: then ``mate``, a maximum-weight matching, stays one."""
        current = mate.get(player)
        other = None if target is None else mate.get(target)
        if target is None or current is None or other is None:
            return False
        weight = self.graph.full_weight
        gained = weight(player, target)
        kept = weight(current, other)
        if not gained or not kept:
            return False
        if gained + kept != weight(player, current) + weight(target, other):
            return False
        mate[player], mate[target] = target, player
        mate[current], mate[other] = other, current
        return True

    def _natural_roles(self, mate: dict[int, int], s1: Sequence[int], s2: Sequence[int]) -> None:  # noqa: C901 (C.04.3's role swaps, one algorithm)
        """Swap partners at no cost between S1-S1 and S2-S2 pairs of ``mate`` (a maximum-weight
        matching, which stays one) so that S1 players meet S2 players where possible."""
        s1_set = frozenset(s1)
        s2_set = frozenset(s2)
        weight = self.graph.full_weight
        for first in s1:
            second = mate.get(first)
            if second is None or second not in s1_set or second < first:
                continue
            for third in s2:
                fourth = mate.get(third)
                if fourth is None or fourth not in s2_set:
                    continue
                before = weight(first, second) + weight(third, fourth)
                for a, b in ((third, fourth), (fourth, third)):
                    if (
                        weight(first, a)
                        and weight(second, b)
                        and weight(first, a) + weight(second, b) == before
                    ):
                        mate[first], mate[a] = a, first
                        mate[second], mate[b] = b, second
                        break
                else:
                    continue
                break
        graph = self.graph
        bracket = graph.bracket
        if bracket is None:
            return
        # An S1 player left over while two S2 players meet: he can take one of them at no
        # cost for the bracket alone; the matching stays one of the best when the new
        # leftover still lets the next bracket do its best (see PairingGraph.solve).
        for first in s1:
            partner = mate.get(first)
            if partner is not None and partner in bracket:
                continue
            for third in s2:
                fourth = mate.get(third)
                if fourth is None or fourth not in s2_set or fourth < third:
                    continue
                before = graph.explicit(third, fourth) or 0
                for taken, freed in ((third, fourth), (fourth, third)):
                    if (graph.explicit(first, taken) or 0) != before or not before:
                        continue
                    leftover = [
                        index
                        for index in bracket
                        if index in graph.alive
                        and index != first
                        and (mate.get(index) not in bracket or index == freed)
                    ]
                    if not graph.next_bracket_takes(leftover):
                        continue
                    if partner is not None:
                        mate.pop(partner, None)
                    mate[first], mate[taken] = taken, first
                    mate.pop(freed, None)
                    break
                else:
                    continue
                break

    def _restrict_to(self, index: int, allowed: Sequence[int]) -> None:
        self.graph.restrict(index, allowed)

    def _pair_remainder(  # noqa: C901 (C.04.3's remainder pairing, one algorithm)
        self,
        remainder: list[int],
        following: list[int],
        mate: dict[int, int],
        resident_hi: int,
    ) -> dict[int, int]:
        graph = self.graph
        layout = self.layout
        position_of = {index: position for position, index in enumerate(remainder)}
        remainder_set = set(remainder)

        def in_s1_role(index: int, matching: Mapping[int, int]) -> bool:
            other = matching.get(index)
            return other is not None and index < other < resident_hi

        s1_size = sum(
            1
            for index in remainder
            if (other := mate.get(index)) is not None and other in remainder_set and other < index
        )

        def exchange_weight(higher: int, lower: int) -> int:
            base = self._base(higher, lower)
            if not base:
                return 0
            return base + layout.exchange_addend(position_of[higher], s1_size)

        self._natural_roles(mate, remainder[:s1_size], remainder[s1_size:])
        graph.adopt(mate)
        graph.start_exchanges(remainder, s1_size)
        # With every S1 player in the S1 role there is no exchange and the index sum is the
        # least possible: the current matching is already optimal for the exchange weights.
        if not all(in_s1_role(index, mate) for index in remainder[:s1_size]):
            mate = graph.solve()
        exchanges = sum(1 for index in remainder[:s1_size] if not in_s1_role(index, mate))

        # Exchanges: the lowest S1 players go to S2 first (2025 Article 4.3).
        remaining = exchanges
        for position in range(s1_size - 1, -1, -1):
            if remaining <= 0:
                break
            player = remainder[position]
            later = remainder[position + 1 :]
            if in_s1_role(player, mate):
                for other in later:
                    weight = exchange_weight(player, other)
                    if weight:
                        graph.set(player, other, weight - 1)
                mate = graph.solve()
            exchanged = not in_s1_role(player, mate)
            remaining -= int(exchanged)
            for other in later:
                if exchanged:
                    graph.zero_base(player, other)
                graph.set(player, other, exchange_weight(player, other))
        # ... and the highest S2 players come to S1 first.
        remaining = exchanges
        for position in range(s1_size, len(remainder)):
            if remaining <= 1:
                break
            player = remainder[position]
            later = remainder[position + 1 :]
            already = in_s1_role(player, mate)
            if not already:
                for other in later:
                    weight = exchange_weight(player, other)
                    if weight:
                        graph.set(player, other, weight + 1)
                mate = graph.solve()
            if in_s1_role(player, mate):
                remaining -= 1
                for other in remainder[:position]:
                    graph.zero_base(other, player)
                    graph.set(other, player, 0)
                for other in following:
                    if other in graph.alive:
                        graph.zero_base(player, other)
                        graph.set(player, other, 0)
            if not already:
                for other in later:
                    graph.set(player, other, exchange_weight(player, other))
        # Fix the roles: only S1-role players paired with later non-S1-role players remain.
        graph.fix_roles({index: in_s1_role(index, mate) for index in remainder})
        # Each S1 player, in order, takes the highest opponent the criteria allow.
        if S1Assignment(self.graph, self._finalize).run(mate, remainder, in_s1_role):
            return mate
        for player in remainder:
            if player not in graph.alive or not in_s1_role(player, mate):
                continue
            best = next(
                (
                    other
                    for other in remainder
                    if other > player and other in graph.alive and self._base(player, other)
                ),
                None,
            )
            if mate.get(player) != best and not self._swap(mate, player, best):
                bonus = 0
                for other in reversed(remainder):
                    if other <= player or other not in graph.alive:
                        continue
                    base = self._base(player, other)
                    if base:
                        graph.set(player, other, base + bonus)
                    bonus += 1
                mate = graph.solve()
            self._finalize(player, mate[player])
        return mate
