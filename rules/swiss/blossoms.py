"""The blossoms of :class:`rules.swiss.matching.WeightedMatching`: forming one from an odd
cycle of tight edges, expanding one, and flipping an augmenting path through them.

A blossom is kept as its children in cycle order (``_childs``), the edges that link them
(``_links``), its base, its dual (``_z``) and its leaves; a vertex is a trivial blossom and
nontrivial ones have negative ids. :class:`Blossoms` holds only these operations and the
duals' bookkeeping around blossoms (dissolving those that hold a vertex, the roots, the duals
blossoms share); the state and the stages that call them are
:class:`~rules.swiss.matching.WeightedMatching`'s.
"""

from __future__ import annotations

from collections.abc import Callable

S_LABEL = 1
T_LABEL = 2
"""A blossom's label in a stage's alternating forest: an S-blossom (even distance from a
root) or a T-blossom (odd)."""
_S, _T = S_LABEL, T_LABEL


class Blossoms:
    """The blossom operations of the matching; the state lives in the subclass's slots."""

    __slots__ = ("_next_id",)  # (the id of the next blossom formed: assigned here)

    _base: dict[int, int]
    _childs: dict[int, list[int]]
    _label: dict[int, int]
    _labelend: dict[int, tuple[int, int] | None]
    _leaves: dict[int, list[int]]
    _links: dict[int, list[tuple[int, int]]]
    _mate: dict[int, int]
    _next_id: int
    _parent: dict[int, int]
    _queue: list[int]
    _svertices: list[int]
    _tblossoms: set[int]
    _top: dict[int, int]
    _w: dict[int, dict[int, int]]
    _y: dict[int, int]
    _z: dict[int, int]

    def _assign(self, blossom: int, lab: int, edge: tuple[int, int] | None) -> None:
        """Label ``blossom`` (S or T) in the stage's alternating forest (the subclass's)."""
        raise NotImplementedError

    def _leaves_of(self, blossom: int) -> list[int]:
        return [blossom] if blossom >= 0 else self._leaves[blossom]

    def _base_of(self, blossom: int) -> int:
        return blossom if blossom >= 0 else self._base[blossom]

    def _common_base(self, u: int, v: int) -> int | None:
        """The base of the blossom a tight edge between two S-vertices closes, None when
        they are in different trees (an augmenting path)."""
        top = self._top
        labelend = self._labelend
        seen: set[int] = set()
        sides: list[int | None] = [top[u], top[v]]
        turn = 0
        while sides[0] is not None or sides[1] is not None:
            blossom = sides[turn]
            if blossom is not None:
                if blossom in seen:
                    return self._base_of(blossom)
                seen.add(blossom)
                edge = labelend[blossom]
                if edge is None:
                    sides[turn] = None
                else:
                    parent_edge = labelend[top[edge[0]]]
                    assert parent_edge is not None
                    sides[turn] = top[parent_edge[0]]
            turn = 1 - turn
        return None

    def _add_blossom(self, base: int, u: int, v: int) -> None:
        """Make a new S-blossom of the cycle closed by the tight edge (u, v)."""
        top = self._top
        label = self._label
        labelend = self._labelend
        start = top[base]
        childs = [start]
        links: list[tuple[int, int]] = []
        path: list[int] = []
        blossom = top[u]
        while blossom != start:
            path.append(blossom)
            edge = labelend[blossom]
            assert edge is not None
            blossom = top[edge[0]]
        for child in reversed(path):
            childs.append(child)
            edge = labelend[child]
            assert edge is not None
            links.append(edge)
        links.append((u, v))
        blossom = top[v]
        while blossom != start:
            childs.append(blossom)
            edge = labelend[blossom]
            assert edge is not None
            links.append((edge[1], edge[0]))
            blossom = top[edge[0]]
        new = self._next_id
        self._next_id -= 1
        leaves: list[int] = []
        for child in childs:
            self._parent[child] = new
            leaves.extend(self._leaves_of(child))
        self._childs[new] = childs
        self._links[new] = links
        self._base[new] = base
        self._z[new] = 0
        self._leaves[new] = leaves
        for leaf in leaves:
            top[leaf] = new
        label[new] = _S
        labelend[new] = labelend[start]
        # The T-children's vertices are S-vertices now: scan them.
        for child in childs:
            if label.pop(child) == _T:
                self._tblossoms.discard(child)
                child_leaves = self._leaves_of(child)
                self._svertices.extend(child_leaves)
                self._queue.extend(child_leaves)
            del labelend[child]

    def _expand(self, blossom: int, *, end_of_stage: bool) -> None:
        """Turn a top-level blossom's children into top-level blossoms; a T-blossom's
        children on the even path from its entry to its base keep the tree going."""
        label = self._label
        entry = -1
        if not end_of_stage:
            edge = self._labelend[blossom]
            assert edge is not None
            child = edge[1]
            while self._parent[child] != blossom:
                child = self._parent[child]
            entry = self._childs[blossom].index(child)
        if end_of_stage:
            # Sub-blossoms without a dual go too; they wait on a list, not on the call stack.
            waiting = [blossom]
            while waiting:
                current = waiting.pop()
                for child in self._dissolve(current):
                    if child < 0 and not self._z[child]:
                        waiting.append(child)
                label.pop(current, None)
                self._labelend.pop(current, None)
            return
        childs = self._childs[blossom]
        links = self._links[blossom]
        self._dissolve(blossom)
        outer = self._labelend.pop(blossom)
        del label[blossom]
        self._tblossoms.discard(blossom)
        count = len(childs)
        step = 1 if entry % 2 else -1
        position = entry
        edge_in = outer
        while position % count:
            assert edge_in is not None
            self._assign(childs[position], _T, edge_in)
            if step == 1:
                edge_in = links[position + 1]
            else:
                first, second = links[position - 2]
                edge_in = (second, first)
            position += 2 * step
        first_child = childs[0]
        label[first_child] = _T
        self._labelend[first_child] = edge_in
        if first_child < 0:
            self._tblossoms.add(first_child)

    def _dissolve(self, blossom: int) -> list[int]:
        """Remove a top-level blossom: its children become top-level; returns them."""
        top = self._top
        childs = self._childs.pop(blossom)
        del self._links[blossom]
        del self._z[blossom]
        del self._base[blossom]
        del self._leaves[blossom]
        for child in childs:
            del self._parent[child]
            for leaf in self._leaves_of(child):
                top[leaf] = child
        return childs

    def shared_duals(self) -> Callable[[int, int], int]:
        """A function of two vertices: the sum of the duals of the blossoms holding both
        (doubled weights), for the current blossoms. A pair ``(u, v)`` is covered when
        ``dual(u) + dual(v) + shared(u, v)`` is at least twice its weight.

        Made for many pairs: each vertex's blossoms are listed once, outermost first, with
        running sums of their duals (nested blossoms share their lists), and two vertices'
        common blossoms are the common start of their lists, found by bisection.
        """
        parent = self._parent
        z = self._z
        chains: dict[int, tuple[list[int], list[int]]] = {}
        empty: tuple[list[int], list[int]] = ([], [0])

        def chain(blossom: int) -> tuple[list[int], list[int]]:
            """The blossoms from the outermost to ``blossom``, and the running dual sums."""
            known = chains.get(blossom)
            if known is not None:
                return known
            path = [blossom]
            while (above := parent.get(path[-1])) is not None and above not in chains:
                path.append(above)
            outer, sums = chains[above] if above is not None else empty
            for inner in reversed(path):
                outer = [*outer, inner]
                sums = [*sums, sums[-1] + z[inner]]
                chains[inner] = (outer, sums)
            return chains[blossom]

        known = chains.get

        def shared(u: int, v: int) -> int:
            above_u = parent.get(u)
            above_v = parent.get(v)
            if above_u is None or above_v is None:
                return 0
            outer_u, sums = known(above_u) or chain(above_u)
            if above_v == above_u:
                return sums[-1]
            outer_v = (known(above_v) or chain(above_v))[0]
            low, high = 0, min(len(outer_u), len(outer_v))
            while low < high:  # the common start of the two lists: its length
                middle = (low + high + 1) // 2
                if outer_u[middle - 1] == outer_v[middle - 1]:
                    low = middle
                else:
                    high = middle - 1
            return sums[low]

        return shared

    def _make_trivial(self, vertex: int) -> None:
        """Dissolve every blossom holding the vertex, keeping the duals feasible."""
        top = self._top
        y = self._y
        mate = self._mate
        while (blossom := top[vertex]) != vertex:
            half = self._z.pop(blossom) // 2
            leaves = self._leaves.pop(blossom)
            if half:
                for leaf in leaves:
                    y[leaf] += half
            base = self._base.pop(blossom)
            del self._links[blossom]
            for child in self._childs.pop(blossom):
                del self._parent[child]
                for leaf in self._leaves_of(child):
                    top[leaf] = child
            # The edge from the base out of the blossom gained slack: no longer tight.
            if half and base in mate:
                other = mate.pop(base)
                del mate[other]

    def _roots(self) -> list[int]:
        """Top-level blossoms whose base is free with a positive dual."""
        top = self._top
        mate = self._mate
        y = self._y
        roots = []
        for vertex in self._w:
            if vertex in mate or not y[vertex]:
                continue
            blossom = top[vertex]
            if self._base_of(blossom) == vertex:
                roots.append(blossom)
        return roots

    def _even_roots(self) -> None:
        """Give every root's vertices even duals (blossoms have one parity throughout)."""
        for root in self._roots():
            if self._y[self._base_of(root)] % 2:
                self._raise(root)

    def _raise(self, blossom: int) -> None:
        """Raise the duals of a root blossom's vertices by one, keeping every slack >= 0 and
        every blossom edge tight."""
        while blossom < 0 and self._z[blossom] < 2:
            # A zero blossom dual: dissolving costs nothing and leaves the base's child free.
            base = self._base[blossom]
            self._make_trivial_top(blossom)
            blossom = self._top[base]
        if blossom < 0:
            self._z[blossom] -= 2
        for leaf in self._leaves_of(blossom):
            self._y[leaf] += 1

    def _make_trivial_top(self, blossom: int) -> None:
        """Dissolve a top-level blossom with a zero dual into its children."""
        self._dissolve(blossom)

    # -- one stage ------------------------------------------------------------

    # -- changing the matching ------------------------------------------------

    def _augment(self, u: int, v: int) -> None:
        """Flip the augmenting path through the tight edge (u, v)."""
        self._augment_path(u, v)
        self._augment_path(v, u)

    def _augment_path(self, vertex: int, partner: int | None) -> None:
        """Match ``vertex`` to ``partner`` (or free it, for None) and flip the tree path
        from its blossom up to the root, which gets matched."""
        top = self._top
        mate = self._mate
        labelend = self._labelend
        while True:
            blossom = top[vertex]
            if blossom < 0:
                self._rotate(blossom, vertex)
            if partner is None:
                mate.pop(vertex, None)
            else:
                mate[vertex] = partner
            edge = labelend.get(blossom)
            if edge is None:
                return
            parent_edge = labelend[top[edge[0]]]
            assert parent_edge is not None
            outer, inner = parent_edge
            parent = top[inner]
            if parent < 0:
                self._rotate(parent, inner)
            mate[inner] = outer
            vertex, partner = outer, inner

    def _rotate(self, blossom: int, vertex: int) -> None:
        """Re-match a blossom inside so that ``vertex`` becomes its base.

        The sub-blossoms to rotate in turn wait on a list, not on the call stack: blossoms
        nest as deep as the field is large. Each rotation sets only the mates of pairs inside
        its own blossom, so the order in which they are done does not matter.
        """
        parent = self._parent
        mate = self._mate
        waiting = [(blossom, vertex)]
        while waiting:
            blossom, vertex = waiting.pop()
            child = vertex
            while parent[child] != blossom:
                child = parent[child]
            if child < 0:
                waiting.append((child, vertex))
            childs = self._childs[blossom]
            links = self._links[blossom]
            position = childs.index(child)
            count = len(childs)
            if position:
                matched = (
                    range(position + 1, count, 2) if position % 2 else range(0, position - 1, 2)
                )
                for index in matched:
                    first, second = links[index]
                    first_child = childs[index]
                    second_child = childs[(index + 1) % count]
                    if first_child < 0:
                        waiting.append((first_child, first))
                    if second_child < 0:
                        waiting.append((second_child, second))
                    mate[first] = second
                    mate[second] = first
                self._childs[blossom] = childs[position:] + childs[:position]
                self._links[blossom] = links[position:] + links[:position]
            self._base[blossom] = vertex
