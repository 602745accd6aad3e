"""Time the Dutch engine on random tournaments.

    PYTHONPATH=. python bench/pairing.py [--players 64,256,1000] [--round 8] [--rounds 9]
        [--repeat 3] [--season 128]

For each field size, builds a seeded random history of ``round - 1`` rounds (greedy pairings,
random results), then times ``pair_round`` for the given round, in wall-clock and in CPU
seconds of this process (the machine may be shared); prints one table. With
``--season N``, also times pairing every round of an N-player season (``--rounds`` rounds,
each paired by the engine). Figures only: no assertions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bench.tournaments import quick_history, simulate
from rules.swiss.dutch import pair_round


def _time_round(players: int, round_number: int, rounds: int, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds to pair the round."""
    history = quick_history(players, round_number - 1, random.Random(seed))
    start = time.perf_counter()
    start_cpu = time.process_time()
    pair_round(history, round_number=round_number, total_rounds=rounds)
    return time.perf_counter() - start, time.process_time() - start_cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="64,256,1000", help="comma-separated field sizes")
    parser.add_argument("--round", type=int, default=8, help="round to pair")
    parser.add_argument("--rounds", type=int, default=9, help="rounds in the tournament")
    parser.add_argument("--repeat", type=int, default=3, help="tournaments per field size")
    parser.add_argument("--season", type=int, default=0, help="also time a whole season")
    arguments = parser.parse_args(argv)
    print(f"{'players':>8} {'round':>5} {'p50 s':>8} {'max s':>8} {'p50 cpu':>8} {'max cpu':>8}")
    for players in (int(value) for value in arguments.players.split(",")):
        times = [
            _time_round(players, arguments.round, max(arguments.rounds, arguments.round), seed)
            for seed in range(arguments.repeat)
        ]
        wall = [first for first, _ in times]
        cpu = [second for _, second in times]
        print(
            f"{players:>8} {arguments.round:>5} {statistics.median(wall):>8.2f} "
            f"{max(wall):>8.2f} {statistics.median(cpu):>8.2f} {max(cpu):>8.2f}",
            flush=True,
        )
    if arguments.season:
        start = time.perf_counter()
        paired = sum(1 for _ in simulate(arguments.season, arguments.rounds, random.Random(0)))
        print(
            f"season: {arguments.season} players, {paired} rounds paired in "
            f"{time.perf_counter() - start:.2f} s"
        )


if __name__ == "__main__":
    main()
