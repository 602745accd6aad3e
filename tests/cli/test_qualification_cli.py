"""The qualification through the command line: pair, approve, results, standings, TRF."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest


def register(acwc, n: int) -> list[str]:  # type: ignore[no-untyped-def]
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    names = [f"player{i:02d}" for i in range(1, n + 1)]
    for i, name in enumerate(names):
        code, _, err = acwc("player", "add", name, "--rating", str(2400 - 10 * i))
        assert code == 0, err
    return names


def finish_round(acwc, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    view = json.loads(acwc("round", "show", "--json")[1])
    for board in view["boards"]:
        if board["black"] is None:
            continue
        outcome = rng.choice(["white", "black", "tied"])
        decision = ["--tied"] if outcome == "tied" else ["--winner", board[outcome]]
        code, _, err = acwc("adjudicate", str(board["match"]), *decision, "--reason", "test")
        assert code == 0, err


def test_a_whole_qualification_by_the_command_line(acwc, in_tmp: Path) -> None:  # type: ignore[no-untyped-def]
    names = register(acwc, 9)
    rng = random.Random(7)
    seen_pairs: set[frozenset[str]] = set()
    byes: list[str] = []
    for number in range(1, 6):  # 9 players: floor(log2 9) + 2 = 5 rounds (rules 3.v.2)
        code, out, err = acwc("round", "pair", "--json")
        assert code == 0, err
        view = json.loads(out)
        assert view["round"] == number
        assert view["of"] == 5
        players = [b["white"] for b in view["boards"]] + [
            b["black"] for b in view["boards"] if b["black"]
        ]
        assert sorted(players) == sorted(names)  # everyone paired once
        for b in view["boards"]:
            if b["black"] is None:
                byes.append(b["white"])
            else:
                pair = frozenset((b["white"], b["black"]))
                assert pair not in seen_pairs  # no repeat pairing
                seen_pairs.add(pair)
        # the TRF of the finished rounds, paired by `acwc pair`, gives the same pairing
        if number > 1:
            trf = in_tmp / f"r{number}.trf"
            assert acwc("trf", "export", "-o", str(trf))[0] == 0
            code, out, err = acwc("pair", str(trf))
            assert code == 0, err
            lines = out.strip().splitlines()
            assert int(lines[0]) == len(view["boards"])
            engine = [tuple(line.split()) for line in lines[1:]]
            ours = [
                (str(int(b["white"][-2:])), str(int(b["black"][-2:])) if b["black"] else "0")
                for b in view["boards"]
            ]
            assert engine == ours  # same pairs, same colours, same board order
        assert acwc("round", "approve")[0] == 0
        code, _, err = acwc("round", "pair")
        assert code == 1
        assert "unfinished matches" in err
        finish_round(acwc, rng)
    assert len(byes) == len(set(byes)) == 5  # one bye a round, never twice to one player
    code, out, _ = acwc("standings", "--json")
    rows = json.loads(out)
    assert [r["rank"] for r in rows] == list(range(1, 10))
    total = sum(float(r["match_points"]) for r in rows)
    assert total == 4 * 5 + 5  # four matches a round share 1 point each, the bye scores 1
    keys = [
        (
            -float(r["match_points"]),
            -float(r["buchholz_median"]),
            -float(r["progressive"]),
            r["seed"],
        )
        for r in rows
    ]
    assert keys == sorted(keys)  # rules 3.v.5 order
    code, _, err = acwc("round", "pair")
    assert code == 1
    assert "all 5 qualification rounds" in err


def test_forbid_and_swap_re_pair_under_the_rules(acwc) -> None:  # type: ignore[no-untyped-def]
    register(acwc, 8)
    first = json.loads(acwc("round", "pair", "--json")[1])
    b1 = first["boards"][0]
    code, out, err = acwc("round", "pair", "--forbid", b1["white"], b1["black"], "--json")
    assert code == 0, err
    again = json.loads(out)
    pairs = {frozenset((b["white"], b["black"])) for b in again["boards"]}
    assert frozenset((b1["white"], b1["black"])) not in pairs
    b2 = again["boards"][1]
    code, out, err = acwc("round", "pair", "--swap", b2["white"], b2["black"], "--json")
    assert code == 0, err
    swapped = json.loads(out)
    new_pairs = {frozenset((b["white"], b["black"])) for b in swapped["boards"]}
    assert frozenset((b2["white"], b2["black"])) not in new_pairs
    audit = [e["action"] for e in json.loads(acwc("audit", "--json")[1])]
    assert audit.count("round.propose") == 3


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("round", "approve"), "no proposed round"),
        (("round", "show"), "no qualification round"),
        (("standings",), "no entrants"),
        (("trf", "export"), "no entrants"),
        (("round", "pair", "--forbid", "player01", "nobody"), "not a qualification entrant"),
        (("round", "pair", "--swap", "player01", "player02"), "proposed round"),
        (("adjudicate", "99", "--tied", "--reason", "x"), "no match 99"),
    ],
)
def test_qualification_commands_refuse_clearly(acwc, args: tuple[str, ...], words: str) -> None:  # type: ignore[no-untyped-def]
    register(acwc, 4)
    code, _, err = acwc(*args)
    assert code == 1, err
    assert words in err


def test_one_entrant_cannot_be_paired(acwc) -> None:  # type: ignore[no-untyped-def]
    register(acwc, 1)
    code, _, err = acwc("round", "pair")
    assert code == 1
    assert "at least 2" in err
