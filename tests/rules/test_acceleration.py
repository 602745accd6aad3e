"""Accelerated rounds (C.04.5): ``250`` records and the Baku method read from a TRF, the engine
pairing by pairing scores, the generator's ``BakuAcceleration`` and ``TieBreaks`` knobs.

The expected pairings are worked out by hand in the comments (C.04.3 and C.04.5.1), not taken
from the engine.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.launch import main
from rules.swiss.acceleration import baku_records
from rules.swiss.checker import check_tournament
from rules.swiss.generator import generate, parse_config
from rules.swiss.trf import parse_trf, run_pair, write_trf
from rules.swiss.trf_model import TrfAcceleration

PAD = " " * 81


def _player(number: int, cells: str = "") -> str:
    return f"001 {number:4d}{PAD}{cells}".rstrip()


def test_baku_groups_and_rounds_as_c0451_counts_them() -> None:
    # C.04.5.1's own example: 161 players -> GA is the first 82; 9 rounds -> 5 accelerated,
    # the first 3 with 1 virtual point, the other 2 with 1/2.
    assert baku_records(161, 9) == (
        TrfAcceleration(Fraction(1), 1, 3, 1, 82),
        TrfAcceleration(Fraction(1, 2), 4, 5, 1, 82),
    )
    # 10 players: GA is 2 x ceil(10/4) = 6; 7 rounds: 4 accelerated, 2 with 1 point.
    assert baku_records(10, 7) == (
        TrfAcceleration(Fraction(1), 1, 2, 1, 6),
        TrfAcceleration(Fraction(1, 2), 3, 4, 1, 6),
    )


# The Baku method's records for 8 players and 5 rounds: GA = 2 x ceil(8/4) = 4 players,
# 3 accelerated rounds, the first 2 with 1 point.
BAKU_8_5 = ["250       1.0 001 002    1    4", "250       0.5 003 003    1    4"]


def test_round_1_with_250_records_pairs_each_group_apart() -> None:
    # Players 1-4 carry 1 virtual point: two brackets, {1,2,3,4} and {5,6,7,8}; in each the
    # top half meets the bottom half: 1-3, 2-4, 5-7, 6-8. With 152 W the higher-ranked
    # player with an odd pairing number has White (1, 5), with an even one Black (2, 6).
    lines = ["142 5", "152 W", *BAKU_8_5]
    lines += [_player(number) for number in range(1, 9)]
    assert run_pair("\r".join(lines)) == (0, "4\n1 3\n4 2\n5 7\n8 6\n")


def test_round_2_by_pairing_scores() -> None:
    # Round 1 as above: 1 beat 3, 4 and 2 drew, 5 beat 7, 6 beat 8 (at 8's White).
    # Pairing scores for round 2 (1 virtual point for 1-4): 1: 2, 2 and 4: 1.5, 3, 5 and 6: 1,
    # 7 and 8: 0. 1 moves down to {2, 4}, who met: 1 meets 2 (1 and 4 both want Black) and 4
    # moves down to {3, 5, 6}, where he meets 3; then 5-6 and 7-8. Colours: 2, 3, 6 and 7
    # are due White. Boards by the real scores: 6-5 (1, 1), 2-1 (1, 1/2), 3-4 (1/2, 0), 7-8.
    cells = {
        1: "     3 w 1",
        2: "     4 b =",
        3: "     1 b 0",
        4: "     2 w =",
        5: "     7 w 1",
        6: "     8 b 1",
        7: "     5 b 0",
        8: "     6 w 0",
    }
    lines = ["142 5", "152 W", *BAKU_8_5]
    lines += [_player(number, cell) for number, cell in cells.items()]
    assert run_pair("\r".join(lines)) == (0, "4\n6 5\n2 1\n3 4\n7 8\n")


def test_a_baku_tournament_type_applies_the_method() -> None:
    # 192 FIDE_DUTCH_2025_BAKU, 10 players, 7 rounds: GA = 1-6 with 1 point in round 1.
    # {1..6}: 1-4, 2-5, 3-6; {7..10}: 7-9, 8-10; White to 1, 3, 7 (odd), Black to 2, 8.
    lines = ["142 7", "152 W", "192 FIDE_DUTCH_2025_BAKU"]
    lines += [_player(number) for number in range(1, 11)]
    assert run_pair("\n".join(lines)) == (0, "5\n1 4\n5 2\n3 6\n7 9\n10 8\n")
    # 250 records override the method. These are not Baku's, so FIDE mode refuses them;
    # outside it nobody is accelerated in round 1 (players 1-2 carry points only from round
    # 2), so the field is one bracket: 1-6, 2-7, 3-8, 4-9, 5-10.
    lines.insert(3, "250       1.0 002 002    1    2")
    code, output = run_pair("\n".join(lines))
    assert code == 3
    assert output.startswith("line 4, column 1: FIDE mode allows only the Baku acceleration")
    code, output = run_pair("\n".join(lines), fide_mode=False)
    assert (code, output.splitlines()[1:3]) == (0, ["1 6", "7 2"])


def test_pair_outside_fide_mode_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Players 1-2 only, 1 point in round 1: brackets {1, 2} and {3, 4, 5, 6}: 1-2, 3-5, 4-6.
    lines = ["142 3", "152 W", "250       1.0 001 001    1    2"]
    trf = tmp_path / "accelerated.trf"
    trf.write_text("\r".join([*lines, *(_player(number) for number in range(1, 7))]) + "\r")
    assert main(["pair", str(trf)]) == 3
    assert "line 3, column 1: FIDE mode allows only" in capsys.readouterr().err
    assert main(["pair", str(trf), "--outside-fide-mode"]) == 0
    assert capsys.readouterr().out == "3\n1 2\n3 5\n6 4\n"


def test_the_generator_writes_baku_and_the_tie_break_list_and_passes_the_check() -> None:
    config = parse_config(
        "PlayersNumber=30\nRoundsNumber=7\nBakuAcceleration=1\nTrf2026=1\n"
        "TieBreaks=DE,BH/C1,BH,SB\nHalfPointByeRate=20\nForfeitRate=20\nSeed=3"
    )
    made = generate(config)
    assert made.stopped_at is None
    text = write_trf(made.tournament)
    lines = text.splitlines()
    assert "192 FIDE_DUTCH_2025_BAKU" in lines
    assert "202 DE,BH/C1,BH,SB" in lines
    # 30 players: GA is 2 x ceil(30/4) = 16; 7 rounds: 4 accelerated, 2 with 1 point.
    assert [line for line in lines if line.startswith("250")] == [
        "250       1.0 001 002    1   16",
        "250       0.5 003 004    1   16",
    ]
    report = check_tournament(parse_trf(text))
    assert report.passed
    assert report.tiebreaks is not None
    assert [t.label for t in report.tiebreaks] == ["PTS", "DE", "BH/C1", "BH", "SB"]
