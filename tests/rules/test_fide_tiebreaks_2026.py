"""The C.07 (2026) tie-breaks added to the checker after the first set: Fore Buchholz (Art.
8.3), the average of the opponents' Buchholz (Art. 8.2), standard points (Art. 7.7), the
pairing number (Art. 7.8), the own rating (Art. 10.6), Koya's limit (Art. 14.5), the ``/P``
modifier, and the rating-based tie-breaks with per-round ratings (Art. 10).

Every expected value was worked out by hand from the crosstables below (the sums are in the
comments); none comes from the module under test.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from rules.swiss.checker import check_tournament
from rules.swiss.fide_tiebreaks import Code, parse_tiebreaks, standings
from rules.swiss.generator import GeneratorError, generate, parse_config
from rules.swiss.trf import TrfError, parse_trf, write_trf
from rules.swiss.trf_model import TrfTieBreakLine

F = Fraction


def _player(number: int, rating: int, cells: list[str]) -> str:
    static = [" "] * 81
    static[40:44] = f"{rating:4d}"
    return f"001 {number:4d}{''.join(static)}" + "".join("  " + cell for cell in cells)


def _values(
    lines: list[str], cells: dict[int, list[str]], rounds: int, ratings: dict[int, int]
) -> dict[int, tuple[Fraction, ...]]:
    players = [_player(n, ratings.get(n, 2000), c) for n, c in cells.items()]
    tournament = parse_trf("\n".join([*lines, *players]) + "\n")
    assert tournament.tiebreaks is not None
    rows = standings(tournament, rounds, parse_tiebreaks(tournament.tiebreaks))
    return {row.number: row.values[1:] for row in rows}  # without the points


# Five players, three rounds, a pairing-allocated bye each round:
#   R1: 1w-3b 1-0, 2w-4b 1/2, 5 bye (U)
#   R2: 5w-1b 0-1, 3w-2b 0-1, 4 bye
#   R3: 1w-2b 1-0, 4w-5b forfeit won by 4, 3 bye
# Scores: 1: 3, 2: 1.5, 3: 1, 4: 2.5, 5: 1. 5's forfeit loss names his opponent, so no score is
# adjusted (Art. 16.3). Dummies (Art. 16.4): the own score, at most 1/2 x 3 rounds = 1.5 for a
# bye, at most the scheduled opponent's adjusted score for a forfeit.
FORE = {
    1: ["   3 w 1", "   5 b 1", "   2 w 1"],
    2: ["   4 w =", "   3 b 1", "   1 b 0"],
    3: ["   1 b 0", "   2 w 0", "0000 - U"],
    4: ["   2 b =", "0000 - U", "   5 w +"],
    5: ["0000 - U", "   1 w 0", "   4 b -"],
}


def _fore(declaration: str) -> dict[int, tuple[Fraction, ...]]:
    return _values(["012 Fore", "142 3", declaration], FORE, 3, {})


def test_fore_buchholz_draws_every_game_paired_for_the_final_round() -> None:
    # BH (Art. 8.1):
    #   1: 3 (1) + 5 (1) + 2 (1.5) = 3.5       2: 4 (2.5) + 3 (1) + 1 (3) = 6.5
    #   3: 1 (3) + 2 (1.5) + bye dummy min(1, 1.5) = 5.5
    #   4: 2 (1.5) + bye dummy min(2.5, 1.5) + forfeit dummy min(2.5, 5's 1) = 4
    #   5: bye dummy min(1, 1.5) + 1 (3) + forfeit dummy min(1, 4's 2.5) = 5
    # FB (Art. 8.3): round 3's paired games 1-2 and 4-5 (forfeited, but paired) count as draws;
    # 3's bye keeps its point. Scores then 1: 2.5, 2: 2, 3: 1, 4: 2, 5: 1.5 (no VUR left):
    #   1: 3 (1) + 5 (1.5) + 2 (2) = 4.5       2: 4 (2) + 3 (1) + 1 (2.5) = 5.5
    #   3: 1 (2.5) + 2 (2) + bye dummy min(1, 1.5) = 5.5
    #   4: 2 (2) + bye dummy min(2, 1.5) + 5 (1.5) = 5
    #   5: bye dummy min(1.5, 1.5) + 1 (2.5) + 4 (2) = 6
    # FB/C1 (Art. 14.1) cuts the lowest: 1: 3.5, 2: 4.5, 3: 4.5, 4: 3.5 (a 1.5), 5: 4.5.
    values = _fore("202 BH,FB,FB/C1")
    assert values == {
        1: (F(7, 2), F(9, 2), F(7, 2)),
        2: (F(13, 2), F(11, 2), F(9, 2)),
        3: (F(11, 2), F(11, 2), F(9, 2)),
        4: (F(4), F(5), F(7, 2)),
        5: (F(5), F(6), F(9, 2)),
    }


def test_fore_buchholz_cuts_a_voluntary_unplayed_round_first() -> None:
    # Five players, three rounds:
    #   R1: 1w-2b 1-0, 3w-4b 1-0, 5 bye (U);  R2: 1 half-point bye (H), 2w-3b 0-1, 4w-5b 0-1
    #   R3: 3w-1b 0-1, 5w-2b 1-0, 4 bye (U)
    # Scores 1: 2.5, 2: 0, 3: 2, 4: 1, 5: 3. 1's H is followed by a game, so it counts as
    # awarded (Art. 16.2.3, 16.3.1); in his own Buchholz it is a dummy of min(2.5, 1.5) = 1.5.
    #   BH 1: 2 (0) + dummy 1.5 + 3 (2) = 3.5. Cut-1 (Art. 16.5.1): the VUR's 1.5 is not lower
    #   than the least value (0), so it is the one cut: 0 + 2 = 2.
    # FB: round 3's games drawn: 1: 2, 2: 1/2, 3: 2.5, 4: 1 (his bye kept), 5: 2.5.
    #   1: 2 (1/2) + dummy min(2, 1.5) + 3 (2.5) = 4.5; /C1 cuts the VUR again: 3
    #   2: 1 (2) + 3 (2.5) + 5 (2.5) = 7, /C1 5;   3: 4 (1) + 2 (1/2) + 1 (2) = 3.5, /C1 3
    #   4: 3 (2.5) + 5 (2.5) + bye dummy min(1, 1.5) = 6, /C1 5
    #   5: bye dummy min(2.5, 1.5) + 4 (1) + 2 (1/2) = 3, /C1 2.5
    # AOB of 1 (met 2 and 3 over the board): BH 7.5 and 3.5 -> 5.5; /F: FB 7 and 3.5 -> 5.25
    # (BH 2: 1 (2.5) + 3 (2) + 5 (3) = 7.5;  BH 3: 4 (1) + 2 (0) + 1 (2.5) = 3.5).
    cells = {
        1: ["   2 w 1", "0000 - H", "   3 b 1"],
        2: ["   1 b 0", "   3 w 0", "   5 b 0"],
        3: ["   4 w 1", "   2 b 1", "   1 w 0"],
        4: ["   3 b 0", "   5 w 0", "0000 - U"],
        5: ["0000 - U", "   4 b 1", "   2 w 1"],
    }
    values = _values(["142 3", "202 BH,BH/C1,FB,FB/C1,AOB,AOB/F"], cells, 3, {})
    assert values[1] == (F(7, 2), F(2), F(9, 2), F(3), F(11, 2), F(21, 4))
    assert {n: v[2:4] for n, v in values.items() if n != 1} == {
        2: (F(7), F(5)),
        3: (F(7, 2), F(3)),
        4: (F(6), F(5)),
        5: (F(3), F(5, 2)),
    }


def test_fore_buchholz_before_the_final_round_is_the_buchholz() -> None:
    # Ranked after round 2 of 3, the final round's games are not among the rounds (Art. 8.3):
    # FB = BH.
    values = _values(["012 Fore", "142 3", "202 BH,FB"], FORE, 2, {})
    assert all(bh == fb for bh, fb in values.values())


def test_average_of_the_opponents_buchholz() -> None:
    # AOB (Art. 8.2): the opponents met over the board (no bye, no forfeit), their BH (FB for
    # /F) above, averaged and shown to the hundredth (half up):
    #   1: 3, 5, 2: (5.5 + 5 + 6.5) / 3 = 5.666 -> 5.67; /F (5.5 + 6 + 5.5) / 3 -> 5.67
    #   2: 4, 3, 1: (4 + 5.5 + 3.5) / 3 = 4.333 -> 4.33; /F (5 + 5.5 + 4.5) / 3 = 5
    #   3: 1, 2: (3.5 + 6.5) / 2 = 5; /F (4.5 + 5.5) / 2 = 5
    #   4: 2: 6.5; /F 5.5        5: 1: 3.5; /F 4.5
    values = _fore("202 AOB,AOB/F")
    assert values == {
        1: (F(567, 100), F(567, 100)),
        2: (F(433, 100), F(5)),
        3: (F(5), F(5)),
        4: (F(13, 2), F(11, 2)),
        5: (F(7, 2), F(9, 2)),
    }


def test_forfeits_counted_as_games() -> None:
    # BH/P (Art. 16.6 allows it): 5's forfeit loss counts 4's score 2.5 instead of the dummy's
    # 1: 1 + 3 + 2.5 = 6.5. 4's forfeit win counts 5's 1, as the dummy did: 4.
    values = _fore("202 BH/P")
    assert values[5] == (F(13, 2),)
    assert values[4] == (F(4),)
    # DE/P (Art. 6.1.1): four players, two rounds.
    #   R1: 1w-2b forfeit won by 1, 3w-4b 0-1;  R2: 1w-4b 0-1, 2w-3b 1-0
    # 1 and 2 have 1 point each. Without /P they never met: each could still reach 1 against
    # the other, so DE leaves them tied. With /P the forfeit is 1's win: 1 is ahead.
    cells = {
        1: ["   2 w +", "   4 w 0"],
        2: ["   1 b -", "   3 w 1"],
        3: ["   4 w 0", "   2 b 0"],
        4: ["   3 b 1", "   1 b 1"],
    }
    for declaration, ranks in (("202 DE", {1: 2, 2: 2}), ("202 DE/P", {1: 2, 2: 3})):
        tournament = parse_trf("\n".join(["142 2", declaration, *_rows(cells)]))
        assert tournament.tiebreaks is not None
        rows = standings(tournament, 2, parse_tiebreaks(tournament.tiebreaks))
        assert {r.number: r.rank for r in rows if r.number in ranks} == ranks


def _rows(cells: dict[int, list[str]]) -> list[str]:
    return [_player(n, 2000, c) for n, c in cells.items()]


def test_standard_points() -> None:
    # STD (Art. 7.7): 1 for a round scored above the opponent (a round not played: above a
    # draw's points), 1/2 for one equal, 0 below. Four players, three rounds:
    #   R1: 1w-2b 1/2-0 (2 penalised), 3w-4b 0-0
    #   R2: 1w-3b both forfeited, 2w-4b forfeit won by 2
    #   R3: 3w-4b 1/2, 1 half-point bye, 2 zero-point bye
    #   1: 1 (above 0) + 0 (no point, not played) + 1/2 (a draw's points) = 1.5 (PTS 1)
    #   2: 0 + 1 (a forfeit win is above a draw) + 0 = 1 (PTS 1)
    #   3: 1/2 (0-0: equal) + 0 + 1/2 = 1 (PTS 0.5);  4: 1/2 + 0 + 1/2 = 1 (PTS 0.5)
    cells = {
        1: ["   2 w =", "   3 w -", "0000 - H"],
        2: ["   1 b 0", "   4 w +", "0000 - Z"],
        3: ["   4 w 0", "   1 b -", "   4 w ="],
        4: ["   3 b 0", "   2 b -", "   3 b ="],
    }
    values = _values(["142 3", "202 STD"], cells, 3, {})
    assert values == {1: (F(3, 2),), 2: (F(1),), 3: (F(1),), 4: (F(1),)}


def test_pairing_number_ranks_the_lowest_first_and_rating_the_highest() -> None:
    # In FORE, 3 and 5 tie on 1 point for 4th place. TPN (Art. 7.8) ranks 3, the lower
    # number, first; RTNG (Art. 10.6) ranks 5 (rated 2100) ahead of 3 (1900).
    ratings = {3: 1900, 5: 2100}
    for declaration, first in (("202 TPN", 3), ("202 RTNG", 5)):
        players = [_player(n, ratings.get(n, 2000), c) for n, c in FORE.items()]
        tournament = parse_trf("\n".join(["142 3", declaration, *players]))
        assert tournament.tiebreaks is not None
        rows = standings(tournament, 3, parse_tiebreaks(tournament.tiebreaks))
        rank = {r.number: r.rank for r in rows}
        assert (rank[first], rank[8 - first]) == (4, 5)


def test_koya_limit_modifier() -> None:
    # A round-robin of four, three rounds (scores 2.5, 2, 1.5, 0):
    #   R1: 1w-4b 1-0, 2w-3b 1/2;  R2: 4w-3b 0-1, 1w-2b 1/2;  R3: 2w-4b 1-0, 3w-1b 0-1
    # KS's limit is half of 3 points, 1.5 (Art. 9.2). /L+1 raises it by half a point (Art.
    # 14.5) to 2: only 1 and 2 count. 1: 1/2 (vs 2); 2: 1/2 (vs 1); 3: 1/2 (vs 2) + 0 = 1/2;
    # 4: 0. /L-3 lowers it to 0: every opponent counts, KS = points.
    cells = {
        1: ["   4 w 1", "   2 w =", "   3 b 1"],
        2: ["   3 w =", "   1 b =", "   4 w 1"],
        3: ["   2 b =", "   4 b 1", "   1 w 0"],
        4: ["   1 b 0", "   3 w 0", "   2 b 0"],
    }
    values = _values(["142 3", "212 PTS,KS/L+1,KS/L-3"], cells, 3, {})
    assert values == {
        1: (F(1, 2), F(5, 2)),
        2: (F(1, 2), F(2)),
        3: (F(1, 2), F(3, 2)),
        4: (F(0), F(0)),
    }


# Six players, four rounds (the crosstable of tests/rules/test_fide_tiebreaks.py):
#   R1: 1w-4b 1-0, 5w-2b 1/2, 3w-6b 0-1
#   R2: 6w-1b 0-1, 2w-3b 1-0, 4 pairing-allocated bye, 5 half-point bye
#   R3: 1w-2b 0-1, 3w-5b forfeit won by 3, 4w-6b 0-1
#   R4: 2w-6b 1/2, 4w-3b 1/2, 1 full-point bye, 5 absent
SIX = {
    1: ["   4 w 1", "   6 b 1", "   2 w 0", "0000 - F"],
    2: ["   5 b =", "   3 w 1", "   1 b 1", "   6 w ="],
    3: ["   6 w 0", "   2 b 0", "   5 w +", "   4 b ="],
    4: ["   1 b 0", "0000 - U", "   6 w 0", "   3 w ="],
    5: ["   2 w =", "0000 - H", "   3 b -", "0000 - Z"],
    6: ["   3 b 1", "   1 w 0", "   4 b 1", "   2 b ="],
}
SIX_RATINGS = {1: 2400, 2: 2300, 3: 2200, 4: 2100, 5: 2000, 6: 1900}


def test_rating_tie_breaks_take_the_rating_of_the_round_played() -> None:
    # With per-round ratings, 6 is rated 2000 from round 2 and 1 is rated 2000 from round 3;
    # a game counts the opponent's rating of its round (Art. 10; without the flag, the 001
    # ratings: see test_fide_tiebreaks.py):
    #   1: 4 (R1 2100), 6 (R2 2000), 2 (R3 2300): 6400 / 3 = 2133.3 -> 2133
    #   2: 5 (2000), 3 (2200), 1 (R3 2000), 6 (R4 2000): 8200 / 4 = 2050
    #   3: 6 (R1 1900), 2 (2300), 4 (2100) (the forfeit is no game): 2100
    #   4: 1 (R1 2400), 6 (R3 2000), 3 (2200): 2200
    # TPR of 2: 3 of 4 = 75 % -> +193 (B.02 8.1(a)): 2243. RTNG keeps the 001 rating (Art.
    # 10: the first): 1 2400, 6 1900.
    lines = [
        "142 4",
        "202 ARO,TPR,RTNG",
        "XXO per-round-ratings",
        "XXL 002    6 2000",
        "XXL 003    1 2000",
    ]
    values = _values(lines, SIX, 4, SIX_RATINGS)
    assert values[1] == (F(2133), F(2133 + 125), F(2400))  # 2 of 3 = 67 % -> +125
    assert values[2] == (F(2050), F(2243), F(2300))
    assert values[3][0] == F(2100)
    assert values[4][0] == F(2200)
    assert values[6][2] == F(1900)
    # The same lines without the flag change nothing: the 001 ratings (1: 2100).
    values = _values([lines[0], lines[1], *lines[3:]], SIX, 4, SIX_RATINGS)
    assert values[1][0] == F(2100)


def test_codes_and_modifiers_are_read() -> None:
    listed = parse_tiebreaks(TrfTieBreakLine("202 FB-M1,AOB/F,KS/L+2,BH/C1/P,DE/P,STD", 1))
    assert [(t.code, t.cut_low, t.cut_high) for t in listed[1:3]] == [
        (Code.FB, 1, 1),
        (Code.AOB, 0, 0),
    ]
    assert listed[2].fore
    assert listed[3].limit == 2
    assert listed[4].forfeits_played
    assert listed[4].cut_low == 1
    assert listed[5].forfeits_played
    refused = {
        "202 BH,SSSC": "column 8: SSSC is a team tie-break (C.07 Art. 13.4)",
        "202 EMGSB/C1": "column 5: EMGSB is a team tie-break (C.07 Art. 13.2)",
        "202 BH:GP/C1": "column 5: BH:GP: a point type",
        "202 OTHER_LOTS": "column 5: OTHER_LOTS is self-defined",
        "202 XYZ": "column 5: tie-break XYZ is not implemented",
        "202 BH/F": "column 5: BH/F: modifier 'F' is not one BH takes",
        "202 KS/L1": "column 5: KS/L1: modifier 'L1' is not one KS takes",
        "202 AOB/C1": "column 5: AOB/C1: modifier 'C1' is not one AOB takes",
        "202 BH/C1x": "column 10: BH/C1x: cannot read a modifier here",
    }
    for text, problem in refused.items():
        with pytest.raises(TrfError, match=re.escape(f"line 1, {problem}")):
            parse_tiebreaks(TrfTieBreakLine(text, 1))


def test_the_generator_declares_the_new_codes() -> None:
    config = "PlayersNumber=12\nRoundsNumber=4\nTieBreaks=FB/C1,AOB,STD,TPN\nSeed=3"
    made = generate(parse_config(config)).tournament
    assert made.tiebreaks is not None
    assert made.tiebreaks.text == "202 FB/C1,AOB,STD,TPN"
    ranks = sorted(int(player.static[77:81]) for player in made.players)
    assert ranks[0] == 1
    assert len(set(ranks)) == len(ranks)  # TPN separates every player still tied
    with pytest.raises(GeneratorError, match="SSSC is a team tie-break"):
        parse_config("TieBreaks=BH,SSSC")


def test_check_passes_a_generated_file_with_every_code_and_per_round_ratings() -> None:
    # Every knob of the generator (forfeits, byes, withdrawals, unusual results) and drifting
    # ratings: the ranks it writes by this list are the ranks --check computes from the file
    # it wrote, and one rank moved is the first difference.
    listed = "DE/P,FB/M1,AOB/F,STD,SB/C1/P,KS/L+1,ARO/C1,TPR,PTP,APRO,APPO,RTNG,TPN"
    config = "\n".join(
        [
            "PlayersNumber=24",
            "RoundsNumber=6",
            "ForfeitRate=10",
            "DoubleForfeitRate=40",
            "UnusualResultRate=30",
            "RetiredRate=60",
            "HalfPointByeRate=15",
            "ZeroPointByeRate=30",
            "FullPointByeRate=30",
            "RatingDrift=150",
            "Trf2026=1",
            f"TieBreaks={listed}",
            "Seed=11",
        ]
    )
    text = write_trf(generate(parse_config(config)).tournament)
    assert "XXO per-round-ratings" in text
    report = check_tournament(parse_trf(text))
    assert report.passed, report.describe()
    assert report.tiebreaks is not None
    assert ",".join(t.label for t in report.tiebreaks) == f"PTS,{listed}"
    first = next(line for line in text.splitlines() if line.startswith("001"))
    moved = first[:85] + f"{int(first[85:89]) % 24 + 1:4d}" + first[89:]
    report = check_tournament(parse_trf(text.replace(first, moved)))
    assert report.standing is not None
    assert report.standing.number == 1


@pytest.mark.parametrize(("total", "dummy"), [(4, F(2)), (2, F(1))])
def test_a_bye_dummy_is_capped_by_the_rounds_of_the_tournament(total: int, dummy: Fraction) -> None:
    # Art. 16.4.2: the dummy opponent of a round without one scores the player's own score, at
    # most a draw's points times the number of rounds *of the tournament*, not of the rounds
    # ranked (they differ when ranking before the final round, as --check does on a partial
    # file). Three players, ranked after round 2 of ``total``:
    #   R1: 1w-2b 1-0, 3 bye (U);  R2: 3w-1b 1-0, 2 bye (U). Scores 1: 1, 2: 1, 3: 2.
    # 3's dummy: min(2, 1/2 x 4) = 2 in 4 rounds; min(2, 1/2 x 2) = 1 in 2 rounds.
    #   BH 3: dummy + 1 (1);  SB 3: dummy x 1 + 1 (1) x 1.
    #   BH 1: 2 (1) + 3 (2) = 3, SB 1: 2 (1) x 1 = 1;  BH 2: 1 (1) + dummy min(1, 1 or 2) = 2,
    #   SB 2: dummy 1 x 1 = 1 (2's own score is below either cap).
    cells = {
        1: ["   2 w 1", "   3 b 0"],
        2: ["   1 b 0", "0000 - U"],
        3: ["0000 - U", "   1 w 1"],
    }
    values = _values([f"142 {total}", "202 BH,SB"], cells, 2, {})
    assert values == {
        1: (F(3), F(1)),
        2: (F(2), F(1)),
        3: (dummy + 1, dummy + 1),
    }
