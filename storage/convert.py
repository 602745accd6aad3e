"""Rows to rules values and back."""

from __future__ import annotations

from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, Match, MatchId, PlayerId
from rules.core.ruleset import MatchFormat, StageKind, Tiebreak
from storage.models import GameRow, MatchRow


def fraction_to_text(value: Fraction | None) -> str | None:
    return None if value is None else f"{value.numerator}/{value.denominator}"


def text_to_fraction(value: str | None) -> Fraction | None:
    return None if value is None else Fraction(value)


def to_format(row: MatchRow) -> MatchFormat:
    return MatchFormat(
        games=row.games,
        clinch_at=text_to_fraction(row.clinch_at),
        tiebreak=Tiebreak(row.tiebreak),
        max_weeks=row.max_weeks,
    )


def to_match(row: MatchRow, *, round: int = 0) -> Match:
    if row.black_first is None:
        raise ValueError(f"match {row.id} is a bye, not a match")
    return Match(
        id=MatchId(row.id),
        stage=StageKind(row.stage),
        round=round,
        white_first=PlayerId(row.white_first),
        black_first=PlayerId(row.black_first),
        format=to_format(row),
        week=row.week,
    )


def to_game(row: GameRow) -> Game:
    return Game(
        id=GameId(row.id),
        white=PlayerId(row.white),
        black=PlayerId(row.black),
        status=GameStatus(row.status),
        winner=None if row.winner is None else Colour(row.winner),
        variant=row.variant,
        rated=row.rated,
        clock_limit=row.clock_limit,
        clock_increment=row.clock_increment,
        created_at=row.created_at,
        last_move_at=row.last_move_at,
    )


def game_row_values(game: Game) -> dict[str, object]:
    """Column values of ``game`` for a new or updated row (not match, counted, source)."""
    return {
        "id": game.id,
        "white": game.white,
        "black": game.black,
        "status": game.status,
        "winner": None if game.winner is None else game.winner.value,
        "variant": game.variant,
        "rated": game.rated,
        "clock_limit": game.clock_limit,
        "clock_increment": game.clock_increment,
        "created_at": game.created_at,
        "last_move_at": game.last_move_at,
    }
