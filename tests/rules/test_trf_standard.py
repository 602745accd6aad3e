"""The TRF read as the standard says: files bbpPairings wrote (CR line ends), entries for the
round being paired, ``240`` records, blank results, the inferred initial colour, and nonsense
refused with its line and column. ``tests/data/bbp_set`` was made once by bbpPairings 6.0.0
(``bench/pairing_bbp_set.py``; its ``MANIFEST.txt`` has the seeds and commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.launch import main
from rules.core.colour import Colour
from rules.swiss.checker import check_tournament
from rules.swiss.trf import (
    TrfError,
    TrfResult,
    decode_trf,
    infer_initial_colour,
    next_round_number,
    parse_trf,
    players_for_next_round,
    run_pair,
    write_trf,
)

SET = Path(__file__).parent.parent / "data" / "bbp_set"
STATES = sorted(path.name for path in SET.glob("t??-r??.trf"))
TOURNAMENTS = sorted(path.name for path in SET.glob("t??.trf"))
PAD = " " * 81


def _player(number: int, cells: str = "", points: str = "") -> str:
    record = f"001 {number:4d}{PAD}{cells}".rstrip()
    if points:
        record = record.ljust(84)
        record = record[:80] + f"{points:>4}" + record[84:]
    return record


def test_the_set_has_what_the_standard_describes() -> None:
    texts = [(SET / name).read_bytes().decode() for name in STATES]
    assert len(STATES) >= 40
    assert all("\r" in text and "\n" not in text for text in texts)
    lines = [line for text in texts for line in text.split("\r")]
    assert any(line.startswith("240 H ") for line in lines)
    assert any(line.endswith("0000 -  ") for line in lines)
    assert any(line.endswith("0000 - H") for line in lines)  # a requested bye in the round
    assert any(line.endswith("0000 - Z") for line in lines)  # an absence or a withdrawal
    assert any(line.startswith("142 ") for line in lines)
    assert any(line.startswith("XXR ") for line in lines)


@pytest.mark.parametrize("name", STATES)
def test_each_state_pairs_as_bbppairings(name: str) -> None:
    expected = (SET / name).with_suffix(".bbp.txt").read_text()
    code, output = run_pair((SET / name).read_bytes())
    if expected == "none\n":
        assert code == 1
    else:
        assert (code, output) == (0, expected)


@pytest.mark.parametrize("name", TOURNAMENTS)
def test_each_tournament_passes_the_check(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pair", "--check", str(SET / name)]) == 0
    assert "rounds match the FIDE Dutch pairing" in capsys.readouterr().out


def test_pair_exits_0_on_a_file_bbppairings_wrote(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = SET / STATES[-1]
    assert main(["pair", str(state), "-p", str(in_tmp / "out.txt")]) == 0
    assert (in_tmp / "out.txt").read_text() == state.with_suffix(".bbp.txt").read_text()


@pytest.mark.parametrize("end", ["\r", "\n", "\r\n"])
def test_every_line_end_is_read(end: str) -> None:
    lines = ["012 ends", "XXR 3", _player(1, "     2 w 1"), _player(2, "     1 b 0"), _player(3)]
    tournament = parse_trf(end.join(lines) + end)
    assert [player.number for player in tournament.players] == [1, 2, 3]
    assert next_round_number(tournament) == 2
    with pytest.raises(TrfError, match="line 4, column 97"):
        parse_trf(end.join([*lines[:3], _player(2, "     1 x 0")]))


def test_requested_byes_absences_and_withdrawals_in_the_round_being_paired() -> None:
    text = "\n".join(
        [
            "XXR 5",
            _player(1, "     2 w 1  0000 - H", points="1.5"),  # requested half-point bye
            _player(2, "     1 b 0  0000 - F", points="0.0"),  # full-point bye, score before it
            _player(3, "     4 w =  0000 - Z", points="0.5"),  # absence
            _player(4, "     3 b =  0000 -  ", points="0.5"),  # withdrawn: a blank result
            _player(5, "  0000 - U", points="1.0"),
            _player(6, "  0000 - Z", points="0.0"),
            _player(7, "  0000 - Z"),
            _player(8, "  0000 - Z"),
        ]
    )
    tournament = parse_trf(text)
    assert next_round_number(tournament) == 2
    present = {player.number for player in players_for_next_round(tournament) if player.present}
    assert present == {5, 6, 7, 8}


def test_trf2026_bye_records_make_their_players_absent() -> None:
    lines = [
        "142 5",
        _player(1, "     2 w 1"),
        _player(2, "     1 b 0"),
        _player(3, "     4 w 1"),
        _player(4, "     3 b 0"),
        "240 H 002    1    3",
        "240 Z 003    2",
    ]
    tournament = parse_trf("\r".join(lines))
    assert tournament.byes[0].kind is TrfResult.HALF_BYE
    present = {player.number for player in players_for_next_round(tournament) if player.present}
    assert present == {2, 4}
    assert parse_trf(write_trf(tournament)) == tournament
    assert run_pair("\r".join(lines)) == (0, "1\n2 4\n")  # as bbpPairings


def test_the_initial_colour_is_inferred_when_no_line_gives_it() -> None:
    # Player 1 was absent in round 1; 2 is the highest-ranked paired there, and had black.
    lines = [
        _player(1, "  0000 - Z     4 w 1"),
        _player(2, "     3 b 1     5 b 0"),
        _player(3, "     2 w 0  0000 - U"),
        _player(4, "     5 b 0     1 b 0"),
        _player(5, "     4 w 1     2 w 1"),
    ]
    assert infer_initial_colour(parse_trf("\n".join(lines))) is Colour.BLACK
    # The highest one paired received no colour (the bye): the next one's reversed.
    lines[1] = _player(2, "  0000 - U     5 b 0")
    lines[2] = _player(3, "  0000 - Z  0000 - U")
    assert infer_initial_colour(parse_trf("\n".join(lines))) is Colour.WHITE
    assert infer_initial_colour(parse_trf(_player(1))) is None
    assert run_pair("\n".join(["XXR 3", *lines]))[0] == 0


@pytest.mark.parametrize(
    ("lines", "line", "column", "problem"),
    [
        (["XXR 3", _player(1), _player(2), "XXP 1 9"], 4, 7, "player 9 does not exist"),
        (["142 3", _player(1), _player(2), "260 001 003    2   12"], 4, 20, "player 12"),
        (["142 3", _player(1), "240 H 001    1    7"], 3, 19, "player 7 does not exist"),
        (["240 Q 001    1"], 1, 5, "type F, H or Z"),
        (
            ["XXR 3", _player(1, "  0000 - U"), _player(2, "  0000 - U"), _player(3)],
            3,
            99,
            "a second pairing-allocated bye in round 1 (player 1 has one)",
        ),
        (["XXR 0"], 1, 5, "at least 1"),
        (["250       0.0 001 002    1    4"], 1, 10, "the virtual points must be above 0"),
        (["250       1.0 003 002    1    4"], 1, 19, "the rounds are not a range"),
        (["XXA    1  1.0"], 1, 1, "accelerations by XXA lines"),
        (["162  W 3.0 D 1.0"], 1, 1, "point systems other than 1, 1/2, 0"),
        (["192 FIDE_BURSTEIN_BAKU"], 1, 1, "tournament types other than the FIDE Dutch"),
    ],
)
def test_nonsense_is_refused_with_line_and_column(
    lines: list[str], line: int, column: int, problem: str
) -> None:
    with pytest.raises(TrfError) as raised:
        parse_trf("\r".join(lines))
    assert (raised.value.line, raised.value.column) == (line, column)
    assert problem in raised.value.message


def test_every_kind_of_line_the_generators_write_is_read() -> None:
    """The records FIDE's generators (bbpPairings, JaVaFo) write: headers kept verbatim, the
    pairing records read, comments and blank lines passed over."""
    lines = [
        "012 AutoTest Tournament 7",
        "### a comment",
        "022 Torino",
        "042 2026/03/01",
        "092 FIDE_DUTCH_2025",
        "102 Chief Arbiter",
        "132" + " " * 88 + "26/03/01",
        "142 3",
        "152 B",
        "162  W 1.0    D 0.5",
        "192 FIDE_DUTCH_2025",
        "202 BH/C1,BH,SB",
        _player(1, "     2 w 1", points="1.0"),
        _player(2, "     1 b 0", points="0.0"),
        _player(3, "  0000 - H", points="0.5"),
        _player(4, "  0000 - U", points="1.0"),
        "",
        "260 001 003    1    3",
        "240 F 002    4",
        "XXP 2 4",
    ]
    tournament = parse_trf("\r".join(lines) + "\r")
    assert (tournament.total_rounds, tournament.initial_colour) == (3, Colour.BLACK)
    assert tournament.other_lines[0] == "012 AutoTest Tournament 7"
    assert "202 BH/C1,BH,SB" in tournament.other_lines
    assert len(tournament.prohibitions) == 2
    assert parse_trf(write_trf(tournament)) == tournament
    assert check_tournament(parse_trf(decode_trf(("\r".join(lines)).encode()))).rounds == 1
    code, output = run_pair("\r".join(lines))
    assert code == 0
    assert output.splitlines()[0] == "2"  # 4 has a full-point bye: 1 board and the PAB
