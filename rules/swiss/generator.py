"""The random tournament generator (C.04.A asks it of an endorsed program): a whole Swiss
tournament, every round paired by the Dutch engine, written as a tournament report file.

Its configuration is the one the endorsement tools read (JaVaFo's and bbpPairings' generator
files): ``Key=Value`` lines, ``#`` comments.

==================  ========================================================================
``PlayersNumber``   players (2 to 20000)
``RoundsNumber``    rounds (1 to 99)
``HighestRating``   the ratings are drawn uniformly between these two (0 to 4000)
``LowestRating``
``DrawPercentage``  the chance, in percent, that a game played is drawn (0 to 100)
``ForfeitRate``     one game in N is forfeited, won by either player (0: never)
``RetiredRate``     in each round, one player in N withdraws for the rest of it (0: never)
``HalfPointByeRate`` in each round, one player in N takes a half-point bye (0: never)
``PointsForWin``    the scoring: only 1, 0.5 and 0 (the engine's) are accepted
``PointsForDraw``
``PointsForLoss``
``Seed``            the random seed (default 0): the same seed gives the same tournament
==================  ========================================================================

A game that is not drawn is won by the higher-rated player with the Elo expectation. When a
round has no legal pairing (a small field, many rounds) the tournament ends there.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, fields
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.swiss.dutch import NoLegalPairingError, RoundPairing
from rules.swiss.trf import (
    TrfCell,
    TrfPlayer,
    TrfReason,
    TrfResult,
    TrfTournament,
    pair_trf_round,
)

__all__ = ["GeneratedTournament", "GeneratorConfig", "GeneratorError", "generate", "parse_config"]


class GeneratorError(RulesError):
    """A generator configuration that cannot be used; ``line`` locates it (0: as a whole)."""

    def __init__(self, line: int, problem: str) -> None:
        where = f"line {line}: " if line else ""
        super().__init__(TrfReason.MALFORMED, f"{where}{problem}")
        self.line = line


@dataclass(frozen=True, slots=True)
class GeneratorConfig:
    """The generator's parameters (see the module's table)."""

    players: int = 30
    rounds: int = 9
    highest_rating: int = 2600
    lowest_rating: int = 1400
    draw_percentage: int = 30
    forfeit_rate: int = 0
    retired_rate: int = 0
    half_point_bye_rate: int = 0
    seed: int = 0


_KEYS = {
    "PlayersNumber": ("players", 2, 20000),
    "RoundsNumber": ("rounds", 1, 99),
    "HighestRating": ("highest_rating", 0, 4000),
    "LowestRating": ("lowest_rating", 0, 4000),
    "DrawPercentage": ("draw_percentage", 0, 100),
    "ForfeitRate": ("forfeit_rate", 0, 10**9),
    "RetiredRate": ("retired_rate", 0, 10**9),
    "HalfPointByeRate": ("half_point_bye_rate", 0, 10**9),
    "Seed": ("seed", 0, 2**63),
}
_SCORING = {"PointsForWin": Fraction(1), "PointsForDraw": Fraction(1, 2), "PointsForLoss": 0}


def parse_config(text: str) -> GeneratorConfig:
    """Read a generator configuration.

    Raises:
        GeneratorError: an unknown key, a value that is not a whole number or out of range,
            a key given twice, or a scoring the engine does not use.
    """
    values: dict[str, int] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, equals, value = (part.strip() for part in line.partition("="))
        if not equals:
            raise GeneratorError(number, f"expected Key=Value, found {raw.strip()!r}")
        if key in _SCORING:
            try:
                points = Fraction(value)
            except ValueError:
                raise GeneratorError(number, f"{key} must be a number, found {value!r}") from None
            if points != _SCORING[key]:
                raise GeneratorError(
                    number, f"{key}={value}: only the scoring 1, 0.5, 0 is supported"
                )
            continue
        if key not in _KEYS:
            known = ", ".join([*_KEYS, *_SCORING])
            raise GeneratorError(number, f"unknown key {key!r} (known: {known})")
        name, low, high = _KEYS[key]
        if name in values:
            raise GeneratorError(number, f"{key} is given twice")
        if not value.isdigit() or not low <= int(value) <= high:
            raise GeneratorError(
                number, f"{key} must be a whole number from {low} to {high}, found {value!r}"
            )
        values[name] = int(value)
    config = GeneratorConfig(**values)
    if config.lowest_rating > config.highest_rating:
        raise GeneratorError(0, "LowestRating is above HighestRating")
    return config


@dataclass(frozen=True, slots=True)
class GeneratedTournament:
    """The tournament made, and the round that had no legal pairing (None: all were paired)."""

    tournament: TrfTournament
    stopped_at: int | None


def _static(name: str, rating: int, points: Fraction, rank: int) -> str:
    """Columns 9-89 of a player record: name (15-47), rating (49-52), points (81-84), rank."""
    shown = f"{float(points):.1f}"
    return f"{'':6}{name:<33} {rating:4d}{'':28}{shown:>4} {rank:4d}"


@dataclass(slots=True)
class _Entrant:
    number: int
    rating: int
    cells: list[TrfCell]
    retired: bool = False


def _expected(white: int, black: int) -> float:
    return 1 / (1 + 10 ** ((black - white) / 400))


def _play(
    config: GeneratorConfig,
    rng: random.Random,
    entrants: Sequence[_Entrant],
    pairing: RoundPairing,
) -> None:
    """Append the round's cells: the games' results, the PAB."""
    by_number = {entrant.number: entrant for entrant in entrants}
    for board in pairing.boards:
        white, black = by_number[board.white], by_number[board.black]
        if config.forfeit_rate and rng.randrange(config.forfeit_rate) == 0:
            white_wins = rng.random() < 0.5
            white_result = TrfResult.FORFEIT_WIN if white_wins else TrfResult.FORFEIT_LOSS
            black_result = TrfResult.FORFEIT_LOSS if white_wins else TrfResult.FORFEIT_WIN
        elif rng.randrange(100) < config.draw_percentage:
            white_result = black_result = TrfResult.DRAW
        elif rng.random() < _expected(white.rating, black.rating):
            white_result, black_result = TrfResult.WIN, TrfResult.LOSS
        else:
            white_result, black_result = TrfResult.LOSS, TrfResult.WIN
        white.cells.append(TrfCell(black.number, Colour.WHITE, white_result))
        black.cells.append(TrfCell(white.number, Colour.BLACK, black_result))
    if pairing.bye is not None:
        by_number[pairing.bye].cells.append(TrfCell(None, None, TrfResult.PAIRING_BYE))


def _tournament(
    config: GeneratorConfig, entrants: Sequence[_Entrant], initial: Colour
) -> TrfTournament:
    players: list[TrfPlayer] = []
    points = {
        entrant.number: sum(
            (
                Fraction(1)
                if cell.result in (TrfResult.WIN, TrfResult.FORFEIT_WIN, TrfResult.PAIRING_BYE)
                else Fraction(1, 2)
                if cell.result in (TrfResult.DRAW, TrfResult.HALF_BYE)
                else Fraction(0)
                for cell in entrant.cells
            ),
            Fraction(0),
        )
        for entrant in entrants
    }
    order = sorted(entrants, key=lambda entrant: (-points[entrant.number], entrant.number))
    rank = {entrant.number: position for position, entrant in enumerate(order, start=1)}
    for entrant in entrants:
        name = f"Player{entrant.number:05d}, Random"
        static = _static(name, entrant.rating, points[entrant.number], rank[entrant.number])
        players.append(TrfPlayer(entrant.number, static, tuple(entrant.cells)))
    return TrfTournament(
        players=tuple(players),
        total_rounds=config.rounds,
        initial_colour=initial,
        other_lines=(
            f"012 Random tournament, {config.players} players, {config.rounds} rounds, "
            f"seed {config.seed}",
        ),
    )


def generate(config: GeneratorConfig) -> GeneratedTournament:
    """Play a random tournament, every round paired by the Dutch engine."""
    rng = random.Random(config.seed)
    ratings = sorted(
        (rng.randint(config.lowest_rating, config.highest_rating) for _ in range(config.players)),
        reverse=True,
    )
    entrants = [_Entrant(number, rating, []) for number, rating in enumerate(ratings, start=1)]
    initial = Colour.WHITE if rng.random() < 0.5 else Colour.BLACK
    for round_number in range(1, config.rounds + 1):
        for entrant in entrants:
            if not entrant.retired and config.retired_rate:
                entrant.retired = rng.randrange(config.retired_rate) == 0
            if entrant.retired:
                entrant.cells.append(TrfCell(None, None, TrfResult.ZERO_BYE))
            elif config.half_point_bye_rate and rng.randrange(config.half_point_bye_rate) == 0:
                entrant.cells.append(TrfCell(None, None, TrfResult.HALF_BYE))
        # The absences of the round are in the cells; the others are paired.
        so_far = _tournament(config, entrants, initial)
        try:
            pairing = pair_trf_round(so_far, round_number)
        except NoLegalPairingError:
            for entrant in entrants:
                del entrant.cells[round_number - 1 :]
            return GeneratedTournament(_tournament(config, entrants, initial), round_number)
        present = [entrant for entrant in entrants if len(entrant.cells) < round_number]
        _play(config, rng, present, pairing)
    return GeneratedTournament(_tournament(config, entrants, initial), None)


assert {name for name, _, _ in _KEYS.values()} == {field.name for field in fields(GeneratorConfig)}
