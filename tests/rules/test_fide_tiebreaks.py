"""FIDE tie-breaks over a TRF's rounds, and the check of a file's standings.

Every expected value here was worked out by hand from the crosstables below (the sums are in
the comments); none comes from the module under test.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.launch import main
from rules.swiss.checker import check_tournament
from rules.swiss.fide_rating_tables import (
    average_rating,
    expected_score,
    perfect_performance,
    performance_rating,
    rating_difference,
)
from rules.swiss.fide_tiebreaks import Code, check_standings, parse_tiebreaks, standings
from rules.swiss.trf import TrfError, parse_trf
from rules.swiss.trf_model import TrfTieBreakLine

F = Fraction


def _player(number: int, rating: int, cells: list[str], rank: int | None = None) -> str:
    static = [" "] * 81
    static[40:44] = f"{rating:4d}"
    if rank is not None:
        static[77:81] = f"{rank:4d}"
    return f"001 {number:4d}{''.join(static)}" + "".join("  " + cell for cell in cells)


# Six players, four rounds: every kind of round C.07 Art. 16 names.
#   R1: 1w-4b 1-0, 5w-2b 1/2, 3w-6b 0-1
#   R2: 6w-1b 0-1, 2w-3b 1-0, 4 pairing-allocated bye, 5 half-point bye
#   R3: 1w-2b 0-1, 3w-5b forfeit won by 3, 4w-6b 0-1
#   R4: 2w-6b 1/2, 4w-3b 1/2, 1 full-point bye, 5 absent (zero-point bye)
# Scores: 1: 3, 2: 3, 3: 1.5, 4: 1.5, 5: 1, 6: 2.5 (after 4 rounds).
SIX = {
    1: (2400, ["   4 w 1", "   6 b 1", "   2 w 0", "0000 - F"]),
    2: (2300, ["   5 b =", "   3 w 1", "   1 b 1", "   6 w ="]),
    3: (2200, ["   6 w 0", "   2 b 0", "   5 w +", "   4 b ="]),
    4: (2100, ["   1 b 0", "0000 - U", "   6 w 0", "   3 w ="]),
    5: (2000, ["   2 w =", "0000 - H", "   3 b -", "0000 - Z"]),
    6: (1900, ["   3 b 1", "   1 w 0", "   4 b 1", "   2 b ="]),
}


def _six(declaration: str, ranks: dict[int, int] | None = None) -> str:
    players = [
        _player(n, rating, cells, (ranks or {}).get(n)) for n, (rating, cells) in SIX.items()
    ]
    return "\n".join(["012 Hand-made", "142 4", declaration, *players]) + "\n"


def _values(declaration: str) -> dict[int, tuple[Fraction, ...]]:
    tournament = parse_trf(_six(declaration))
    assert tournament.tiebreaks is not None
    rows = standings(tournament, 4, parse_tiebreaks(tournament.tiebreaks))
    return {row.number: row.values[1:] for row in rows}  # without the points


def test_buchholz_with_every_kind_of_unplayed_round() -> None:
    # Adjusted scores (Art. 16.3): 5's half-point bye and absence follow his last played
    # round, so count 1/2 each; his forfeit loss names an opponent, so counts 0: 1.5. The others
    # equal their scores. Dummies (16.4): own score, at most 1/2 x 4 rounds = 2, at most the
    # opponent's adjusted score for a forfeit.
    #   1: 4 (1.5) + 6 (2.5) + 2 (3) + F dummy min(3, 2) = 9;  cut 1.5 -> 7.5
    #   2: 5 (1.5) + 3 (1.5) + 1 (3) + 6 (2.5) = 8.5;           cut 1.5 -> 7
    #   3: 6 (2.5) + 2 (3) + forfeit dummy min(1.5, 1.5) + 4 (1.5) = 8.5; cut 1.5 -> 7
    #   4: 1 (3) + U dummy min(1.5, 2) + 6 (2.5) + 3 (1.5) = 8.5; cut 1.5 -> 7
    #   5: 2 (3) + H dummy 1 + forfeit dummy min(1, 1.5) + Z dummy 1 = 6; cut a VUR's 1 -> 5
    #   6: 3 (1.5) + 1 (3) + 4 (1.5) + 2 (3) = 9;               cut 1.5 -> 7.5
    values = _values("202 BH,BH/C1,BH/M1")
    assert {n: v[:2] for n, v in values.items()} == {
        1: (F(9), F(15, 2)),
        2: (F(17, 2), F(7)),
        3: (F(17, 2), F(7)),
        4: (F(17, 2), F(7)),
        5: (F(6), F(5)),
        6: (F(9), F(15, 2)),
    }
    # Median-1 also cuts the highest: 1 cuts 3 -> 4.5; 5 cuts 3 (his opponent 2) -> 2.
    assert values[1][2] == F(9, 2)
    assert values[5][2] == F(2)


def test_sonneborn_berger_progressive_and_counts() -> None:
    values = _values("202 SB,PS,PS/C1,WIN,WON,BPG,BWG,REP")
    # SB: points scored x the (dummy's) score above.
    #   1: 1x1.5 + 1x2.5 + 0x3 + 1x2 = 6        2: .5x1.5 + 1x1.5 + 1x3 + .5x2.5 = 6.5
    #   3: 0 + 0 + 1x1.5 + .5x1.5 = 2.25        4: 0 + 1x1.5 + 0 + .5x1.5 = 2.25
    #   5: .5x3 + .5x1 + 0 + 0 = 2              6: 1x1.5 + 0 + 1x1.5 + .5x3 = 4.5
    # PS (running scores added): 1: 1+2+2+3 = 8; 2: .5+1.5+2.5+3 = 7.5; 3: 0+0+1+1.5 = 2.5;
    #   4: 0+1+1+1.5 = 3.5; 5: .5+1+1+1 = 3.5; 6: 1+1+2+2.5 = 6.5; /C1 leaves out round 1.
    # WIN counts F, U and + too; WON and the black counts only games played; REP every
    # round but a VUR.
    assert values == {
        1: (F(6), F(8), F(7), F(3), F(2), F(1), F(1), F(4)),
        2: (F(13, 2), F(15, 2), F(7), F(2), F(2), F(2), F(1), F(4)),
        3: (F(9, 4), F(5, 2), F(5, 2), F(1), F(0), F(2), F(0), F(4)),
        4: (F(9, 4), F(7, 2), F(7, 2), F(1), F(0), F(1), F(0), F(4)),
        5: (F(2), F(7, 2), F(3), F(0), F(0), F(0), F(0), F(1)),
        6: (F(9, 2), F(13, 2), F(11, 2), F(2), F(2), F(3), F(2), F(4)),
    }


def test_average_rating_of_opponents() -> None:
    # Ratings 2400, 2300, ..., 1900 for 1..6; only games played over the board count.
    # /C1 leaves out the lowest rating:
    #   1: (2100+1900+2300)/3 = 2100; /C1 (2100+2300)/2 = 2200
    #   2: (2000+2200+2400+1900)/4 = 2125; /C1 (2000+2200+2400)/3 = 2200
    #   4: (2400+1900+2200)/3 = 2166.7 -> 2167; /C1 (2400+2200)/2 = 2300
    #   5: 2300 (his only game); /C1 leaves nothing: 0
    #   6: (2200+2400+2100+2300)/4 = 2250; /C1 (2200+2400+2300)/3 = 2300
    values = _values("202 ARO,ARO/C1")
    assert values[1] == (F(2100), F(2200))
    assert values[2] == (F(2125), F(2200))
    assert values[4] == (F(2167), F(2300))
    assert values[5] == (F(2300), F(0))
    assert values[6] == (F(2250), F(2300))


def test_performance_ratings() -> None:
    # Games over the board (opponent's rating, points), the dp of table B.02 8.1(a) for the
    # percentage rounded half up:
    #   1: 2100 1, 1900 1, 2300 0: ARO 2100, 2/3 = 67 % -> +125: TPR 2225;
    #      /C1 without 1900: 1 of 2, 50 % -> 0, ARO 2200: 2200
    #   2: 2000 1/2, 2200 1, 2400 1, 1900 1/2: ARO 2125, 75 % -> +193: 2318;
    #      /C1 without 1900: 2.5 of 3 = 83 % -> +273, ARO 2200: 2473
    #   3: 1900 0, 2300 0, 2100 1/2 (the forfeit is not a game): ARO 2100, 17 % -> -273: 1827;
    #      /C1 without 1900: 1/2 of 2 = 25 % -> -193, ARO 2200: 2007
    #   4: 2400 0, 1900 0, 2200 1/2: ARO 2167, 17 % -> -273: 1894
    #   5: 2300 1/2: 50 % -> 0: 2300; /C1 leaves no game: 0
    #   6: 2200 1, 2400 0, 2100 1, 2300 1/2: ARO 2250, 62.5 % -> 63 % -> +95: 2345
    # APRO, the opponents' TPRs averaged:
    #   1: 4, 6, 2: (1894 + 2345 + 2318) / 3 = 2185.7 -> 2186
    #   2: 5, 3, 1, 6: (2300 + 1827 + 2225 + 2345) / 4 = 2174.25 -> 2174
    #   5: 2: 2318
    # PTP of 5: the lowest rating expected to score 1/2 against 2300: 0.50 up to a difference
    # of 3 (table 8.1(b)), 0.49 from 4: 2297.
    values = _values("202 TPR,TPR/C1,APRO,PTP")
    assert {n: v[:2] for n, v in values.items()} == {
        1: (F(2225), F(2200)),
        2: (F(2318), F(2473)),
        3: (F(1827), F(2007)),
        4: (F(1894), F(2107)),  # /C1 without 1900: 1/2 of 2 = 25 % -> -193, ARO 2300
        5: (F(2300), F(0)),
        6: (F(2345), F(2300)),  # /C1 without 2100: 1.5 of 3, 50 %, ARO 2300
    }
    assert values[1][2] == F(2186)
    assert values[2][2] == F(2174)
    assert values[5][2:] == (F(2318), F(2297))


def test_rating_tables() -> None:
    assert rating_difference(F(2), 3) == 125
    assert rating_difference(F(1, 2), 3) == -273
    assert rating_difference(F(0), 5) == -800
    assert expected_score(2000, 2000) == F(1, 2)
    assert expected_score(2200, 2000) == F(76, 100)  # 198-206: 0.76
    assert expected_score(1800, 2000) == F(24, 100)
    assert expected_score(2900, 2000) == F(1)  # over 735: 1.00
    assert performance_rating(F(2), [2100, 1900, 2300]) == 2225
    # 1 point against 1800 and 2200: at 1998 the differences are 198 (0.76) and 202 (0.24),
    # together 1.00; at 1997, 197 (0.75) and 203 (0.24): 0.99.
    assert perfect_performance(F(1), [1800, 2200]) == 1998
    assert perfect_performance(F(1), [2000, 2000]) == 1997  # 0.50 up to a difference of 3
    assert perfect_performance(F(0), [2000, 2100]) == 1200  # no points: lowest less 800
    assert perfect_performance(F(2), [2000, 2100]) == 2836  # 1.00 from 736 above the highest
    assert average_rating([2000, 2001]) == 2001  # half up
    assert perfect_performance(F(1), []) == performance_rating(F(1), []) == 0


# A round-robin of four players, three rounds (colours as the Berger table gives them):
#   R1: 1w-4b 1-0, 2w-3b 1/2;  R2: 4w-3b 0-1, 1w-2b 1/2;  R3: 2w-4b 1-0, 3w-1b 0-1
# Scores: 1: 2.5, 2: 2, 3: 1.5, 4: 0.
ROUND_ROBIN = {
    1: (2200, ["   4 w 1", "   2 w =", "   3 b 1"]),
    2: (2100, ["   3 w =", "   1 b =", "   4 w 1"]),
    3: (2000, ["   2 b =", "   4 b 1", "   1 w 0"]),
    4: (1900, ["   1 b 0", "   3 w 0", "   2 b 0"]),
}


def test_koya_in_a_round_robin() -> None:
    # Half of the 3 rounds' points is 1.5: players 1, 2 and 3 reach it, 4 does not.
    #   1: 1/2 against 2 + 1 against 3 = 1.5 (his win over 4 does not count)
    #   2: 1/2 against 3 + 1/2 against 1 = 1;  3: 1/2 against 2 + 0 against 1 = 1/2;  4: 0
    players = [_player(n, rating, cells) for n, (rating, cells) in ROUND_ROBIN.items()]
    text = "\n".join(["012 Round-robin", "142 3", "212 PTS,KS", *players]) + "\n"
    tournament = parse_trf(text)
    assert tournament.tiebreaks is not None
    rows = standings(tournament, 3, parse_tiebreaks(tournament.tiebreaks))
    assert {row.number: row.values for row in rows} == {
        1: (F(5, 2), F(3, 2)),
        2: (F(2), F(1)),
        3: (F(3, 2), F(1, 2)),
        4: (F(0), F(0)),
    }


def test_koya_counts_forfeits_against_its_opponents() -> None:
    # Half of 4 rounds is 2: players 1 (3), 2 (3) and 6 (2.5) reach it.
    #   1: 6 (1) + 2 (0) = 1;  2: 1 (1) + 6 (1/2) = 1.5;  3: 6 (0) + 2 (0) = 0 (forfeit win
    #   over 5, who does not reach it);  4: 1 (0) + 6 (0) = 0;  5: 2 (1/2) = 1/2;
    #   6: 1 (0) + 2 (1/2) = 1/2
    values = _values("202 KS")
    assert {n: v[0] for n, v in values.items()} == {
        1: F(1),
        2: F(3, 2),
        3: F(0),
        4: F(0),
        5: F(1, 2),
        6: F(1, 2),
    }


def test_standings_share_a_rank_only_when_every_tie_break_is_equal() -> None:
    tournament = parse_trf(_six("202 DE,BH"))
    assert tournament.tiebreaks is not None
    rows = standings(tournament, 4, parse_tiebreaks(tournament.tiebreaks))
    # 1 and 2 on 3 points: 2 beat 1 (DE). 3 and 4 on 1.5 drew with each other and have the
    # same Buchholz (8.5): they share 4th place.
    assert [(row.number, row.rank) for row in rows] == [
        (2, 1),
        (1, 2),
        (6, 3),
        (3, 4),
        (4, 4),
        (5, 6),
    ]
    # By Buchholz cut-1 first, 1 (7.5) is ahead of 2 (7).
    tournament = parse_trf(_six("212 PTS,BH/C1"))
    assert tournament.tiebreaks is not None
    rows = standings(tournament, 4, parse_tiebreaks(tournament.tiebreaks))
    assert [row.number for row in rows][:2] == [1, 2]


def test_direct_encounter_when_not_all_tied_players_met() -> None:
    # Seven players, three rounds, one pairing-allocated bye a round.
    #   R1: 1w-2b 1-0, 3w-4b 1-0, 5w-6b 1/2, 7 bye
    #   R2: 3w-1b 0-1, 2w-5b 1-0, 7w-4b 1-0, 6 bye
    #   R3: 1w-7b 0-1, 2w-4b 1-0, 3w-6b 1-0, 5 bye
    # 1, 2 and 3 have 2 points. 1 beat both others (2 of 2); 2 and 3 did not meet each
    # other, so each has 0 and could reach at most 1: 1 is ranked first (Art. 6.2), and 2 and 3
    # stay tied. 5 and 6 (1.5) drew their game: tied too.
    cells = {
        1: ["   2 w 1", "   3 b 1", "   7 w 0"],
        2: ["   1 b 0", "   5 w 1", "   4 w 1"],
        3: ["   4 w 1", "   1 w 0", "   6 w 1"],
        4: ["   3 b 0", "   7 b 0", "   2 b 0"],
        5: ["   6 w =", "   2 b 0", "0000 - U"],
        6: ["   5 b =", "0000 - U", "   3 b 0"],
        7: ["0000 - U", "   4 w 1", "   1 b 1"],
    }
    text = "\n".join(["142 3", "202 DE", *(_player(n, 2000, c) for n, c in cells.items())])
    tournament = parse_trf(text)
    assert tournament.tiebreaks is not None
    rows = standings(tournament, 3, parse_tiebreaks(tournament.tiebreaks))
    assert {row.number: row.rank for row in rows} == {7: 1, 1: 2, 2: 3, 3: 3, 5: 5, 6: 5, 4: 7}


def test_the_list_is_read_with_its_columns() -> None:
    listed = parse_tiebreaks(TrfTieBreakLine("202 DE, BH/C1 SB-C1,GE", 7))
    assert [(t.code, t.cut_low, t.cut_high, t.column) for t in listed] == [
        (Code.PTS, 0, 0, 0),
        (Code.DE, 0, 0, 5),
        (Code.BH, 1, 0, 9),
        (Code.SB, 1, 0, 15),
        (Code.REP, 0, 0, 21),
    ]
    with pytest.raises(TrfError, match="line 7, column 9: tie-break ABC is not implemented"):
        parse_tiebreaks(TrfTieBreakLine("202 BH, ABC", 7))
    with pytest.raises(TrfError, match="line 7, column 5: KS/C1: modifier 'C1'"):
        parse_tiebreaks(TrfTieBreakLine("202 KS/C1", 7))
    with pytest.raises(TrfError, match="line 3, column 5: WIN/C1: modifier 'C1'"):
        parse_tiebreaks(TrfTieBreakLine("212 WIN/C1", 3))


def test_check_standings_names_the_first_rank_that_differs() -> None:
    right = {2: 1, 1: 2, 6: 3, 3: 4, 4: 4, 5: 6}
    checked = check_standings(parse_trf(_six("202 DE,BH", right)), 4)
    assert checked is not None
    assert checked[1] is None
    wrong = right | {3: 5}
    checked = check_standings(parse_trf(_six("202 DE,BH", wrong)), 4)
    assert checked is not None
    assert checked[1] is not None
    assert checked[1].describe() == (
        "line 6, column 86: player 3 is ranked 5 in the file; the tie-break list ranks him 4 "
        "(PTS 1.5, DE 1, BH 8.5)"
    )
    assert check_standings(parse_trf(_six("202 DE,BH")), 4) is None  # no ranks to check
    unrated = _six("202 ARO", right).replace(
        _player(5, 2000, SIX[5][1], 6), _player(5, 0, SIX[5][1], 6)
    )
    with pytest.raises(TrfError, match="line 3, column 5: ARO needs every player's rating"):
        check_standings(parse_trf(unrated), 4)


# A tournament the engine pairs (round 1: 1-3, 4-2; round 2: 2-1, 3-4), so that --check
# reaches the standings: 1 beat 3 and drew 2; 2 won against 4, drew 1; 3 and 4 drew.
#   1: 1.5, 2: 1.5, 3: 0.5, 4: 0.5. Buchholz: 1: 0.5 + 1.5 = 2; 2: 0.5 + 1.5 = 2;
#   3: 1.5 + 0.5 = 2; 4: 1.5 + 0.5 = 2. Sonneborn-Berger: 1: 1x0.5 + 0.5x1.5 = 1.25;
#   2: 1x0.5 + 0.5x1.5 = 1.25; 3: 0 + 0.5x0.5 = 0.25; 4: 0 + 0.5x0.5 = 0.25. Wins: 1 and 2 one
#   each. Games with Black: 1 one (round 2), 2 one (round 1). So no list separates 1 from 2.
FOUR = {
    1: ["   3 w 1", "   2 b ="],
    2: ["   4 b 1", "   1 w ="],
    3: ["   1 b 0", "   4 w ="],
    4: ["   2 w 0", "   3 b ="],
}


def _four(path: Path, declaration: str, ranks: dict[int, int]) -> str:
    lines = ["012 Four", "142 2", "152 W", declaration]
    lines += [_player(n, 2500 - 100 * n, c, ranks[n]) for n, c in FOUR.items()]
    path.write_text("\r".join(lines) + "\r")
    return str(path)


def test_pair_check_verifies_the_standings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tied = {1: 1, 2: 1, 3: 3, 4: 3}
    assert main(["pair", "--check", _four(tmp_path / "a.trf", "202 BH,SB,WIN,BPG", tied)]) == 0
    assert capsys.readouterr().out == (
        "all 2 rounds match the FIDE Dutch pairing; every rank matches the tie-break list "
        "PTS,BH,SB,WIN,BPG\n"
    )
    # Ranking 1 ahead of 2 needs a tie-break that separates them: none of these does.
    apart = {1: 1, 2: 2, 3: 3, 4: 3}
    assert main(["pair", "--check", _four(tmp_path / "b.trf", "202 BH,SB", apart)]) == 1
    assert capsys.readouterr().out == (
        "line 6, column 86: player 2 is ranked 2 in the file; the tie-break list ranks him 1 "
        "(PTS 1.5, BH 2, SB 1.25)\n"
    )
    assert main(["pair", "--check", _four(tmp_path / "c.trf", "202 BH,SSSC", tied)]) == 3
    assert "line 4, column 8: SSSC is a team tie-break" in capsys.readouterr().err


def test_check_reports_the_pairing_before_the_standings() -> None:
    # The same file with round 2's colours swapped is a pairing difference (round 2), whatever
    # the ranks say.
    swapped = {**FOUR, 1: ["   3 w 1", "   2 w ="], 2: ["   4 b 1", "   1 b ="]}
    lines = ["142 2", "152 W", "202 BH"]
    lines += [_player(n, 2500 - 100 * n, c, 1) for n, c in swapped.items()]
    report = check_tournament(parse_trf("\n".join(lines)))
    assert report.difference is not None
    assert report.difference.round_number == 2
    assert not report.passed
