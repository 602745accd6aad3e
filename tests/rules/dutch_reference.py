"""The slow FIDE Dutch engine as it was before the fast matching work: a test-only oracle.

Same method as rules/swiss/dutch/, but each solve is networkx's max_weight_matching over every
unpaired player; it shares only the public data types with rules.swiss.dutch, so that tests can
check the fast engine gives identical pairings.

Frozen: tests/rules/test_reference_frozen.py checks this file's SHA-256 against the recorded
one. It was not frozen before, and changed with the engine in 4b0523f, 2e570cd and 48e7c3b
(each a C.04.3 rule fixed in both, checked against bbpPairings). Change it only when the rules
change, with the reason and the new hash in the commit message.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

from rules.core.colour import Colour
from rules.swiss.dutch import (
    Board,
    InvalidPairingInputError,
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    SwissPlayer,
)


class _Float(enum.Enum):
    DOWN = "down"
    UP = "up"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class _State:
    """What the criteria need to know about one present player (C.04.3 Article 1)."""

    number: PlayerNumber
    score: Fraction
    level: int
    rank: int
    preference: Colour | None
    absolute: bool
    strong: bool
    imbalance: int
    repeated: Colour | None
    played_colours: tuple[Colour, ...]
    played_games: int
    bye_eligible: bool
    topscorer: bool
    floats: tuple[_Float, _Float]
    met: frozenset[PlayerNumber]


# ---------------------------------------------------------------------------
# Player data (C.04.3 Article 1)
# ---------------------------------------------------------------------------


def _colour_data(
    played: Sequence[Colour],
) -> tuple[Colour | None, bool, bool, int, Colour | None]:
    """Colour preference, absolute?, strong?, imbalance and repeated colour (C.04.3 1.6)."""
    whites = sum(1 for colour in played if colour is Colour.WHITE)
    blacks = len(played) - whites
    imbalance = abs(whites - blacks)
    lower = Colour.BLACK if whites > blacks else Colour.WHITE
    run = 0
    last: Colour | None = None
    for colour in played:
        run = run + 1 if colour is last else 1
        last = colour
    preference: Colour | None
    if imbalance > 1:
        preference = lower
    elif run > 1 and last is not None:
        preference = last.opposite
    elif imbalance > 0:
        preference = lower
    elif last is not None:
        preference = last.opposite
    else:
        preference = None
    repeated = last if run > 1 else None
    absolute = imbalance > 1 or repeated is not None
    strong = not absolute and imbalance > 0
    return preference, absolute, strong, imbalance, repeated


def _score_before(player: SwissPlayer, rounds_back: int) -> Fraction:
    history = player.history
    return sum((record.points for record in history[: len(history) - rounds_back]), Fraction(0))


def _float_in(
    player: SwissPlayer, rounds_back: int, by_number: Mapping[PlayerNumber, SwissPlayer]
) -> _Float:
    """The float a player received ``rounds_back`` rounds ago (C.04.3 1.4.2-1.4.3)."""
    if len(player.history) < rounds_back:
        return _Float.NONE
    record = player.history[len(player.history) - rounds_back]
    if record.kind is not RoundKind.PLAYED:
        return _Float.DOWN if record.points > 0 else _Float.NONE
    assert record.opponent is not None
    own = _score_before(player, rounds_back)
    other = _score_before(by_number[record.opponent], rounds_back)
    if own > other:
        return _Float.DOWN
    if own < other:
        return _Float.UP
    return _Float.NONE


def float_in_round(
    player: SwissPlayer, rounds_back: int, players: Mapping[PlayerNumber, SwissPlayer]
) -> str:
    """The float (``"up"``, ``"down"`` or ``"none"``) a player received ``rounds_back`` rounds
    ago, by C.04.3 1.4; ``players`` maps numbers to players, for the opponents' scores."""
    return _float_in(player, rounds_back, players).value


