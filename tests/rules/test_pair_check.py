"""The pairings checker and the random tournament generator (C.04.A), in the rules and
through ``acwc pair --check`` / ``--generate`` on real files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.launch import main
from rules.core.colour import Colour
from rules.swiss.checker import check_tournament
from rules.swiss.generator import GeneratorConfig, GeneratorError, generate, parse_config
from rules.swiss.trf import TrfCell, TrfResult, TrfTournament, parse_trf, write_trf

DATA = Path(__file__).parent.parent / "data"

CONFIGS = [
    "PlayersNumber=9\nRoundsNumber=5\nDrawPercentage=10\nForfeitRate=10\nHalfPointByeRate=8",
    "PlayersNumber=16\nRoundsNumber=7\nDrawPercentage=60\nForfeitRate=8\nHalfPointByeRate=8",
    "PlayersNumber=31\nRoundsNumber=9\nForfeitRate=5\nRetiredRate=20\nHalfPointByeRate=5",
    "PlayersNumber=48\nRoundsNumber=11\nDrawPercentage=50\nForfeitRate=12\nRetiredRate=12",
    "PlayersNumber=75\nRoundsNumber=9\nHighestRating=2000\nLowestRating=2000",
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_generated_tournament_passes_the_check(
    config: str, seed: int, in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "rtg.cfg").write_text(config)
    out = in_tmp / "t.trf"
    assert main(["pair", "--generate", "rtg.cfg", "-o", str(out), "--seed", str(seed)]) == 0
    tournament = parse_trf(out.read_text())
    players = int(config.split("\n")[0].split("=")[1])
    assert len(tournament.players) == players
    assert main(["pair", "--check", str(out)]) == 0
    assert "rounds match the FIDE Dutch pairing" in capsys.readouterr().out


def test_the_generator_makes_the_events_its_rates_ask_for() -> None:
    config = parse_config(
        "PlayersNumber=60\nRoundsNumber=9\nForfeitRate=6\nRetiredRate=30\nHalfPointByeRate=10"
    )
    made = generate(config)
    results = {cell.result for player in made.tournament.players for cell in player.rounds}
    assert {TrfResult.FORFEIT_WIN, TrfResult.HALF_BYE, TrfResult.ZERO_BYE} <= results
    assert {TrfResult.WIN, TrfResult.DRAW, TrfResult.PAIRING_BYE} <= results
    calm = generate(parse_config("PlayersNumber=60\nRoundsNumber=9\nDrawPercentage=0"))
    results = {cell.result for player in calm.tournament.players for cell in player.rounds}
    assert results == {TrfResult.WIN, TrfResult.LOSS}


def test_the_same_seed_gives_the_same_tournament() -> None:
    config = GeneratorConfig(players=40, rounds=7, forfeit_rate=10, half_point_bye_rate=9, seed=7)
    first = write_trf(generate(config).tournament)
    assert write_trf(generate(config).tournament) == first
    other = GeneratorConfig(players=40, rounds=7, forfeit_rate=10, half_point_bye_rate=9, seed=8)
    assert write_trf(generate(other).tournament) != first


def test_a_small_field_ends_when_no_round_can_be_paired() -> None:
    made = generate(GeneratorConfig(players=4, rounds=5, seed=1))
    assert made.stopped_at == 4  # four players meet everybody in three rounds
    assert {len(player.rounds) for player in made.tournament.players} == {3}
    assert check_tournament(made.tournament).difference is None


def _colours_swapped(tournament: TrfTournament, round_number: int) -> tuple[TrfTournament, str]:
    """The tournament with the colours of one game of the round swapped (a valid file the
    engine would not make), and that game as the engine gives it."""
    index = round_number - 1
    first = next(p for p in tournament.players if p.rounds[index].colour is Colour.WHITE)
    opponent = first.rounds[index].opponent
    players = []
    for player in tournament.players:
        cells = list(player.rounds)
        if player.number in (first.number, opponent):
            cell = cells[index]
            assert cell.colour is not None
            cells[index] = TrfCell(cell.opponent, cell.colour.opposite, cell.result)
        players.append(replace(player, rounds=tuple(cells)))
    return replace(tournament, players=tuple(players)), f"{first.number}-{opponent}"


def test_the_check_reports_the_first_round_that_differs() -> None:
    tournament = generate(GeneratorConfig(players=20, rounds=6, seed=4)).tournament
    forged, game = _colours_swapped(tournament, 3)
    report = check_tournament(forged)
    assert report.difference is not None
    assert report.difference.round_number == 3
    white, black = game.split("-")
    assert report.difference.in_file == (f"{black}-{white}",)
    assert report.difference.by_engine == (game,)


def test_check_reads_a_reference_engines_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    # 14 rounds paired by bbpPairings, without XXC: the initial colour comes from round 1.
    assert main(["pair", "--check", str(DATA / "bbp_issue_7.trf")]) == 0
    assert capsys.readouterr().out == (
        "all 14 rounds match the FIDE Dutch pairing; "
        "standings not checked (no 202/212 tie-break list or no ranks)\n"
    )


def test_check_exits_1_on_a_difference(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged, game = _colours_swapped(parse_trf((DATA / "bbp_issue_7.trf").read_text()), 5)
    (in_tmp / "forged.trf").write_text(write_trf(forged))
    assert main(["pair", "--check", str(in_tmp / "forged.trf")]) == 1
    white, black = game.split("-")
    assert capsys.readouterr().out == (
        f"round 5 differs: the file has {black}-{white}; the engine gives {game}\n"
    )


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("Players=3", "line 1: unknown key 'Players'"),
        ("# a comment\nPlayersNumber=1", "line 2: PlayersNumber must be a whole number from 2"),
        ("PlayersNumber=ten", "PlayersNumber must be a whole number"),
        ("RoundsNumber=5\nRoundsNumber=6", "line 2: RoundsNumber is given twice"),
        ("PlayersNumber", "line 1: expected Key=Value"),
        ("HighestRating=1500\nLowestRating=1600", "LowestRating is above HighestRating"),
        ("PointsForWin=3", "line 1: PointsForWin=3: only the scoring 1, 0.5, 0"),
    ],
)
def test_a_bad_generator_config_is_refused(
    config: str, problem: str, in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(GeneratorError) as raised:
        parse_config(config)
    assert problem in raised.value.message
    (in_tmp / "bad.cfg").write_text(config)
    assert main(["pair", "--generate", "bad.cfg", "-o", "out.trf"]) == 3
    assert problem in capsys.readouterr().err
    assert not (in_tmp / "out.trf").exists()


def test_pair_modes_need_their_files(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pair"]) == 3
    assert "give a TRF file" in capsys.readouterr().err
    (in_tmp / "ok.cfg").write_text("PlayersNumber=10")
    assert main(["pair", "--generate", "ok.cfg"]) == 3
    assert "--generate needs -o" in capsys.readouterr().err
    assert main(["pair", "--check", "missing.trf"]) == 3
    assert "cannot read missing.trf" in capsys.readouterr().err
    (in_tmp / "binary.trf").write_bytes(b"\xff\xfe")
    assert main(["pair", "--check", "binary.trf"]) == 3
    assert "line 1, column 1: byte 0xff" in capsys.readouterr().err
