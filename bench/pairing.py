"""Time and memory of the Dutch engine on random tournaments: every round, the worst one.

    PYTHONPATH=. python bench/pairing.py [--players 4096] [--rounds 9] [--only 1,5]
        [--quick] [--absent 0.03] [--seed 0 | --seed 0-3 | --seed 1,5]

Plays a seeded random tournament of ``--players`` players over ``--rounds`` rounds (results
as in bench/tournaments.py, a share ``--absent`` of the players absent from each round) and
pairs each round in a child process of its own (``fork``), so that each round's figures are
its own: wall-clock seconds, CPU seconds, and the child's peak resident memory (the process
with the tournament loaded, as ``acwc pair`` would be). Prints one line per round, then the
worst round by CPU time and by memory; with several seeds, one tournament each, and the worst
round of them all. With ``--only``, only those rounds are timed; the others
are paired without measuring, or, with ``--quick``, made up fast by a greedy pairing (plausible
histories, not Dutch ones: for the late rounds of very large fields). Figures only.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import resource
import time
from collections.abc import Sequence

from bench.tournaments import _greedy, play_round
from rules.swiss.dutch import PlayerNumber, RoundPairing, SwissPlayer, pair_round


def _pair(players: Sequence[SwissPlayer], round_number: int, rounds: int) -> RoundPairing:
    return pair_round(players, round_number=round_number, total_rounds=rounds)


def _measured(
    players: Sequence[SwissPlayer], round_number: int, rounds: int
) -> tuple[RoundPairing, float, float, float]:
    """Pair the round in a forked child: the pairing, wall and CPU seconds, peak MB."""
    read, write = os.pipe()
    start = time.perf_counter()
    child = os.fork()
    if child == 0:  # the child: pair, send the pairing back, leave at once
        os.close(read)
        try:
            data = pickle.dumps(_pair(players, round_number, rounds))
        except BaseException as error:  # any failure is reported by the parent
            data = pickle.dumps(error)
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as source:
        data = source.read()
    _, _, usage = os.wait4(child, 0)
    wall = time.perf_counter() - start
    result = pickle.loads(data)
    if isinstance(result, BaseException):
        raise result
    cpu = usage.ru_utime + usage.ru_stime
    return result, wall, cpu, usage.ru_maxrss / 1024


def _seeds(text: str) -> list[int]:
    """``--seed``: numbers and ranges, comma-separated (``0,3-5``)."""
    seeds: list[int] = []
    for part in text.split(","):
        first, dash, end = part.strip().partition("-")
        if not first.isdigit() or (dash and not end.isdigit()):
            raise argparse.ArgumentTypeError(f"not a seed or a range of seeds: {part!r}")
        seeds.extend(range(int(first), int(end or first) + 1))
    if not seeds:
        raise argparse.ArgumentTypeError(f"no seed in {text!r}")
    return seeds


def _tournament(
    arguments: argparse.Namespace, seed: int, only: set[int]
) -> list[tuple[int, float, float, float]]:
    """Play one seeded tournament; the figures of each timed round, printed as they come."""
    rng = random.Random(seed)
    state = [
        SwissPlayer(PlayerNumber(number), (), present=rng.random() >= arguments.absent)
        for number in range(1, arguments.players + 1)
    ]
    timed: list[tuple[int, float, float, float]] = []
    last = max(only) if only else arguments.rounds
    for round_number in range(1, last + 1):
        if only and round_number not in only:
            if arguments.quick:
                pairing = _greedy([player for player in state if player.present])
            else:
                pairing = _pair(state, round_number, arguments.rounds)
        else:
            pairing, wall, cpu, peak = _measured(state, round_number, arguments.rounds)
            timed.append((round_number, wall, cpu, peak))
            print(f"{seed:>5} {round_number:>5} {wall:>8.2f} {cpu:>8.2f} {peak:>8.0f}", flush=True)
        absent = frozenset(p.number for p in state if rng.random() < arguments.absent)
        state = play_round(state, pairing, rng, absent_next=absent)
    return timed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--only", default="", help="comma-separated rounds to time (all)")
    parser.add_argument("--quick", action="store_true", help="greedy rounds before --only")
    parser.add_argument("--absent", type=float, default=0.03, help="absent share per round")
    parser.add_argument(
        "--seed",
        type=_seeds,
        default=[0],
        help="the tournament's seed, or several: 0,1,2 or 0-3",
    )
    arguments = parser.parse_args(argv)
    only = {int(value) for value in arguments.only.split(",") if value}
    seeds: list[int] = arguments.seed
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{arguments.players} players, {arguments.rounds} rounds; this process {base:.0f} MB")
    print(f"{'seed':>5} {'round':>5} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}", flush=True)
    worst: list[tuple[int, int, float, float, float]] = []
    for seed in seeds:
        worst.extend((seed, *row) for row in _tournament(arguments, seed, only))
    # CPU time, not wall: on a shared machine the wall clock measures the neighbours too.
    slow = max(worst, key=lambda row: row[3])
    big = max(worst, key=lambda row: row[4])
    seed, number, wall, cpu, _ = slow
    print(f"worst round by time: seed {seed} round {number} ({cpu:.2f} s cpu, {wall:.2f} s wall)")
    print(f"worst round by memory: seed {big[0]} round {big[1]} ({big[4]:.0f} MB peak)")


if __name__ == "__main__":
    main()
