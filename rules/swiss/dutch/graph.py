"""The players still unpaired as a weighted graph, and its maximum-weight matchings: solved for
the whole field, or for the current bracket (with the next one) when that is shown to be
optimal for the whole field; one warm-started solver per set of players solved."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rules.swiss.dutch.bye import top_field
from rules.swiss.dutch.completion import alternating_search, complete_matching
from rules.swiss.dutch.weights import CompatibleRows, Weights
from rules.swiss.matching import WeightedMatching


class PairingGraph:
    """The players still unpaired, their edge weights, and a maximum-weight matching solver.

    ``adj`` holds the criteria weights set while pairing a bracket (0: the pair may not be
    made); a pair never set has the plain weight (completion only) when the players are
    compatible. The completion field ("top") is added when solving. A player in
    ``restricted`` keeps only the pairs set explicitly.

    A solve uses either the whole field, or (``scope`` set) only the current and next
    bracket: when the players below them are so well connected (Dirac's condition) that any
    set of players left over from the two brackets, together with them, can always be
    completed, the lower players cannot change which pairing of the two brackets is best, and
    leaving them out makes each matching far smaller.
    """

    __slots__ = (
        "adj",
        "bracket",
        "following",
        "following_matching",
        "following_rows",
        "guaranteed",
        "lower",
        "lower_matching",
        "lower_rows",
        "restricted",
        "scope",
        "takes",
        "views",
        "weights",
    )

    def __init__(self, vertices: Iterable[int], weights: Weights) -> None:
        self.adj: dict[int, dict[int, int]] = {vertex: {} for vertex in vertices}
        self.restricted: set[int] = set()
        self.scope: frozenset[int] | None = None
        self.lower: list[int] = []
        self.guaranteed = False
        self.lower_matching: dict[int, int] | None = None
        self.lower_rows = CompatibleRows((), weights)
        self.bracket: frozenset[int] | None = None
        self.following: list[int] = []
        self.following_matching: dict[int, int] | None = None
        self.following_rows = CompatibleRows((), weights)
        self.takes: dict[tuple[int, ...], bool] = {}
        self.weights = weights
        # One warm-started solver per set of players solved (None: the whole field).
        self.views: dict[frozenset[int] | None, SolverView] = {}

    def set(self, u: int, v: int, weight: int) -> None:
        weight = max(weight, 0)
        row = self.adj[u]
        if row.get(v) == weight:
            return
        row[v] = weight
        self.adj[v][u] = weight
        for view in self.views.values():
            if u in view.matching and v in view.matching:
                view.pairs.add((u, v) if u < v else (v, u))

    def set_row(self, u: int, others: Sequence[int], weights: Sequence[int]) -> None:
        """:meth:`set` for each of ``others`` with its weight."""
        row = self.adj[u]
        adj = self.adj
        changed: list[int] = []
        for v, weight in zip(others, weights, strict=True):
            if weight < 0:
                weight = 0
            if row.get(v) == weight:
                continue
            row[v] = weight
            adj[v][u] = weight
            changed.append(v)
        if not changed:
            return
        for view in self.views.values():
            if u not in view.matching:
                continue
            if len(changed) > 16:
                # Cheaper to give the solver the whole row again than pair by pair.
                view.rows.add(u)
                continue
            for v in changed:
                if v in view.matching:
                    view.pairs.add((u, v) if u < v else (v, u))

    def remove(self, vertex: int) -> None:
        for other in self.adj.pop(vertex):
            del self.adj[other][vertex]
        self.restricted.discard(vertex)
        for view in self.views.values():
            if vertex in view.matching:
                view.matching.remove_vertex(vertex)

    def restrict(self, vertex: int, allowed: Iterable[int]) -> None:
        """Keep only the vertex' explicitly set pairs with ``allowed`` players."""
        keep = set(allowed)
        for other in list(self.adj[vertex]):
            if other not in keep:
                self.set(vertex, other, 0)
        self.restricted.add(vertex)
        for view in self.views.values():
            if vertex in view.matching:
                view.rows.add(vertex)

    def new_bracket(self) -> None:
        """Forget the solvers of the previous bracket's scopes (the whole field's stays)."""
        self.views = {key: view for key, view in self.views.items() if key is None}

    def weight(self, u: int, v: int) -> int:
        """The weight the solver sees for the pair, 0 if it may not be made."""
        weights = self.weights
        top_shift = weights.layout.shift["top"]
        explicit = self.adj[u].get(v)
        if self.scope is not None:
            if not explicit:
                return 0
            must = (u in self.restricted) + (v in self.restricted)
            return explicit + (must << top_shift)
        if explicit is None:
            if u in self.restricted or v in self.restricted or not weights.compatible(u, v):
                return 0
            explicit = 0
        elif not explicit:
            return 0
        return explicit + (top_field(u, v, weights.bye) << top_shift)

    def full_weight(self, u: int, v: int) -> int:
        """The weight of the pair when the whole field is solved."""
        scope, self.scope = self.scope, None
        try:
            return self.weight(u, v)
        finally:
            self.scope = scope

    def vertices(self) -> list[int]:
        alive = self.adj if self.scope is None else (v for v in self.adj if v in self.scope)
        return sorted(alive, key=lambda vertex: vertex)

    def solve(self) -> dict[int, int]:
        """A maximum-weight matching, as a map from each matched vertex to its mate.

        With a scope, the matching of the scope's players is one of the whole field's maximum
        weight matchings restricted to them: either Dirac's condition shows that whatever
        they leave over completes the round, or a completion is found for the leftover.
        Before that, the current bracket alone is tried (``bracket``): its matching is one of
        the best when a completion is found in which the next bracket does as well as it can
        on C8 with the players it leaves over. Otherwise the whole field is solved.
        """
        scope = self.scope
        try:
            if self.bracket is not None:
                self.scope = self.bracket
                mate = self._solve()
                if self._next_bracket_completes(mate):
                    return mate
                self.scope = scope
            mate = self._solve()
            if scope is None or self._completes(mate):
                return mate
            self.scope = None
            return self._solve()
        finally:
            self.scope = scope

    def _leftover(self, mate: Mapping[int, int]) -> list[int] | None:
        """The scope's players the matching leaves unpaired; None if one of them must be
        paired in the scope."""
        leftover = [vertex for vertex in self.vertices() if vertex not in mate]
        if any(vertex in self.restricted for vertex in leftover):
            return None
        return leftover

    def _start(self, group: Sequence[int], rows: CompatibleRows) -> dict[int, int]:
        """Pairs among the players of a group alone, the start of completions; ``rows``
        holds the group's compatible players."""
        compatible = self.weights.compatible
        start: dict[int, int] = {}
        waiting: list[int] = []
        for vertex in group:
            partner = next((other for other in waiting if compatible(vertex, other)), None)
            if partner is None:
                waiting.append(vertex)
            else:
                waiting.remove(partner)
                start[vertex] = partner
                start[partner] = vertex
        for vertex in list(waiting):
            if vertex not in start:
                alternating_search(
                    vertex,
                    start,
                    rows,
                    lambda _: True,
                    to_free=True,
                    free=[other for other in waiting if other not in start],
                    adjacent=compatible,
                )
        return start

    def _lower_completes(self, upper: Sequence[int]) -> bool:
        """Whether ``upper`` players (none of them to take the PAB) and the lower players can
        all be paired, each ``upper`` one with a lower one."""
        candidates = self.weights.bye.candidates
        lower_set = frozenset(self.lower)

        def bye_allowed(vertex: int) -> bool:
            return vertex in candidates and vertex in lower_set

        if self.lower_matching is None:
            self.lower_matching = self._start(self.lower, self.lower_rows)
        completion = complete_matching(
            upper,
            self.lower,
            self.weights.compatible,
            bye_allowed,
            self.lower_matching,
            self.lower_rows,
        )
        return completion is not None

    def _completes(self, mate: Mapping[int, int]) -> bool:
        leftover = self._leftover(mate)
        if leftover is None:
            return False
        return self.guaranteed or self._lower_completes(leftover)

    def _next_bracket_completes(self, mate: Mapping[int, int]) -> bool:
        """Whether the current bracket's leftover all meet next-bracket players, the other
        next-bracket players meet each other (but for one, for an odd number) and the rest of
        the round completes: the most pairs C8 can count, with the most points, for the
        scores that C6-C7 (already best) let down."""
        leftover = self._leftover(mate)
        return leftover is not None and self.next_bracket_takes(leftover)

    def next_bracket_takes(self, leftover: Sequence[int]) -> bool:
        """See :meth:`_next_bracket_completes`, for the given leftover of the bracket.

        The answer depends on nothing else that changes while the bracket is paired, so it
        is kept per leftover (in order) until the next bracket.
        """
        key = tuple(leftover)
        known = self.takes.get(key)
        if known is None:
            known = self.takes[key] = self._next_bracket_takes(leftover)
        return known

    def _next_bracket_takes(self, leftover: Sequence[int]) -> bool:
        following = self.following
        if len(leftover) > len(following):
            return False
        following_set = frozenset(following)
        if self.following_matching is None:
            self.following_matching = self._start(following, self.following_rows)
        inner = complete_matching(
            leftover,
            following,
            self.weights.compatible,
            lambda vertex: vertex in following_set,
            self.following_matching,
            self.following_rows,
        )
        if inner is None:
            return False
        spare = [vertex for vertex in following if vertex not in inner]
        return self._lower_completes(spare)

    def _solve(self) -> dict[int, int]:
        """A maximum-weight matching of the current scope's players (all when None), by the
        scope's solver, warm-started from its previous solve after the changes since."""
        key = self.scope
        view = self.views.get(key)
        if view is None:
            view = self._build_view()
            self.views[key] = view
        else:
            self._sync_view(view)
        return view.matching.solve()

    def _build_view(self) -> SolverView:
        vertices = self.vertices()
        matching = WeightedMatching()
        for vertex in vertices:
            matching.add_vertex(vertex)
        scope = self.scope
        if scope is None:
            for position, u in enumerate(vertices):
                for v in vertices[position + 1 :]:
                    weight = self.weight(u, v)
                    if weight > 0:
                        matching.set_weight(u, v, weight)
        else:
            # As weight() for a scope: the explicit weight, and the completion field for
            # each restricted player of the pair.
            restricted = self.restricted
            top_shift = self.weights.layout.shift["top"]
            for u in vertices:
                must = int(u in restricted)
                for v, explicit in self.adj[u].items():
                    if explicit and v > u and v in scope:
                        weight = explicit + ((must + (v in restricted)) << top_shift)
                        matching.set_weight(u, v, weight)
        return SolverView(matching)

    def _sync_view(self, view: SolverView) -> None:
        """Give the view's solver the weights that changed since its last solve."""
        matching = view.matching
        for vertex in sorted(view.rows):
            if vertex not in matching:
                continue
            if self.scope is None:
                others: Iterable[int] = matching.vertices()
            else:
                others = {*matching.neighbours(vertex), *self.adj[vertex]}
            for other in sorted(others):
                if other != vertex and other in matching:
                    matching.set_weight(vertex, other, self.weight(vertex, other))
        for u, v in sorted(view.pairs):
            if u in matching and v in matching:
                matching.set_weight(u, v, self.weight(u, v))
        view.rows.clear()
        view.pairs.clear()


class SolverView:
    """A solver for one set of players, and what changed since it last solved."""

    __slots__ = ("matching", "pairs", "rows")

    def __init__(self, matching: WeightedMatching) -> None:
        self.matching = matching
        self.pairs: set[tuple[int, int]] = set()
        self.rows: set[int] = set()