def _validate(players: Sequence[SwissPlayer], round_number: int, total_rounds: int) -> None:
    if round_number < 1:
        raise InvalidPairingInputError(f"Round {round_number} does not exist; rounds start at 1.")
    if total_rounds < round_number:
        raise InvalidPairingInputError(
            f"Cannot pair round {round_number} of a {total_rounds}-round tournament."
        )
    numbers = [player.number for player in players]
    if len(set(numbers)) != len(numbers):
        raise InvalidPairingInputError("Two players share a pairing number.")
    known = set(numbers)
    for player in players:
        if player.number < 1:
            raise InvalidPairingInputError(f"Pairing number {player.number} is not positive.")
        if len(player.history) != round_number - 1:
            raise InvalidPairingInputError(
                f"Player {player.number} has {len(player.history)} past rounds, "
                f"expected {round_number - 1}."
            )
        for index, record in enumerate(player.history):
            if record.kind in (RoundKind.PLAYED, RoundKind.FORFEIT):
                if record.opponent is None or record.opponent not in known:
                    raise InvalidPairingInputError(
                        f"Player {player.number}, round {index + 1}: unknown opponent."
                    )
                if record.opponent == player.number:
                    raise InvalidPairingInputError(
                        f"Player {player.number}, round {index + 1}: plays himself."
                    )
            if record.kind is RoundKind.PLAYED and record.colour is None:
                raise InvalidPairingInputError(
                    f"Player {player.number}, round {index + 1}: played game without a colour."
                )
            if record.points < 0:
                raise InvalidPairingInputError(
                    f"Player {player.number}, round {index + 1}: negative points."
                )


def _states(
    players: Sequence[SwissPlayer],
    *,
    round_number: int,
    total_rounds: int,
    points_for_win: Fraction,
) -> list[_State]:
    """The present players with their derived data, in pairing order (C.04.3 1.2)."""
    by_number = {player.number: player for player in players}
    present = [player for player in players if player.present]
    scores = {player.number: player.score for player in present}
    levels = {score: index for index, score in enumerate(sorted(set(scores.values())))}
    # Effective pairing numbers: rank among players present now or paired before.
    counted = sorted(
        (
            player.number
            for player in players
            if player.present
            or any(record.kind is not RoundKind.ABSENT for record in player.history)
        ),
        key=lambda number: number,
    )
    rank_of = {number: index for index, number in enumerate(counted)}
    last_round = round_number >= total_rounds
    threshold = points_for_win * (round_number - 1) / 2
    result: list[_State] = []
    for player in present:
        played = [
            record.colour
            for record in player.history
            if record.kind is RoundKind.PLAYED and record.colour is not None
        ]
        preference, absolute, strong, imbalance, repeated = _colour_data(played)
        met = frozenset(
            record.opponent
            for record in player.history
            if record.kind is RoundKind.PLAYED and record.opponent is not None
        )
        eligible = not any(
            record.kind is not RoundKind.PLAYED and record.points >= points_for_win
            for record in player.history
        )
        score = scores[player.number]
        result.append(
            _State(
                number=player.number,
                score=score,
                level=levels[score],
                rank=rank_of[player.number],
                preference=preference,
                absolute=absolute,
                strong=strong,
                imbalance=imbalance,
                repeated=repeated,
                played_colours=tuple(played),
                played_games=len(played),
                bye_eligible=eligible,
                topscorer=last_round and score > threshold,
                floats=(_float_in(player, 1, by_number), _float_in(player, 2, by_number)),
                met=met,
            )
        )
    result.sort(key=lambda state: (-state.score, state.rank))
    return result


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------


