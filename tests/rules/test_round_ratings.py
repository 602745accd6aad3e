"""Per-round ratings (events longer than 30 days): the ``XXO``/``XXL`` extension lines, the
ranking each round gets from them, and ``acwc pair`` / ``--check`` with the flag."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.launch import main
from rules.swiss.checker import check_tournament
from rules.swiss.generator import generate, parse_config
from rules.swiss.round_ratings import pairing_numbers, round_rating
from rules.swiss.trf import TrfError, parse_trf, run_pair, write_trf
from rules.swiss.trf_model import TrfRoundRating

RATINGS = {1: 2000, 2: 1900, 3: 1800, 4: 1700}


def _player(number: int, cells: str = "") -> str:
    """A ``001`` record rated as RATINGS says (columns 49-52)."""
    return f"001 {number:4d}{' ' * 40}{RATINGS[number]:4d}{' ' * 37}{cells}".rstrip()


def _file(*extra: str, cells: dict[int, str] | None = None) -> str:
    cells = cells or {}
    players = [_player(number, cells.get(number, "")) for number in RATINGS]
    return "\n".join(["012 Long event", "XXR 3", "XXC white1", *players, *extra]) + "\n"


# Round 1 rates player 3 at 2100: the round's ranking is 3, 1, 2, 4, so 3 has pairing number 1,
# 1 has 2, 2 has 3 and 4 keeps 4. The Dutch round 1 pairs 1-3 and 4-2 (S1 = {1, 2} against
# S2 = {3, 4}, the top board's White for the highest, alternating): in starting ranks 3-2, 4-1.
# With the ratings of the 001 records it is 1-3 and 4-2.
FLAGGED = ("XXO per-round-ratings", "XXL 001    3 2100")
NEW_ORDER = {3: "     2 w 1", 2: "     3 b 0", 4: "     1 w 0", 1: "     4 b 1"}
OLD_ORDER = {1: "     3 w 1", 3: "     1 b 0", 4: "     2 w 0", 2: "     4 b 1"}


def test_the_lines_are_read_and_written_back() -> None:
    tournament = parse_trf(_file(*FLAGGED, "XXL 002    1 1650"))
    assert tournament.per_round_ratings
    assert tournament.round_ratings == (
        TrfRoundRating(round_number=1, player=3, rating=2100),
        TrfRoundRating(round_number=2, player=1, rating=1650),
    )
    written = write_trf(tournament)
    assert "XXO per-round-ratings\nXXL 001    3 2100\nXXL 002    1 1650\n" in written
    assert parse_trf(written) == tournament


def test_a_player_keeps_his_latest_rating() -> None:
    tournament = parse_trf(_file(*FLAGGED, "XXL 003    3 1500"))
    assert [round_rating(tournament, 3, r) for r in (1, 2, 3)] == [2100, 2100, 1500]
    assert round_rating(tournament, 1, 3) == 2000  # the 001 record's
    assert pairing_numbers(tournament, 3) == {1: 1, 2: 2, 3: 4, 4: 3}


def test_without_the_flag_the_ranking_is_the_starting_rank() -> None:
    tournament = parse_trf(_file("XXL 001    3 2100"))
    assert not tournament.per_round_ratings
    assert pairing_numbers(tournament, 1) == {1: 1, 2: 2, 3: 3, 4: 4}


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("XXL 001    9 2100", "line 8, column 9: player 9 does not exist"),
        ("XXL 0x1    3 2100", "line 8, column 5: XXL: expected the round number"),
        ("XXL 000    3 2100", "line 8, column 5: XXL: the round number must be at least 1"),
        ("XXL 001    3 21OO", "line 8, column 14: XXL: expected the rating"),
        ("XXL 001   32100", "line 8, column 13: XXL: the fields must be separated"),
        ("XXL 001    3 2100 x", "line 8, column 18: XXL: unexpected text after the rating"),
        ("XXO per-round-ratings fast", "line 8, column 23: XXO: unknown option 'fast'"),
    ],
)
def test_bad_lines_are_refused_with_line_and_column(line: str, where: str) -> None:
    with pytest.raises(TrfError) as raised:
        parse_trf(_file(line))
    assert where in raised.value.message


def test_the_round_ratings_change_the_pairing() -> None:
    assert run_pair(_file(*FLAGGED)) == (0, "2\n3 2\n4 1\n")
    assert run_pair(_file(FLAGGED[1])) == (0, "2\n1 3\n4 2\n")
    assert run_pair(_file(FLAGGED[1]), per_round_ratings=True) == (0, "2\n3 2\n4 1\n")


def test_the_check_uses_the_ratings_of_each_round() -> None:
    assert check_tournament(parse_trf(_file(*FLAGGED, cells=NEW_ORDER))).passed
    assert check_tournament(parse_trf(_file(FLAGGED[1], cells=OLD_ORDER))).passed
    report = check_tournament(parse_trf(_file(*FLAGGED, cells=OLD_ORDER)))
    assert report.difference is not None
    assert report.difference.round_number == 1
    assert set(report.difference.by_engine) == {"3-2", "4-1"}


def test_acwc_pair_takes_the_flag(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "old.trf").write_text(_file(FLAGGED[1], cells=OLD_ORDER))
    assert main(["pair", "--check", str(in_tmp / "old.trf")]) == 0
    capsys.readouterr()
    assert main(["pair", "--per-round-ratings", "--check", str(in_tmp / "old.trf")]) == 1
    assert capsys.readouterr().out.startswith("round 1 differs")
    (in_tmp / "next.trf").write_text(_file(FLAGGED[1]))
    assert main(["pair", "--per-round-ratings", str(in_tmp / "next.trf")]) == 0
    assert capsys.readouterr().out == "2\n3 2\n4 1\n"


def test_the_generator_writes_drifting_ratings_the_check_accepts() -> None:
    config = parse_config("PlayersNumber=20\nRoundsNumber=5\nRatingDrift=300\nSeed=7")
    made = generate(config).tournament
    assert made.per_round_ratings
    assert len(made.round_ratings) == 20 * 4  # one line per player for rounds 2 to 5
    assert {record.round_number for record in made.round_ratings} == {2, 3, 4, 5}
    text = write_trf(made)
    assert text.count("\nXXL ") == 80
    assert write_trf(generate(config).tournament) == text  # seeded
    read = parse_trf(text)
    assert read == made
    assert check_tournament(read).passed
    # The same games checked with the ratings of the 001 records: the order differs somewhere.
    assert not check_tournament(replace(read, per_round_ratings=False)).passed


def test_without_drift_the_generator_writes_no_rating_lines() -> None:
    made = generate(parse_config("PlayersNumber=12\nRoundsNumber=4\nSeed=7")).tournament
    assert not made.per_round_ratings
    assert "XXL" not in write_trf(made)
    assert "XXO" not in write_trf(made)
