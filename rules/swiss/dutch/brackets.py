"""Pairing the brackets of one round from the top down (C.04.3 Articles 3 and 4): the
moved-down players paired, their opponents, S1 and S2, exchanges and transpositions."""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence

from rules.swiss.dutch.absolute import blocked_pairs
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

    def _assign_s1(  # noqa: C901 (C.04.3's S1/S2 assignment, one algorithm)
        self,
        mate: dict[int, int],
        remainder: Sequence[int],
        in_s1_role: Callable[[int, Mapping[int, int]], bool],
    ) -> bool:
        """Let each S1-role player, in order, take the highest S2-role opponent an optimal
        matching allows, without re-solving.

        The remainder's pairs form an assignment problem of their own when the remainder
        pairs within itself, or, when it leaves S2-role players over, in the current bracket
        alone (dummy S1 players take the leftover at no weight). ``mate`` gives an optimal
        assignment, from which dual prices follow (longest paths: no positive cycle when it
        is optimal). The optimal assignments are exactly the perfect matchings of the tight
        pairs, so a player can take an opponent when that pair is tight and an alternating
        path of tight pairs re-pairs the others; with a leftover, the new leftover must also
        let the next bracket do its best (as for the bracket-alone solve). Returns False when
        this does not apply; players already given their opponents stay paired.
        """
        graph = self.graph
        alive = [index for index in remainder if index in graph.alive]
        s1 = [index for index in alive if in_s1_role(index, mate)]
        s1_set = frozenset(s1)
        s2 = [index for index in alive if index not in s1_set]
        spare = len(s2) - len(s1)
        assign: dict[int, int] = {}
        for first in s1:
            assign[first] = mate[first]
            assign[mate[first]] = first
        left = [index for index in s2 if index not in assign]
        if spare < 0 or len(left) != spare:
            return False
        # In the last bracket, with nobody else unpaired, the player left over takes the
        # PAB: the whole field's weights (C2, C5, C9) price him, so the assignment problem
        # is the whole round's.
        last = not graph.following and not graph.lower and len(graph.alive) == len(alive)
        if spare and graph.bracket is None and not last:
            return False
        edges = self._s1_rows(s1, s2)
        # A player left over for the next bracket (not the PAB) is paired below, with his
        # own part of the completion field: a player who may not take the PAB (C2) brings
        # it to whichever pair he is in. The dummy gives it him, or the whole-field weights
        # above would keep him in the bracket at the cost of a higher S1 player's opponent.
        part = 1 << graph.top_shift
        candidates = graph.weights.bye.candidates
        kept = {second: 0 if last or second in candidates else part for second in s2}
        for number, second in enumerate(left):
            dummy = -1 - number
            edges[dummy] = dict(kept)
            assign[dummy] = second
            assign[second] = dummy
        # Prices of S1 players: u[a] >= u[b's mate] + w(a, b) - w(b's mate, b) for every pair.
        # The arcs from a holder are the pairs of the S2 player he holds: kept as each S2
        # player's column, the groups of S1 players who share a row with him in it.
        price = dict.fromkeys(edges, 0)
        column = self._columns(edges)
        queue = deque(edges)
        queued = set(edges)
        steps = 0
        while queue:
            steps += 1
            if steps > len(edges) * len(edges) + len(edges):
                return False  # a positive cycle: not optimal for the bracket alone
            current = queue.popleft()
            queued.discard(current)
            held = assign[current]
            base = price[current] - edges[current][held]
            for group in column.get(held, ()):
                for target in group:
                    if target == current:
                        continue
                    value = base + edges[target][held]
                    if value > price[target]:
                        price[target] = value
                        if target not in queued:
                            queue.append(target)
                            queued.add(target)
        del column  # before the tight pairs are listed: the peak of memory is here

        # A pair is tight when its weight is the S1 price plus the S2 price; an S2 player's
        # price follows from his tight pair in the assignment, and stays the same when the
        # assignment changes along tight pairs.
        s2_price = {
            second: edges[holder][second] - price[holder]
            for second in s2
            if (holder := assign[second]) in edges
        }
        # A player's tight pairs follow from his row and price: shared as the rows are.
        tight_pairs: dict[int, list[int]] = {}
        listed: dict[tuple[int, int], list[int]] = {}
        for first, row in edges.items():
            same = (id(row), price[first])
            seconds = listed.get(same)
            if seconds is None:
                seconds = listed[same] = [
                    second for second, w in row.items() if price[first] + s2_price[second] == w
                ]
            tight_pairs[first] = seconds
        del listed

        # Who is tight with each S2-role player (dummies included), by groups of players who
        # share their tight pairs.
        tight_with = self._columns(tight_pairs)
        # The players the bracket leaves over, in its order: those outside the assignment
        # (moved-down players not paired) and those a dummy holds.
        order = [index for index in graph.bracket or () if index in graph.alive]
        place = {index: number for number, index in enumerate(order)}
        outside = [index for index in order if index not in assign]
        dummies = [key for key in assign if key < 0]
        for player in s1:
            opponent = assign[player]
            reaching: set[int] | None = None
            failed = False
            # His tight pairs, in S2's order (his row's): the only opponents he can take.
            for candidate in tight_pairs[player]:
                if candidate not in graph.alive:
                    continue
                if candidate == opponent:
                    break
                if failed:
                    # After a search in vain, rule out at once the candidates from whose
                    # holders no alternating path of tight pairs frees the opponent.
                    if reaching is None:
                        reaching = self._reaching(assign, player, tight_with)
                    if assign[candidate] not in reaching:
                        continue
                before = dict(assign) if spare and not last else assign
                if not self._tight_path(assign, player, candidate, tight_pairs):
                    failed = True
                    continue
                if spare and not last:
                    holders = [assign[dummy] for dummy in dummies]
                    leftover = sorted([*outside, *holders], key=place.__getitem__)
                    if not graph.next_bracket_takes(leftover):
                        # Not shown to be optimal for the whole round: re-solve from here.
                        assign.clear()
                        assign.update(before)
                        self._sync(mate, assign)
                        return False
                opponent = candidate
                break
            mate[player], mate[opponent] = opponent, player
            self._finalize(player, opponent)
        self._sync(mate, assign)
        return True

    def _s1_rows(self, s1: Sequence[int], s2: Sequence[int]) -> dict[int, dict[int, int]]:
        """Each S1-role player's nonzero whole-field weights with the later S2-role players.

        Players of one kind mostly have the same row (in a 3,800-player bracket of round 2,
        3 distinct rows for 1,900 S1 players): equal rows are one shared, read-only dict. A
        row depends on the player only through his kind, his role, addend, C3 colour, PAB
        candidacy and restriction, and his own exceptions (pairs blocked, set or zeroed); a
        player without exceptions among S2 takes the row of the first player alike, without
        computing it, and a player whose only exceptions are pairs blocked (opponents met
        before, forbidden pairs) takes a copy without them (the S2 list must be ascending, so the
        later players are its tail)."""
        graph = self.graph
        weights = graph.weights
        s2_set = frozenset(s2)
        ascending = all(a < b for a, b in itertools.pairwise(s2))
        special: set[int] = set()
        for u, v in graph.zeroed:
            special.add(u)
            special.add(v)
        for u, row in graph.overrides.items():
            if any(v in s2_set for v in row):
                special.add(u)
        edges: dict[int, dict[int, int]] = {}
        shared: dict[tuple[int, tuple[int, ...]], dict[int, int]] = {}
        alike: dict[tuple[object, ...], dict[int, int]] = {}
        for first in s1:
            start = bisect.bisect_right(s2, first) if ascending else 0
            signature: tuple[object, ...] | None = None
            blocked: frozenset[int] = frozenset()
            if ascending and first in graph.members and first not in special:
                signature = (
                    len(s2) - start,
                    weights.kind[first],
                    graph.roles.get(first),
                    graph.addends.get(first),
                    weights.c3[first],
                    first in weights.bye.candidates,
                    first in graph.restricted,
                )
                blocked = s2_set.intersection(weights.blocked[first])
                same = alike.get(signature)
                if same is not None:
                    if blocked:  # the row of his kind without the pairs he may not make
                        same = dict(same)
                        for second in blocked:
                            same.pop(second, None)
                    edges[first] = same
                    continue
            later = s2[start:] if ascending else [second for second in s2 if second > first]
            full = graph.full_row(first, later)
            key = (len(later), tuple(full))  # ``later`` is fixed by its length
            found = shared.get(key)
            if found is None:
                found = {second: w for second, w in zip(later, full, strict=True) if w}
                shared[key] = found
            edges[first] = found
            if signature is not None and not blocked:
                alike[signature] = found
        return edges

    @staticmethod
    def _columns(rows: Mapping[int, Iterable[int]]) -> dict[int, list[list[int]]]:
        """For each column, the groups of row keys whose (shared) row holds it: the keys of
        one row object form one group, in the rows' order."""
        groups: dict[int, list[int]] = {}
        objects: dict[int, Iterable[int]] = {}
        for key, row in rows.items():
            groups.setdefault(id(row), []).append(key)
            objects[id(row)] = row
        columns: dict[int, list[list[int]]] = {}
        for identity, keys in groups.items():
            for column in objects[identity]:
                columns.setdefault(column, []).append(keys)
        return columns

    def _reaching(
        self,
        assign: Mapping[int, int],
        player: int,
        tight_with: Mapping[int, Sequence[Sequence[int]]],
    ) -> set[int]:
        """The S1-role players (dummies included) from whom an alternating path of tight
        pairs ends at ``player``'s opponent, avoiding ``player``: those :meth:`_tight_path`
        can start from (it also avoids the candidate, so it may still find none)."""
        alive = self.graph.alive
        reaching: set[int] = set()
        waiting = [assign[player]]
        # A group met again (players sharing their tight pairs) adds nobody new.
        seen: set[int] = set()
        while waiting:
            second = waiting.pop()
            for group in tight_with.get(second, ()):
                if id(group) in seen:
                    continue
                seen.add(id(group))
                for first in group:
                    if first == player or first in reaching:
                        continue
                    reaching.add(first)
                    held = assign[first]
                    if held in alive:
                        waiting.append(held)
        return reaching

    @staticmethod
    def _sync(mate: dict[int, int], assign: Mapping[int, int]) -> None:
        """Copy the assignment's pairs into ``mate``; players left over get no mate."""
        for first, second in assign.items():
            if first < 0:
                continue
            if second < 0:
                mate.pop(first, None)
            else:
                mate[first] = second

    def _tight_path(
        self,
        mate: dict[int, int],  # the assignment, dummies included
        player: int,
        candidate: int,
        tight_pairs: Mapping[int, Sequence[int]],
    ) -> bool:
        """Re-pair by tight pairs so that ``player`` meets ``candidate``; False if impossible."""
        graph = self.graph
        freed = mate[player]
        start = mate[candidate]
        parent: dict[int, int] = {start: start}
        queue = [start]
        # Players of one kind share their list of tight pairs: a list already gone through
        # holds neither ``freed`` (the path would have ended there) nor a holder not yet
        # reached, so going through it again would change nothing.
        seen: set[int] = set()
        for first in queue:
            pairs = tight_pairs[first]
            if id(pairs) in seen:
                continue
            seen.add(id(pairs))
            for second in pairs:
                if second == candidate or second not in graph.alive:
                    continue
                if second == freed:
                    # Flip the path: first - freed, then back to start.
                    while True:
                        previous = mate[first] if first != start else candidate
                        mate[first] = second
                        mate[second] = first
                        if first == start:
                            break
                        second = previous
                        first = parent[previous]
                    mate[player] = candidate
                    mate[candidate] = player
                    return True
                holder = mate[second]
                if holder in parent or holder == player:
                    continue
                parent[holder] = first
                parent[second] = first
                queue.append(holder)
        return False

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
        if self._assign_s1(mate, remainder, in_s1_role):
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
