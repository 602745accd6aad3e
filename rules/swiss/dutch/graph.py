"""The players still unpaired as a weighted graph, and its maximum-weight matchings: solved for
the whole field, or for the current bracket (with the next one) when that is shown to be
optimal for the whole field; one warm-started solver per set of players solved."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence

from rules.swiss.dutch.bye import top_field
from rules.swiss.dutch.completion import complete_matching, start_matching
from rules.swiss.dutch.cover import Group, uncovered_pairs
from rules.swiss.dutch.weights import CompatibleRows, Weights
from rules.swiss.matching import WeightedMatching


class PairingGraph:
    """The players still unpaired, their edge weights, and maximum-weight matching solvers.

    The weight of a pair of the current bracket and the next one (the *members*) follows
    from the players' kinds (:meth:`Weights.kind_pair`) and a few per-player facts (moved
    down, exchange position, S1 role), so it is not stored: only the pairs set to another
    weight while pairing the bracket are (``overrides``). A pair with a player below the
    members has the plain weight (completion only) when the players are compatible. The
    completion field ("top") is added when solving. A player in ``restricted`` keeps only
    the pairs set explicitly.

    A solve uses either the whole field, or (``scope`` set) only the current and next
    bracket: when the players below them are so well connected (Dirac's condition) that any
    set of players left over from the two brackets, together with them, can always be
    completed, the lower players cannot change which pairing of the two brackets is best, and
    leaving them out makes each matching far smaller.

    A solver is given only some of the pairs: a maximum-weight matching of those whose duals
    cover every other pair (:meth:`WeightedMatching.dual`) is one of the whole graph. The
    pairs left out are checked by groups of players alike in every fact the weight reads,
    so a check costs about the number of players times the number of groups, and the pairs
    a check finds uncovered are added before solving again.
    """

    __slots__ = (
        "addends",
        "alive",
        "bracket",
        "c9",
        "dummy",
        "exchange_potential",
        "followers",
        "following",
        "following_matching",
        "following_rows",
        "guaranteed",
        "lower",
        "lower_matching",
        "lower_rows",
        "mdps",
        "members",
        "overrides",
        "residents",
        "restricted",
        "roles",
        "scope",
        "takes",
        "top_shift",
        "views",
        "weights",
        "zeroed",
    )

    def __init__(self, vertices: Iterable[int], weights: Weights) -> None:
        self.alive: set[int] = set(vertices)
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
        self.top_shift = weights.layout.shift["top"]
        # The stand-in vertex of a solver with an odd number of players (see _build_view).
        self.dummy = len(weights.states)
        # The bracket's weights: who is who, and what was set apart from the kinds' weights.
        self.members: frozenset[int] = frozenset()
        self.mdps: frozenset[int] = frozenset()
        self.residents: frozenset[int] = frozenset()
        self.followers: frozenset[int] = frozenset()
        self.c9 = False
        self.zeroed: set[tuple[int, int]] = set()
        self.addends: dict[int, int] = {}
        self.roles: dict[int, bool] = {}
        self.overrides: dict[int, dict[int, int]] = {}
        # Per remainder player, his potential for the exchange weights (start_exchanges).
        self.exchange_potential: dict[int, int] = {}
        # One warm-started solver per set of players solved (None: the whole field).
        self.views: dict[frozenset[int] | None, SolverView] = {}

    # -- the bracket's weights ---------------------------------------------

    def new_bracket(
        self, mdps: Sequence[int], residents: Sequence[int], following: Sequence[int], c9: bool
    ) -> None:
        """Start a bracket: every pair of its players and the next bracket's gets its base
        weight (moved-down players do not meet each other: they could have met in the
        bracket they floated from). Forget the solvers of the previous bracket's scopes (the
        whole field's stays)."""
        self.views = {key: view for key, view in self.views.items() if key is None}
        self.mdps = frozenset(mdps)
        self.residents = frozenset(residents)
        self.followers = frozenset(following)
        self.members = self.mdps | self.residents | self.followers
        self.c9 = c9
        self.zeroed = set()
        self.addends = {}
        self.roles = {}
        self.overrides = {}
        self.exchange_potential = {}
        for view in self.views.values():
            view.rows.update(vertex for vertex in self.members if vertex in view.matching)

    def base(self, u: int, v: int) -> int:
        """The pair's criteria weight in the bracket (0: it may not be made), before the
        exchange weights; both players are members."""
        if u > v:
            u, v = v, u
        if v in self.mdps or (u, v) in self.zeroed:
            return 0
        roles = self.roles
        if roles and u in roles and v in roles and (not roles[u] or roles[v]):
            return 0
        return self.weights.pair(
            u, v, in_current=v in self.residents, in_next=v in self.followers, c9=self.c9
        )

    def zero_base(self, u: int, v: int) -> None:
        """The pair may no longer be made in this bracket."""
        before = self.explicit(u, v)
        self.zeroed.add((u, v) if u < v else (v, u))
        if self.explicit(u, v) != before:
            self._changed(u, v)

    def start_exchanges(self, remainder: Sequence[int], s1_size: int) -> None:
        """Give the remainder's pairs their exchange weights: a pair counts one exchange
        field more when its higher player is in S1, and less the lower that player is."""
        layout = self.weights.layout
        self._drop_overrides(remainder)
        self.addends = {
            vertex: layout.exchange_addend(position, s1_size)
            for position, vertex in enumerate(remainder)
        }
        self.exchange_potential = {
            vertex: layout.exchange_potential(position, s1_size)
            for position, vertex in enumerate(remainder)
        }
        # The potentials are twice the addends of S1-S2 pairs and cover the others': raised
        # by them, each solver keeps its S1-S2 pairs, where a cold start re-pairs everyone.
        for view in self.views.values():
            view.matching.raise_duals(self.exchange_potential)
        self._rows_changed(remainder)

    def adopt(self, mate: Mapping[int, int]) -> None:
        """Give the solvers the pairs of ``mate``, a maximum-weight matching (changed by
        swaps at no cost), where they are tight for them."""
        scope = self.scope
        try:
            for key, view in self.views.items():
                self.scope = key
                pairs = [
                    (u, v, self.weight(u, v))
                    for u, v in mate.items()
                    if u < v and u in view.matching and v in view.matching
                ]
                view.matching.adopt(pairs)
        finally:
            self.scope = scope

    def fix_roles(self, roles: Mapping[int, bool]) -> None:
        """Keep only the remainder's pairs of an S1-role player with a later player not in
        that role, with their base weights."""
        self._drop_overrides(roles)
        self.addends = {}
        self.exchange_potential = {}
        self.roles = dict(roles)
        self._rows_changed(roles)

    def _drop_overrides(self, group: Iterable[int]) -> None:
        members = set(group)
        overrides = self.overrides
        for vertex in members:
            row = overrides.get(vertex)
            if row is not None:
                for other in [other for other in row if other in members]:
                    del row[other]

    def _rows_changed(self, group: Iterable[int]) -> None:
        for view in self.views.values():
            view.rows.update(vertex for vertex in group if vertex in view.matching)

    def _changed(self, u: int, v: int) -> None:
        for view in self.views.values():
            if u in view.matching and v in view.matching:
                view.pairs.add((u, v) if u < v else (v, u))

    def explicit(self, u: int, v: int) -> int | None:
        """The criteria weight set for the pair while pairing the bracket (0: it may not be
        made); None for a pair with a player below the members."""
        row = self.overrides.get(u)
        if row is not None:
            value = row.get(v)
            if value is not None:
                return value
        return self._structured(u, v)

    def _structured(self, u: int, v: int) -> int | None:
        members = self.members
        if u not in members or v not in members:
            return None
        if u > v:
            u, v = v, u
        weight = self.base(u, v)
        if weight:
            addends = self.addends
            if u in addends and v in addends:
                weight = max(weight + addends[u], 0)
        return weight

    def set(self, u: int, v: int, weight: int) -> None:
        weight = max(weight, 0)
        if self.explicit(u, v) == weight:
            return
        overrides = self.overrides
        if self._structured(u, v) == weight:
            overrides[u].pop(v, None)
            overrides[v].pop(u, None)
        else:
            overrides.setdefault(u, {})[v] = weight
            overrides.setdefault(v, {})[u] = weight
        self._changed(u, v)

    def remove(self, vertex: int) -> None:
        self.alive.discard(vertex)
        for other in self.overrides.pop(vertex, {}):
            del self.overrides[other][vertex]
        self.restricted.discard(vertex)
        for view in self.views.values():
            if vertex in view.matching:
                view.matching.remove_vertex(vertex)

    def restrict(self, vertex: int, allowed: Iterable[int]) -> None:
        """Keep only the vertex' explicitly set pairs with ``allowed`` players."""
        keep = set(allowed)
        alive = self.alive
        for other in sorted(self.members):
            if other != vertex and other in alive and other not in keep:
                self.set(vertex, other, 0)
        self.restricted.add(vertex)
        self._rows_changed((vertex,))

    # -- the solvers' weights ------------------------------------------------

    def weight(self, u: int, v: int) -> int:
        """The weight the solver sees for the pair, 0 if it may not be made."""
        explicit = self.explicit(u, v)
        if self.scope is not None:
            if not explicit:
                return 0
            must = (u in self.restricted) + (v in self.restricted)
            return explicit + (must << self.top_shift)
        if explicit is None:
            if u in self.restricted or v in self.restricted or not self.weights.compatible(u, v):
                return 0
            explicit = 0
        elif not explicit:
            return 0
        # A chosen moved-down player must stay paired (Article 3.3), as in a scoped solve.
        must = (u in self.restricted) + (v in self.restricted)
        return explicit + ((top_field(u, v, self.weights.bye) + must) << self.top_shift)

    def full_weight(self, u: int, v: int) -> int:
        """The weight of the pair when the whole field is solved."""
        scope, self.scope = self.scope, None
        try:
            return self.weight(u, v)
        finally:
            self.scope = scope

    def full_row(self, u: int, others: Iterable[int]) -> list[int]:  # noqa: C901 (an inner loop kept flat for speed)
        """:meth:`full_weight` of ``u`` with each of ``others`` (faster, for long rows)."""
        overrides = self.overrides.get(u, {})
        members = self.members
        weights = self.weights
        candidates = weights.bye.candidates
        blocked = weights.blocked[u]
        c3 = weights.c3
        u_c3 = c3[u]
        kind = weights.kind
        mdps = self.mdps
        zeroed = self.zeroed
        roles = self.roles
        u_role = roles.get(u)
        addends = self.addends
        residents = self.residents
        followers = self.followers
        c9 = self.c9
        top_shift = self.top_shift
        restricted = self.restricted
        u_part = 1 + (u not in candidates) + (u in restricted)
        u_member = u in members
        u_restricted = u in self.restricted
        # The kinds' weights with ``u`` the higher player, by the other's kind and segment.
        known: dict[tuple[int, bool, bool], int] = {}
        row: list[int] = []
        for v in others:
            explicit = overrides.get(v)
            if explicit is None:
                if not u_member or v not in members:
                    if u_restricted or v in self.restricted or not weights.compatible(u, v):
                        row.append(0)
                    else:
                        row.append((u_part + (v not in candidates)) << top_shift)
                    continue
                if v in blocked or (u_c3 is not None and c3[v] is u_c3):
                    row.append(0)
                    continue
                high, low = (u, v) if u < v else (v, u)
                if low in mdps or (high, low) in zeroed:
                    row.append(0)
                    continue
                if u_role is not None:
                    v_role = roles.get(v)
                    if v_role is not None and (not roles[high] or roles[low]):
                        row.append(0)
                        continue
                if high == u:
                    key = (kind[low], low in residents, low in followers)
                    explicit = known.get(key)
                    if explicit is None:
                        explicit = known[key] = weights.kind_pair(kind[u], *key, c9)
                else:
                    explicit = weights.kind_pair(
                        kind[high], kind[low], low in residents, low in followers, c9
                    )
                if high in addends and low in addends:
                    explicit = max(explicit + addends[high], 0)
            if not explicit:
                row.append(0)
            else:
                v_part = (v not in candidates) + (v in restricted)
                row.append(explicit + ((u_part + v_part) << top_shift))
        return row

    def vertices(self) -> list[int]:
        scope = self.scope
        alive = self.alive if scope is None else (v for v in self.alive if v in scope)
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

    def _lower_completes(self, upper: Sequence[int]) -> bool:
        """Whether ``upper`` players (none of them to take the PAB, unless nobody is below)
        and the lower players can all be paired, each ``upper`` one with a lower one."""
        candidates = self.weights.bye.candidates
        lower_set = frozenset(self.lower)

        def bye_allowed(vertex: int) -> bool:
            # With nobody below, the one player left over (of the next bracket) takes it.
            return vertex in candidates and (vertex in lower_set or not lower_set)

        if self.lower_matching is None:
            self.lower_matching = start_matching(
                self.lower, self.lower_rows, self.weights.compatible
            )
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
            self.following_matching = start_matching(
                following, self.following_rows, self.weights.compatible
            )
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
        scope's solver, warm-started from its previous solve after the changes since; the
        pairs the solver lacks are added until its duals cover them all."""
        key = self.scope
        view = self.views.get(key)
        if view is None:
            view = self._build_view()
            self.views[key] = view
        else:
            self._sync_view(view)
        matching = view.matching
        matching.potential = self._potential
        self._fit_stand_in(view)
        while True:
            mate = matching.solve()
            vertices = [vertex for vertex in matching.vertices() if vertex != self.dummy]
            missing = uncovered_pairs(self, matching, self._groups(vertices), view.added)
            if not missing:
                break
            view.added = _ADDED_LATER
            for u, v, weight in missing:
                matching.set_weight(u, v, weight)
        partner = mate.pop(self.dummy, None)
        if partner is not None:
            del mate[partner]
        return mate

    # -- groups of alike players, for the solvers' pairs ---------------------

    def _group_of(self, vertex: int) -> Group:
        """What the weight of a pair reads of this player, but for his pairing number (who
        is the higher of the two), his C1 opponents and the per-player additions of
        :meth:`own_part` and the exchange weights."""
        if vertex in self.mdps:
            segment = 0
        elif vertex in self.residents:
            segment = 1
        elif vertex in self.followers:
            segment = 2
        else:
            segment = 3
        weights = self.weights
        return (
            weights.kind[vertex],
            weights.c3[vertex],
            segment,
            self.roles.get(vertex),
            vertex in self.restricted,
            vertex in self.addends,
        )

    def own_part(self, vertex: int) -> int:
        """The part of the top field a player brings to each of his pairs."""
        must = int(vertex in self.restricted)
        if self.scope is None:
            return (int(vertex not in self.weights.bye.candidates) + must) << self.top_shift
        return must << self.top_shift

    def _potential(self, vertex: int) -> int:
        """The vertex' potential for its solver's cold start (doubled weights): twice the
        parts of its pairs' weights that are its own. Those are :meth:`own_part`, the
        exchange weights' share (:meth:`start_exchanges`), for a resident of the bracket the
        float criteria's share (:meth:`Weights.float_part`) and for a moved-down player the
        share of his higher score (:meth:`Weights.moved_down_part`).

        The stand-in's potential is twice his weight: it covers all his pairs, so each
        player's starting dual follows from his real pairs only (the stand-in, heavier than
        most of them, would otherwise hold every player's dual at his weight), and the cold
        start lowers the stand-in's last."""
        if vertex == self.dummy:
            return 2 * self.views[self.scope].stand_in
        weights = self.weights
        potential = 2 * self.own_part(vertex) + self.exchange_potential.get(vertex, 0)
        if vertex in self.residents:
            potential += 2 * weights.float_part(vertex)
        elif vertex in self.mdps and self.residents:
            level = weights.states[min(self.residents)].level
            potential += 2 * weights.moved_down_part(vertex, level)
        return potential

    def group_weight(self, high: Group, low: Group) -> int | None:
        """The weight of a pair of players of these groups (the higher ranked of ``high``),
        without the players' own parts and exchange addend; None when no such pair is made
        (but for C1, which is checked pair by pair)."""
        high_kind, high_c3, high_segment, high_role, high_restricted, _ = high
        low_kind, low_c3, low_segment, low_role, low_restricted, _ = low
        if high_c3 is not None and high_c3 is low_c3:
            return None
        if high_segment == 3 or low_segment == 3:
            if self.scope is not None or high_restricted or low_restricted:
                return None
            return 1 << self.top_shift
        if low_segment == 0:
            return None
        if high_role is not None and low_role is not None and (not high_role or low_role):
            return None
        weight = self.weights.kind_pair(
            high_kind, low_kind, low_segment == 1, low_segment == 2, self.c9
        )
        if self.scope is None:
            weight += 1 << self.top_shift
        return weight

    def _groups(self, vertices: Iterable[int]) -> dict[Group, list[int]]:
        groups: dict[Group, list[int]] = {}
        for vertex in vertices:
            groups.setdefault(self._group_of(vertex), []).append(vertex)
        return groups

    def _build_view(self) -> SolverView:  # noqa: C901 (the solver's view, one algorithm kept flat for speed)
        """A solver for the current scope's players with a few of each player's pairs per
        group: those with the next later players and with the players half the field
        later (where S2 opponents are); the rest is added as the duals ask."""
        vertices = self.vertices()
        matching = WeightedMatching()
        for vertex in vertices:
            matching.add_vertex(vertex)
        groups = self._groups(vertices)
        half = len(vertices) // 2
        # A pair's weight is its groups' plus the players' own parts and the higher one's
        # exchange addend, unless C1 forbids it or it was set apart (as in the duals' check).
        own = {vertex: self.own_part(vertex) for vertex in vertices}
        addends = self.addends
        blocked = self.weights.blocked
        overrides = self.overrides
        zeroed = self.zeroed
        for low, lows in groups.items():
            count = len(lows)
            for high, highs in groups.items():
                weight = self.group_weight(high, low)
                if weight is None:
                    continue
                exchange = high[5] and low[5]
                for u in highs:
                    first = bisect_right(lows, u)
                    if first == count:
                        break
                    middle = max(bisect_right(lows, u + half) - 1, first)
                    mine = weight + own[u] + (addends[u] if exchange else 0)
                    row = overrides.get(u)
                    for place in {first, first + 1, middle, middle + 1}:
                        if place < count:
                            v = lows[place]
                            if (row is not None and v in row) or (u, v) in zeroed:
                                pair = self.weight(u, v)
                            elif v in blocked[u]:
                                pair = 0
                            else:
                                pair = mine + own[v]
                            matching.set_weight(u, v, pair)
        for u, row in self.overrides.items():
            if u in matching:
                for v in row:
                    if v > u and v in matching:
                        matching.set_weight(u, v, self.weight(u, v))
        stand_in = max(
            (matching.weight(u, v) for u in vertices for v in matching.neighbours(u)),
            default=1,
        )
        return SolverView(matching, stand_in)

    def _fit_stand_in(self, view: SolverView) -> None:
        """Give an odd number of players a stand-in who meets each of them at one weight,
        and an even number none.

        A best matching with the stand-in is a best one without him plus the pair of the
        player it leaves over (every matching of an odd number leaves one over, and each
        gains the same weight with the stand-in); unlike the odd field alone it has duals
        that cover the pairs of large alike groups without blossoms, which the solver's
        partial pairs would not show.
        """
        matching = view.matching
        dummy = self.dummy
        has = dummy in matching
        if (len(matching.vertices()) - has) % 2 == 0:
            if has:
                matching.remove_vertex(dummy)
            return
        if has:
            return
        matching.add_vertex(dummy)
        for vertex in matching.vertices():
            if vertex != dummy:
                matching.set_weight(vertex, dummy, view.stand_in)

    def _sync_view(self, view: SolverView) -> None:
        """Give the view's solver the weights that changed since its last solve (of the
        pairs it has, and the pairs set apart; the check after solving adds the others)."""
        matching = view.matching
        for vertex in sorted(view.rows):
            if vertex not in matching:
                continue
            others = {*matching.neighbours(vertex), *self.overrides.get(vertex, ())}
            others.discard(self.dummy)
            for other in sorted(others):
                if other in matching:
                    matching.set_weight(vertex, other, self.weight(vertex, other))
        for u, v in sorted(view.pairs):
            if u in matching and v in matching:
                matching.set_weight(u, v, self.weight(u, v))
        view.rows.clear()
        view.pairs.clear()


# Pairs a check adds per player and group before solving again: 20 at a solver's first check,
# 100 at later ones. Measured, not derived (docs/pairing.md, Speed); the pairing is the same
# whatever the values. 400 at later checks was best when the exchange solve started cold; since
# it starts warm, 50-100 are best on the 10,000-player rounds (round 2: 13 s with 400, 9 s).
_ADDED_FIRST = 20
_ADDED_LATER = 100


class SolverView:
    """A solver for one set of players, and what changed since it last solved."""

    __slots__ = ("added", "matching", "pairs", "rows", "stand_in")

    def __init__(self, matching: WeightedMatching, stand_in: int) -> None:
        self.added = _ADDED_FIRST
        self.matching = matching
        self.stand_in = stand_in
        self.pairs: set[tuple[int, int]] = set()
        self.rows: set[int] = set()
