"""The shortcuts inside the Dutch engine give what the plain computations they replace give.

* ``Weights.pair`` looks a bracket's weights up by pair of player kinds: it must equal
  ``Weights.bracket`` for every pair (the kind must hold all that bracket() reads).
* ``CompatibleRows`` lists each player's compatible players once: it must equal filtering the group
  with ``Weights.compatible``.
* ``PairingGraph`` feeds each warm-started solver only some pairs, and of those only the ones that
  changed: after any sequence of changes, each solver must hold the weights
  ``PairingGraph.weight`` gives for the pairs it has, and solve to the weight of a fresh
  maximum-weight matching of all pairs.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bench.tournaments import quick_history, simulate
from rules.swiss.dutch import NoLegalPairingError, PlayerNumber, SwissPlayer
from rules.swiss.dutch.brackets import RoundPairer
from rules.swiss.dutch.bye import determine_bye
from rules.swiss.dutch.graph import PairingGraph
from rules.swiss.dutch.state import player_states
from rules.swiss.dutch.weights import CompatibleRows
from rules.swiss.matching import max_weight_matching


def _weights(
    players: list[SwissPlayer], round_number: int, total_rounds: int
) -> RoundPairer | None:
    states = player_states(
        players, round_number=round_number, total_rounds=total_rounds, points_for_win=Fraction(1)
    )
    if len(states) < 2:
        return None
    forbidden: frozenset[frozenset[int]] = frozenset()
    try:
        bye = determine_bye(states, forbidden)
    except NoLegalPairingError:
        return None
    return RoundPairer(states, bye, forbidden, round_number - 1)


def _fields(seed: int) -> list[tuple[list[SwissPlayer], int, int]]:
    rng = random.Random(seed)
    count = rng.choice([6, 11, 20, 33])
    rounds = rng.randint(2, 7)
    absent = rng.choice([0.0, 0.15])
    return [
        (list(state.players), state.round_number, rounds)
        for state in simulate(count, rounds, rng, absent_rate=absent)
    ]


@pytest.mark.parametrize("seed", range(24))
def test_pair_equals_bracket_for_every_pair(seed: int) -> None:
    for players, round_number, total_rounds in _fields(seed):
        pairer = _weights(players, round_number, total_rounds)
        if pairer is None:
            continue
        weights = pairer.weights
        count = len(pairer.states)
        for in_current, in_next in ((True, False), (False, True)):
            for c9 in (False, True):
                for lo in range(count):
                    for hi in range(lo):
                        flags = {"in_current": in_current, "in_next": in_next, "c9": c9}
                        assert weights.pair(hi, lo, **flags) == weights.bracket(hi, lo, **flags)


@pytest.mark.parametrize("seed", range(8))
def test_rows_list_the_compatible_players_in_group_order(seed: int) -> None:
    for players, round_number, total_rounds in _fields(seed):
        pairer = _weights(players, round_number, total_rounds)
        if pairer is None:
            continue
        weights = pairer.weights
        count = len(pairer.states)
        rng = random.Random(seed)
        group = sorted(rng.sample(range(count), rng.randint(1, count)))
        rows = CompatibleRows(group, weights)
        for vertex in range(count):
            expected = [o for o in group if o != vertex and weights.compatible(vertex, o)]
            assert rows(vertex) == expected
            assert rows(vertex) == expected  # the cached row


def _check_views(graph: PairingGraph) -> None:
    """Each solver holds the weights the graph gives its scope, and solves optimally."""
    saved = graph.scope
    try:
        for key, view in graph.views.items():
            graph.scope = key
            solved = graph._solve()  # passes the pending changes to the solver
            vertices = graph.vertices()
            held = [vertex for vertex in view.matching.vertices() if vertex != graph.dummy]
            assert held == vertices
            assert graph.dummy not in solved
            edges = []
            for index, u in enumerate(vertices):
                for v in vertices[index + 1 :]:
                    weight = graph.weight(u, v)
                    if view.matching.weight(u, v):
                        assert view.matching.weight(u, v) == weight, (key is None, u, v)
                    if weight > 0:
                        edges.append((u, v, weight))
            fresh = max_weight_matching(vertices, edges)
            total = {(u, v): w for u, v, w in edges}

            def value(mate: dict[int, int], total: dict[tuple[int, int], int] = total) -> int:
                return sum(total[u, v] for u, v in mate.items() if u < v)

            assert value(solved) == value(fresh)
    finally:
        graph.scope = saved


@pytest.mark.parametrize("seed", range(20))
def test_graph_feeds_its_solvers_every_change(seed: int) -> None:
    rng = random.Random(seed)
    count = rng.randint(8, 40)
    players = quick_history(count, rng.randint(1, 5), rng)
    pairer = _weights(players, len(players[0].history) + 1, 9)
    if pairer is None:
        return
    graph = pairer.graph
    alive = list(range(len(pairer.states)))
    top = 1 << pairer.layout.shift["c6"]
    # A bracket: moved-down players, residents, the next bracket; the rest below.
    cuts = sorted(rng.sample(range(len(alive) + 1), 3))
    mdps, residents, following = (
        alive[: cuts[0]],
        alive[cuts[0] : cuts[1]],
        alive[cuts[1] : cuts[2]],
    )
    graph.new_bracket(mdps, residents, following, rng.random() < 0.5)
    for u in alive:
        for v in alive:
            if u < v and rng.random() < 0.5:
                graph.set(u, v, rng.randint(0, top))
    scope = frozenset(rng.sample(alive, len(alive) // 2))
    for key in (None, scope):
        graph.scope = key
        graph._solve()
    graph.scope = None
    _check_views(graph)
    for _ in range(25):
        roll = rng.random()
        u, v = rng.sample(alive, 2)
        if roll < 0.5:
            graph.set(u, v, rng.choice([0, rng.randint(1, top)]))
        elif roll < 0.55:
            remainder = [o for o in residents if o in alive]
            graph.start_exchanges(remainder, rng.randint(0, len(remainder)))
        elif roll < 0.6:
            remainder = [o for o in residents if o in alive]
            graph.fix_roles({o: rng.random() < 0.5 for o in remainder})
        elif roll < 0.7:
            if u in graph.members and v in graph.members:
                graph.zero_base(u, v)
        elif roll < 0.8:
            graph.restrict(u, rng.sample(alive, len(alive) // 3))
        elif roll < 0.9 and len(alive) > 4:
            graph.remove(u)
            alive.remove(u)
        _check_views(graph)


def test_players_are_numbered_from_the_top() -> None:
    # The graph tests above index players by rank; make sure ranks are what they think.
    players = [SwissPlayer(PlayerNumber(number), ()) for number in (3, 1, 2)]
    states = player_states(players, round_number=1, total_rounds=3, points_for_win=Fraction(1))
    assert [state.number for state in states] == [1, 2, 3]