class _Graph:
    """Positive integer edge weights among the players still unpaired, and a solver."""

    __slots__ = ("adj", "must", "must_weight")

    def __init__(self, vertices: Iterable[int]) -> None:
        self.adj: dict[int, dict[int, int]] = {vertex: {} for vertex in vertices}
        # Chosen moved-down players, who must stay paired: each adds ``must_weight`` (one unit
        # of the completion field) to his pairs when solving.
        self.must: set[int] = set()
        self.must_weight = 0

    def set(self, u: int, v: int, weight: int) -> None:
        if weight > 0:
            self.adj[u][v] = weight
            self.adj[v][u] = weight
        else:
            self.adj[u].pop(v, None)
            self.adj[v].pop(u, None)

    def get(self, u: int, v: int) -> int:
        return self.adj[u].get(v, 0)

    def remove(self, vertex: int) -> None:
        for other in self.adj.pop(vertex):
            del self.adj[other][vertex]
        self.must.discard(vertex)

    def solve(self) -> dict[int, int]:
        """A maximum-weight matching, as a map from each matched vertex to its mate."""
        graph = nx.Graph()
        graph.add_nodes_from(sorted(self.adj, key=lambda vertex: vertex))
        for u in sorted(self.adj, key=lambda vertex: vertex):
            for v, weight in self.adj[u].items():
                if u < v:
                    must = (u in self.must) + (v in self.must)
                    graph.add_edge(u, v, weight=weight + must * self.must_weight)
        mate: dict[int, int] = {}
        for u, v in nx.max_weight_matching(graph, maxcardinality=False):
            mate[u] = v
            mate[v] = u
        return mate


# ---------------------------------------------------------------------------
# Edge weights
# ---------------------------------------------------------------------------


class _Layout:
    """Bit layout of an edge weight: criteria fields, most significant first.

    Every field is wide enough to hold its sum over any matching, so comparing two matchings'
    total weights compares their criteria lexicographically. Score-indexed fields have one digit
    per score level, the highest score most significant.
    """

    def __init__(self, states: Sequence[_State], rounds_played: int, c9_width: int) -> None:
        n = max(len(states), 2)
        counts: dict[int, int] = {}
        for state in states:
            counts[state.level] = counts.get(state.level, 0) + 1
        levels = max(counts, default=0) + 1
        count_bits = n.bit_length() + 1
        digit_bits = [(2 * counts.get(level, 0) + 1).bit_length() for level in range(levels)]
        # Offsets of each level's digit inside a score-indexed field (level 0 least significant).
        self.level_offset: list[int] = []
        offset = 0
        for bits in digit_bits:
            self.level_offset.append(offset)
            offset += bits
        level_bits = offset
        self.probe_bits = n.bit_length() + 2
        self.index_shift = self.probe_bits
        self.exchange_shift = self.index_shift + (n * n).bit_length() + 2
        self.low_bits = self.exchange_shift + count_bits + 1
        self.rounds_played = rounds_played
        widths: list[tuple[str, int]] = [
            ("top", (4 * n).bit_length() + 1),
            ("c6", count_bits),
            ("c7", level_bits),
            ("c8a", count_bits),
            ("c8b", level_bits),
            ("c9", c9_width),
            ("c10", count_bits),
            ("c11", count_bits),
            ("c12", count_bits),
            ("c13", count_bits),
            ("c14", count_bits),
            ("c15", count_bits),
            ("c16", count_bits),
            ("c17", count_bits),
            ("c18", level_bits),
            ("c19", level_bits),
            ("c20", level_bits),
            ("c21", level_bits),
        ]
        self.shift: dict[str, int] = {}
        position = self.low_bits
        for name, width in reversed(widths):
            self.shift[name] = position
            position += width

    def level_digit(self, level: int) -> int:
        return 1 << self.level_offset[level]


def _compatible(a: _State, b: _State, forbidden: frozenset[frozenset[int]]) -> bool:
    """Absolute criteria C1 and C3 (and the arbiter's forbidden pairs, treated as C1)."""
    if b.number in a.met or frozenset((a.number, b.number)) in forbidden:
        return False
    return (
        not a.absolute
        or not b.absolute
        or a.preference is not b.preference
        or a.topscorer
        or b.topscorer
    )


def _preferences_compatible(a: Colour | None, b: Colour | None) -> bool:
    return a is None or b is None or a is not b


