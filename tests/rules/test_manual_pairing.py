"""The TDs' own pairing of a qualification round (rules 3.v.6): its checks, the editor's
starting point, and a 10-game match's colours read as a preference for game 1."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.core.colour import Colour
from rules.stages.manual_pairing import (
    HandBoard,
    HandPairing,
    Severity,
    check_pairing,
    colours_as_preferences,
    starting_pairing,
)
from rules.swiss.dutch import (
    NoLegalPairingError,
    PlayerNumber,
    RoundKind,
    RoundRecord,
    SwissPlayer,
    pair_round,
)

W, B = Colour.WHITE, Colour.BLACK
N = PlayerNumber
NAMES = {N(i): f"p{i}" for i in range(1, 8)}

# Three rounds of six players in which {1,2,3} met {4,5,6} every time: the players left to meet
# are two triangles, so no round 4 pairs everyone without a rematch (rules 3.v.2: 4 rounds).
ROUNDS = [
    [(1, 4), (5, 2), (3, 6)],
    [(5, 1), (2, 6), (4, 3)],
    [(1, 6), (4, 2), (5, 3)],
]


def field(
    rounds: list[list[tuple[int, int]]], winners: set[int], size: int = 6
) -> list[SwissPlayer]:
    history: dict[int, list[RoundRecord]] = {i: [] for i in range(1, size + 1)}
    for boards in rounds:
        for w, b in boards:
            for me, other, colour in ((w, b, W), (b, w, B)):
                points = Fraction(1) if me in winners else Fraction(0)
                history[me].append(RoundRecord(RoundKind.PLAYED, points, N(other), colour))
    return [SwissPlayer(N(i), tuple(h)) for i, h in history.items()]


def test_the_six_player_field_has_no_dutch_pairing_in_either_colour_reading() -> None:
    players = field(ROUNDS, winners={4, 5, 6})
    for given in (players, colours_as_preferences(players)):
        with pytest.raises(NoLegalPairingError):
            pair_round(given, round_number=4, total_rounds=4)


def test_the_editor_starts_from_the_pairing_with_one_rematch_and_colours_by_preference() -> None:
    players = field(ROUNDS, winners={4, 5, 6})
    start = starting_pairing(players, names=NAMES)
    assert start.bye is None
    assert len(start.boards) == 3
    findings = check_pairing(players, start, names=NAMES)
    assert [f.code for f in findings] == ["rematch"]
    assert all(f.severity is Severity.WARNING for f in findings)
    assert "C.04.3 C1" in findings[0].text
    # nobody is given the colour of his last game 1 when the other colour suits both
    assert "colours" not in [f.code for f in findings]


def test_refusals_cannot_be_overridden_and_say_why() -> None:
    players = field(ROUNDS, winners={4, 5, 6})
    twice = HandPairing((HandBoard(N(1), N(2)), HandBoard(N(1), N(3)), HandBoard(N(5), N(6))))
    codes = {f.code for f in check_pairing(players, twice, names=NAMES)}
    assert codes == {"twice", "missing"}  # p1 twice, p4 left out
    self_play = HandPairing((HandBoard(N(1), N(1)), HandBoard(N(2), N(3)), HandBoard(N(5), N(6))))
    assert "self" in {f.code for f in check_pairing(players, self_play, names=NAMES)}
    stranger = HandPairing((HandBoard(N(1), N(9)),), bye=N(2))
    found = check_pairing(players, stranger, names=NAMES)
    assert all(f.severity is Severity.REFUSAL for f in found)
    assert {"unknown", "missing", "bye"} <= {f.code for f in found}


def test_a_player_who_left_cannot_be_paired_and_the_odd_field_needs_its_bye() -> None:
    players = field(ROUNDS, winners={4, 5, 6})
    players[5] = SwissPlayer(players[5].number, players[5].history, present=False)  # p6 left
    paired = HandPairing((HandBoard(N(1), N(2)), HandBoard(N(3), N(6))), bye=N(4))
    assert {f.code for f in check_pairing(players, paired, names=NAMES)} == {"absent", "missing"}
    no_bye = HandPairing((HandBoard(N(1), N(2)), HandBoard(N(3), N(4))))
    assert {f.code for f in check_pairing(players, no_bye, names=NAMES)} == {"missing", "bye"}
    good = starting_pairing(players, names=NAMES)
    assert good.bye is not None
    assert not [
        f for f in check_pairing(players, good, names=NAMES) if f.severity is Severity.REFUSAL
    ]


def test_a_second_bye_and_a_forbidden_pair_are_warnings() -> None:
    bye = RoundRecord(RoundKind.PAIRING_BYE, Fraction(1))
    players = [SwissPlayer(N(1), (bye,)), SwissPlayer(N(2), (bye,)), SwissPlayer(N(3), (bye,))]
    pairing = HandPairing((HandBoard(N(1), N(2)),), bye=N(3))
    found = check_pairing(players, pairing, names=NAMES, forbidden=frozenset({frozenset({1, 2})}))
    assert [f.code for f in found] == ["forbidden", "bye_again"]
    assert "C.04.3 C2" in found[1].text


def test_colours_of_game_one_are_a_preference_unless_the_settings_make_them_absolute() -> None:
    a = SwissPlayer(N(1), (RoundRecord(RoundKind.PLAYED, Fraction(1), N(3), W),) * 2)
    b = SwissPlayer(N(2), (RoundRecord(RoundKind.PLAYED, Fraction(1), N(4), B),) * 2)
    again = HandPairing((HandBoard(N(1), N(2)),))  # p1 White a third time, p2 Black
    soft = check_pairing([a, b], again, names=NAMES)
    assert [f.code for f in soft] == ["colours"]
    hard = check_pairing([a, b], again, names=NAMES, absolute_colours=True)
    assert [f.code for f in hard] == ["colours", "absolute_colour", "absolute_colour"]
    # the engine's input: the last colour kept, alternating before it, no absolute preference
    (sa, sb) = colours_as_preferences([a, b])
    assert sa.colours == (B, W)
    assert sb.colours == (W, B)
    assert [r.opponent for r in sa.history] == [N(3), N(3)]


def test_the_engine_pairs_what_absolute_colours_forbid() -> None:
    # p1 and p3 had White in both games 1, p2 and p4 Black: in the FIDE reading p1-p3 and
    # p2-p4 cannot meet (C3), so 1-2 and 3-4 are rematches and round 3 has no pairing.
    rounds = [[(1, 2), (3, 4)], [(1, 4), (3, 2)]]
    players = field(rounds, winners={1, 2}, size=4)
    players = [
        SwissPlayer(
            p.number,
            tuple(
                RoundRecord(r.kind, r.points, r.opponent, W if p.number in (1, 3) else B)
                for r in p.history
            ),
        )
        for p in players
    ]
    with pytest.raises(NoLegalPairingError):
        pair_round(players, round_number=3, total_rounds=4)
    paired = pair_round(colours_as_preferences(players), round_number=3, total_rounds=4)
    assert {frozenset((b.white, b.black)) for b in paired.boards} == {
        frozenset({1, 3}),
        frozenset({2, 4}),
    }


def test_above_the_search_limit_neighbours_in_score_order_are_paired() -> None:
    players = [SwissPlayer(N(i), ()) for i in range(1, 16)]
    start = starting_pairing(players, names={})
    assert [(b.white, b.black) for b in start.boards][:2] == [(N(1), N(2)), (N(3), N(4))]
    assert start.bye == N(15)
