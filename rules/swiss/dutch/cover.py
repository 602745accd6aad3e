"""The duals' check of a solver given only some of its players' pairs (see
:class:`~rules.swiss.dutch.graph.PairingGraph`): the pairs it lacks whose weight its duals do
not cover, found by groups of players alike in every fact a pair's weight reads."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from typing import Protocol

from rules.core.colour import Colour
from rules.swiss.dutch.weights import Weights
from rules.swiss.matching import WeightedMatching

# A group of players alike in every fact a pair's weight reads but their own parts: kind, C3
# colour, segment (moved down, resident, next bracket, below), S1 role, restricted, exchange.
Group = tuple[int, Colour | None, int, bool | None, bool, bool]

# Players per block of a group in the check for uncovered pairs.
_BLOCK = 48


class CheckedGraph(Protocol):
    """What the check reads of the pairing graph."""

    @property
    def weights(self) -> Weights: ...

    @property
    def addends(self) -> Mapping[int, int]: ...

    @property
    def overrides(self) -> Mapping[int, Mapping[int, int]]: ...

    @property
    def zeroed(self) -> set[tuple[int, int]]: ...

    def weight(self, u: int, v: int) -> int: ...

    def own_part(self, vertex: int) -> int: ...

    def group_weight(self, high: Group, low: Group) -> int | None: ...


def uncovered_pairs(  # noqa: C901 (the duals' cover check, one algorithm kept flat for speed)
    graph: CheckedGraph,
    matching: WeightedMatching,
    groups: Mapping[Group, list[int]],
    added: int,
) -> list[tuple[int, int, int]]:
    """Pairs the solver lacks whose weight its duals do not cover, with that weight (at
    most ``added`` per player and group): none when its matching is of maximum weight for
    every pair of its players.

    For players ``u < v`` of groups alike but for their own parts, the weight is the
    groups' weight plus each player's own part (plus ``u``'s exchange addend): the
    duals cover every such pair when ``u``'s dual less his part covers the groups'
    weight together with the least dual less part of a later ``v`` of the group, that
    of a ``v`` in ``u``'s outermost blossom counting that blossom's dual too. A pair C1
    forbids, or set apart, weighs no more than that (bonuses are given to the solver).
    """
    vertices = [vertex for lows in groups.values() for vertex in lows]
    dual = matching.dual
    shared = matching.shared_duals()
    addends = graph.addends
    own = {vertex: graph.own_part(vertex) for vertex in vertices}
    value = {vertex: dual(vertex) - 2 * own[vertex] for vertex in vertices}
    outer = {vertex: matching.outer(vertex) for vertex in vertices}
    missing: list[tuple[int, int, int]] = []
    overrides = graph.overrides
    zeroed = graph.zeroed
    blocked = graph.weights.blocked
    solver_weight = matching.weight

    def uncovered(u: int, v: int, alpha: int, beta: int, limit: int, inside: bool) -> int:
        """The pair's weight when the solver lacks it and its duals do not cover it, else 0.

        ``alpha`` and ``beta`` are the players' values (``u``'s less his exchange addend),
        ``limit`` twice the groups' weight, ``inside`` whether they are in one outermost
        blossom (else no blossom holds both). Unless the pair was set apart or C1 forbids
        it, its weight is the groups' plus the players' own parts and ``u``'s exchange
        addend, so the duals cover it exactly when ``alpha + beta`` with the duals of the
        blossoms holding both reach ``limit``: no weight to look up."""
        if v <= u or solver_weight(u, v):
            return 0
        row = overrides.get(u)
        if (row is not None and v in row) or (u, v) in zeroed:
            weight = graph.weight(u, v)
            return weight if dual(u) + dual(v) + shared(u, v) < 2 * weight else 0
        if v in blocked[u]:
            return 0
        if inside and alpha + beta + shared(u, v) >= limit:
            return 0
        return (limit + value[u] - alpha) // 2 + own[u] + own[v]

    for low, lows in groups.items():
        count = len(lows)
        betas = [value[vertex] for vertex in lows]
        tops = [outer[vertex][0] for vertex in lows]
        # Per position, the least value after it, its outermost blossom, and the least
        # value in another outermost blossom.
        suffix: list[tuple[int | None, int, int | None]] = [(None, 0, None)] * (count + 1)
        least: int | None = None
        least_top = 0
        second: int | None = None
        for place in range(count - 1, -1, -1):
            beta, top = betas[place], tops[place]
            if least is None or beta < least:
                if top != least_top:
                    second = least
                least, least_top = beta, top
            elif top != least_top and (second is None or beta < second):
                second = beta
            suffix[place] = (least, least_top, second)
        # Per outermost blossom, its players of the group, with suffix minima.
        inside: dict[int, tuple[list[int], list[int]]] = {}
        for place in range(count):
            if tops[place] < 0:
                inside.setdefault(tops[place], ([], []))[0].append(place)
        for places, minima in inside.values():
            minima.extend(betas[place] for place in places)
            for index in range(len(minima) - 2, -1, -1):
                minima[index] = min(minima[index], minima[index + 1])
        # The group's players in blocks of consecutive positions, each by value: a scan
        # for ``u`` looks only at the blocks after him, each up to the first covered.
        blocks: list[list[int]] | None = None
        for high, highs in groups.items():
            weight = graph.group_weight(high, low)
            if weight is None:
                continue
            limit = 2 * weight
            exchange = bool(high[5] and low[5])
            for u in highs:
                position = bisect_right(lows, u)
                if position == count:
                    break
                alpha = value[u] - (2 * addends[u] if exchange else 0)
                least, least_top, second = suffix[position]
                top, top_dual = outer[u]
                other = least if least_top != top else second
                if other is not None and alpha + other < limit:
                    if blocks is None:
                        blocks = [
                            sorted(range(start, min(start + _BLOCK, count)), key=betas.__getitem__)
                            for start in range(0, count, _BLOCK)
                        ]
                    found = 0
                    for block in blocks[position // _BLOCK :]:
                        for place in block:
                            if alpha + betas[place] >= limit:
                                break
                            if (
                                place >= position
                                and tops[place] != top
                                and (
                                    heavy := uncovered(
                                        u, lows[place], alpha, betas[place], limit, False
                                    )
                                )
                            ):
                                missing.append((u, lows[place], heavy))
                                found += 1
                                if found == added:
                                    break
                        if found == added:
                            break
                mine = inside.get(top) if top < 0 else None
                if mine is None:
                    continue
                places, minima = mine
                start = bisect_right(places, position - 1)
                if start == len(places) or alpha + minima[start] + top_dual >= limit:
                    continue
                found = 0
                for place in sorted(places[start:], key=betas.__getitem__):
                    if alpha + betas[place] + top_dual >= limit:
                        break
                    if heavy := uncovered(u, lows[place], alpha, betas[place], limit, True):
                        missing.append((u, lows[place], heavy))
                        found += 1
                        if found == added:
                            break
    return missing
