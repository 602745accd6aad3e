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
``FullPointByeRate`` ... a full-point bye, ``ZeroPointByeRate`` ... a zero-point bye
``DoubleForfeitRate`` one game in N is forfeited by both players (0: never)
``UnusualResultRate`` one game in N ends 1/2-0, 0-1/2 or 0-0 (a player penalised)
``...PerRound``     the same as exact counts in every round: ``HalfPointByesPerRound``,
                    ``FullPointByesPerRound``, ``ZeroPointByesPerRound``, ``ForfeitsPerRound``,
                    ``DoubleForfeitsPerRound``, ``UnusualResultsPerRound``,
                    ``WithdrawalsPerRound`` (as many as there are players or games to take)
``ForbiddenPairs``  this many random pairs of players may not meet (``XXP``, or ``260``)
``Trf2026``         1: write TRF-2026 records (``142``, ``152``, ``260``) instead of ``XX``
``BakuAcceleration`` 1: the Baku Acceleration Method (C.04.5.1), written as ``192
                    FIDE_DUTCH_2025_BAKU`` and the ``250`` records of its virtual points
``TieBreaks``       the tie-break list, as in a ``202`` record (``BH/C1,BH,SB``): written as
                    ``202`` with the rank column by it (:mod:`rules.swiss.fide_tiebreaks`)
``PointsForWin``    the scoring: only 1, 0.5 and 0 (the engine's) are accepted
``PointsForDraw``
``PointsForLoss``
``RatingDrift``     each round from the second, every rating moves by up to this many points
                    either way (0 to 1000; 0: never): written as ``XXO per-round-ratings`` and
                    one ``XXL`` line per player and round, paired with the round's ratings
                    (:mod:`rules.swiss.round_ratings`); the games use the current ratings
``Seed``            the random seed (default 0): the same seed gives the same tournament
==================  ========================================================================

A game that is not drawn is won by the higher-rated player with the Elo expectation. When a
round has no legal pairing (a small field, many rounds) the tournament ends there. Not made
yet: other scorings. Without ``TieBreaks`` the rank column orders by points, then number.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any

from rules.core.colour import Colour
from rules.core.errors import RulesError
from rules.swiss.acceleration import baku_records
from rules.swiss.dutch import NoLegalPairingError, RoundPairing
from rules.swiss.fide_tiebreaks import parse_tiebreaks, standings
from rules.swiss.trf import (
    TrfCell,
    TrfPlayer,
    TrfProhibition,
    TrfReason,
    TrfResult,
    TrfTournament,
    pair_trf_round,
)
from rules.swiss.trf_model import (
    PLAYED_POINTS,
    UNPLAYED_POINTS,
    TrfError,
    TrfRoundRating,
    TrfTieBreakLine,
)

__all__ = [
    "FIDE_MODE",
    "FIDE_MODE_BAKU",
    "GeneratedTournament",
    "GeneratorConfig",
    "GeneratorError",
    "generate",
    "parse_config",
]

FIDE_MODE = ("092 FIDE Dutch system (FIDE mode)", "192 FIDE_DUTCH_2025")
"""The label of a tournament paired in FIDE mode (type of tournament, and its TRF-2026 code)."""
FIDE_MODE_BAKU = (
    "092 FIDE Dutch system, Baku acceleration (FIDE mode)",
    "192 FIDE_DUTCH_2025_BAKU",
)


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
    full_point_bye_rate: int = 0
    zero_point_bye_rate: int = 0
    double_forfeit_rate: int = 0
    unusual_result_rate: int = 0
    half_point_byes: int = 0
    full_point_byes: int = 0
    zero_point_byes: int = 0
    forfeits: int = 0
    double_forfeits: int = 0
    unusual_results: int = 0
    withdrawals: int = 0
    forbidden_pairs: int = 0
    trf2026: int = 0
    baku: int = 0
    rating_drift: int = 0
    tiebreaks: str = ""
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
    "FullPointByeRate": ("full_point_bye_rate", 0, 10**9),
    "ZeroPointByeRate": ("zero_point_bye_rate", 0, 10**9),
    "DoubleForfeitRate": ("double_forfeit_rate", 0, 10**9),
    "UnusualResultRate": ("unusual_result_rate", 0, 10**9),
    "HalfPointByesPerRound": ("half_point_byes", 0, 20000),
    "FullPointByesPerRound": ("full_point_byes", 0, 20000),
    "ZeroPointByesPerRound": ("zero_point_byes", 0, 20000),
    "ForfeitsPerRound": ("forfeits", 0, 10000),
    "DoubleForfeitsPerRound": ("double_forfeits", 0, 10000),
    "UnusualResultsPerRound": ("unusual_results", 0, 10000),
    "WithdrawalsPerRound": ("withdrawals", 0, 20000),
    "ForbiddenPairs": ("forbidden_pairs", 0, 10**6),
    "Trf2026": ("trf2026", 0, 1),
    "BakuAcceleration": ("baku", 0, 1),
    "RatingDrift": ("rating_drift", 0, 1000),
    "Seed": ("seed", 0, 2**63),
}
_SCORING = {"PointsForWin": Fraction(1), "PointsForDraw": Fraction(1, 2), "PointsForLoss": 0}


