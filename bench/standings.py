"""Time recomputing the qualification standings and tiebreaks from stored-style results.

    python -m bench.standings [--players 256] [--rounds 10] [--repeat 5]

Builds a seeded random qualification (each round pairs neighbours in the current order, a bye
when the field is odd, 10-game match results drawn at random), then times
``rules.tiebreaks.compute_standings`` over all the results, as the service does after every
result (standings are recomputed, never patched). Prints one table; no assertions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from fractions import Fraction

from rules.core.colour import Colour
from rules.core.model import PlayerId
from rules.core.ruleset import Stages
from rules.stages.qualification import bye_result
from rules.swiss.results import Entrant, ResultKind, RoundResult
from rules.swiss.tiebreaks import compute_standings

HALF = Fraction(1, 2)


def tournament(players: int, rounds: int, seed: int) -> tuple[list[Entrant], list[RoundResult]]:
    rng = random.Random(seed)
    field = [
        Entrant(i, PlayerId(f"p{i:04d}"), f"P{i:04d}", 2500 - i) for i in range(1, players + 1)
    ]
    points = {e.player: Fraction(0) for e in field}
    results: list[RoundResult] = []
    for number in range(1, rounds + 1):
        order = sorted(field, key=lambda e: (-points[e.player], e.pairing_number))
        if len(order) % 2:
            bye = order.pop()
            results.append(bye_result(bye.player, number, stages=Stages()))
            points[bye.player] += 1
        for white, black in zip(order[::2], order[1::2], strict=True):
            games = rng.randrange(6, 11)
            score_white = Fraction(rng.randrange(0, 2 * games + 1), 2)
            if score_white * 2 == games:
                mp = HALF
            else:
                mp = Fraction(1) if score_white * 2 > games else Fraction(0)
            for p, o, c, m, g in (
                (white.player, black.player, Colour.WHITE, mp, score_white),
                (black.player, white.player, Colour.BLACK, 1 - mp, games - score_white),
            ):
                results.append(RoundResult(p, number, ResultKind.PLAYED, m, o, c, g, games))
                points[p] += m
    return field, results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="256", help="comma-separated field sizes")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{'players':>8} {'rounds':>6} {'results':>8} {'p50 ms':>8} {'max ms':>8}")
    for players in (int(v) for v in args.players.split(",")):
        field, results = tournament(players, args.rounds, seed=players)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            compute_standings(field, results)
            times.append(time.perf_counter() - start)
        print(
            f"{players:>8} {args.rounds:>6} {len(results):>8} "
            f"{statistics.median(times) * 1000:>8.1f} {max(times) * 1000:>8.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
