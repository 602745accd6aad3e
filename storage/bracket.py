"""The knockout bracket (:class:`rules.stages.knockout.Bracket`) to JSON and back.

It is stored, not derived from the matches, because a withdrawal (rules 8.iii-iv) moves players
in it without any match result changing.
"""

from __future__ import annotations

from typing import Any

from rules.core.model import PlayerId
from rules.stages.knockout import Bracket, KnockoutPairing, SemifinalResult, Slot

__all__ = ["bracket_data", "bracket_from"]


def _pairing_data(p: KnockoutPairing) -> dict[str, str]:
    return {
        "slot": p.slot.value,
        "white_first": p.white_first,
        "black_first": p.black_first,
        "white_source": p.white_source,
        "black_source": p.black_source,
    }


def _pairing_from(d: dict[str, str]) -> KnockoutPairing:
    return KnockoutPairing(
        Slot(d["slot"]),
        PlayerId(d["white_first"]),
        PlayerId(d["black_first"]),
        d["white_source"],
        d["black_source"],
    )


def bracket_data(b: Bracket) -> dict[str, Any]:
    return {
        "upper": list(b.upper),
        "lower": list(b.lower),
        "semifinals": [_pairing_data(p) for p in b.semifinals],
        "results": [
            None if r is None else {"winner": r.winner, "loser": r.loser} for r in b.results
        ],
        "final_white_from": b.final_white_from,
        "third_white_from": b.third_white_from,
        "final_winner": b.final_winner,
        "third_place_winner": b.third_place_winner,
        "withdrawn": list(b.withdrawn),
    }


def bracket_from(d: dict[str, Any]) -> Bracket:
    def result(r: dict[str, str] | None) -> SemifinalResult | None:
        return None if r is None else SemifinalResult(PlayerId(r["winner"]), PlayerId(r["loser"]))

    sf = [_pairing_from(p) for p in d["semifinals"]]
    res = [result(r) for r in d["results"]]
    return Bracket(
        upper=tuple(PlayerId(p) for p in d["upper"]),
        lower=tuple(PlayerId(p) for p in d["lower"]),
        semifinals=(sf[0], sf[1]),
        results=(res[0], res[1]),
        final_white_from=d["final_white_from"],
        third_white_from=d["third_white_from"],
        final_winner=None if d["final_winner"] is None else PlayerId(d["final_winner"]),
        third_place_winner=(
            None if d["third_place_winner"] is None else PlayerId(d["third_place_winner"])
        ),
        withdrawn=tuple(PlayerId(p) for p in d["withdrawn"]),
    )
