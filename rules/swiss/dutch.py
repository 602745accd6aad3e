"""The FIDE (Dutch) Swiss pairing system, C.04.3 as applied from 1 July 2025.

This module pairs one round of the ACWC qualification Swiss (ACWC rules 3.v). Each pairing is a
10-game match treated as one game: a player's *colour* in a round is the colour he has in the
first game of the match.

Articles followed
-----------------
* C.04.1 (basic rules for Swiss systems) and C.04.2 (general handling rules): players ranked by
  score, then pairing number; a player not present for the round is not paired; the
  pairing-allocated bye (PAB) goes to one player when the number of players is odd; boards are
  published in the C.04.2 order (score of the higher player, then of the lower player, then the
  rank of the higher player; the PAB last).
* C.04.3 (2025):
  - absolute criteria: [C1] no two players meet twice, and no pair the arbiter forbade;
    [C2] no PAB to a player who already scored, without playing, as many points as a win
    (PAB, forfeit win, full-point bye); [C3] two non-topscorers with the same absolute colour
    preference do not meet;
  - completion criterion [C4]: a bracket is paired so that all players still unpaired can be;
  - [C5] minimise the score of the PAB assignee;
  - quality criteria, in descending priority: [C6] minimise downfloaters, [C7] minimise their
    scores, [C8] choose them so that the next bracket does best on C6-C7, [C9] minimise the
    unplayed games of the PAB assignee (in the bracket that downfloats just the PAB assignee),
    [C10]/[C11] topscorers or their opponents with |colour difference| > 2 or three equal
    colours in a row, [C12] colour preferences, [C13] strong colour preferences,
    [C14]-[C17] repeated downfloats/upfloats one and two rounds before, [C18]-[C21] the scores
    involved in those repeated floats;
  - the order in which candidates are examined (S1/S2, transpositions, exchanges: Article 3
    and 4 of the 2025 text) decides between candidates equal on every criterion;
  - colour allocation rules (E.1-E.5 of the previous numbering, Article 5 in 2025): both
    preferences; the stronger preference; alternation to the latest round in which the players
    had different colours; the higher ranked player's preference; the initial colour by the
    parity of the higher ranked player's pairing number.
  - topscorers: in the last round, players with more than half of the maximum score so far.

Method
------
As in the FIDE-endorsed engine bbpPairings, each bracket is paired with maximum-weight
matchings over *all* players still unpaired: an edge weight is a big integer whose bit fields,
from the most significant down, hold the criteria above, so one maximum-weight matching is the
lexicographically best pairing that still completes the round (C4). Choices the criteria leave
open (which moved-down players are paired, their opponents, which S1 players are exchanged with
which S2 players, each S1 player's opponent) are then fixed one at a time in the order of the
2025 text, each time re-solving with a small bonus and keeping the bonus' choice only if it
costs nothing on the criteria.

Each answer the method reads from a matching (how many moved-down players of each score are
paired, who is exchanged, each player's highest allowed opponent) is a property of the set of
maximum-weight matchings, not of the one a solver happens to return, so the work is cut
without changing any pairing:

* A solve covers the current bracket alone, or with the next bracket, instead of every
  unpaired player, when its result is shown to be optimal for the whole field: the players it
  leaves over can be completed with lower players (found by augmenting paths, or guaranteed by
  Dirac's condition) with the PAB to a lower candidate, and, for the bracket alone, the next
  bracket then scores the most C8 allows. Otherwise the whole field is solved.
* A choice is fixed without a re-solve when a zero-cost swap of two pairs already shows it,
  and the S1 players' opponents are fixed on one assignment problem by dual prices and
  alternating paths of tight pairs.
* The matchings come from :mod:`rules.swiss.matching`, a blossom algorithm that keeps its matching
  and dual solution between solves. Each set of players solved (the bracket alone, the
  bracket with the next one, the whole field) has its own solver, which is given only the
  pairs whose weights changed since its last solve and repairs its optimum around them: a
  re-solve after a bonus on one player's pairs grows one or two alternating trees instead of
  solving from scratch. A bracket's weights are computed once per pair of player kinds
  (players alike in score, colour data, floats and C9 value).

Points the text leaves to the implementer, and how this module decides them
--------------------------------------------------------------------------
* Pairing numbers are the ``number`` of each :class:`SwissPlayer` (1 = highest ranked). The
  parity used by the initial-colour rule is that of the *effective* pairing number: the rank
  among players who are present this round or took part in a previous pairing. In round 1 this
  is the rank among the players present, so when a player is absent from round 1 the colours
  continue to alternate down the list of those present.
* A game counts as *played* only when it was actually played: a forfeit is no previous meeting
  (C1), gives no colour, and gives the forfeit loser no float; the forfeit winner, like any
  player who scores more than a loss without playing (PAB, half- or full-point bye), receives a
  downfloat (C.04.3 1.4.3).
* The PAB is worth ``points_for_win``; a player whose history contains an unplayed round worth
  at least that much is not eligible for it (C2). If no eligible player can take it, there is
  no legal pairing.
* Colour history skips unplayed rounds: "two latest games" and "alternation" (rule 5.2.3)
  look at played games only.
* A player with no colour history has no preference; two such players get colours by the
  initial-colour rule.
* C9 acts in the bracket whose scoregroup holds the PAB assignee's score when no player carried
  into it has to meet a lower scorer (as bbpPairings does), and also in the last bracket, whose
  single leftover player gets the PAB even when he was moved down from a higher scoregroup.
* Absent players (``present=False``) are not paired and receive nothing from this module; the
  caller records their zero-point round.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NewType

from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.swiss.matching import WeightedMatching, max_weight_matching

__all__ = [
    "Board",
    "Colour",
    "DutchReason",
    "InvalidPairingInputError",
    "NoLegalPairingError",
    "PlayerNumber",
    "RoundKind",
    "RoundPairing",
    "RoundRecord",
    "SwissPlayer",
    "float_in_round",
    "pair_round",
]

PlayerNumber = NewType("PlayerNumber", int)
"""A tournament pairing number: 1 is the highest ranked player of the initial ranking list."""


class DutchReason(enum.Enum):
    """Why a round could not be paired."""

    NO_LEGAL_PAIRING = "no_legal_pairing"
    INVALID_INPUT = "invalid_input"


class NoLegalPairingError(RulesError):
    """No pairing of the present players satisfies the absolute criteria C1-C3 (C.04.3 C4)."""

    def __init__(self, message: str) -> None:
        super().__init__(DutchReason.NO_LEGAL_PAIRING, message)


class InvalidPairingInputError(RulesError):
    """The player histories given to :func:`pair_round` are inconsistent."""

    def __init__(self, message: str) -> None:
        super().__init__(DutchReason.INVALID_INPUT, message)


class RoundKind(enum.Enum):
    """What happened to a player in one past round."""

    PLAYED = "played"
    """The game was played over the board."""
    FORFEIT = "forfeit"
    """The player was paired but the game was not played (forfeit win or loss)."""
    PAIRING_BYE = "pab"
    """The player received the pairing-allocated bye."""
    ABSENT = "absent"
    """The player was not paired: absent, withdrawn, not yet entered, or a requested bye."""


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One past round of a player: what happened, the points scored, opponent and colour.

    ``opponent`` is set for PLAYED and FORFEIT rounds; ``colour`` only for PLAYED ones.
    """

    kind: RoundKind
    points: Fraction
    opponent: PlayerNumber | None = None
    colour: Colour | None = None


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """A player's state before the round being paired.

    ``history`` has one record per past round, oldest first; every player has exactly
    ``round_number - 1`` records. ``present`` is False for a player who is not to be paired.
    """

    number: PlayerNumber
    history: tuple[RoundRecord, ...]
    present: bool = True

    @property
    def score(self) -> Fraction:
        """Points scored so far."""
        return sum((record.points for record in self.history), Fraction(0))

    @property
    def colours(self) -> tuple[Colour | None, ...]:
        """Colour per past round, None where no game was played."""
        return tuple(record.colour for record in self.history)

    @property
    def opponents(self) -> tuple[PlayerNumber | None, ...]:
        """Opponent per past round (also for forfeits), None where the player was not paired."""
        return tuple(record.opponent for record in self.history)


