"""TRF16 / TRF-2026 reading and writing, and the ``run_pair`` entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.core.colour import Colour
from rules.swiss.dutch import RoundKind
from rules.swiss.trf import (
    TrfError,
    TrfProhibition,
    TrfResult,
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
    assert not players[2].present
    assert players[1].present
    assert players[3].present
    assert players[3].history[0].kind is RoundKind.PAIRING_BYE


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