def _check_scoring(key: str, value: str, number: int) -> None:
    try:
        points = Fraction(value)
    except ValueError:
        raise GeneratorError(number, f"{key} must be a number, found {value!r}") from None
    if points != _SCORING[key]:
        raise GeneratorError(number, f"{key}={value}: only the scoring 1, 0.5, 0 is supported")


def _check_tiebreaks(value: str, number: int) -> str:
    try:
        parse_tiebreaks(TrfTieBreakLine(f"202 {value}", number))
    except TrfError as error:
        raise GeneratorError(number, f"TieBreaks: {error.message}") from None
    return value


def _whole_number(key: str, value: str, number: int) -> int:
    if key not in _KEYS:
        known = ", ".join([*_KEYS, "TieBreaks", *_SCORING])
        raise GeneratorError(number, f"unknown key {key!r} (known: {known})")
    _, low, high = _KEYS[key]
    if not value.isdigit() or not low <= int(value) <= high:
        raise GeneratorError(
            number, f"{key} must be a whole number from {low} to {high}, found {value!r}"
        )
    return int(value)


def parse_config(text: str) -> GeneratorConfig:
    """Read a generator configuration.

    Raises:
        GeneratorError: an unknown key, a value that is not a whole number or out of range,
            a key given twice, a tie-break list that is not implemented, or a scoring the
            engine does not use.
    """
    values: dict[str, Any] = {}  # the whole-number fields, by name
    tiebreaks: str | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, equals, value = (part.strip() for part in line.partition("="))
        if not equals:
            raise GeneratorError(number, f"expected Key=Value, found {raw.strip()!r}")
        if key in _SCORING:
            _check_scoring(key, value, number)
            continue
        name = "tiebreaks" if key == "TieBreaks" else _KEYS.get(key, (key, 0, 0))[0]
        if name in values or (name == "tiebreaks" and tiebreaks is not None):
            raise GeneratorError(number, f"{key} is given twice")
        if name == "tiebreaks":
            tiebreaks = _check_tiebreaks(value, number)
        else:
            values[name] = _whole_number(key, value, number)
    config = GeneratorConfig(tiebreaks=tiebreaks or "", **values)
    if config.lowest_rating > config.highest_rating:
        raise GeneratorError(0, "LowestRating is above HighestRating")
    return config


@dataclass(frozen=True, slots=True)
class GeneratedTournament:
    """The tournament made, and the round that had no legal pairing (None: all were paired)
    with the state that could not be paired (that round's absences in its cells)."""

    tournament: TrfTournament
    stopped_at: int | None
    unpaired: TrfTournament | None = None


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
    first_rating: int = 0
    """The rating of the ``001`` record (``rating`` drifts with ``RatingDrift``)."""


def _expected(white: int, black: int) -> float:
    return 1 / (1 + 10 ** ((black - white) / 400))


class _Outcome(enum.Enum):
    """What happens at a board besides an ordinary game."""

    FORFEIT = "forfeit"
    DOUBLE_FORFEIT = "double forfeit"
    UNUSUAL = "unusual"


_UNUSUAL = (
    (TrfResult.DRAW, TrfResult.LOSS),
    (TrfResult.LOSS, TrfResult.DRAW),
    (TrfResult.LOSS, TrfResult.LOSS),
)


def _chosen(rng: random.Random, count: int, rate: int, among: int) -> list[bool]:
    """Which of ``among`` items an event takes: exactly ``count`` of them (as many as there
    are) and, besides, each one in ``rate`` (0: none)."""
    picked = set(rng.sample(range(among), min(count, among)))
    return [index in picked or bool(rate and rng.randrange(rate) == 0) for index in range(among)]