@dataclass(frozen=True, slots=True)
class Board:
    """One pairing: who has White (in game 1 of the match) and who has Black."""

    white: PlayerNumber
    black: PlayerNumber


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """The pairing of one round: boards in C.04.2 order, and the player given the PAB."""

    boards: tuple[Board, ...]
    bye: PlayerNumber | None


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

    def __init__(self, vertices: Iterable[int], weights: _Weights) -> None:
        self.adj: dict[int, dict[int, int]] = {vertex: {} for vertex in vertices}
        self.restricted: set[int] = set()
        self.scope: frozenset[int] | None = None
        self.lower: list[int] = []
        self.guaranteed = False
        self.lower_matching: dict[int, int] | None = None
        self.lower_rows = _Rows((), weights)
        self.bracket: frozenset[int] | None = None
        self.following: list[int] = []
        self.following_matching: dict[int, int] | None = None
        self.following_rows = _Rows((), weights)
        self.takes: dict[tuple[int, ...], bool] = {}
        self.weights = weights
        # One warm-started solver per set of players solved (None: the whole field).
        self.views: dict[frozenset[int] | None, _View] = {}

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
        return explicit + (_top(u, v, weights.bye) << top_shift)

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

    def _start(self, group: Sequence[int], rows: _Rows) -> dict[int, int]:
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
                _alternating_search(
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
        completion = _complete_matching(
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
        inner = _complete_matching(
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

    def _build_view(self) -> _View:
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
        return _View(matching)

    def _sync_view(self, view: _View) -> None:
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


class _View:
    """A solver for one set of players, and what changed since it last solved."""

    __slots__ = ("matching", "pairs", "rows")

    def __init__(self, matching: WeightedMatching) -> None:
        self.matching = matching
        self.pairs: set[tuple[int, int]] = set()
        self.rows: set[int] = set()


def _max_weight_matching(
    vertices: Sequence[int], edges: Sequence[tuple[int, int, int]]
) -> dict[int, int]:
    """A maximum-weight matching of positive-weight edges, as a map from vertex to mate."""
    return max_weight_matching(vertices, edges)


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
        self.blocked = [frozenset(row) for row in _blocked_pairs(states, forbidden)]
        self.c3 = [_c3_class(state) for state in states]
        # Players alike in everything :meth:`bracket` reads share a kind, so a bracket's
        # weights are computed once per pair of kinds (and flags), not once per pair.
        kinds: dict[tuple[object, ...], int] = {}
        self.kind = [
            kinds.setdefault(
                (
                    state.level,
                    bye.c9_value[index] if state.score == bye.score else None,
                    state.preference,
                    state.absolute,
                    state.strong,
                    state.imbalance,
                    state.repeated,
                    state.floats,
                ),
                len(kinds),
            )
            for index, state in enumerate(states)
        ]
        self.kind_weights: dict[tuple[int, bool, bool, bool], dict[int, int]] = {}

    def compatible(self, u: int, v: int) -> bool:
        """Absolute criteria C1 and C3 (as :func:`_compatible`)."""
        if v in self.blocked[u]:
            return False
        colour = self.c3[u]
        return colour is None or colour is not self.c3[v]

    def bracket_row(
        self, highers: Iterable[int], lo: int, *, in_current: bool, in_next: bool, c9: bool
    ) -> list[int]:
        """:meth:`bracket` for each of ``highers`` against ``lo``."""
        blocked = self.blocked
        c3 = self.c3
        kind = self.kind
        lo_c3 = c3[lo]
        # The weights against ``lo``'s kind (with these flags), by the higher player's kind.
        known = self.kind_weights.setdefault((kind[lo], in_current, in_next, c9), {})
        row: list[int] = []
        for hi in highers:
            if lo in blocked[hi] or (lo_c3 is not None and c3[hi] is lo_c3):
                row.append(0)
                continue
            hi_kind = kind[hi]
            weight = known.get(hi_kind)
            if weight is None:
                weight = self.bracket(hi, lo, in_current=in_current, in_next=in_next, c9=c9)
                known[hi_kind] = weight
            row.append(weight)
        return row

    def bracket(self, hi: int, lo: int, *, in_current: bool, in_next: bool, c9: bool) -> int:
        """Criteria weight of the pair (higher ``hi``, lower ``lo``) while pairing a bracket,
        without the completion field, which the solver adds."""
        if not self.compatible(hi, lo):
            return 0
        layout = self.layout
        shift = layout.shift
        hs = self.states[hi]
        ls = self.states[lo]
        weight = 0
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


def _blocked_pairs(
    states: Sequence[_State], forbidden: frozenset[frozenset[int]]
) -> list[list[int]]:
    """Per player, the players he may not meet for C1 (met before, or forbidden)."""
    index_of: dict[int, int] = {state.number: index for index, state in enumerate(states)}
    blocked: list[list[int]] = [
        sorted((index_of[number] for number in state.met if number in index_of), key=int)
        for state in states
    ]
    for pair in sorted(forbidden, key=sorted):
        numbers = sorted(pair)
        if len(numbers) == 2 and numbers[0] in index_of and numbers[1] in index_of:
            first, second = index_of[numbers[0]], index_of[numbers[1]]
            blocked[first].append(second)
            blocked[second].append(first)
    return blocked


def _c3_class(state: _State) -> Colour | None:
    """The colour of a non-topscorer's absolute preference: two such players of the same
    colour may not meet (C3)."""
    return state.preference if state.absolute and not state.topscorer else None


class _Rows:
    """Each player's compatible players (C1, C3) among a group, in the group's order,
    computed once per player."""

    __slots__ = ("blocked", "c3", "group", "rows")

    def __init__(self, group: Sequence[int], weights: _Weights) -> None:
        self.group = group
        self.blocked = weights.blocked
        self.c3 = weights.c3
        self.rows: dict[int, list[int]] = {}

    def __call__(self, vertex: int) -> list[int]:
        row = self.rows.get(vertex)
        if row is None:
            blocked = self.blocked[vertex]
            colour = self.c3[vertex]
            if colour is None:
                row = [other for other in self.group if other != vertex and other not in blocked]
            else:
                c3 = self.c3
                row = [
                    other
                    for other in self.group
                    if other != vertex and other not in blocked and c3[other] is not colour
                ]
            self.rows[vertex] = row
        return row


def _alternating_search(
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


def _complete_matching(
    upper: Sequence[int],
    lower: Sequence[int],
    compatible: Callable[[int, int], bool],
    bye_allowed: Callable[[int], bool],
    start: Mapping[int, int],
    rows: _Rows,
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
    for vertex in free:
        if vertex not in matching:
            _alternating_search(
                vertex,
                matching,
                neighbours,
                lambda _: True,
                to_free=True,
                free=[other for other in free if other not in matching],
                adjacent=adjacent,
            )
    left = [vertex for vertex in everybody if vertex not in matching]
    if not left:
        return matching
    if len(left) > 1:
        return None
    if bye_allowed(left[0]):
        return matching
    found = _alternating_search(left[0], matching, neighbours, bye_allowed, to_free=False)
    return matching if found else None


def _dirac(
    states: Sequence[_State],
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
        colour = _c3_class(states[index])
        if colour is not None:
            classes[colour] = classes.get(colour, 0) + 1
    for index in everybody:
        degree = len(lower_set) - (index in lower_set)
        colour = _c3_class(states[index])
        if colour is not None:
            degree -= classes.get(colour, 0)
        degree -= sum(1 for other in blocked[index] if other in lower_set)
        if 2 * degree < total:
            return False
    return True


def _determine_bye(states: Sequence[_State], forbidden: frozenset[frozenset[int]]) -> _ByeContext:
    """Check C4 for the whole round and, for an odd number of players, apply C2 and C5."""
    n = len(states)
    eligible = frozenset(index for index, state in enumerate(states) if state.bye_eligible)
    odd = n % 2 == 1
    probe = _ByeContext(candidates=eligible if odd else frozenset(), score=None, c9_value={})
    top_score = states[0].score
    if _dirac(states, _blocked_pairs(states, forbidden), (), range(n)):
        # Any player can be left out of a complete pairing: no PAB for an even number, else
        # the PAB goes to the lowest eligible scoregroup (C5). Only when that is the top
        # scoregroup does C9's first-bracket rule need an actual matching.
        if not odd:
            return _ByeContext(candidates=frozenset(), score=None, c9_value={})
        if not eligible:
            raise NoLegalPairingError(
                "Every player who could take the pairing-allocated bye has already scored a "
                "win without playing (C.04.3 C2)."
            )
        lowest = min(states[index].score for index in eligible)
        if lowest < top_score:
            return _bye_context(states, eligible, lowest, first=False)
    level_bits = (n * (max((s.level for s in states), default=0) + 1)).bit_length() + 1
    top_bits = n.bit_length() + 1
    edges: list[tuple[int, int, int]] = []
    for u in range(n):
        for v in range(u + 1, n):
            if _compatible(states[u], states[v], forbidden):
                weight = (_top(u, v, probe) << level_bits) + states[u].level + states[v].level
                weight = (weight << top_bits) + int(states[v].score >= top_score)
                edges.append((u, v, weight))
    mate = _max_weight_matching(range(n), edges)
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
    # C9 acts in the first bracket when the PAB goes to a player of the top scoregroup and
    # that scoregroup downfloats nobody else.
    first = score >= top_score and all(
        index not in mate or states[mate[index]].score >= top_score
        for index, state in enumerate(states)
        if state.score >= top_score
    )
    return _bye_context(states, eligible, score, first=first)


def _bye_context(
    states: Sequence[_State], eligible: frozenset[int], score: Fraction, *, first: bool
) -> _ByeContext:
    candidates = frozenset(index for index in eligible if states[index].score <= score)
    most = max(state.played_games for state in states)
    # C9: pairing a player with fewer played games is worth more, so the PAB goes to the
    # candidate with the fewest unplayed games.
    c9_value = {
        index: most - state.played_games
        for index, state in enumerate(states)
        if state.score == score
    }
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
        self.graph = _Graph(range(n), self.weights)
        self.blocked = _blocked_pairs(states, forbidden)
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
        score = self.bye.score
        if score is None or not following or self.states[following[0]].score != score:
            return False
        mate = self.last_mate
        return all(
            index not in mate or self.states[mate[index]].score >= score for index in carried
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
        graph.new_bracket()
        bracket = mdps + residents
        resident_set = set(residents)
        following_set = set(following)
        members = bracket + following
        # Base weights: every pair in this bracket and the next except MDP-MDP pairs, which
        # stay unpaired (they could have met in the bracket they floated from).
        base_weights = self.base
        for position, lower in enumerate(members):
            if lower not in resident_set and lower not in following_set:
                continue
            highers = members[:position]
            in_next = lower in following_set
            row = weights.bracket_row(
                highers, lower, in_current=not in_next, in_next=in_next, c9=c9_active
            )
            for higher, weight in zip(highers, row, strict=True):
                base_weights[(higher, lower) if higher < lower else (lower, higher)] = weight
            graph.set_row(lower, highers, row)
        for position, first in enumerate(mdps):
            for second in mdps[position + 1 :]:
                self._set_base(first, second, 0)
                graph.set(first, second, 0)
        self._set_scope(bracket, following, members)
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
                    break
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
            best = next((r for r in residents if r in graph.adj and self._base(index, r)), None)
            # The current matching is optimal; if it already gives (or a swap gives at no
            # cost) the highest resident, the bonus cannot change it.
            if mate.get(index) != best and not self._swap(mate, index, best):
                bonus = 0
                for resident in reversed(residents):
                    if resident not in graph.adj:
                        continue
                    base = self._base(index, resident)
                    if base:
                        graph.set(index, resident, base + bonus)
                        bonus += 1
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

    def _set_scope(
        self, bracket: Sequence[int], following: list[int], members: Sequence[int]
    ) -> None:
        """Solve the bracket and the next one without the players below them when a solve can
        show that its pairing of the two brackets completes the round with the best C4-C5
        outcome (see :class:`_Graph`)."""
        graph = self.graph
        member_set = frozenset(members)
        lower = [index for index in sorted(graph.adj, key=int) if index not in member_set]
        graph.scope = None
        graph.bracket = None
        graph.lower = lower
        graph.lower_matching = None
        graph.lower_rows = _Rows(lower, self.weights)
        graph.following = following
        graph.following_matching = None
        graph.following_rows = _Rows(following, self.weights)
        graph.takes = {}
        if not lower:
            return
        if self.bye.score is not None and not any(index in self.bye.candidates for index in lower):
            return
        graph.scope = member_set
        graph.guaranteed = _dirac(self.states, self.blocked, members, lower)
        if following:
            graph.bracket = frozenset(bracket)

    def _swap(self, mate: dict[int, int], player: int, target: int | None) -> bool:
        """Give ``player`` the ``target`` by swapping partners with the target's opponent, if
        that costs nothing: then ``mate``, a maximum-weight matching, stays one."""
        current = mate.get(player)
        other = None if target is None else mate.get(target)
        if target is None or current is None or other is None:
            return False
        weight = self.graph.full_weight
        gained = weight(player, target)
        kept = weight(current, other)
        if not gained or not kept:
            return False
        if gained + kept != weight(player, current) + weight(target, other):
            return False
        mate[player], mate[target] = target, player
        mate[current], mate[other] = other, current
        return True

    def _assign_s1(
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
        alive = [index for index in remainder if index in graph.adj]
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
        if spare and graph.bracket is None:
            return False
        weight = graph.full_weight
        edges: dict[int, dict[int, int]] = {
            first: {second: w for second in s2 if second > first and (w := weight(first, second))}
            for first in s1
        }
        for number, second in enumerate(left):
            dummy = -1 - number
            edges[dummy] = dict.fromkeys(s2, 0)
            assign[dummy] = second
            assign[second] = dummy
        # Prices of S1 players: u[a] >= u[b's mate] + w(a, b) - w(b's mate, b) for every pair.
        price = dict.fromkeys(edges, 0)
        arcs: dict[int, list[tuple[int, int]]] = {first: [] for first in edges}
        for first, row in edges.items():
            for second, w in row.items():
                holder = assign[second]
                if holder != first:
                    arcs[holder].append((first, w - edges[holder][second]))
        queue = deque(edges)
        queued = set(edges)
        steps = 0
        while queue:
            steps += 1
            if steps > len(edges) * len(edges) + len(edges):
                return False  # a positive cycle: not optimal for the bracket alone
            current = queue.popleft()
            queued.discard(current)
            for target, length in arcs[current]:
                if price[current] + length > price[target]:
                    price[target] = price[current] + length
                    if target not in queued:
                        queue.append(target)
                        queued.add(target)

        # A pair is tight when its weight is the S1 price plus the S2 price; an S2 player's
        # price follows from his tight pair in the assignment, and stays the same when the
        # assignment changes along tight pairs.
        s2_price = {
            second: edges[holder][second] - price[holder]
            for second in s2
            if (holder := assign[second]) in edges
        }
        tight_pairs: dict[int, list[int]] = {
            first: [second for second, w in row.items() if price[first] + s2_price[second] == w]
            for first, row in edges.items()
        }
        tight_sets = {first: frozenset(row) for first, row in tight_pairs.items()}

        bracket = graph.bracket or frozenset()
        for player in s1:
            opponent = assign[player]
            for candidate in s2:
                if candidate not in graph.adj or candidate not in edges[player]:
                    continue
                if candidate == opponent:
                    break
                if candidate not in tight_sets[player]:
                    continue
                before = dict(assign)
                if not self._tight_path(assign, player, candidate, tight_pairs):
                    continue
                if spare:
                    leftover = [
                        index
                        for index in bracket
                        if index in graph.adj and assign.get(index, -1) < 0
                    ]
                    if not graph.next_bracket_takes(leftover):
                        # Not shown to be optimal for the whole round: re-solve from here.
                        assign.clear()
                        assign.update(before)
                        self._sync(mate, assign)
                        return False
                opponent = candidate
                break
            mate[player], mate[opponent] = opponent, player
            self._finalize(player, opponent)
        self._sync(mate, assign)
        return True

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
        for first in queue:
            for second in tight_pairs[first]:
                if second == candidate or second not in graph.adj:
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

    def _natural_roles(self, mate: dict[int, int], s1: Sequence[int], s2: Sequence[int]) -> None:
        """Swap partners at no cost between S1-S1 and S2-S2 pairs of ``mate`` (a maximum-weight
        matching, which stays one) so that S1 players meet S2 players where possible."""
        s1_set = frozenset(s1)
        s2_set = frozenset(s2)
        weight = self.graph.full_weight
        for first in s1:
            second = mate.get(first)
            if second is None or second not in s1_set or second < first:
                continue
            for third in s2:
                fourth = mate.get(third)
                if fourth is None or fourth not in s2_set:
                    continue
                before = weight(first, second) + weight(third, fourth)
                for a, b in ((third, fourth), (fourth, third)):
                    if (
                        weight(first, a)
                        and weight(second, b)
                        and weight(first, a) + weight(second, b) == before
                    ):
                        mate[first], mate[a] = a, first
                        mate[second], mate[b] = b, second
                        break
                else:
                    continue
                break
        graph = self.graph
        bracket = graph.bracket
        if bracket is None:
            return
        # An S1 player left over while two S2 players meet: he can take one of them at no
        # cost for the bracket alone; the matching stays one of the best when the new
        # leftover still lets the next bracket do its best (see _Graph.solve).
        for first in s1:
            partner = mate.get(first)
            if partner is not None and partner in bracket:
                continue
            for third in s2:
                fourth = mate.get(third)
                if fourth is None or fourth not in s2_set or fourth < third:
                    continue
                before = graph.adj[third].get(fourth, 0)
                for taken, freed in ((third, fourth), (fourth, third)):
                    if graph.adj[first].get(taken, 0) != before or not before:
                        continue
                    leftover = [
                        index
                        for index in bracket
                        if index in graph.adj
                        and index != first
                        and (mate.get(index) not in bracket or index == freed)
                    ]
                    if not graph.next_bracket_takes(leftover):
                        continue
                    if partner is not None:
                        mate.pop(partner, None)
                    mate[first], mate[taken] = taken, first
                    mate.pop(freed, None)
                    break
                else:
                    continue
                break

    def _restrict_to(self, index: int, allowed: Sequence[int]) -> None:
        self.graph.restrict(index, allowed)

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

        self._natural_roles(mate, remainder[:s1_size], remainder[s1_size:])
        base_weights = self.base
        exchange_shift = layout.exchange_shift
        index_shift = layout.index_shift
        addends = [
            (int(position < s1_size) << exchange_shift) - (position << index_shift)
            for position in range(len(remainder))
        ]
        for position, lower in enumerate(remainder):
            highers = remainder[:position]
            row = []
            for higher, addend in zip(highers, addends, strict=False):
                base = base_weights.get((higher, lower) if higher < lower else (lower, higher), 0)
                row.append(base + addend if base else 0)
            graph.set_row(lower, highers, row)
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
        roles = {index: in_s1_role(index, mate) for index in remainder}
        for position, higher in enumerate(remainder):
            lowers = remainder[position + 1 :]
            row = []
            for lower in lowers:
                key = (higher, lower) if higher < lower else (lower, higher)
                if not roles[higher] or roles[lower]:
                    base_weights[key] = 0
                row.append(base_weights.get(key, 0))
            graph.set_row(higher, lowers, row)
        # Each S1 player, in order, takes the highest opponent the criteria allow.
        if self._assign_s1(mate, remainder, in_s1_role):
            return mate
        for player in remainder:
            if player not in graph.adj or not in_s1_role(player, mate):
                continue
            best = next(
                (
                    other
                    for other in remainder
                    if other > player and other in graph.adj and self._base(player, other)
                ),
                None,
            )
            if mate.get(player) != best and not self._swap(mate, player, best):
                bonus = 0
                for other in reversed(remainder):
                    if other <= player or other not in graph.adj:
                        continue
                    base = self._base(player, other)
                    if base:
                        graph.set(player, other, base + bonus)
                    bonus += 1
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
