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

A field in which nobody has played, scored or floated yet (round 1) needs no matching: every
pair meets every criterion but the arbiter's forbidden pairs, so the first candidate of Article
4 is the pairing (``_fresh_field``).

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
  (players alike in score, colour data, floats and C9 value) and not stored per pair; a
  solver starts with a few pairs per player and kind and is given the others its duals do
  not cover, so a large bracket is solved without its millions of pairs.

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
* C9 acts in a bracket whose residents score no more than the PAB assignee (his own
  scoregroup's, or a lower one he may float into) when no player carried into it has to meet a
  lower scorer than its residents (as bbpPairings does), and always in the last bracket, whose
  single leftover player gets the PAB even when he was moved down from a higher scoregroup.
* Absent players (``present=False``) are not paired and receive nothing from this module; the
  caller records their zero-point round.

Modules, by article
-------------------
``model`` the public values (C.04.1); ``state`` the player data of Article 1 and the check of
the histories; ``absolute`` the absolute criteria C1 and C3 between two players; ``bye`` the
PAB (C2, C5, C9) and whether the round can be completed at all; ``completion`` the search
for completions (C4); ``weights`` the quality criteria C6-C21 as edge weights; ``graph`` the
maximum-weight matchings of the players still unpaired; ``brackets`` the bracket pairer of
Articles 3 and 4; ``colours`` the colour allocation of Article 5. Only the names in
``__all__`` are public.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from rules.core.colour import Colour
from rules.swiss.dutch.brackets import RoundPairer
from rules.swiss.dutch.bye import determine_bye
from rules.swiss.dutch.colours import colour_of
from rules.swiss.dutch.model import (
    Board,
    DutchReason,
    InvalidPairingInputError,
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    RoundRecord,
    SwissPlayer,
)
from rules.swiss.dutch.state import (
    Float,
    PlayerState,
    float_in_round,
    player_states,
    validate_players,
)

_NO_FLOATS = (Float.NONE, Float.NONE)

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
    validate_players(players, round_number, total_rounds)
    states = player_states(
        players,
        round_number=round_number,
        total_rounds=total_rounds,
        points_for_win=points_for_win,
    )
    if not states:
        return RoundPairing(boards=(), bye=None)
    pairs: list[tuple[int, int]]
    fresh = _fresh_field(states, forbidden)
    if fresh is not None:
        pairs, unpaired = fresh
    else:
        bye = determine_bye(states, forbidden)
        pairer = RoundPairer(states, bye, forbidden, round_number - 1)
        pairs, unpaired = pairer.run()
    boards: list[tuple[tuple[Fraction, Fraction, int], Board]] = []
    for u, v in pairs:
        a, b = states[u], states[v]
        higher, lower = (a, b) if u < v else (b, a)
        colour = colour_of(higher, lower, initial_colour)
        board = (
            Board(white=higher.number, black=lower.number)
            if colour is Colour.WHITE
            else Board(white=lower.number, black=higher.number)
        )
        # C.04.2 board order, by the scores without virtual points (as bbpPairings).
        first, second = sorted((a, b), key=lambda state: (-state.points, state.rank))
        boards.append(((-first.points, -second.points, first.rank), board))
    boards.sort(key=lambda item: item[0])
    return RoundPairing(
        boards=tuple(board for _, board in boards),
        bye=None if unpaired is None else states[unpaired].number,
    )


def _fresh_field(
    states: Sequence[PlayerState], forbidden: frozenset[frozenset[int]]
) -> tuple[list[tuple[int, int]], int | None] | None:
    """The pairing of a field in which nobody has played, scored or floated yet (round 1, or
    a round after which everybody present was absent), None for any other field.

    Every criterion is then met by every pair but C1's forbidden pairs: the whole field is one
    homogeneous bracket, the PAB goes to the lowest-ranked player (C5, C9: all alike; C2:
    nobody scored without playing), and the first candidate of Article 4 (S1's i-th player
    against S2's i-th) has no transposition or exchange. Solving the matchings would find the
    same pairs, at a cost that grows with the square of the field.
    """
    for state in states:
        if state.score or state.played_games or state.met or state.floats != _NO_FLOATS:
            return None
    count = len(states)
    half = count // 2
    pairs = [(index, index + half) for index in range(half)]
    numbers = {frozenset((states[u].number, states[v].number)) for u, v in pairs}
    if forbidden and numbers & forbidden:
        return None
    return pairs, (count - 1 if count % 2 else None)