def _outcomes(config: GeneratorConfig, rng: random.Random, boards: int) -> list[_Outcome | None]:
    outcomes: list[_Outcome | None] = [None] * boards
    for outcome, count, rate in (
        (_Outcome.UNUSUAL, config.unusual_results, config.unusual_result_rate),
        (_Outcome.DOUBLE_FORFEIT, config.double_forfeits, config.double_forfeit_rate),
        (_Outcome.FORFEIT, config.forfeits, config.forfeit_rate),
    ):
        free = [index for index in range(boards) if outcomes[index] is None]
        for index, taken in zip(free, _chosen(rng, count, rate, len(free)), strict=True):
            if taken:
                outcomes[index] = outcome
    return outcomes


def _results(
    config: GeneratorConfig,
    rng: random.Random,
    outcome: _Outcome | None,
    ratings: tuple[int, int],
) -> tuple[TrfResult, TrfResult]:
    if outcome is _Outcome.FORFEIT:
        if rng.random() < 0.5:
            return TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_LOSS
        return TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_WIN
    if outcome is _Outcome.DOUBLE_FORFEIT:
        return TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_LOSS
    if outcome is _Outcome.UNUSUAL:
        return rng.choice(_UNUSUAL)
    if rng.randrange(100) < config.draw_percentage:
        return TrfResult.DRAW, TrfResult.DRAW
    if rng.random() < _expected(*ratings):
        return TrfResult.WIN, TrfResult.LOSS
    return TrfResult.LOSS, TrfResult.WIN


def _play(
    config: GeneratorConfig,
    rng: random.Random,
    entrants: Sequence[_Entrant],
    pairing: RoundPairing,
) -> None:
    """Append the round's cells: the games' results, the PAB."""
    by_number = {entrant.number: entrant for entrant in entrants}
    outcomes = _outcomes(config, rng, len(pairing.boards))
    for board, outcome in zip(pairing.boards, outcomes, strict=True):
        white, black = by_number[board.white], by_number[board.black]
        white_result, black_result = _results(config, rng, outcome, (white.rating, black.rating))
        white.cells.append(TrfCell(black.number, Colour.WHITE, white_result))
        black.cells.append(TrfCell(white.number, Colour.BLACK, black_result))
    if pairing.bye is not None:
        by_number[pairing.bye].cells.append(TrfCell(None, None, TrfResult.PAIRING_BYE))


def _points(cells: Sequence[TrfCell]) -> Fraction:
    return sum(
        (
            PLAYED_POINTS.get(cell.result, UNPLAYED_POINTS.get(cell.result, Fraction(0)))
            for cell in cells
        ),
        Fraction(0),
    )


def _tournament(
    config: GeneratorConfig,
    entrants: Sequence[_Entrant],
    initial: Colour,
    prohibitions: tuple[TrfProhibition, ...],
    drifted: Sequence[TrfRoundRating] = (),
) -> TrfTournament:
    players: list[TrfPlayer] = []
    points = {entrant.number: _points(entrant.cells) for entrant in entrants}
    order = sorted(entrants, key=lambda entrant: (-points[entrant.number], entrant.number))
    rank = {entrant.number: position for position, entrant in enumerate(order, start=1)}
    for entrant in entrants:
        name = f"Player{entrant.number:05d}, Random"
        static = _static(name, entrant.first_rating, points[entrant.number], rank[entrant.number])
        players.append(TrfPlayer(entrant.number, static, tuple(entrant.cells)))
    declared = TrfTieBreakLine(f"202 {config.tiebreaks}") if config.tiebreaks else None
    made = TrfTournament(
        players=tuple(players),
        total_rounds=config.rounds,
        initial_colour=initial,
        prohibitions=prohibitions,
        accelerations=baku_records(config.players, config.rounds) if config.baku else (),
        tiebreaks=declared,
        per_round_ratings=bool(config.rating_drift),
        round_ratings=tuple(drifted),
        trf2026=bool(config.trf2026),
        other_lines=(
            f"012 Random tournament, {config.players} players, {config.rounds} rounds, "
            f"seed {config.seed}",
            *(FIDE_MODE_BAKU if config.baku else FIDE_MODE),
            *([declared.text] if declared else []),
        ),
    )
    return made if declared is None else _ranked(made, declared)


