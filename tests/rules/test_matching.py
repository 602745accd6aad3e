"""Our maximum-weight matching against networkx's, on random graphs with big-integer weights.

Maximum-weight matchings are not unique, so the total weights are compared, and each matching
is checked to be one (every vertex at most once, only edges of the graph). The warm-started
solver is checked after every change of a random sequence of weight changes, removals and
additions, since each re-solve starts from the previous solution.
"""

from __future__ import annotations

import inspect
import random
import sys

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.swiss.matching import WeightedMatching, max_weight_matching

WEIGHT_RANGES = [1, 3, 10, 1000, 2**64, 2**700]


def _networkx_total(vertices: list[int], edges: dict[tuple[int, int], int]) -> int:
    graph = nx.Graph()
    graph.add_nodes_from(vertices)
    for (u, v), weight in edges.items():
        graph.add_edge(u, v, weight=weight)
    return sum(edges[min(u, v), max(u, v)] for u, v in nx.max_weight_matching(graph))


def _checked_total(mate: dict[int, int], edges: dict[tuple[int, int], int]) -> int:
    for u, v in mate.items():
        assert mate[v] == u
        assert (min(u, v), max(u, v)) in edges
    return sum(edges[u, v] for u, v in mate.items() if u < v)


def _edges_of(matching: WeightedMatching) -> dict[tuple[int, int], int]:
    vertices = matching.vertices()
    return {
        (u, v): matching.weight(u, v)
        for index, u in enumerate(vertices)
        for v in vertices[index + 1 :]
        if matching.weight(u, v)
    }


def _random_graph(rng: random.Random, count: int) -> dict[tuple[int, int], int]:
    density = rng.random()
    top = rng.choice(WEIGHT_RANGES)
    return {
        (u, v): rng.randint(1, top)
        for u in range(count)
        for v in range(u + 1, count)
        if rng.random() < density
    }


