"""Random Swiss tournaments for tests and benchmarks (seeded: pass a ``random.Random``).

``play_round`` applies random results to a pairing; ``simulate`` pairs every round with a
pairing function (the Dutch engine by default) and yields the state before each round;
``quick_history`` builds a plausible history fast (greedy pairing, no rematches) so that a
benchmark can time the engine on a late round of a large field.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.swiss.dutch import (
    Board,
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundPairing,
    RoundRecord,
    SwissPlayer,
    pair_round,
)

Pairer = Callable[[Sequence[SwissPlayer], int, int], RoundPairing]

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)


@dataclass(frozen=True, slots=True)
class RoundState:
    """The players before a round, and that round's pairing."""

    round_number: int
    players: tuple[SwissPlayer, ...]
    pairing: RoundPairing


def dutch(players: Sequence[SwissPlayer], round_number: int, total_rounds: int) -> RoundPairing:
    """The engine under test, with the default options."""
    return pair_round(players, round_number=round_number, total_rounds=total_rounds)


def _result(rng: random.Random, white: int, black: int, field: int) -> tuple[Fraction, Fraction]:
    # The better player (lower number) wins more often, so scoregroups look like real ones.
    edge = 0.3 * (black - white) / max(field, 1)
    roll = rng.random()
    if roll < 0.4 + edge:
        return WIN, LOSS
    if roll < 0.6 + edge / 2:
        return DRAW, DRAW
    return LOSS, WIN


def play_round(
    players: Sequence[SwissPlayer],
    pairing: RoundPairing,
    rng: random.Random,
    *,
    absent_next: frozenset[int] = frozenset(),
) -> list[SwissPlayer]:
    """Append one round to every history: random results, PAB worth a win, absentees 0."""
    records: dict[int, RoundRecord] = {}
    field = len(players)
    for board in pairing.boards:
        white_points, black_points = _result(rng, board.white, board.black, field)
        records[board.white] = RoundRecord(
            RoundKind.PLAYED, white_points, PlayerNumber(board.black), Colour.WHITE
        )
        records[board.black] = RoundRecord(
            RoundKind.PLAYED, black_points, PlayerNumber(board.white), Colour.BLACK
        )
    if pairing.bye is not None:
        records[pairing.bye] = RoundRecord(RoundKind.PAIRING_BYE, WIN)
    absent = RoundRecord(RoundKind.ABSENT, LOSS)
    return [
        SwissPlayer(
            number=player.number,
            history=(*player.history, records.get(player.number, absent)),
            present=player.number not in absent_next,
        )
        for player in players
    ]


def simulate(
    players: int,
    rounds: int,
    rng: random.Random,
    *,
    pairer: Pairer = dutch,
    absent_rate: float = 0.0,
) -> Iterator[RoundState]:
    """Pair and play ``rounds`` rounds; a player is absent from a round with ``absent_rate``.

    Stops early when a round has no legal pairing (small fields, many rounds).
    """
    state = [
        SwissPlayer(PlayerNumber(number), (), present=rng.random() >= absent_rate)
        for number in range(1, players + 1)
    ]
    for round_number in range(1, rounds + 1):
        try:
            pairing = pairer(state, round_number, rounds)
        except NoLegalPairingError:
            return
        yield RoundState(round_number, tuple(state), pairing)
        absent_next = frozenset(player.number for player in state if rng.random() < absent_rate)
        state = play_round(state, pairing, rng, absent_next=absent_next)


def _greedy(players: Sequence[SwissPlayer]) -> RoundPairing:
    order = sorted(players, key=lambda player: (-player.score, player.number))
    met = {player.number: {record.opponent for record in player.history} for player in players}
    unpaired = [player.number for player in order]
    boards: list[Board] = []
    bye: PlayerNumber | None = None
    if len(unpaired) % 2:
        bye = unpaired.pop()
    while unpaired:
        first = unpaired.pop(0)
        partner = next((other for other in unpaired if other not in met[first]), unpaired[0])
        unpaired.remove(partner)
        whites = {
            player.number: sum(record.colour is Colour.WHITE for record in player.history)
            for player in players
            if player.number in (first, partner)
        }
        if whites[first] <= whites[partner]:
            boards.append(Board(first, partner))
        else:
            boards.append(Board(partner, first))
    return RoundPairing(tuple(boards), bye)


def quick_history(players: int, rounds_played: int, rng: random.Random) -> list[SwissPlayer]:
    """Players after ``rounds_played`` greedily paired rounds (fast; not Dutch pairings)."""
    state = [SwissPlayer(PlayerNumber(number), ()) for number in range(1, players + 1)]
    for _ in range(rounds_played):
        state = play_round(state, _greedy(state), rng)
    return state
