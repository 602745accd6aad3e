"""TRF16 / TRF-2026 reading and writing, and the ``run_pair`` entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.colour import Colour
from rules.swiss.dutch import PlayerNumber, RoundKind
from rules.swiss.trf import (
    TrfError,
    TrfProhibition,
    TrfResult,
    decode_trf,
    next_round_number,
    parse_trf,
    players_for_next_round,
    run_pair,
    write_trf,
)

DATA = Path(__file__).parent.parent / "data"
PAD = " " * 81  # columns 9-89 of a player record


def _player(number: int, cells: str = "") -> str:
    return f"001 {number:4d}{PAD}{cells}".rstrip()


@pytest.mark.parametrize("name", sorted(path.name for path in DATA.glob("*.trf")))
def test_round_trip_is_identical(name: str) -> None:
    tournament = parse_trf((DATA / name).read_text())
    assert parse_trf(write_trf(tournament)) == tournament


def test_trf2026_tags_are_read_and_written_back() -> None:
    text = "\n".join(
        [
            "012 Test",
            "142 7",
            "152 B",
            _player(1),
            _player(2),
            _player(3),
            "260 001 003    1    2",
        ]
    )
    tournament = parse_trf(text)
    assert tournament.total_rounds == 7
    assert tournament.initial_colour is Colour.BLACK
    assert tournament.prohibitions == (TrfProhibition(players=(1, 2), first=1, last=3),)
    assert tournament.trf2026
    written = write_trf(tournament)
    assert "142 7" in written
    assert "152 B" in written
    assert parse_trf(written) == tournament


def test_trf16_tags_are_read() -> None:
    text = "\n".join([_player(1), _player(2), "XXR 5", "XXC black1", "XXP 1 2"])
    tournament = parse_trf(text)
    assert (tournament.total_rounds, tournament.initial_colour) == (5, Colour.BLACK)
    assert tournament.prohibitions == (TrfProhibition(players=(1, 2)),)
    assert not tournament.trf2026


def test_cells_are_parsed() -> None:
    text = "\n".join(
        [
            _player(1, "     2 w 1  0000 - U"),
            _player(2, "     1 b 0     3 b +"),
            _player(3, "  0000 - H     2 w -"),
        ]
    )
    players = {p.number: p for p in parse_trf(text).players}
    assert players[1].rounds[1].result is TrfResult.PAIRING_BYE
    assert players[2].rounds[1].result is TrfResult.FORFEIT_WIN
    assert players[3].rounds[0].opponent is None


def test_next_round_and_absence_follow_engine_convention() -> None:
    text = "\n".join(
        [
            _player(1, "     2 w 1"),
            _player(2, "     1 b 0  0000 - Z"),
            _player(3, "  0000 - U"),
            "XXR 3",
        ]
    )
    tournament = parse_trf(text)
    assert next_round_number(tournament) == 2
    players = {p.number: p for p in players_for_next_round(tournament)}
    assert not players[PlayerNumber(2)].present
    assert players[PlayerNumber(1)].present
    assert players[PlayerNumber(3)].present
    assert players[PlayerNumber(3)].history[0].kind is RoundKind.PAIRING_BYE


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        (_player(1, "     2 x 1"), 1, 97),
        ("012 x\n" + _player(1, "     2 w ?"), 2, 99),
        (_player(1, "    2a w 1"), 1, 92),
        ("001 abcd", 1, 5),
        ("XXR nine", 1, 5),
        (_player(1) + "\n" + _player(1), 2, 5),
        (_player(1, "  0000 - 1"), 1, 99),
        ("152 X", 1, 5),
    ],
)
def test_errors_name_line_and_column(text: str, line: int, column: int) -> None:
    with pytest.raises(TrfError) as raised:
        parse_trf(text)
    assert (raised.value.line, raised.value.column) == (line, column)
    assert f"line {line}, column {column}" in raised.value.message


def test_inconsistent_opponents_are_reported() -> None:
    text = "\n".join([_player(1, "     2 w 1"), _player(2, "     3 b 0"), _player(3), "XXR 3"])
    with pytest.raises(TrfError) as raised:
        players_for_next_round(parse_trf(text))
    assert (raised.value.line, raised.value.column) == (1, 92)


def test_run_pair_exit_codes() -> None:
    fresh = "\n".join([_player(n) for n in range(1, 6)] + ["XXR 3"])
    assert run_pair(fresh) == (0, "3\n1 3\n4 2\n5 0\n")
    met = "\n".join([_player(1, "     2 w 1"), _player(2, "     1 b 0"), "XXR 3"])
    code, message = run_pair(met)
    assert code == 1
    assert "C1" in message
    code, message = run_pair(_player(1, "     2 q 1") + "\nXXR 3")
    assert code == 3
    assert "line 1, column 97" in message
    assert run_pair(_player(1))[0] == 3  # no XXR


def test_run_pair_honours_prohibited_pairs() -> None:
    fresh = "\n".join([*[_player(n) for n in range(1, 5)], "XXR 3", "XXP 1 3"])
    code, output = run_pair(fresh)
    assert code == 0
    assert "1 3" not in output.splitlines()
    assert "3 1" not in output.splitlines()


@pytest.mark.parametrize(
    ("cells", "column", "problem"),
    [
        ("     2 w 1     3", 106, "cut short: opponent 3 without a colour and a result"),
        ("     2 w 1     3 b", 108, "cut short: opponent 3 without a result"),
        ("     2 w 1     3 b  ", 108, "cut short: opponent 3 without a result"),
        ("     2 w 1     3   1", 107, "needs the colour w or b"),
        ("     2 w 1     3 w 1x", 110, "separated by blanks"),
    ],
)
def test_a_cell_cut_short_is_refused(cells: str, column: int, problem: str) -> None:
    with pytest.raises(TrfError) as raised:
        parse_trf("012 cut\n" + _player(1, cells))
    assert (raised.value.line, raised.value.column) == (2, column)
    assert problem in raised.value.message


def test_a_score_column_that_contradicts_the_results_is_refused() -> None:
    record = _player(1, "     2 w 1     3 b =")
    stated = record[:80] + " 2.0" + record[84:]
    with pytest.raises(TrfError) as raised:
        parse_trf(stated)
    assert (raised.value.line, raised.value.column) == (1, 81)
    assert "sum to 1.5" in raised.value.message
    # The sum over the rounds played, with or without a requested bye for the round being
    # paired, is accepted.
    assert parse_trf(record[:80] + " 1.5" + record[84:]).players[0].rounds[1].opponent == 3
    absent = _player(1, "     2 w 1  0000 - H")
    other = _player(2, "     1 b 0")
    assert parse_trf(absent[:80] + " 1.0" + absent[84:] + "\n" + other).players
    assert parse_trf(absent[:80] + " 1.5" + absent[84:] + "\n" + other).players
    with pytest.raises(TrfError, match=r"column 81: points 2\.0 contradict the results of the 1"):
        parse_trf(absent[:80] + " 2.0" + absent[84:] + "\n" + other)


@pytest.mark.parametrize(
    ("first", "second", "problem"),
    [
        ("     2 w 1", "     1 w 0", "both players have white"),
        ("     2 b =", "     1 b =", "both players have black"),
        ("     2 w 1", "     1 b 1", "results '1' and '1' do not fit"),
        ("     2 w =", "     1 b 1", "results '=' and '1' do not fit"),
        ("     2 w +", "     1 b 0", "results '+' and '0' do not fit"),
    ],
)
def test_the_two_cells_of_a_game_must_agree(first: str, second: str, problem: str) -> None:
    text = "\n".join(["012 x", "XXR 3", _player(1, first), _player(2, second)])
    with pytest.raises(TrfError) as raised:
        players_for_next_round(parse_trf(text))
    assert (raised.value.line, raised.value.column) == (3, 92)
    assert problem in raised.value.message


def test_cross_check_errors_cite_the_real_line() -> None:
    text = "\n".join(
        [
            "012 x",
            "XXR 3",
            _player(1, "     2 w 1"),
            "",
            _player(2, "     1 b 0"),
            _player(3, "     1 w 1"),
        ]
    )
    with pytest.raises(TrfError) as raised:
        players_for_next_round(parse_trf(text))
    assert (raised.value.line, raised.value.column) == (6, 92)


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (b"012 x\n001    1 \xff", 2, 10),
        (b"\xc3(", 1, 1),
        ("012 é\n".encode() + b"XXR 3\n\x80", 3, 1),
    ],
)
def test_undecodable_bytes_are_bad_input(data: bytes, line: int, column: int) -> None:
    with pytest.raises(TrfError) as raised:
        decode_trf(data)
    assert (raised.value.line, raised.value.column) == (line, column)
    code, message = run_pair(data)
    assert code == 3
    assert f"line {line}, column {column}" in message


def test_control_characters_are_bad_input() -> None:
    code, message = run_pair("012 x\nXXR 3\n001    1 \x00\x01")
    assert code == 3
    assert "line 3, column 10: control character" in message
    assert decode_trf("\ufeff012 x\n".encode()) == "012 x\n"
