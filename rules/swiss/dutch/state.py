"""Player data (C.04.3 Article 1): score, ranking, colour preferences, floats, topscorers,
and the check that the histories given are consistent."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.colour import Colour
from rules.swiss.dutch.model import (
    InvalidPairingInputError,
    PlayerNumber,
    RoundKind,
    SwissPlayer,
)


class Float(enum.Enum):
    """The float a player received in a past round (C.04.3 1.4)."""

    DOWN = "down"
    UP = "up"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What the criteria need to know about one present player (C.04.3 Article 1)."""

    number: PlayerNumber
    score: Fraction
    """The pairing score: the score plus the round's virtual points (C.04.5)."""
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
    floats: tuple[Float, Float]
    met: frozenset[PlayerNumber]
    points: Fraction
    """The score without virtual points (C.04.2 orders the boards by it)."""


def colour_data(
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


def float_in(
    player: SwissPlayer,
    rounds_back: int,
    by_number: Mapping[PlayerNumber, SwissPlayer],
    totals: Mapping[PlayerNumber, Sequence[int]] | None = None,
) -> Float:
    """The float a player received ``rounds_back`` rounds ago (C.04.3 1.4.2-1.4.3), by the
    pairing scores of that round; ``totals`` (:func:`_running_totals` of every player, in
    units of one common denominator: :func:`_scaled_totals`) spares summing histories."""
    if len(player.history) < rounds_back:
        return Float.NONE
    record = player.history[len(player.history) - rounds_back]
    if record.kind is not RoundKind.PLAYED:
        return Float.DOWN if record.points > 0 else Float.NONE
    assert record.opponent is not None
    at = len(player.history) - rounds_back
    own: Fraction | int
    other: Fraction | int
    if totals is None:
        own = _running_totals(player)[at]
        other = _running_totals(by_number[record.opponent])[at]
    else:
        own, other = totals[player.number][at], totals[record.opponent][at]
    if own > other:
        return Float.DOWN
    if own < other:
        return Float.UP
    return Float.NONE


def float_in_round(
    player: SwissPlayer, rounds_back: int, players: Mapping[PlayerNumber, SwissPlayer]
) -> str:
    """The float (``"up"``, ``"down"`` or ``"none"``) a player received ``rounds_back`` rounds
    ago, by C.04.3 1.4; ``players`` maps numbers to players, for the opponents' scores."""
    return float_in(player, rounds_back, players).value


def validate_players(players: Sequence[SwissPlayer], round_number: int, total_rounds: int) -> None:  # noqa: C901 (one check a line of C.04.3's input rules)
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


def _running_totals(player: SwissPlayer) -> list[Fraction]:
    """The player's pairing score in round 1, in round 2, and so on up to the round being
    paired: the score before the round plus its virtual points (C.04.5; bbpPairings uses these
    for brackets, floats, the PAB and colours alike)."""
    totals = [Fraction(0)]
    for record in player.history:
        totals.append(totals[-1] + record.points)
    virtual = player.acceleration
    if any(virtual):
        return [total + (virtual[i] if i < len(virtual) else 0) for i, total in enumerate(totals)]
    return totals


def _scaled_totals(
    players: Sequence[SwissPlayer],
) -> tuple[int, dict[PlayerNumber, list[int]], dict[PlayerNumber, int]]:
    """Every player's :func:`_running_totals` and score without virtual points, as whole
    numbers of one unit (1 / the least common denominator of all points): a sum of
    fractions costs microseconds, and a 10,000-player field has some 100,000 of them."""
    unit = 1
    for player in players:
        for record in player.history:
            denominator = record.points.denominator
            if unit % denominator:
                unit = math.lcm(unit, denominator)
        for extra in player.acceleration:
            if unit % extra.denominator:
                unit = math.lcm(unit, extra.denominator)
    totals: dict[PlayerNumber, list[int]] = {}
    points: dict[PlayerNumber, int] = {}
    for player in players:
        total = 0
        running = [0]
        for record in player.history:
            total += record.points.numerator * (unit // record.points.denominator)
            running.append(total)
        points[player.number] = total
        virtual = player.acceleration
        if any(virtual):
            running = [
                total
                + (
                    virtual[i].numerator * (unit // virtual[i].denominator)
                    if i < len(virtual)
                    else 0
                )
                for i, total in enumerate(running)
            ]
        totals[player.number] = running
    return unit, totals, points


def player_states(
    players: Sequence[SwissPlayer],
    *,
    round_number: int,
    total_rounds: int,
    points_for_win: Fraction,
) -> list[PlayerState]:
    """The present players with their derived data, in pairing order (C.04.3 1.2)."""
    by_number = {player.number: player for player in players}
    present = [player for player in players if player.present]
    unit, totals, raw_points = _scaled_totals(players)
    scores = {player.number: totals[player.number][-1] for player in present}
    levels = {score: index for index, score in enumerate(sorted(set(scores.values())))}
    fractions: dict[int, Fraction] = {}

    def fraction(units: int) -> Fraction:
        value = fractions.get(units)
        if value is None:
            value = fractions[units] = Fraction(units, unit)
        return value

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
    result: list[PlayerState] = []
    for player in present:
        played = [
            record.colour
            for record in player.history
            if record.kind is RoundKind.PLAYED and record.colour is not None
        ]
        preference, absolute, strong, imbalance, repeated = colour_data(played)
        met = frozenset(
            record.opponent
            for record in player.history
            if record.kind is RoundKind.PLAYED and record.opponent is not None
        )
        eligible = not any(
            record.kind is not RoundKind.PLAYED and record.points >= points_for_win
            for record in player.history
        )
        score = fraction(scores[player.number])
        result.append(
            PlayerState(
                number=player.number,
                score=score,
                level=levels[scores[player.number]],
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
                floats=(
                    float_in(player, 1, by_number, totals),
                    float_in(player, 2, by_number, totals),
                ),
                met=met,
                points=fraction(raw_points[player.number]),
            )
        )
    result.sort(key=lambda state: (-scores[state.number], state.rank))
    return result