@pytest.mark.parametrize("seed", range(300))
def test_matches_networkx_on_random_graphs(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(0, 30)
    edges = _random_graph(rng, count)
    mate = max_weight_matching(range(count), [(u, v, w) for (u, v), w in edges.items()])
    assert _checked_total(mate, edges) == _networkx_total(list(range(count)), edges)


@pytest.mark.parametrize("seed", range(20))
def test_dense_graphs_with_many_equal_weights_get_a_certificate(seed: int) -> None:
    # Dutch weights: few distinct values of 700+ bits, some players with heavy pairs to
    # everyone (moved-down players), many ties: the case that forms the most blossoms.
    rng = random.Random(seed)
    count = rng.randint(30, 90)
    levels = [rng.randint(2**700, 2**701) for _ in range(4)]
    hubs = set(rng.sample(range(count), rng.randint(0, 4)))
    matching = WeightedMatching()
    for vertex in range(count):
        matching.add_vertex(vertex)
    for u in range(count):
        for v in range(u + 1, count):
            if rng.random() < 0.9:
                level = 0 if u in hubs or v in hubs else rng.randint(1, 3)
                matching.set_weight(u, v, levels[level] + rng.choice([0, 0, 1, 2]))
    _assert_certificate_after_solve(matching)
    for _ in range(5):
        vertex = rng.randrange(count)
        for other in range(count):
            if other != vertex and matching.weight(vertex, other):
                matching.set_weight(vertex, other, matching.weight(vertex, other) + 1)
        _assert_certificate_after_solve(matching)


def _assert_certificate_after_solve(matching: WeightedMatching) -> None:
    matching.solve()
    _assert_certificate(matching)


def _change(rng: random.Random, matching: WeightedMatching, fresh: int) -> int:
    """One random change of the graph; returns the next unused vertex number."""
    vertices = matching.vertices()
    top = rng.choice(WEIGHT_RANGES)
    roll = rng.random()
    if roll < 0.45 and vertices:
        # Change the weights around one vertex, as a bonus or a restriction does.
        vertex = rng.choice(vertices)
        for other in vertices:
            if other != vertex and rng.random() < 0.5:
                old = matching.weight(vertex, other)
                new = old + rng.randint(-3, 3) if rng.random() < 0.6 else rng.randint(0, top)
                matching.set_weight(vertex, other, new)
    elif roll < 0.6 and vertices:
        matching.remove_vertex(rng.choice(vertices))
    elif roll < 0.8:
        matching.add_vertex(fresh)
        for other in vertices:
            if rng.random() < 0.6:
                matching.set_weight(fresh, other, rng.randint(1, top))
        fresh += 1
    else:
        for _ in range(rng.randint(1, 4)):
            if len(vertices) >= 2:
                u, v = rng.sample(vertices, 2)
                matching.set_weight(u, v, rng.randint(0, top))
    return fresh


def _assert_certificate(matching: WeightedMatching) -> None:
    """The solver's duals prove its matching optimal (complementary slackness): every slack
    >= 0, matched edges tight, non-negative duals, free vertices at zero, every blossom
    matched inside but for one vertex. Reads the solver's internals on purpose."""
    y = matching._y
    z = matching._z
    parent = matching._parent
    mate = matching._mate

    def blossoms(vertex: int) -> list[int]:
        chain = []
        blossom = parent.get(vertex)
        while blossom is not None:
            chain.append(blossom)
            blossom = parent.get(blossom)
        return chain

    assert all(value >= 0 for value in z.values())
    shared_duals = matching.shared_duals()
    for leaves in matching._leaves.values():
        inside = set(leaves)
        assert sum(1 for u in leaves if mate.get(u) in inside) == len(leaves) - 1
    for u in matching.vertices():
        assert y[u] >= 0
        if u not in mate:
            assert y[u] == 0
        around_u = set(blossoms(u))
        for v in matching.neighbours(u):
            shared = sum(z[b] for b in blossoms(v) if b in around_u)
            assert shared_duals(u, v) == shared
            slack = y[u] + y[v] + shared - 2 * matching.weight(u, v)
            assert slack >= 0
            if mate.get(u) == v:
                assert slack == 0


@pytest.mark.parametrize("seed", range(150))
def test_warm_started_solves_match_networkx_after_every_change(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(1, 24)
    matching = WeightedMatching()
    for vertex in range(count):
        matching.add_vertex(vertex)
    for (u, v), weight in _random_graph(rng, count).items():
        matching.set_weight(u, v, weight)
    fresh = count
    for _ in range(10):
        edges = _edges_of(matching)
        mate = matching.solve()
        assert _checked_total(mate, edges) == _networkx_total(matching.vertices(), edges)
        _assert_certificate(matching)
        fresh = _change(rng, matching, fresh)


@pytest.mark.parametrize("seed", range(120))
def test_cold_starts_from_any_potentials_still_give_the_best_matching(seed: int) -> None:
    # Weights made as the Dutch engine makes them: each end's own part plus a pair part,
    # sometimes a stand-in joined to everyone at the heaviest weight. The potentials are
    # twice the own parts (as the engine gives), or random (some below 0, which count as 0),
    # or zero: the matching must be of maximum weight whatever they are, and the duals must
    # prove it.
    rng = random.Random(seed)
    count = rng.randint(2, 26)
    unit = rng.choice([1, 2**40, 2**300])
    own = [rng.randint(0, 3) * unit for _ in range(count)]
    edges = {
        (u, v): own[u] + own[v] + rng.randint(1, 4) * rng.choice([1, unit])
        for u in range(count)
        for v in range(u + 1, count)
        if rng.random() < 0.7
    }
    if rng.random() < 0.5:
        heaviest = max(edges.values(), default=1)
        edges.update({(u, count): heaviest for u in range(count)})
        count += 1
    choice = seed % 3
    potential = [
        2 * own[vertex] if choice == 0 and vertex < len(own) else rng.randint(-unit, 8 * unit)
        for vertex in range(count)
    ]
    matching = WeightedMatching()
    matching.potential = potential.__getitem__ if choice < 2 else (lambda _: 0)
    for vertex in range(count):
        matching.add_vertex(vertex)
    for (u, v), weight in edges.items():
        matching.set_weight(u, v, weight)
    mate = matching.solve()
    assert _checked_total(mate, edges) == _networkx_total(list(range(count)), edges)
    _assert_certificate(matching)


def test_exchange_potentials_leave_nothing_to_the_stages() -> None:
    # A remainder's exchange weights (rules/swiss/dutch/graph.py start_exchanges): a pair
    # weighs more when its higher player is in S1, and less the lower he stands. From equal
    # starting duals the stages must give each S1 player a dual of his own; from the
    # potentials the cold start is already optimal.
    s1, unit, step = 30, 1 << 20, 1 << 4

    def solved(potential: bool) -> WeightedMatching:
        matching = WeightedMatching()
        for vertex in range(2 * s1):
            matching.add_vertex(vertex)
        for u in range(2 * s1):
            for v in range(u + 1, 2 * s1):
                matching.set_weight(u, v, (1 << 30) + (unit if u < s1 else 0) - u * step)
        if potential:
            matching.potential = lambda vertex: (
                unit + (s1 - 1 - 2 * vertex) * step if vertex < s1 else unit - (s1 - 1) * step
            )
        matching.solve()
        _assert_certificate(matching)
        return matching

    plain, shaped = solved(False), solved(True)
    assert shaped.stages == 0 < plain.stages
    for matching in (plain, shaped):  # every S1 player meets an S2 player
        assert all((u < s1) != (v < s1) for u, v in matching.solve().items())


@settings(max_examples=200, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=12),
    data=st.data(),
)
def test_matches_networkx_on_generated_graphs(count: int, data: st.DataObject) -> None:
    pairs = [(u, v) for u in range(count) for v in range(u + 1, count)]
    weights = data.draw(
        st.lists(
            st.one_of(st.just(0), st.integers(1, 4), st.integers(1, 2**300)),
            min_size=len(pairs),
            max_size=len(pairs),
        )
    )
    edges = {pair: weight for pair, weight in zip(pairs, weights, strict=True) if weight > 0}
    mate = max_weight_matching(range(count), [(u, v, w) for (u, v), w in edges.items()])
    assert _checked_total(mate, edges) == _networkx_total(list(range(count)), edges)


def test_re_solve_without_changes_keeps_the_matching() -> None:
    matching = WeightedMatching()
    for vertex in range(4):
        matching.add_vertex(vertex)
    matching.set_weight(0, 1, 5)
    matching.set_weight(1, 2, 7)
    matching.set_weight(2, 3, 5)
    first = matching.solve()
    assert first == {0: 1, 1: 0, 2: 3, 3: 2}
    assert matching.solve() == first


def test_rejects_loops_and_duplicate_vertices() -> None:
    matching = WeightedMatching()
    matching.add_vertex(0)
    with pytest.raises(ValueError, match="loops"):
        matching.set_weight(0, 0, 1)
    with pytest.raises(ValueError, match="cannot add"):
        matching.add_vertex(0)
    with pytest.raises(ValueError, match="cannot add"):
        matching.add_vertex(-1)


@pytest.mark.parametrize("seed", range(3))
def test_the_call_stack_does_not_grow_with_nested_blossoms(seed: int) -> None:
    """Blossoms nest as deep as the field is large; rotating and dissolving them keeps the
    work on a list. With a few equal weights among 150 players blossoms nest far deeper than
    the 25 frames allowed here (the recursive rotation this replaced needed more on all three)."""
    rng = random.Random(seed)
    count = 148
    edges = {
        (u, v): rng.choice((10, 10, 11, 12))
        for u in range(count)
        for v in range(u + 1, count)
        if rng.random() < 0.3
    }
    matching = WeightedMatching()
    for vertex in range(count):
        matching.add_vertex(vertex)
    for (u, v), weight in edges.items():
        matching.set_weight(u, v, weight)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 25)
    try:
        mate = matching.solve()
    finally:
        sys.setrecursionlimit(limit)
    assert _checked_total(mate, edges) == _networkx_total(list(range(count)), edges)
