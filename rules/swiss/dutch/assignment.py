"""The S1/S2 assignment of a remainder (C.04.3 Article 4): each S1-role player, in order,
takes the highest S2-role opponent an optimal matching allows, found by dual prices and
alternating paths of tight pairs instead of re-solving the matching for each player."""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from rules.swiss.dutch.graph import PairingGraph

_Row = TypeVar("_Row", bound=Iterable[int])
# A group of S1-role players: its number, the row of its family (or its tight pairs) and
# its players.
_Group = tuple[int, _Row, list[int]]


class S1Assignment:
    """The S1-role players' opponents of one remainder, from an optimal matching of it."""

    def __init__(self, graph: PairingGraph, finalize: Callable[[int, int], None]) -> None:
        self.graph = graph
        self.finalize = finalize

    def run(  # noqa: C901 (C.04.3's S1/S2 assignment, one algorithm)
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
        edges, family = self._s1_rows(s1, s2)
        # A player left over for the next bracket (not the PAB) is paired below, with his
        # own part of the completion field: a player who may not take the PAB (C2) brings
        # it to whichever pair he is in. The dummy gives it him, or the whole-field weights
        # above would keep him in the bracket at the cost of a higher S1 player's opponent.
        part = 1 << graph.top_shift
        candidates = graph.weights.bye.candidates
        kept = {second: 0 if last or second in candidates else part for second in s2}
        for number, second in enumerate(left):
            dummy = -1 - number
            edges[dummy] = family[dummy] = dict(kept)
            assign[dummy] = second
            assign[second] = dummy
        # Prices of S1 players: u[a] >= u[b's mate] + w(a, b) - w(b's mate, b) for every pair,
        # the least such prices (longest paths: the same whatever the order of the steps).
        # The arcs from a holder are the pairs of the S2 player he holds: kept as each S2
        # player's column, the families of S1 players whose family row holds him. A family's
        # floor is at most the least price of its players: a step that raises none of them
        # above it is skipped without going through them.
        price = dict.fromkeys(edges, 0)
        families = self._families(family)
        column = self._columns(families)
        floor = [0] * len(families)
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
            for number, row, members in column.get(held, ()):
                value = base + row[held]
                if value <= floor[number]:
                    continue
                least = value
                for target in members:
                    had = price[target]
                    if value > had and held in edges[target]:
                        price[target] = value
                        if target not in queued:
                            queue.append(target)
                            queued.add(target)
                    elif had < least:
                        least = had
                floor[number] = least
        del column  # before the tight pairs are listed: the peak of memory is here

        # A pair is tight when its weight is the S1 price plus the S2 price; an S2 player's
        # price follows from his tight pair in the assignment, and stays the same when the
        # assignment changes along tight pairs.
        s2_price = {
            second: edges[holder][second] - price[holder]
            for second in s2
            if (holder := assign[second]) in edges
        }
        # A player's tight pairs follow from his row and price: those of his family row at
        # his price that his row holds, shared as the rows are. Who is tight with each
        # S2-role player (dummies included): the groups of one family and price.
        tight_pairs: dict[int, list[int]] = {}
        listed: dict[tuple[int, int], list[int]] = {}
        grouped: dict[tuple[int, int], list[int]] = {}
        for first, row in edges.items():
            own = price[first]
            home = family[first]
            whole = listed.get((id(home), own))
            if whole is None:
                whole = listed[(id(home), own)] = [
                    second for second, w in home.items() if own + s2_price[second] == w
                ]
            seconds = listed.get((id(row), own))
            if seconds is None:
                seconds = listed[(id(row), own)] = [second for second in whole if second in row]
            tight_pairs[first] = seconds
            grouped.setdefault((id(home), own), []).append(first)
        tight_with = self._columns(
            [(number, listed[key], keys) for number, (key, keys) in enumerate(grouped.items())]
        )
        del listed, grouped

        # The players the bracket leaves over, in its order: those outside the assignment
        # (moved-down players not paired) and those a dummy holds.
        order = [index for index in graph.bracket or () if index in graph.alive]
        place = {index: number for number, index in enumerate(order)}
        outside = [index for index in order if index not in assign]
        dummies = [key for key in assign if key < 0]
        for player in s1:
            opponent = assign[player]
            reaching: set[int] | None = None
            # His tight pairs, in S2's order (his row's): the only opponents he can take.
            for candidate in tight_pairs[player]:
                if candidate not in graph.alive:
                    continue
                if candidate == opponent:
                    break
                holder = assign[candidate]
                # When the candidate's holder may take the opponent, that pair is the path
                # (the search would find it first); else rule out at once the candidates
                # from whose holders no alternating path of tight pairs frees the opponent.
                direct = edges[holder].get(opponent) == price[holder] + s2_price[opponent]
                if not direct:
                    if reaching is None:
                        reaching = self._reaching(assign, player, tight_with, edges)
                    if holder not in reaching:
                        continue
                before = dict(assign) if spare and not last else assign
                if direct:
                    assign[holder], assign[opponent] = opponent, holder
                    assign[player], assign[candidate] = candidate, player
                elif not self._tight_path(assign, player, candidate, tight_pairs):
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
            self.finalize(player, opponent)
        self._sync(mate, assign)
        return True

    def _s1_rows(  # noqa: C901 (the rows and their families, one pass)
        self, s1: Sequence[int], s2: Sequence[int]
    ) -> tuple[dict[int, dict[int, int]], dict[int, dict[int, int]]]:
        """Each S1-role player's nonzero whole-field weights with the later S2-role players.

        Players of one kind mostly have the same row (in a 3,800-player bracket of round 2,
        3 distinct rows for 1,900 S1 players): equal rows are one shared, read-only dict. A
        row depends on the player only through his kind, his role, addend, C3 colour, PAB
        candidacy and restriction, and his own exceptions (pairs blocked, set or zeroed); a
        player without exceptions among S2 takes the row of the first player alike, without
        computing it, and a player whose only exceptions are pairs blocked (opponents met
        before, forbidden pairs) takes a copy without them (the S2 list must be ascending, so the
        later players are its tail).

        Also each player's *family* row: the row of his kind without exceptions, which holds
        his own row (the same weights, but for the pairs he may not make). Players alike
        share it even when none of them is without exceptions (it is then the union of
        their rows); a player with other exceptions is a family of his own."""
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
        family: dict[int, dict[int, int]] = {}
        # Players computed before the first of their kind without exceptions, by kind.
        waiting: dict[tuple[object, ...], tuple[int, list[int]]] = {}
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
                    family[first] = same
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
            family[first] = found
            if signature is not None:
                if not blocked:
                    alike[signature] = found
                else:
                    waiting.setdefault(signature, (start, []))[1].append(first)
        for signature, (start, firsts) in waiting.items():
            same = alike.get(signature)
            if same is None:
                # Nobody of the kind without exceptions: the union of their rows, in S2's
                # order (the rows are tails of it).
                merged: dict[int, int] = {}
                for first in firsts:
                    merged.update(edges[first])
                same = {second: merged[second] for second in s2[start:] if second in merged}
            for first in firsts:
                family[first] = same
        return edges, family

    @staticmethod
    def _families(
        family: Mapping[int, dict[int, int]],
    ) -> list[tuple[int, dict[int, int], list[int]]]:
        """The families: number, family row and players (dummies included), in the rows'
        order."""
        members: dict[int, list[int]] = {}
        rows: dict[int, dict[int, int]] = {}
        for key, row in family.items():
            members.setdefault(id(row), []).append(key)
            rows[id(row)] = row
        return [
            (number, rows[identity], keys)
            for number, (identity, keys) in enumerate(members.items())
        ]

    @staticmethod
    def _columns(groups: Sequence[_Group[_Row]]) -> dict[int, list[_Group[_Row]]]:
        """For each column, the groups whose row holds it, in the groups' order."""
        columns: dict[int, list[_Group[_Row]]] = {}
        for group in groups:
            for second in group[1]:
                columns.setdefault(second, []).append(group)
        return columns

    def _reaching(
        self,
        assign: Mapping[int, int],
        player: int,
        tight_with: Mapping[int, Sequence[tuple[int, object, list[int]]]],
        edges: Mapping[int, Mapping[int, int]],
    ) -> set[int]:
        """The S1-role players (dummies included) from whom an alternating path of tight
        pairs ends at ``player``'s opponent, avoiding ``player``: those :meth:`_tight_path`
        can start from (it also avoids the candidate, so it may still find none)."""
        alive = self.graph.alive
        reaching: set[int] = set()
        waiting = [assign[player]]
        # A group met again (players of one family and price) adds only those of its
        # players not reached yet, whose own exceptions kept them out before.
        pending: dict[int, list[int]] = {}
        while waiting:
            second = waiting.pop()
            for number, _, members in tight_with.get(second, ()):
                rest = pending.get(number, members)
                if not rest:
                    continue
                left: list[int] = []
                for first in rest:
                    if first == player or first in reaching:
                        continue
                    if second not in edges[first]:
                        left.append(first)
                        continue
                    reaching.add(first)
                    held = assign[first]
                    if held in alive:
                        waiting.append(held)
                pending[number] = left
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
