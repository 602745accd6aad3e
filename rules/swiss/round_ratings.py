"""Per-round ratings for events longer than 30 days (FIDE Handbook C.04.A, 2026; C.04 lets the
initial ranking be updated): with the flag, each round is ranked by the ratings of that round.

The TRF standard has no record for per-round ratings, so this is our own extension
(docs/pairing.md, "Per-round ratings"):

* ``XXO per-round-ratings`` turns the flag on (``acwc pair --per-round-ratings`` does too).
* ``XXL RRR PPPP RRRR``: from round ``RRR`` on, player ``PPPP`` is rated ``RRRR`` (columns 5-7,
  9-12 and 14-17, as the TRF's other fixed fields). Without one for a round, a player keeps the
  rating of his latest earlier ``XXL`` line, else the rating of his ``001`` record (columns
  49-52, 0 when blank).
* The round's ranking: rating, highest first; equal ratings keep the order of the starting
  ranks. The k-th player of that ranking gets the k-th smallest starting rank as his pairing
  number for the round; the pairing is computed on those numbers and written back in starting
  ranks. Without the flag nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rules.swiss.dutch import Board, PlayerNumber, RoundPairing, RoundRecord, SwissPlayer
from rules.swiss.trf_model import TrfError, TrfRoundRating, TrfTournament

__all__ = [
    "FLAG_LINE",
    "format_round_rating",
    "pairing_numbers",
    "read_flag_line",
    "read_round_rating",
    "relabel_pairing",
    "relabel_players",
    "round_rating",
]

FLAG_LINE = "XXO per-round-ratings"


def read_flag_line(line: str, number: int) -> bool:
    """An ``XXO`` line: the options it names (only ``per-round-ratings`` is known)."""
    words = line[3:].split()
    for word in words:
        if word.lower() != "per-round-ratings":
            raise TrfError(number, line.index(word) + 1, f"XXO: unknown option {word!r}")
    return bool(words)


def _number(line: str, start: int, end: int, number: int, what: str) -> int:
    text = line[start:end].strip()
    if not text.isdigit():
        raise TrfError(number, start + 1, f"XXL: expected the {what}, found {text!r}")
    return int(text)


def read_round_rating(line: str, number: int) -> TrfRoundRating:
    """An ``XXL RRR PPPP RRRR`` line (round, player, rating)."""
    for column in (3, 7, 12):
        if line[column : column + 1].strip():
            raise TrfError(number, column + 1, "XXL: the fields must be separated by blanks")
    round_number = _number(line, 4, 7, number, "round number")
    if round_number < 1:
        raise TrfError(number, 5, "XXL: the round number must be at least 1")
    player = _number(line, 8, 12, number, "player's starting rank")
    rating = _number(line, 13, 17, number, "rating")
    if line[17:].strip():
        raise TrfError(number, 18, "XXL: unexpected text after the rating")
    return TrfRoundRating(round_number, player, rating, line=number)


def format_round_rating(record: TrfRoundRating) -> str:
    """The ``XXL`` line of a record."""
    return f"XXL {record.round_number:03d} {record.player:4d} {record.rating:4d}"


def round_rating(tournament: TrfTournament, player: int, round_number: int) -> int:
    """The player's rating for ``round_number``: his latest ``XXL`` line up to that round, else
    the rating of his ``001`` record."""
    given = [
        record
        for record in tournament.round_ratings
        if record.player == player and record.round_number <= round_number
    ]
    if given:
        return max(given, key=lambda record: record.round_number).rating
    for entry in tournament.players:
        if entry.number == player:
            field = entry.static[40:44].strip()
            return int(field) if field.isdigit() else 0
    return 0


def pairing_numbers(tournament: TrfTournament, round_number: int) -> dict[int, int]:
    """Starting rank -> pairing number for ``round_number`` (identity without the flag)."""
    ranks = sorted(player.number for player in tournament.players)
    if not tournament.per_round_ratings:
        return {rank: rank for rank in ranks}
    order = sorted(ranks, key=lambda rank: (-round_rating(tournament, rank, round_number), rank))
    return dict(zip(order, ranks, strict=True))


def _record(record: RoundRecord, numbers: Mapping[int, int]) -> RoundRecord:
    if record.opponent is None:
        return record
    return RoundRecord(
        record.kind, record.points, PlayerNumber(numbers[record.opponent]), record.colour
    )


def relabel_players(
    players: Iterable[SwissPlayer], numbers: Mapping[int, int]
) -> list[SwissPlayer]:
    """The players under new numbers (their opponents too)."""
    return [
        SwissPlayer(
            number=PlayerNumber(numbers[player.number]),
            history=tuple(_record(record, numbers) for record in player.history),
            present=player.present,
            acceleration=player.acceleration,
        )
        for player in players
    ]


def relabel_pairing(pairing: RoundPairing, numbers: Mapping[int, int]) -> RoundPairing:
    """A pairing under new numbers."""
    return RoundPairing(
        boards=tuple(
            Board(PlayerNumber(numbers[board.white]), PlayerNumber(numbers[board.black]))
            for board in pairing.boards
        ),
        bye=None if pairing.bye is None else PlayerNumber(numbers[pairing.bye]),
    )
