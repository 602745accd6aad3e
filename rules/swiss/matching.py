"""Maximum-weight matching in general graphs, re-solved cheaply after small changes.

The Dutch pairing engine (:mod:`rules.swiss.dutch`) solves many maximum-weight matching problems
that differ from the previous one in the weights around one or two players, or by a few
players removed or added. :class:`WeightedMatching` keeps the graph, the matching and the
dual solution between solves, so that a re-solve repairs what a change broke and grows only
the few alternating trees needed, instead of starting again.

Method
------
Edmonds' primal-dual blossom algorithm for maximum-weight (not necessarily maximum-cardinality)
matching, in the O(n^3) form of Gabow and Galil: one "stage" grows alternating trees from all
free vertices at once, changing the duals by the largest step that keeps them feasible, until
an augmenting path is found. Edge weights are positive integers of any size (Python ints), and
all duals are kept integral by working with doubled weights. The least-slack edge between two
S-blossoms is read from each S-vertex's heap of its edges to the S-vertices scanned before it
(all their slacks fall alike during a stage, so the order holds), so forming a blossom costs
only its size, not a merge of its children's edge lists.

With ``slack(u, v) = y[u] + y[v] - 2 * weight(u, v) + sum of z[B] over the blossoms B
holding both u and v``, the invariants between solves are the complementary slackness
conditions of the linear programme: every slack is non-negative, every matched edge and every
edge of a blossom's cycle has zero slack, ``y >= 0`` and ``z >= 0``. The matching is of maximum
weight when, in addition, every free vertex has ``y == 0``.

The textbook algorithm starts with equal duals on all vertices; a warm start cannot. Here a
free vertex with a positive dual is a *root*; one with a zero dual is already as it should be
and is never a root, but an alternating tree that reaches it has found an augmenting path. A
stage also stops the dual step when a vertex of a tree would get a negative dual: the tree's
path from its root to that vertex is flipped, which matches the root and frees the vertex
(with a zero dual). Each stage thus removes at least one root, and a change of weights only
has to restore the invariants locally: the blossoms around a changed vertex are dissolved (their
duals moved onto their vertices), the vertex gets the smallest feasible dual, and a matched
edge that is no longer tight is unmatched, making roots of its ends. For the dual steps to
stay integral all roots start a stage with duals of the same parity.

A stage scans every edge of the trees it grows, and on the dense graphs of a large score
bracket a repair (or a cold start, or one dual step) leaves hundreds of roots joined by paths
of tight edges. Before the stages, and again after each stage that changed the duals, one
pass of alternating searches over tight edges pairs those roots without changing any dual
(``_match_tight``), so the stages are left with the few roots that need the duals to move.
A stage does not end at its first augmentation: only the trees the augmentation went through
are taken apart and the others keep growing, unless those trees held more than a quarter of
the S-vertices (then a fresh stage costs no more). When more than half the vertices changed
since the last solve (a bracket's exchange weights), the solver starts cold instead of
repairing: the repair would leave nearly every vertex a root.

Two changes keep a warm start where marking the vertices changed would force a cold one.
When the caller knows that each edge's weight will rise by at most half of what it adds to
its two ends' duals (:meth:`raise_duals`: a bracket's exchange weights, whose potentials are
exactly twice the rise of each S1-S2 pair), the duals are raised first and the matched edges
that rise by exactly that stay matched. And :meth:`adopt` takes the pairs of another
maximum-weight matching (the caller's, changed by swaps at no cost): with the duals of a
solve they are tight, so the solver can hold them instead of its own.

A cold start gives every vertex about the same dual, which suits weights that are alike; when
they are not (exchange weights rise and fall with the players' positions), the stages must
move each vertex's dual to a level of its own, one or two vertices per stage. The caller who
knows how the weights are made can give each vertex a ``potential`` (doubled weights; one
below 0 counts as 0): where a pair's weight is a sum of parts of its two ends (as the
completion field's part of a player who may not take the PAB), the two potentials are twice
their parts. The cold start then gives each vertex its potential plus half of the most any of
its pairs weighs beyond the two potentials, which covers every pair whatever the potentials
are, and makes tight every pair of the vertices' heaviest kind; only the rest is left to the
stages.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable

from rules.swiss.blossoms import S_LABEL as _S
from rules.swiss.blossoms import T_LABEL as _T
from rules.swiss.blossoms import Blossoms

__all__ = ["WeightedMatching", "max_weight_matching"]


# A stage goes on with its other trees after an augmentation when the trees taken apart
# hold at most this share of its S-vertices (1 / _KEEP_FOREST); else it ends.
_KEEP_FOREST = 4


class WeightedMatching(Blossoms):
    """A graph with positive integer edge weights and a maximum-weight matching of it.

    Vertices are non-negative ints. Change the graph with :meth:`add_vertex`,
    :meth:`set_weight` and :meth:`remove_vertex`; :meth:`solve` returns a maximum-weight
    matching of the current graph, starting from the previous solution.
    """

    __slots__ = (
        "_base",
        "_childs",
        "_dirty",
        "_fresh",
        "_label",
        "_labelend",
        "_leaves",
        "_links",
        "_mate",
        "_parent",
        "_queue",
        "_raised",
        "_scanned",
        "_serial",
        "_ss",
        "_stepped",
        "_svertices",
        "_tblossoms",
        "_top",
        "_vbest",
        "_vslack",
        "_w",
        "_y",
        "_z",
        "potential",
        "stages",
    )

    def __init__(self) -> None:
        self._w: dict[int, dict[int, int]] = {}
        self._y: dict[int, int] = {}
        self._mate: dict[int, int] = {}
        # Blossoms: a vertex is a trivial blossom; nontrivial ones have negative ids.
        self._top: dict[int, int] = {}
        self._parent: dict[int, int] = {}
        self._childs: dict[int, list[int]] = {}
        # _links[b][i] = (x, y): the edge from x in child i to y in child i + 1 (cyclically).
        self._links: dict[int, list[tuple[int, int]]] = {}
        self._base: dict[int, int] = {}
        self._z: dict[int, int] = {}
        self._leaves: dict[int, list[int]] = {}
        self._next_id = -1
        self._dirty: set[int] = set()
        # Vertices whose duals were raised (raise_duals) since the last solve.
        self._raised: set[int] = set()
        self._fresh = True
        self._stepped = False
        # How many stages the last solve took (for benchmarks and tests).
        self.stages = 0
        # Each vertex' potential for the cold start, at least 0 (see the module's notes).
        self.potential: Callable[[int], int] | None = None
        # State of one stage.
        self._label: dict[int, int] = {}
        self._labelend: dict[int, tuple[int, int] | None] = {}
        self._vbest: dict[int, int] = {}
        # The slack of each best edge in _vbest, where known since the duals last changed.
        self._vslack: dict[int, int] = {}
        # Each scanned S-vertex's edges to the S-vertices scanned before it, as a heap by
        # slack: all these slacks fall alike during a stage, so the order holds.
        self._ss: dict[int, list[tuple[int, int, int]]] = {}
        # When each S-vertex was scanned: a heap entry is stale once its other end has left
        # the forest (and maybe come back, scanned again).
        self._scanned: dict[int, int] = {}
        self._serial = 0
        self._queue: list[int] = []
        self._svertices: list[int] = []
        self._tblossoms: set[int] = set()

    # -- the graph ------------------------------------------------------------

    def add_vertex(self, vertex: int) -> None:
        """Add a vertex without edges.

        Raises:
            ValueError: the vertex is negative or already in the graph.
        """
        if vertex < 0 or vertex in self._w:
            raise ValueError(f"cannot add vertex {vertex}")
        self._w[vertex] = {}
        self._y[vertex] = 0
        self._top[vertex] = vertex
        self._dirty.add(vertex)

    def set_weight(self, u: int, v: int, weight: int) -> None:
        """Set the weight of the edge between two vertices; ``weight <= 0`` removes it.

        Raises:
            KeyError: a vertex is not in the graph.
            ValueError: ``u == v``.
        """
        if u == v:
            raise ValueError("no loops")
        row_u = self._w[u]
        row_v = self._w[v]
        if weight > 0:
            if row_u.get(v) == weight:
                return
            row_u[v] = weight
            row_v[u] = weight
        elif v in row_u:
            del row_u[v]
            del row_v[u]
        else:
            return
        # Repairing one end restores the invariants for the edge (a raised end is settled).
        raised = self._raised
        if v not in self._dirty and u not in raised and v not in raised:
            self._dirty.add(u)

    def raise_duals(self, raises: dict[int, int]) -> None:
        """Raise the vertices' duals (doubled weights) before changing the weights of their
        edges: when no edge's weight rises by more than half its two ends' raises, the
        matched edges whose weight rises by exactly that stay matched, where marking the
        vertices changed would make roots of nearly all of them.

        The blossoms holding a raised vertex are dissolved first; at the next solve each
        raised vertex keeps his dual if it still covers his edges (else the least that does),
        and leaves his mate when their edge is no longer tight.
        """
        y = self._y
        for vertex, extra in raises.items():
            if vertex in self._w:
                self._make_trivial(vertex)
                y[vertex] += extra
                self._raised.add(vertex)

    def weight(self, u: int, v: int) -> int:
        """The weight of the edge, 0 when there is none."""
        return self._w[u].get(v, 0)

    def dual(self, vertex: int) -> int:
        """The vertex' dual of the last solve, in doubled weights: when every pair ``(u, v)``
        of a larger graph has ``dual(u) + dual(v) >= 2 * weight(u, v)``, the matching is of
        maximum weight in that graph too (the blossom duals only add to this bound).

        Raises:
            KeyError: the vertex is not in the graph.
        """
        return self._y[vertex]

    def outer(self, vertex: int) -> tuple[int, int]:
        """The outermost blossom holding the vertex (the vertex itself when none; blossoms
        have negative ids) and that blossom's dual, in doubled weights.

        Raises:
            KeyError: the vertex is not in the graph.
        """
        top = self._top[vertex]
        return top, self._z.get(top, 0)

    def vertices(self) -> list[int]:
        """The vertices, in increasing order."""
        return sorted(self._w)

    def neighbours(self, vertex: int) -> list[int]:
        """The vertices joined to ``vertex`` by an edge.

        Raises:
            KeyError: the vertex is not in the graph.
        """
        return list(self._w[vertex])

    def __contains__(self, vertex: object) -> bool:
        return vertex in self._w

    def remove_vertex(self, vertex: int) -> None:
        """Remove a vertex and its edges; its mate, if any, becomes free.

        Raises:
            KeyError: the vertex is not in the graph.
        """
        row = self._w[vertex]
        self._make_trivial(vertex)
        mate = self._mate.pop(vertex, None)
        if mate is not None:
            del self._mate[mate]
        for other in row:
            del self._w[other][vertex]
        del self._w[vertex]
        del self._y[vertex]
        del self._top[vertex]
        self._dirty.discard(vertex)
        self._raised.discard(vertex)

    # -- solving --------------------------------------------------------------

    def solve(self) -> dict[int, int]:
        """A maximum-weight matching of the current graph: each matched vertex to its mate."""
        if self._fresh or 2 * len(self._dirty) > len(self._w):
            self._forget()
            self._cold_start()
        else:
            self._repair()
            self._settle_raised()
        self._raised.clear()
        self._match_tight()
        self._even_roots()
        self._stepped = False
        self.stages = 0
        while self._stage():
            self.stages += 1
            # A dual step makes many edges tight at once (after a cold start, between
            # nearly all the roots): pair along them in one pass, not one stage each.
            if self._stepped:
                self._stepped = False
                self._match_tight()
        return dict(self._mate)

    def _forget(self) -> None:
        """Drop the matching, the blossoms and the duals: when most vertices changed, a cold
        start pairs them in a few stages where a repair would leave nearly all of them roots,
        each costing a stage."""
        self._mate.clear()
        self._parent.clear()
        self._childs.clear()
        self._links.clear()
        self._base.clear()
        self._z.clear()
        self._leaves.clear()
        for vertex in self._w:
            self._top[vertex] = vertex

    def _cold_start(self) -> None:
        """Duals that cover every edge, and a greedy matching of tight edges."""
        self._fresh = False
        self._dirty.clear()
        w = self._w
        y = self._y
        mate = self._mate
        if self.potential is not None:
            potential = {vertex: max(self.potential(vertex), 0) for vertex in w}
            # Each pair's weight less its ends' potentials, split between the two ends.
            for vertex, row in w.items():
                own = potential[vertex]
                beyond = max(
                    (2 * weight - own - potential[other] for other, weight in row.items()),
                    default=0,
                )
                y[vertex] = own - (-beyond // 2) if beyond > 0 else own
        else:
            for vertex, row in w.items():
                y[vertex] = max(row.values(), default=0)
        # Each free vertex in turn lowers its dual until an edge is tight, and takes that
        # edge when its other end is free too.
        for vertex in sorted(w):
            if vertex in mate:
                continue
            need = 0
            partner = None
            for other, weight in w[vertex].items():
                value = 2 * weight - y[other]
                if value > need or (value == need and partner in mate):
                    need = value
                    partner = other
            y[vertex] = need
            if partner is not None and partner not in mate and need:
                mate[vertex] = partner
                mate[partner] = vertex

    def _repair(self) -> None:
        """Restore the invariants around the vertices whose edges changed."""
        w = self._w
        y = self._y
        mate = self._mate
        for vertex in sorted(self._dirty):
            self._make_trivial(vertex)
            need = 0
            for other, weight in w[vertex].items():
                value = 2 * weight - y[other]
                if value > need:
                    need = value
            partner = mate.get(vertex)
            if partner is not None:
                weight = w[vertex].get(partner, 0)
                tight = 2 * weight - y[partner]
                if weight and tight >= need:
                    need = tight
                else:
                    del mate[vertex]
                    del mate[partner]
            y[vertex] = need
        self._dirty.clear()

    def adopt(self, pairs: Iterable[tuple[int, int, int]]) -> None:
        """Take the pairs ``(u, v, weight)`` of another matching where they are tight edges
        between vertices outside blossoms (each with the duals of a solve, when that matching
        is of maximum weight too); their former mates become free. A pair's edge is added
        with its weight when the duals cover it.
        """
        w = self._w
        y = self._y
        mate = self._mate
        top = self._top
        for u, v, weight in pairs:
            if mate.get(u) == v or u not in w or v not in w or top[u] != u or top[v] != v:
                continue
            if y[u] + y[v] != 2 * weight or w[u].get(v, weight) != weight:
                continue
            w[u][v] = w[v][u] = weight
            for vertex in (u, v):
                other = mate.pop(vertex, None)
                if other is not None:
                    del mate[other]
            mate[u] = v
            mate[v] = u

    def _settle_raised(self) -> None:
        """Restore the invariants around the raised vertices (trivial blossoms: their blossoms
        were dissolved when raised): each dual at least covers his edges, and a matched edge
        no longer tight is unmatched."""
        w = self._w
        y = self._y
        mate = self._mate
        for vertex in sorted(self._raised):
            if vertex not in w:
                continue
            row = w[vertex]
            need = max((2 * weight - y[other] for other, weight in row.items()), default=0)
            if max(need, 0) > y[vertex]:
                y[vertex] = max(need, 0)
            partner = mate.get(vertex)
            if partner is not None and y[vertex] + y[partner] != 2 * row.get(partner, 0):
                del mate[vertex]
                del mate[partner]

    def _match_tight(self) -> None:  # noqa: C901 (Edmonds' blossom algorithm, kept flat for speed)
        """Augment along paths of tight edges between roots and free vertices before any stage.

        After a change of many weights (a new bracket, exchange weights) the repair leaves
        many roots, and a stage scans every edge of the trees it grows to match just one or
        two of them. Here each root in turn grows a search of simple alternating paths of
        tight edges through vertices outside blossoms; a path that reaches a free vertex, or
        an outer vertex of an earlier search whose root is still free, is flipped. The
        matched edges stay tight and no dual changes, so the invariants hold. Vertices seen by
        one search are not searched again, so the whole pass costs about one stage; a path it
        misses (through a blossom, or across an earlier search) is left to the stages.
        """
        w = self._w
        y = self._y
        mate = self._mate
        top = self._top
        free = {vertex for vertex in w if vertex not in mate}
        seen: set[int] = set()
        # Each outer vertex of a search: its root, and the edge (outer, inner) it came by.
        root_of: dict[int, int] = {}
        parent: dict[int, tuple[int, int]] = {}
        for root in sorted(free):
            if root not in free or not y[root] or root in seen:
                continue
            seen.add(root)
            root_of[root] = root
            queue = [root]
            found: tuple[int, int] | None = None
            for outer in queue:
                y_outer = y[outer]
                for other, weight in w[outer].items():
                    if y_outer + y[other] != 2 * weight:
                        continue
                    far = root_of.get(other, other if other in free else None)
                    if far is not None:
                        if far != root and far in free:
                            found = (outer, other)
                            break
                        continue
                    if other in seen:
                        continue
                    partner = mate[other]
                    if top[other] != other or top[partner] != partner or partner in seen:
                        continue
                    seen.add(other)
                    seen.add(partner)
                    parent[partner] = (outer, other)
                    root_of[partner] = root
                    queue.append(partner)
                if found is not None:
                    break
            if found is None:
                continue
            near, far_end = found
            far = root_of.get(far_end, far_end)
            seen.add(far_end)
            for outer, last, end in ((near, far_end, root), (far_end, near, far)):
                while True:
                    mate[outer] = last
                    mate[last] = outer
                    if outer == end:
                        break
                    outer, last = parent[outer]
            free.discard(root)
            free.discard(far)

    def _stage(self) -> bool:
        """Grow alternating trees from every root until none is left; False when there is
        no root, so the matching is of maximum weight.

        After each augmentation only the trees it went through are taken apart
        (:meth:`_drop_done_trees`): the others, their labels, duals and least-slack edges stay
        valid, so the stage goes on growing them instead of starting again from every root
        (on a large bracket with hundreds of roots, each matched by its own dual step, a
        fresh start per augmentation cost a scan of nearly every edge)."""
        roots = self._roots()
        if not roots:
            return False
        self._label = {}
        self._labelend = {}
        self._vbest = {}
        self._vslack = {}
        self._ss = {}
        self._scanned = {}
        self._queue = []
        self._svertices = []
        self._tblossoms = set()
        for root in roots:
            self._assign(root, _S, None)
        while True:
            while not self._scan() and not self._step():
                pass
            if not self._drop_done_trees():
                return True

    def _drop_done_trees(self) -> bool:  # noqa: C901 (Edmonds' blossom algorithm, kept flat for speed)
        """After an augmentation, take apart the trees whose root is no longer one (matched,
        or freed with a zero dual); False when no tree is left.

        Their blossoms lose their labels (those of S-blossoms without a dual are dissolved,
        as at the end of a stage: Gabow's bound on their number), and their vertices' least
        slack edges to the remaining S-vertices are found again. Stale least-slack entries
        elsewhere are skipped where they are read (:meth:`_step`)."""
        label = self._label
        labelend = self._labelend
        top = self._top
        mate = self._mate
        y = self._y
        root_of: dict[int, int] = {}
        for blossom in label:
            path = []
            current = blossom
            while current not in root_of:
                edge = labelend[current]
                if edge is None:
                    root_of[current] = current
                    break
                path.append(current)
                current = top[edge[0]]
            root = root_of[current]
            for step in path:
                root_of[step] = root
        done = set()
        for root in set(root_of.values()):
            base = self._base_of(root)
            if base in mate or not y[base]:
                done.add(root)
        dropped = [blossom for blossom, root in root_of.items() if root in done]
        size = sum(len(self._leaves_of(blossom)) for blossom in dropped)
        # Taking apart a tree costs a look at each of its vertices' edges: when the trees
        # are large, a new stage that grows only the roots costs about as much.
        if _KEEP_FOREST * size > len(self._svertices):
            dropped = list(root_of)
        if len(dropped) == len(root_of):
            for blossom in dropped:
                if blossom < 0 and label[blossom] == _S and not self._z[blossom]:
                    self._expand(blossom, end_of_stage=True)
            return False
        loose: set[int] = set()
        for blossom in dropped:
            lab = label.pop(blossom)
            del labelend[blossom]
            if lab == _T:
                self._tblossoms.discard(blossom)
            loose.update(self._leaves_of(blossom))
            if blossom < 0 and lab == _S and not self._z[blossom]:
                self._expand(blossom, end_of_stage=True)
        self._svertices = [vertex for vertex in self._svertices if vertex not in loose]
        self._queue = [vertex for vertex in self._queue if vertex not in loose]
        ss = self._ss
        vbest = self._vbest
        vslack = self._vslack
        for vertex in loose:
            ss.pop(vertex, None)
            best_vertex, best = self._least_slack_s(vertex)
            if best_vertex is None:
                vbest.pop(vertex, None)
                vslack.pop(vertex, None)
            else:
                vbest[vertex] = best_vertex
                vslack[vertex] = best
        return True

    def _assign(self, blossom: int, lab: int, edge: tuple[int, int] | None) -> None:
        self._label[blossom] = lab
        self._labelend[blossom] = edge
        if lab == _S:
            leaves = self._leaves_of(blossom)
            self._svertices.extend(leaves)
            self._queue.extend(leaves)
            return
        if blossom < 0:
            self._tblossoms.add(blossom)
        base = self._base_of(blossom)
        mate = self._mate[base]
        self._assign(self._top[mate], _S, (base, mate))

    def _scan(self) -> bool:  # noqa: C901 (Edmonds' blossom algorithm, kept flat for speed)
        """Scan the edges of the S-vertices in the queue; True when the matching changed."""
        queue = self._queue
        top = self._top
        y = self._y
        w = self._w
        # Bound methods held in locals: this loop runs over millions of edges a solve.
        label_of = self._label.get
        vbest = self._vbest
        best_of = vbest.get
        vslack = self._vslack
        slack_of = vslack.get
        scanned = self._scanned
        scanned_at = scanned.get
        ss = self._ss
        heapify = heapq.heapify
        while queue:
            vertex = queue.pop()
            yv = y[vertex]
            own = top[vertex]
            to_s: list[tuple[int, int, int]] = []
            keep = to_s.append
            for other, weight in w[vertex].items():
                blossom = top[other]
                if blossom == own:
                    continue
                lab = label_of(blossom)
                if lab == _T and blossom >= 0:
                    # A T-vertex outside blossoms stays labelled until its tree is taken
                    # apart (which finds its least slack edge again) or the stage ends: its
                    # least slack edge is never read.
                    continue
                slack = yv + y[other] - 2 * weight
                if lab == _S:
                    if not slack:
                        if self._tight(vertex, other):
                            return True
                        own = top[vertex]
                        continue
                    keep((slack, other, scanned_at(other, -1)))
                    continue
                if not slack and lab is None:
                    if self._tight(vertex, other):
                        return True
                    continue
                # The slack of the best edge so far: kept since the duals last changed.
                best = slack_of(other)
                if best is None:
                    best_vertex = best_of(other)
                    if best_vertex is None:
                        vbest[other] = vertex
                        vslack[other] = slack
                        continue
                    best = y[best_vertex] + y[other] - 2 * w[best_vertex][other]
                    vslack[other] = best
                if slack < best:
                    vbest[other] = vertex
                    vslack[other] = slack
            heapify(to_s)
            ss[vertex] = to_s
            self._serial += 1
            scanned[vertex] = self._serial
        return False

    def _least_slack_s(self, vertex: int) -> tuple[int | None, int]:
        """The S-vertex joined to ``vertex`` by the edge of least slack (None if none), and
        that slack."""
        y = self._y
        top = self._top
        label = self._label
        yv = y[vertex]
        best_vertex = None
        best = 0
        label_of = label.get
        for other, weight in self._w[vertex].items():
            if label_of(top[other]) == _S:
                slack = yv + y[other] - 2 * weight
                if best_vertex is None or slack < best:
                    best_vertex, best = other, slack
        return best_vertex, best

    def _slack(self, u: int, v: int) -> int:
        return self._y[u] + self._y[v] - 2 * self._w[u][v]

    def _tight(self, vertex: int, other: int) -> bool:
        """Use a tight edge from an S-vertex; True when it augmented the matching."""
        own = self._top[vertex]
        blossom = self._top[other]
        if own == blossom:
            return False
        lab = self._label.get(blossom)
        if lab is None:
            if self._base_of(blossom) not in self._mate:
                self._augment(vertex, other)
                return True
            self._assign(blossom, _T, (vertex, other))
            return False
        if lab == _T:
            return False
        base = self._common_base(vertex, other)
        if base is None:
            self._augment(vertex, other)
            return True
        self._add_blossom(base, vertex, other)
        return False

    def _step(self) -> bool:  # noqa: C901 (Edmonds' blossom algorithm, kept flat for speed)
        """Change the duals by the largest feasible step and act on what became tight;
        True when the matching changed."""
        y = self._y
        top = self._top
        label = self._label
        z = self._z
        kind = 1
        target = min(self._svertices, key=y.__getitem__)
        delta = y[target]
        edge: tuple[int, int] = (0, 0)
        vbest = self._vbest
        vslack = self._vslack
        label_of = label.get
        for other, vertex in list(vbest.items()):
            if top[other] in label:
                continue
            if label_of(top[vertex]) != _S:
                # Its S-vertex went with a tree taken apart: find its least slack again.
                found, value = self._least_slack_s(other)
                if found is None:
                    del vbest[other]
                    vslack.pop(other, None)
                    continue
                vbest[other] = vertex = found
                vslack[other] = value
            else:
                known = vslack.get(other)
                value = self._slack(vertex, other) if known is None else known
            if value < delta:
                delta, kind, edge = value, 2, (vertex, other)
        ss = self._ss
        scanned_at = self._scanned.get
        heappop = heapq.heappop
        w = self._w
        for vertex in self._svertices:
            heap = ss[vertex]
            own = top[vertex]
            # An edge that a blossom took inside stays inside for the rest of the stage; one
            # whose other end left the forest since (its tree taken apart) is stale.
            while heap:
                _, other, serial = heap[0]
                blossom = top[other]
                if blossom != own and scanned_at(other) == serial and label_of(blossom) == _S:
                    value = y[vertex] + y[other] - 2 * w[vertex][other]
                    assert value % 2 == 0, "S-vertices of all trees share one dual parity"
                    if value // 2 < delta:
                        delta, kind, edge = value // 2, 3, (vertex, other)
                    break
                heappop(heap)
        for blossom in self._tblossoms:
            value = z[blossom] // 2
            if value < delta:
                delta, kind, target = value, 4, blossom
        if delta:
            self._stepped = True
            vslack.clear()
            for vertex in self._svertices:
                y[vertex] -= delta
            for blossom, lab in label.items():
                if lab == _T:
                    for leaf in self._leaves_of(blossom):
                        y[leaf] += delta
                    if blossom < 0:
                        z[blossom] -= 2 * delta
                elif blossom < 0:
                    z[blossom] += 2 * delta
        if kind == 1:
            self._augment_path(target, None)
            return True
        if kind == 4:
            self._expand(target, end_of_stage=False)
            return False
        return self._tight(*edge)


def max_weight_matching(
    vertices: Iterable[int], edges: Iterable[tuple[int, int, int]]
) -> dict[int, int]:
    """A maximum-weight matching of the graph (edges of weight <= 0 are left out), as a map
    from each matched vertex to its mate."""
    matching = WeightedMatching()
    for vertex in vertices:
        matching.add_vertex(vertex)
    for u, v, weight in edges:
        matching.set_weight(u, v, weight)
    return matching.solve()