def _colour_fields(lower: _State, higher: _State) -> tuple[int, int, int, int]:
    """Whether the pair complies with C10, C11, C12 and C13 (1 = complies)."""
    same = lower.preference is higher.preference and lower.preference is not None
    c10 = not (lower.imbalance > 1 and higher.imbalance > 1 and same)
    if not (lower.absolute and higher.absolute and same):
        c11 = True
    elif lower.imbalance == higher.imbalance:
        c11 = lower.repeated is None or lower.repeated is not higher.repeated
    else:
        # The player with the smaller imbalance yields the colour (rule 5.2.2).
        yielding = higher if lower.imbalance > higher.imbalance else lower
        assert lower.preference is not None
        c11 = yielding.repeated is not lower.preference.opposite
    c12 = _preferences_compatible(lower.preference, higher.preference)
    c13 = (
        (not lower.strong and not lower.absolute)
        or (not higher.strong and not higher.absolute)
        or (lower.absolute and higher.absolute)
        or lower.preference is not higher.preference
    )
    return int(c10), int(c11), int(c12), int(c13)


@dataclass(frozen=True, slots=True)
class _ByeContext:
    """What C2, C5 and C9 need: bye candidates, the PAB assignee's score, C9's ranking."""

    candidates: frozenset[int]
    score: Fraction | None
    c9_value: Mapping[int, int]
    c9_first_bracket: bool = False


def _top(u: int, v: int, bye: _ByeContext) -> int:
    return 1 + (u not in bye.candidates) + (v not in bye.candidates)


class _Weights:
    """Computes edge weights for one round."""

    def __init__(
        self,
        states: Sequence[_State],
        layout: _Layout,
        bye: _ByeContext,
        forbidden: frozenset[frozenset[int]],
    ) -> None:
        self.states = states
        self.layout = layout
        self.bye = bye
        self.forbidden = forbidden
        self._compat: dict[tuple[int, int], bool] = {}

    def compatible(self, u: int, v: int) -> bool:
        key = (u, v) if u < v else (v, u)
        known = self._compat.get(key)
        if known is None:
            known = _compatible(self.states[u], self.states[v], self.forbidden)
            self._compat[key] = known
        return known

    def plain(self, u: int, v: int) -> int:
        """Weight of a pair outside the current and next bracket: completion only (C4, C2)."""
        if not self.compatible(u, v):
            return 0
        return _top(u, v, self.bye) << self.layout.shift["top"]

    def bracket(self, hi: int, lo: int, *, in_current: bool, in_next: bool, c9: bool) -> int:
        """Weight of the pair (higher ``hi``, lower ``lo``) while pairing a bracket."""
        if not self.compatible(hi, lo):
            return 0
        layout = self.layout
        shift = layout.shift
        hs = self.states[hi]
        ls = self.states[lo]
        weight = _top(hi, lo, self.bye) << shift["top"]
        if in_current:
            weight |= 1 << shift["c6"]
            weight |= layout.level_digit(hs.level) << shift["c7"]
        if in_next:
            weight |= 1 << shift["c8a"]
            weight |= layout.level_digit(hs.level) << shift["c8b"]
        if c9 and self.bye.score is not None:
            value = 0
            if hs.score == self.bye.score:
                value += self.bye.c9_value[hi]
            if ls.score == self.bye.score:
                value += self.bye.c9_value[lo]
            weight += value << shift["c9"]
        if not in_current:
            return weight
        c10, c11, c12, c13 = _colour_fields(ls, hs)
        weight |= (
            (c10 << shift["c10"])
            | (c11 << shift["c11"])
            | (c12 << shift["c12"])
            | (c13 << shift["c13"])
        )
        mdp_pair = hs.score > ls.score
        rounds = layout.rounds_played
        for back, count_down, count_up, score_down, score_up in (
            (1, "c14", "c15", "c18", "c19"),
            (2, "c16", "c17", "c20", "c21"),
        ):
            if rounds < back:
                continue
            lower_float = ls.floats[back - 1]
            higher_float = hs.floats[back - 1]
            repeated_down = int(lower_float is _Float.DOWN) + int(
                not mdp_pair and higher_float is _Float.DOWN
            )
            weight += repeated_down << shift[count_down]
            upfloat_again = mdp_pair and lower_float is _Float.UP
            weight |= int(not upfloat_again) << shift[count_up]
            digits = 0
            if lower_float is _Float.DOWN:
                digits += layout.level_digit(ls.level)
            if higher_float is _Float.DOWN:
                digits += layout.level_digit(hs.level)
            weight += digits << shift[score_down]
            if not upfloat_again:
                weight += layout.level_digit(hs.level) << shift[score_up]
        return weight


