"""Completion (C.04.3 C4): can the players still unpaired all be paired, leaving out at most
one player who may take the PAB? Augmenting paths grown from a start, and Dirac's condition
as a guarantee that needs no search."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from rules.core.colour import Colour
from rules.swiss.dutch.absolute import c3_class
from rules.swiss.dutch.state import PlayerState


def alternating_search(
    start: int,
    matching: dict[int, int],
    neighbours: Callable[[int], Iterable[int]],
    goal: Callable[[int], bool],
    *,
    to_free: bool,
    free: Sequence[int] = (),
    adjacent: Callable[[int, int], bool] | None = None,
) -> bool:
    """Grow alternating paths from the unmatched ``start``; flip the first that ends well.

    With ``to_free``, a path ends at another unmatched player accepted by ``goal`` (an
    augmenting path: one more pair). Otherwise it ends by freeing a matched player accepted by
    ``goal`` (``start`` is matched instead). Only simple paths are grown, so a path found is
    always valid; a path may be missed (blossoms), which callers treat as "not found".
    ``free`` (the unmatched players) and ``adjacent`` let an augmenting path end as soon as
    it reaches a player next to one of them, before all neighbours are scanned.
    """
    parent: dict[int, int] = {start: start}
    queue = [start]
    for outer in queue:
        shortcut = (
            [
                other
                for other in free
                if other not in parent and adjacent(outer, other) and goal(other)
            ][:1]
            if to_free and adjacent is not None
            else []
        )
        for other in (*shortcut, *neighbours(outer)):
            if other in parent:
                continue
            partner = matching.get(other)
            if partner is None:
                if not to_free or not goal(other):
                    continue
                tail, head = outer, other
            elif partner in parent:
                continue
            elif not to_free and goal(partner):
                del matching[partner]
                tail, head = outer, other
            else:
                parent[other] = outer
                parent[partner] = other
                queue.append(partner)
                continue
            while True:
                previous = matching.get(tail) if tail != start else None
                matching[tail] = head
                matching[head] = tail
                if previous is None:
                    return True
                head = previous
                tail = parent[previous]
    return False


def start_matching(
    group: Sequence[int],
    rows: Callable[[int], Iterable[int]],
    compatible: Callable[[int, int], bool],
) -> dict[int, int]:
    """Pairs among the players of a group alone, the start of completions; ``rows`` gives
    each player's compatible players in the group."""
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
    unmatched = len(waiting)
    for vertex in list(waiting):
        if unmatched < 2:
            # No other unmatched player to end an augmenting path at: the search would
            # look at every alternating path in vain (on 10,000 players, seconds each).
            break
        if vertex not in start:
            unmatched -= 2 * alternating_search(
                vertex,
                start,
                rows,
                lambda _: True,
                to_free=True,
                free=[other for other in waiting if other not in start],
                adjacent=compatible,
            )
    return start


def complete_matching(
    upper: Sequence[int],
    lower: Sequence[int],
    compatible: Callable[[int, int], bool],
    bye_allowed: Callable[[int], bool],
    start: Mapping[int, int],
    rows: Callable[[int], Sequence[int]],
) -> dict[int, int] | None:
    """A pairing of all of ``upper`` and ``lower`` that pairs ``upper`` players only with
    ``lower`` ones, leaving out nobody or (for an odd number) one player ``bye_allowed``.

    Grown by augmenting paths from ``start`` (a matching of ``lower`` players; ``rows``
    holds their compatible players). None when none was found, which does not prove that
    there is none.
    """
    upper_set = frozenset(upper)

    def neighbours(vertex: int) -> Iterable[int]:
        if vertex in upper_set:
            return rows(vertex)
        return [
            *(other for other in upper if other != vertex and compatible(vertex, other)),
            *rows(vertex),
        ]

    def adjacent(vertex: int, other: int) -> bool:
        return (vertex not in upper_set or other not in upper_set) and compatible(vertex, other)

    matching = dict(start)
    everybody = [*upper, *lower]
    free = [vertex for vertex in everybody if vertex not in matching]
    unmatched = len(free)
    for vertex in free:
        if vertex not in matching:
            if unmatched < 2:
                # No other unmatched player to end an augmenting path at: the search
                # would look at every alternating path in vain.
                break
            if alternating_search(
                vertex,
                matching,
                neighbours,
                lambda _: True,
                to_free=True,
                free=[other for other in free if other not in matching],
                adjacent=adjacent,
            ):
                unmatched -= 2
    left = [vertex for vertex in everybody if vertex not in matching]
    if not left:
        return matching
    if len(left) > 1:
        return None
    if bye_allowed(left[0]):
        return matching
    found = alternating_search(left[0], matching, neighbours, bye_allowed, to_free=False)
    return matching if found else None


def dirac(
    states: Sequence[PlayerState],
    blocked: Sequence[Sequence[int]],
    upper: Iterable[int],
    lower: Iterable[int],
) -> bool:
    """Whether every player of ``upper`` and ``lower`` is compatible with at least half of
    all of them among the ``lower`` players alone.

    Then (Dirac's theorem) the players of ``lower`` together with any of the ``upper`` ones
    have a Hamiltonian cycle: they can be paired completely, or, for an odd number, completely
    but for any one player chosen beforehand.
    """
    lower_set = frozenset(lower)
    everybody = [*upper, *lower_set]
    total = len(everybody)
    if len(lower_set) < 3:
        return False
    classes: dict[Colour, int] = {}
    for index in lower_set:
        colour = c3_class(states[index])
        if colour is not None:
            classes[colour] = classes.get(colour, 0) + 1
    for index in everybody:
        degree = len(lower_set) - (index in lower_set)
        colour = c3_class(states[index])
        if colour is not None:
            degree -= classes.get(colour, 0)
        degree -= sum(1 for other in blocked[index] if other in lower_set)
        if 2 * degree < total:
            return False
    return True
