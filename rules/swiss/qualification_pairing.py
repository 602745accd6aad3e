"""From the qualification's results to the Dutch engine and to TRF (rules 3.v).

:func:`swiss_players` turns the stored round results into the engine's input;
:func:`to_trf` writes the same facts as a FIDE TRF file, so anyone can check our pairings with
any FIDE-endorsed engine. Both read the results the same way:

* a played match is a played game with the colour of game 1 and the match points as its result;
* a pairing-allocated bye is ``U``; a forfeit is ``+``/``-`` against the scheduled opponent (it
  is not a meeting, as in C.04.3); an engine-mark adjudication keeps the colour but counts as a
  forfeit;
* a round a player was not paired in is an absence (``Z``, or ``H`` for a half-point bye);
* a player who withdrew or was disqualified is not paired again (``present=False``; in TRF a
  ``0000 - -`` cell for the round being paired).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import PlayerId
from rules.swiss.dutch import PlayerNumber, RoundKind, RoundRecord, SwissPlayer
from rules.swiss.results import Entrant, Exit, ResultKind, RoundResult
from rules.swiss.trf import TrfCell, TrfPlayer, TrfProhibition, TrfResult, TrfTournament

__all__ = ["OUTSIDE_FIDE_MODE", "swiss_players", "to_trf"]

OUTSIDE_FIDE_MODE = (
    "092 ACWC qualification: Dutch pairing of match points (rules 3.v), outside FIDE mode"
)


HALF = Fraction(1, 2)
_TRF_RESULT = {
    Fraction(1): TrfResult.WIN,
    HALF: TrfResult.DRAW,
    Fraction(0): TrfResult.LOSS,
}
_PLAYED_RESULTS = frozenset(_TRF_RESULT.values())


def _number_of(entrants: Iterable[Entrant]) -> dict[PlayerId, int]:
    return {e.player: e.pairing_number for e in entrants}


def _cell(result: RoundResult, numbers: Mapping[PlayerId, int]) -> TrfCell:
    """The one reading of a result, shared by the engine input and the TRF file."""
    opponent = None if result.opponent is None else numbers[result.opponent]
    points = result.match_points
    if result.kind is ResultKind.PLAYED and opponent is not None and result.colour is not None:
        return TrfCell(opponent, result.colour, _TRF_RESULT[points])
    if result.kind is ResultKind.BYE:
        return TrfCell(None, None, TrfResult.PAIRING_BYE)
    if opponent is not None and points != HALF:  # a forfeit: paired, not played
        return TrfCell(opponent, None, TrfResult.FORFEIT_WIN if points else TrfResult.FORFEIT_LOSS)
    # Not paired, or a TD-ruled tie of an unplayed match: an absence worth its points.
    return TrfCell(None, None, TrfResult.HALF_BYE if points == HALF else TrfResult.ZERO_BYE)


def _record(cell: TrfCell, points: Fraction) -> RoundRecord:
    opponent = None if cell.opponent is None else PlayerNumber(cell.opponent)
    if cell.result in _PLAYED_RESULTS:
        return RoundRecord(RoundKind.PLAYED, points, opponent, cell.colour)
    if cell.result is TrfResult.PAIRING_BYE:
        return RoundRecord(RoundKind.PAIRING_BYE, points)
    if opponent is not None:
        return RoundRecord(RoundKind.FORFEIT, points, opponent)
    return RoundRecord(RoundKind.ABSENT, points)


def _by_player(results: Iterable[RoundResult]) -> dict[PlayerId, dict[int, RoundResult]]:
    table: dict[PlayerId, dict[int, RoundResult]] = {}
    for r in results:
        table.setdefault(r.player, {})[r.round] = r
    return table


def swiss_players(
    entrants: Iterable[Entrant],
    results: Iterable[RoundResult],
    exits: Iterable[Exit],
    *,
    rounds_played: int,
    absent: Iterable[PlayerId] = (),
) -> list[SwissPlayer]:
    """The engine's view of every entrant before round ``rounds_played + 1``.

    ``results`` must hold every entrant's result in rounds 1..``rounds_played``. Players who left
    (``exits``) and those in ``absent`` are not paired. Raises ``KeyError`` on a missing result.
    """
    field = sorted(entrants, key=lambda e: e.pairing_number)
    numbers = _number_of(field)
    table = _by_player(results)
    gone = {e.player for e in exits} | set(absent)
    return [
        SwissPlayer(
            number=PlayerNumber(e.pairing_number),
            history=tuple(
                _record(_cell(r, numbers), r.match_points)
                for r in (table[e.player][n] for n in range(1, rounds_played + 1))
            ),
            present=e.player not in gone,
        )
        for e in field
    ]


def _static(entrant: Entrant, points: Fraction, rank: int) -> str:
    name = entrant.username[:33]
    rating = "" if entrant.seed_rating is None else str(entrant.seed_rating)[:4]
    return (
        f" {'':1}{'':3} {name:<33} {rating:>4} {'':3} {'':>11} {'':10} "
        f"{float(points):4.1f} {rank:4d}"
    )


def to_trf(
    entrants: Iterable[Entrant],
    results: Iterable[RoundResult],
    exits: Iterable[Exit],
    *,
    rounds_played: int,
    total_rounds: int,
    forbidden: Iterable[tuple[PlayerId, PlayerId]] = (),
    initial_colour: Colour = Colour.WHITE,
    name: str = "",
    trf2026: bool = False,
) -> TrfTournament:
    """The qualification as a TRF file, ready for the next round's pairing."""
    field = sorted(entrants, key=lambda e: e.pairing_number)
    numbers = _number_of(field)
    table = _by_player(results)
    gone = {e.player for e in exits}
    totals = {
        e.player: sum(
            (table[e.player][n].match_points for n in range(1, rounds_played + 1)), Fraction(0)
        )
        for e in field
    }
    order = sorted(field, key=lambda e: (-totals[e.player], e.pairing_number))
    rank = {e.player: i for i, e in enumerate(order, 1)}
    players = []
    for e in field:
        cells = [_cell(table[e.player][n], numbers) for n in range(1, rounds_played + 1)]
        if e.player in gone and rounds_played < total_rounds:
            cells.append(TrfCell(None, None, TrfResult.FORFEIT_LOSS))
        players.append(
            TrfPlayer(e.pairing_number, _static(e, totals[e.player], rank[e.player]), tuple(cells))
        )
    prohibitions = tuple(
        TrfProhibition(tuple(sorted((numbers[a], numbers[b])))) for a, b in forbidden
    )
    # The ACWC's Swiss counts match points, not game points: outside FIDE mode, and labelled so.
    other = (*((f"012 {name[:80]}",) if name else ()), OUTSIDE_FIDE_MODE)
    return TrfTournament(
        players=tuple(players),
        total_rounds=total_rounds,
        initial_colour=initial_colour,
        prohibitions=prohibitions,
        trf2026=trf2026,
        other_lines=other,
    )
