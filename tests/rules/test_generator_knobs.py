"""The generator's knobs (C.04.A): every kind of requested bye, forfeits, double forfeits and
unusual results per round as rates or counts, withdrawals, forbidden pairs, TRF-2026 output;
seeded and reproducible, and every tournament passes our checker."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.swiss.checker import check_tournament
from rules.swiss.generator import GeneratorError, generate, parse_config
from rules.swiss.qualification_pairing import OUTSIDE_FIDE_MODE, to_trf
from rules.swiss.trf import TrfResult, TrfTournament, parse_trf, write_trf

EVERY_KNOB = "\n".join(
    [
        "PlayersNumber=40",
        "RoundsNumber=7",
        "DrawPercentage=30",
        "ForfeitRate=15",
        "DoubleForfeitRate=40",
        "UnusualResultRate=40",
        "RetiredRate=80",
        "HalfPointByeRate=20",
        "FullPointByeRate=40",
        "ZeroPointByeRate=40",
        "HalfPointByesPerRound=1",
        "FullPointByesPerRound=1",
        "ZeroPointByesPerRound=1",
        "ForfeitsPerRound=1",
        "DoubleForfeitsPerRound=1",
        "UnusualResultsPerRound=1",
        "WithdrawalsPerRound=1",
        "ForbiddenPairs=12",
        "Trf2026=1",
        "Seed=5",
    ]
)


def _games(tournament: TrfTournament, index: int) -> list[tuple[TrfResult, TrfResult]]:
    by_number = {player.number: player for player in tournament.players}
    games = []
    for player in tournament.players:
        cell = player.rounds[index] if len(player.rounds) > index else None
        if cell is not None and cell.opponent is not None and cell.opponent > player.number:
            games.append((cell.result, by_number[cell.opponent].rounds[index].result))
    return games


def test_every_knob_makes_its_events_in_every_round() -> None:
    made = generate(parse_config(EVERY_KNOB))
    tournament = made.tournament
    assert made.stopped_at is None
    for index in range(7):
        cells = Counter(
            player.rounds[index].result for player in tournament.players if player.rounds[index:]
        )
        assert cells[TrfResult.HALF_BYE] >= 1
        assert cells[TrfResult.FULL_BYE] >= 1
        assert cells[TrfResult.ZERO_BYE] >= 2  # a requested zero-point bye and a withdrawal
        games = _games(tournament, index)
        assert (TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_LOSS) in games
        assert {(TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_LOSS)} & set(games) or {
            (TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_WIN)
        } & set(games)
        unusual = {(TrfResult.DRAW, TrfResult.LOSS), (TrfResult.LOSS, TrfResult.DRAW)}
        unusual.add((TrfResult.LOSS, TrfResult.LOSS))
        assert unusual & set(games)
    # A player who withdraws has a zero-point bye in every later round.
    withdrawn = [
        player
        for player in tournament.players
        if player.rounds and player.rounds[-1].result is TrfResult.ZERO_BYE
    ]
    assert len(withdrawn) >= 7


def test_forbidden_pairs_never_meet_and_are_written_as_trf2026() -> None:
    made = generate(parse_config(EVERY_KNOB)).tournament
    assert len(made.prohibitions) == 12
    forbidden = {frozenset(prohibition.players) for prohibition in made.prohibitions}
    for player in made.players:
        for cell in player.rounds:
            if cell.opponent is not None:
                assert frozenset((player.number, cell.opponent)) not in forbidden
    text = write_trf(made)
    assert "\n142 7\n" in f"\n{text}"
    assert any(line.startswith("152 ") for line in text.splitlines())
    assert sum(line.startswith("260 001 007 ") for line in text.splitlines()) == 12
    assert parse_trf(text) == made


def test_the_tournament_passes_the_check_and_the_seed_reproduces_it() -> None:
    first = generate(parse_config(EVERY_KNOB)).tournament
    assert check_tournament(parse_trf(write_trf(first))).difference is None
    assert write_trf(generate(parse_config(EVERY_KNOB)).tournament) == write_trf(first)
    other = generate(parse_config(EVERY_KNOB.replace("Seed=5", "Seed=6"))).tournament
    assert write_trf(other) != write_trf(first)


def test_a_round_with_no_legal_pairing_keeps_the_state() -> None:
    made = generate(parse_config("PlayersNumber=4\nRoundsNumber=5\nForbiddenPairs=2\nSeed=1"))
    assert made.stopped_at is not None
    assert made.unpaired is not None
    assert max(len(player.rounds) for player in made.tournament.players) == made.stopped_at - 1


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("Trf2026=2", "Trf2026 must be a whole number from 0 to 1"),
        ("ForfeitsPerRound=-1", "ForfeitsPerRound must be a whole number"),
        ("Acceleration=1", "unknown key 'Acceleration'"),
        ("BakuAcceleration=2", "BakuAcceleration must be a whole number from 0 to 1"),
        ("TieBreaks=BH,SSSC", "TieBreaks: line 1, column 8: SSSC is a team tie-break"),
        ("TieBreaks=BH\nTieBreaks=SB", "TieBreaks is given twice"),
    ],
)
def test_bad_knobs_are_refused(config: str, problem: str) -> None:
    with pytest.raises(GeneratorError, match=problem):
        parse_config(config)


def test_fide_mode_and_the_acwc_swiss_are_labelled_in_the_trf() -> None:
    made = generate(parse_config("PlayersNumber=10\nRoundsNumber=3")).tournament
    lines = write_trf(made).splitlines()
    assert "092 FIDE Dutch system (FIDE mode)" in lines
    assert "192 FIDE_DUTCH_2025" in lines
    qualification = write_trf(to_trf([], [], [], rounds_played=0, total_rounds=5))
    assert OUTSIDE_FIDE_MODE in qualification.splitlines()
    assert "outside FIDE mode" in OUTSIDE_FIDE_MODE
