"""Our generator's tournaments, every round paired by our engine, checked by bbpPairings.

    PYTHONPATH=. python bench/pairing_bbp_check.py --bbp BBP [--tournaments 5000]
        [--min-players 9] [--max-players 40] [--seed 0] [--keep DIR] [--max-seconds S]
        [--baku]

FIDE's test of a pairing program (C.04.A): random tournaments from the program's generator,
checked by an endorsed program's checker; at most 10 discrepancies in 5,000 tournaments. Each
tournament here uses every knob of ``rules.swiss.generator`` at random levels: draws,
forfeits, double forfeits, unusual results (1/2-0, 0-1/2, 0-0), half-, full- and zero-point
byes and withdrawals both as rates and as counts per round, forbidden pairs, TRF16 and
TRF-2026 output (one in two). The file is given to ``BBP --dutch FILE -c`` (bbpPairings'
checker pairs every round again and lists the rounds whose pairing differs, colours
included). A round it lists, or a file it refuses, is a discrepancy. A tournament that ends
early because our engine finds no legal pairing for a round gives that state to ``BBP --dutch
STATE -p`` too: bbpPairings must find none either (exit code 1), or it is a discrepancy. The
files of discrepancies are kept in ``--keep`` (default: a new folder under the system's
temporary directory). Prints the figures, and each discrepancy on a line of its own. With
``--baku`` every tournament also uses the Baku acceleration (its ``250`` records written out,
which bbpPairings reads as our engine does).
``BBP`` is built outside this repository (see ``bench/pairing_diff.py``).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench.pairing_diff import bbp_trf, run_bbp
from rules.swiss.generator import GeneratorConfig, generate
from rules.swiss.trf import TrfTournament, write_trf


def random_config(
    rng: random.Random, index: int, low: int, high: int, seed: int
) -> GeneratorConfig:
    """A configuration with every knob in use (levels drawn at random)."""
    players = round(math.exp(rng.uniform(math.log(low), math.log(high))))
    return GeneratorConfig(
        players=players,
        rounds=rng.randint(5, min(11, players - 1)),
        highest_rating=rng.randint(2000, 2800),
        lowest_rating=rng.randint(1000, 1900),
        draw_percentage=rng.randint(0, 60),
        forfeit_rate=rng.randint(8, 40),
        retired_rate=rng.randint(40, 150),
        half_point_bye_rate=rng.randint(10, 40),
        full_point_bye_rate=rng.randint(20, 80),
        zero_point_bye_rate=rng.randint(20, 80),
        double_forfeit_rate=rng.randint(30, 120),
        unusual_result_rate=rng.randint(30, 120),
        half_point_byes=rng.randint(0, 1),
        full_point_byes=rng.randint(0, 1),
        zero_point_byes=rng.randint(0, 1),
        forfeits=rng.randint(0, 1),
        double_forfeits=int(rng.random() < 0.3),
        unusual_results=int(rng.random() < 0.3),
        withdrawals=int(rng.random() < 0.2),
        forbidden_pairs=rng.randint(1, max(1, players // 4)),
        trf2026=index % 2,
        seed=seed + index,
    )


@dataclass
class _Tally:
    tournaments: int = 0
    rounds: int = 0
    stopped: int = 0
    unpairable_agreed: int = 0
    discrepancies: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


def _check(binary: Path, path: Path) -> tuple[list[str], str | None]:
    """The rounds bbpPairings' checker lists as differing, or why it refused the file."""
    done = run_bbp(binary, str(path), "-c")
    if done.returncode != 0:
        return [], f"exit code {done.returncode}: {done.stderr.strip()[:300]}"
    differing: list[str] = []
    current = ""
    for line in done.stdout.splitlines():
        if ": Round #" in line:
            current = line.rsplit("#", 1)[1]
        elif "Checker pairings" in line or "No valid pairing" in line:
            differing.append(current)
    return differing, None


def _unpairable(binary: Path, state: TrfTournament, round_number: int, path: Path) -> str | None:
    """Why bbpPairings disagrees that ``state`` has no legal pairing (None: it agrees)."""
    path.write_text(bbp_trf(state, round_number), encoding="utf-8")
    done = run_bbp(binary, str(path), "-p")
    if done.returncode == 1:
        return None
    if done.returncode == 0:
        return (
            f"bbpPairings pairs round {round_number}: {' / '.join(done.stdout.split(chr(10))[1:])}"
        )
    return f"exit code {done.returncode}: {done.stderr.strip()[:300]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bbp", type=Path, required=True, help="bbpPairings.exe")
    parser.add_argument("--tournaments", type=int, default=5000)
    parser.add_argument("--min-players", type=int, default=9)
    parser.add_argument("--max-players", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="where to keep the files that differ")
    parser.add_argument("--max-seconds", type=float, help="stop early with the figures so far")
    parser.add_argument("--baku", action="store_true", help="Baku acceleration in every one")
    arguments = parser.parse_args()
    keep = arguments.keep or Path(tempfile.mkdtemp(prefix="acwc-bbp-check-"))
    keep.mkdir(parents=True, exist_ok=True)
    rng = random.Random(arguments.seed)
    tally = _Tally()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="acwc-bbp-check-") as scratch:
        for index in range(arguments.tournaments):
            config = random_config(
                rng, index, arguments.min_players, arguments.max_players, arguments.seed
            )
            if arguments.baku:
                config = replace(config, baku=1)
            made = generate(config)
            text = write_trf(made.tournament)
            name = f"seed{config.seed}-{config.players}p{config.rounds}r"
            path = Path(scratch) / f"{name}.trf"
            path.write_text(text, encoding="utf-8")
            differing, refused = _check(arguments.bbp, path)
            tally.tournaments += 1
            tally.rounds += (made.stopped_at or config.rounds + 1) - 1
            tally.stopped += made.stopped_at is not None
            if refused is not None:
                tally.refused.append(f"{name}: {refused}")
            for round_number in differing:
                tally.discrepancies.append(f"{name} round {round_number}")
            if made.unpaired is not None and made.stopped_at is not None:
                state_path = Path(scratch) / f"{name}-r{made.stopped_at}.trf"
                problem = _unpairable(arguments.bbp, made.unpaired, made.stopped_at, state_path)
                if problem is None:
                    tally.unpairable_agreed += 1
                else:
                    tally.discrepancies.append(f"{name} round {made.stopped_at}: {problem}")
                    (keep / state_path.name).write_text(state_path.read_text(), encoding="utf-8")
            if refused is not None or differing:
                (keep / f"{name}.trf").write_text(text, encoding="utf-8")
            if (index + 1) % 250 == 0:
                print(
                    f"{index + 1} tournaments, {tally.rounds} rounds, "
                    f"{len(tally.discrepancies)} discrepancies, {len(tally.refused)} refused, "
                    f"{time.monotonic() - started:.0f} s",
                    flush=True,
                )
            if arguments.max_seconds and time.monotonic() - started > arguments.max_seconds:
                break
    print(
        f"tournaments: {tally.tournaments} ({arguments.min_players}-{arguments.max_players} "
        f"players, every knob of the generator{', Baku acceleration' if arguments.baku else ''}"
        f"), rounds checked: {tally.rounds}, ended early "
        f"for want of a legal pairing: {tally.stopped} (bbpPairings finds none either: "
        f"{tally.unpairable_agreed})"
    )
    print(f"discrepancies (rounds bbpPairings pairs otherwise): {len(tally.discrepancies)}")
    print(f"files bbpPairings refused: {len(tally.refused)}")
    for line in tally.discrepancies + tally.refused:
        print(f"  {line}")
    print(f"kept in {keep}; {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