# ---------------------------------------------------------------------------
# Round pairing
# ---------------------------------------------------------------------------


def _determine_bye(states: Sequence[_State], forbidden: frozenset[frozenset[int]]) -> _ByeContext:
    """Check C4 for the whole round and, for an odd number of players, apply C2 and C5."""
    n = len(states)
    eligible = frozenset(index for index, state in enumerate(states) if state.bye_eligible)
    odd = n % 2 == 1
    probe = _ByeContext(candidates=eligible if odd else frozenset(), score=None, c9_value={})
    level_bits = (n * (max((s.level for s in states), default=0) + 1)).bit_length() + 1
    top_bits = n.bit_length() + 1
    top_score = states[0].score
    graph = _Graph(range(n))
    for u in range(n):
        for v in range(u + 1, n):
            if _compatible(states[u], states[v], forbidden):
                weight = (_top(u, v, probe) << level_bits) + states[u].level + states[v].level
                weight = (weight << top_bits) + int(states[v].score >= top_score)
                graph.set(u, v, weight)
    mate = graph.solve()
    unmatched = [index for index in range(n) if index not in mate]
    if len(unmatched) > (1 if odd else 0):
        raise NoLegalPairingError(
            "No pairing of the present players avoids rematches, forbidden pairs and "
            "absolute colour conflicts (C.04.3 C1, C3)."
        )
    if not odd:
        return _ByeContext(candidates=frozenset(), score=None, c9_value={})
    assignee = unmatched[0]
    if assignee not in eligible:
        raise NoLegalPairingError(
            "Every player who could take the pairing-allocated bye has already scored a "
            "win without playing (C.04.3 C2)."
        )
    score = states[assignee].score
    candidates = frozenset(index for index in eligible if states[index].score <= score)
    most = max(state.played_games for state in states)
    # C9: pairing a player with fewer played games is worth more, so the PAB goes to the
    # candidate with the fewest unplayed games.
    c9_value = {
        index: most - state.played_games
        for index, state in enumerate(states)
        if state.score == score
    }
    # C9 acts in the first bracket when the PAB goes to a player of the top scoregroup and
    # that scoregroup downfloats nobody else.
    first = score >= top_score and all(
        index not in mate or states[mate[index]].score >= top_score
        for index, state in enumerate(states)
        if state.score >= top_score
    )
    return _ByeContext(
        candidates=candidates, score=score, c9_value=c9_value, c9_first_bracket=first
    )