def _ranked(tournament: TrfTournament, declared: TrfTieBreakLine) -> TrfTournament:
    """The rank column (86-89) by the tie-break list, after the rounds in the cells."""
    rounds = max((len(player.rounds) for player in tournament.players), default=0)
    rank = {
        standing.number: standing.rank
        for standing in standings(tournament, rounds, parse_tiebreaks(declared))
    }
    players = tuple(
        replace(player, static=f"{player.static[:77]}{rank[player.number]:4d}")
        for player in tournament.players
    )
    return replace(tournament, players=players)


def _forbidden(config: GeneratorConfig, rng: random.Random) -> tuple[TrfProhibition, ...]:
    """``ForbiddenPairs`` distinct random pairs (every round; ``260`` in TRF-2026)."""
    wanted = min(config.forbidden_pairs, config.players * (config.players - 1) // 2)
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < wanted:
        first, second = sorted(rng.sample(range(1, config.players + 1), 2))
        pairs.add((first, second))
    first_round = 1 if config.trf2026 else None
    last_round = config.rounds if config.trf2026 else None
    return tuple(
        TrfProhibition(players=pair, first=first_round, last=last_round) for pair in sorted(pairs)
    )


def _absences(
    config: GeneratorConfig, rng: random.Random, entrants: Sequence[_Entrant], round_number: int
) -> None:
    """The round's withdrawals (for the rest of the tournament) and requested byes, as cells."""
    active = [entrant for entrant in entrants if not entrant.retired]
    leaving = _chosen(rng, config.withdrawals, config.retired_rate, len(active))
    for entrant, leaves in zip(active, leaving, strict=True):
        entrant.retired = leaves
    for entrant in entrants:
        if entrant.retired:
            entrant.cells.append(TrfCell(None, None, TrfResult.ZERO_BYE))
    for result, count, rate in (
        (TrfResult.HALF_BYE, config.half_point_byes, config.half_point_bye_rate),
        (TrfResult.FULL_BYE, config.full_point_byes, config.full_point_bye_rate),
        (TrfResult.ZERO_BYE, config.zero_point_byes, config.zero_point_bye_rate),
    ):
        free = [entrant for entrant in entrants if len(entrant.cells) < round_number]
        for entrant, takes in zip(free, _chosen(rng, count, rate, len(free)), strict=True):
            if takes:
                entrant.cells.append(TrfCell(None, None, result))


def _drift(
    config: GeneratorConfig, rng: random.Random, entrants: Sequence[_Entrant], round_number: int
) -> list[TrfRoundRating]:
    """``RatingDrift``: each rating moves by up to that many points, from round 2 on."""
    if not config.rating_drift or round_number == 1:
        return []
    for entrant in entrants:
        moved = entrant.rating + rng.randint(-config.rating_drift, config.rating_drift)
        entrant.rating = min(max(moved, 0), 4000)
    return [TrfRoundRating(round_number, e.number, e.rating) for e in entrants]


def generate(config: GeneratorConfig) -> GeneratedTournament:
    """Play a random tournament, every round paired by the Dutch engine."""
    rng = random.Random(config.seed)
    ratings = sorted(
        (rng.randint(config.lowest_rating, config.highest_rating) for _ in range(config.players)),
        reverse=True,
    )
    entrants = [
        _Entrant(number, rating, [], first_rating=rating)
        for number, rating in enumerate(ratings, start=1)
    ]
    drifted: list[TrfRoundRating] = []
    initial = Colour.WHITE if rng.random() < 0.5 else Colour.BLACK
    prohibitions = _forbidden(config, rng)
    for round_number in range(1, config.rounds + 1):
        drifted += _drift(config, rng, entrants, round_number)
        _absences(config, rng, entrants, round_number)
        # The absences of the round are in the cells; the others are paired.
        so_far = _tournament(config, entrants, initial, prohibitions, drifted)
        try:
            pairing = pair_trf_round(so_far, round_number)
        except NoLegalPairingError:
            for entrant in entrants:
                del entrant.cells[round_number - 1 :]
            kept = [record for record in drifted if record.round_number < round_number]
            made = _tournament(config, entrants, initial, prohibitions, kept)
            return GeneratedTournament(made, round_number, so_far)
        present = [entrant for entrant in entrants if len(entrant.cells) < round_number]
        _play(config, rng, present, pairing)
    made = _tournament(config, entrants, initial, prohibitions, drifted)
    return GeneratedTournament(made, None)


assert {name for name, _, _ in _KEYS.values()} | {"tiebreaks"} == {
    field.name for field in fields(GeneratorConfig)
}
