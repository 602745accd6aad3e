"""The free pairings checker (C.04.A asks it of an endorsed program): every round of a
tournament report file is paired again from the rounds before it and compared with the file.

A round's pairing in the file is read from its cells: the opponents and colours of the
players paired in that round, and the player given the pairing-allocated bye (``U``). A player
with an unpaired cell in that round (absent, a requested bye, withdrawn) was not to be paired,
so is absent for the engine too. Colours are compared where the file gives them (a forfeit
may carry none); the board order is not compared. A file without the initial colour (``XXC``,
``152``) is checked with the one its first round shows (``infer_initial_colour``).

When every round matches and the file declares its tie-breaks (TRF-2026 ``202`` or ``212``)
and fills in the rank column, the standings after the rounds played are checked too
(:mod:`rules.swiss.fide_tiebreaks`): a rank the tie-break list does not give is a failure, as a
wrong pairing is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.core.colour import Colour
from rules.swiss.dutch import NoLegalPairingError, RoundPairing
from rules.swiss.fide_mode import check_fide_mode
from rules.swiss.fide_tiebreaks import StandingDifference, TieBreak, check_standings
from rules.swiss.trf import (
    TrfResult,
    TrfTournament,
    infer_initial_colour,
    pair_trf_round,
    rounds_played,
)

__all__ = ["RoundDifference", "TournamentCheck", "check_tournament"]


@dataclass(frozen=True, slots=True)
class RoundDifference:
    """How the engine's pairing of a round differs from the file's: the games (``"w-b"``, or
    ``"a~b"`` where the file gives no colours) and byes (``"n bye"``) only one of them has,
    or why the engine could not pair the round."""

    round_number: int
    in_file: tuple[str, ...]
    by_engine: tuple[str, ...]
    no_pairing: str | None = None

    def describe(self) -> str:
        if self.no_pairing is not None:
            return f"round {self.round_number}: the engine finds no pairing: {self.no_pairing}"
        return (
            f"round {self.round_number} differs: the file has {', '.join(self.in_file)}; "
            f"the engine gives {', '.join(self.by_engine)}"
        )


@dataclass(frozen=True, slots=True)
class TournamentCheck:
    """The rounds compared and the first that differs (None: every round matches); then the
    tie-break list the standings were checked by (None: not checked) and the first rank that
    differs."""

    rounds: int
    difference: RoundDifference | None
    tiebreaks: tuple[TieBreak, ...] | None = None
    standing: StandingDifference | None = None

    @property
    def passed(self) -> bool:
        return self.difference is None and self.standing is None

    def describe(self) -> str:
        if self.difference is not None:
            return self.difference.describe()
        if self.standing is not None:
            return self.standing.describe()
        text = f"all {self.rounds} rounds match the FIDE Dutch pairing"
        if self.tiebreaks is None:
            return text + "; standings not checked (no 202/212 tie-break list or no ranks)"
        listed = ",".join(t.label for t in self.tiebreaks)
        return text + f"; every rank matches the tie-break list {listed}"


def _file_games(tournament: TrfTournament, round_number: int) -> dict[frozenset[int], str]:
    games: dict[frozenset[int], str] = {}
    for player in tournament.players:
        if len(player.rounds) < round_number:
            continue
        cell = player.rounds[round_number - 1]
        if cell.result is TrfResult.PAIRING_BYE:
            games[frozenset((player.number,))] = f"{player.number} bye"
        elif cell.opponent is not None and cell.colour is not Colour.BLACK:
            key = frozenset((player.number, cell.opponent))
            if cell.colour is Colour.WHITE:
                games[key] = f"{player.number}-{cell.opponent}"
            else:
                low, high = sorted(key)
                games.setdefault(key, f"{low}~{high}")
    return games


def _engine_games(pairing: RoundPairing, colours: dict[frozenset[int], bool]) -> dict[
    frozenset[int], str
]:  # fmt: skip
    games: dict[frozenset[int], str] = {}
    for board in pairing.boards:
        key = frozenset((board.white, board.black))
        if colours.get(key, True):
            games[key] = f"{board.white}-{board.black}"
        else:
            low, high = sorted(key)
            games[key] = f"{low}~{high}"
    if pairing.bye is not None:
        games[frozenset((pairing.bye,))] = f"{pairing.bye} bye"
    return games


def check_round(tournament: TrfTournament, round_number: int) -> RoundDifference | None:
    """Pair ``round_number`` again and compare it with the file.

    Raises:
        TrfError: the file is invalid.
    """
    in_file = _file_games(tournament, round_number)
    try:
        pairing = pair_trf_round(tournament, round_number, replay=True)
    except NoLegalPairingError as error:
        return RoundDifference(round_number, (), (), no_pairing=error.message)
    coloured = {key: "~" not in game for key, game in in_file.items()}
    by_engine = _engine_games(pairing, coloured)
    if by_engine == in_file:
        return None
    return RoundDifference(
        round_number,
        tuple(sorted(game for key, game in in_file.items() if by_engine.get(key) != game)),
        tuple(sorted(game for key, game in by_engine.items() if in_file.get(key) != game)),
    )


def check_tournament(tournament: TrfTournament, *, fide_mode: bool = True) -> TournamentCheck:
    """Pair every round of the file again, in order, up to the first that differs; then check
    the standings the file records against its tie-break list.

    Raises:
        TrfError: the file is invalid (as for pairing its next round), asks for what FIDE
            mode does not allow (with ``fide_mode``), or declares a tie-break that is not
            implemented.
    """
    if fide_mode:
        check_fide_mode(tournament)
    rounds = rounds_played(tournament)
    if tournament.total_rounds is None:
        # A finished tournament need not say how many rounds it had: the ones it shows.
        tournament = replace(tournament, total_rounds=rounds)
    if tournament.initial_colour is None:
        inferred = infer_initial_colour(tournament) or Colour.WHITE
        tournament = replace(tournament, initial_colour=inferred)
    for round_number in range(1, rounds + 1):
        difference = check_round(tournament, round_number)
        if difference is not None:
            return TournamentCheck(rounds, difference)
    checked = check_standings(tournament, rounds)
    if checked is None:
        return TournamentCheck(rounds, None)
    return TournamentCheck(rounds, None, *checked)