class _RoundPairer:
    """Pairs the brackets of one round from the top down (C.04.3 Articles 2-4)."""

    def __init__(
        self,
        states: Sequence[_State],
        bye: _ByeContext,
        forbidden: frozenset[frozenset[int]],
        rounds_played: int,
    ) -> None:
        self.states = states
        n = len(states)
        c9_width = (2 * n * (rounds_played + 1) + 1).bit_length() + 1
        self.layout = _Layout(states, rounds_played, c9_width)
        self.weights = _Weights(states, self.layout, bye, forbidden)
        self.bye = bye
        self.graph = _Graph(range(n))
        self.graph.must_weight = 1 << self.layout.shift["top"]
        for u in range(n):
            for v in range(u + 1, n):
                self.graph.set(u, v, self.weights.plain(u, v))
        self.pairs: list[tuple[int, int]] = []
        self.base: dict[tuple[int, int], int] = {}
        self.last_mate: dict[int, int] = {}

    # -- helpers ---------------------------------------------------------

    def _base(self, u: int, v: int) -> int:
        return self.base.get((u, v) if u < v else (v, u), 0)

    def _set_base(self, u: int, v: int, weight: int) -> None:
        self.base[(u, v) if u < v else (v, u)] = weight

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
            mdps = [index for index in carried if index not in set(following)]
            residents = following
        unpaired = sorted(self.graph.adj, key=lambda vertex: vertex)
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

    def _pair_bracket(
        self,
        mdps: list[int],
        residents: list[int],
        following: list[int],
        c9_active: bool,
    ) -> list[int]:
        """Pair one bracket; return the players carried to the next one (MDPs, then next group)."""
        graph = self.graph
        weights = self.weights
        bracket = mdps + residents
        resident_set = set(residents)
        following_set = set(following)
        members = bracket + following
        # Base weights: every pair in this bracket and the next except MDP-MDP pairs, which
        # stay unpaired (they could have met in the bracket they floated from).
        for position, lower in enumerate(members):
            if lower not in resident_set and lower not in following_set:
                continue
            for higher in members[:position]:
                in_next = lower in following_set
                weight = weights.bracket(
                    higher, lower, in_current=not in_next, in_next=in_next, c9=c9_active
                )
                self._set_base(higher, lower, weight)
                graph.set(higher, lower, weight)
        for position, first in enumerate(mdps):
            for second in mdps[position + 1 :]:
                self._set_base(first, second, 0)
                graph.set(first, second, 0)
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
                    # Not paired here (Article 3.3): no pair with a resident may replace a
                    # chosen player's (fixed with the fast engine's "lost every opponent").
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
            bonus = 1  # from 1: a chosen player left over must not tie with him paired
            best: int | None = None
            for resident in reversed(residents):
                if resident not in graph.adj:
                    continue
                base = self._base(index, resident)
                if base:
                    graph.set(index, resident, base + bonus)
                    bonus += 1
                    best = resident
            # The current matching is optimal; if it already gives the highest resident, the
            # bonus cannot change it.
            if mate.get(index) != best:
                mate = graph.solve()
            opponent = mate.get(index)
            if opponent is None:  # pragma: no cover - the restriction guarantees a mate
                raise NoLegalPairingError("A moved-down player lost every opponent.")
            self._finalize(index, opponent)
        # The remainder (homogeneous part): S1 and S2, exchanges, transpositions.
        remainder = [index for index in residents if index in graph.adj]
        if remainder:
            mate = self._pair_remainder(remainder, following, mate, resident_hi)
        self.last_mate = mate
        carried = [index for index in bracket if index in graph.adj]
        return carried + list(following)

    def _restrict_to(self, index: int, allowed: Sequence[int]) -> None:
        """Keep only the chosen moved-down player's pairs with ``allowed`` players, and keep
        him paired (Article 3.3): without that, a later solve that gives another moved-down
        player a bonus could leave him over at no cost when both have equal pairs."""
        self.graph.must.add(index)
        keep = set(allowed)
        for other in list(self.graph.adj[index]):
            if other not in keep:
                self.graph.set(index, other, 0)

    def _pair_remainder(
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
            position = position_of[higher]
            addend = (int(position < s1_size) << layout.exchange_shift) - (
                position << layout.index_shift
            )
            return base + addend

        for position, lower in enumerate(remainder):
            for higher in remainder[:position]:
                graph.set(higher, lower, exchange_weight(higher, lower))
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
                    self._set_base(player, other, 0)
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
                    self._set_base(other, player, 0)
                    graph.set(other, player, 0)
                for other in following:
                    if other in graph.adj:
                        self._set_base(player, other, 0)
                        graph.set(player, other, 0)
            if not already:
                for other in later:
                    graph.set(player, other, exchange_weight(player, other))
        # Fix the roles: only S1-role players paired with later non-S1-role players remain.
        for position, higher in enumerate(remainder):
            for lower in remainder[position + 1 :]:
                if not in_s1_role(higher, mate) or in_s1_role(lower, mate):
                    self._set_base(higher, lower, 0)
                graph.set(higher, lower, self._base(higher, lower))
        # Each S1 player, in order, takes the highest opponent the criteria allow.
        for player in remainder:
            if player not in graph.adj or not in_s1_role(player, mate):
                continue
            bonus = 0
            best: int | None = None
            for other in reversed(remainder):
                if other <= player or other not in graph.adj:
                    continue
                base = self._base(player, other)
                if base:
                    graph.set(player, other, base + bonus)
                    best = other
                bonus += 1
            if mate.get(player) != best:
                mate = graph.solve()
            self._finalize(player, mate[player])
        return mate


# ---------------------------------------------------------------------------
# Colours and board order
# ---------------------------------------------------------------------------


def _first_difference(a: _State, b: _State) -> tuple[Colour | None, Colour | None]:
    """The two players' colours in the latest round (of their played games) they differed."""
    for colour_a, colour_b in zip(
        reversed(a.played_colours), reversed(b.played_colours), strict=False
    ):
        if colour_a is not colour_b:
            return colour_a, colour_b
    return None, None


def _neutral_colour(player: _State, opponent: _State) -> Colour | None:
    if _preferences_compatible(player.preference, opponent.preference):
        if player.preference is not None:
            return player.preference
        if opponent.preference is not None:
            return opponent.preference.opposite
        return None
    assert player.preference is not None
    assert opponent.preference is not None
    if player.absolute and (player.imbalance > opponent.imbalance or not opponent.absolute):
        return player.preference
    if opponent.absolute and (opponent.imbalance > player.imbalance or not player.absolute):
        return opponent.preference.opposite
    if player.strong and not opponent.strong:
        return player.preference
    if opponent.strong and not player.strong:
        return opponent.preference.opposite
    mine, theirs = _first_difference(player, opponent)
    if mine is not None and theirs is not None:
        return theirs
    return None


def _colour_of(player: _State, opponent: _State, initial: Colour) -> Colour:
    """Colour of ``player`` against ``opponent`` (C.04.3 Article 5, formerly E.1-E.5)."""
    neutral = _neutral_colour(player, opponent)
    if neutral is not None:
        return neutral
    player_higher = (player.score, -player.rank) > (opponent.score, -opponent.rank)
    higher = player if player_higher else opponent
    if player.preference is None:
        # E.5: the higher ranked player gets the initial colour on an odd pairing number.
        higher_colour = initial if higher.rank % 2 == 0 else initial.opposite
    else:
        # E.4: the higher ranked player gets his preference.
        assert higher.preference is not None
        higher_colour = higher.preference
    return higher_colour if player_higher else higher_colour.opposite


def pair_round(
    players: Sequence[SwissPlayer],
    *,
    round_number: int,
    total_rounds: int,
    forbidden: frozenset[frozenset[int]] = frozenset(),
    initial_colour: Colour = Colour.WHITE,
    points_for_win: Fraction = Fraction(1),
) -> RoundPairing:
    """Pair round ``round_number`` by the FIDE Dutch system (C.04.3, 2025; ACWC rules 3.v).

    ``players`` lists every player of the tournament with his history; those with
    ``present=False`` are not paired. ``forbidden`` holds pairs of pairing numbers the arbiter
    does not allow to meet (treated like C1). ``initial_colour`` is drawn before round 1 (rule
    5.2.5). ``points_for_win`` is the value of a win and of the PAB.

    Raises:
        NoLegalPairingError: no pairing satisfies the absolute criteria C1-C3.
        InvalidPairingInputError: the histories are inconsistent (wrong length, unknown
            opponents, duplicate numbers).
    """
    _validate(players, round_number, total_rounds)
    states = _states(
        players,
        round_number=round_number,
        total_rounds=total_rounds,
        points_for_win=points_for_win,
    )
    if not states:
        return RoundPairing(boards=(), bye=None)
    bye = _determine_bye(states, forbidden)
    pairer = _RoundPairer(states, bye, forbidden, round_number - 1)
    pairs, unpaired = pairer.run()
    boards: list[tuple[tuple[Fraction, Fraction, int], Board]] = []
    for u, v in pairs:
        a, b = states[u], states[v]
        higher, lower = (a, b) if u < v else (b, a)
        colour = _colour_of(higher, lower, initial_colour)
        board = (
            Board(white=higher.number, black=lower.number)
            if colour is Colour.WHITE
            else Board(white=lower.number, black=higher.number)
        )
        boards.append(((-higher.score, -lower.score, higher.rank), board))
    boards.sort(key=lambda item: item[0])
    return RoundPairing(
        boards=tuple(board for _, board in boards),
        bye=None if unpaired is None else states[unpaired].number,
    )
