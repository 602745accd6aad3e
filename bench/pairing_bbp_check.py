"""Our generator's tournaments, every round paired by our engine, checked by bbpPairings.

    PYTHONPATH=. python bench/pairing_bbp_check.py [--bbp BBP] [--tournaments 5000]
        [--min-players 9] [--max-players 40] [--seed 0] [--keep DIR] [--max-seconds S]
        [--baku] [--tiebreaks]

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
which bbpPairings reads as our engine does). With ``--tiebreaks`` every tournament also
declares a random list of C.07 tie-breaks (drawn apart from the rest, so the pairings are the
same as without it) and the file as written is read back and its standings checked (``acwc
pair --check``'s standings part): a rank the list does not give is a standings difference.
``BBP`` is built outside this repository (see ``bench/pairing_diff.py``); without ``--bbp``
only the standings are checked.
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
from rules.swiss.fide_tiebreaks import check_standings
from rules.swiss.generator import GeneratedTournament, GeneratorConfig, generate
from rules.swiss.trf import TrfTournament, parse_trf, rounds_played, write_trf

# The tie-breaks a random list is drawn from: every individual code of C.07 Art. 5, with the
# modifiers its list of codes writes.
TIEBREAKS = (
    "DE", "DE/P", "WIN", "WON", "BPG", "BWG", "PS", "PS/C1", "REP", "STD", "TPN",
    "BH", "BH/C1", "BH/M1", "BH/P", "FB", "FB/C1", "FB/M1", "AOB", "AOB/F",
    "SB", "SB/C1", "SB/P", "KS", "KS/L+1", "KS/L-1",
    "ARO", "ARO/C1", "TPR", "TPR/C1", "PTP", "APRO", "APPO", "RTNG",
)  # fmt: skip


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


def random_tiebreaks(config: GeneratorConfig) -> GeneratorConfig:
    """``config`` declaring 2-6 tie-breaks drawn from its seed alone."""
    rng = random.Random(f"tiebreaks {config.seed}")
    return replace(config, tiebreaks=",".join(rng.sample(TIEBREAKS, rng.randint(2, 6))))


@dataclass
class _Tally:
    tournaments: int = 0
    rounds: int = 0
    stopped: int = 0
    unpairable_agreed: int = 0
    discrepancies: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    standings_checked: int = 0
    standings: list[str] = field(default_factory=list)


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


def _standings(text: str) -> str | None:
    """Why the file's rank column differs from its tie-break list's standings (None: it
    does not)."""
    tournament = parse_trf(text)
    checked = check_standings(tournament, rounds_played(tournament))
    if checked is None:
        return "no standings to check"
    difference = checked[1]
    return None if difference is None else difference.describe()


def _against_bbp(
    binary: Path,
    made: GeneratedTournament,
    name: str,
    text: str,
    scratch: Path,
    keep: Path,
    tally: _Tally,
) -> None:
    """bbpPairings' checker on the file, and its pairing of the state our engine left
    unpaired."""
    path = scratch / f"{name}.trf"
    path.write_text(text, encoding="utf-8")
    differing, refused = _check(binary, path)
    if refused is not None:
        tally.refused.append(f"{name}: {refused}")
    for round_number in differing:
        tally.discrepancies.append(f"{name} round {round_number}")
    if made.unpaired is not None and made.stopped_at is not None:
        state_path = scratch / f"{name}-r{made.stopped_at}.trf"
        problem = _unpairable(binary, made.unpaired, made.stopped_at, state_path)
        if problem is None:
            tally.unpairable_agreed += 1
        else:
            tally.discrepancies.append(f"{name} round {made.stopped_at}: {problem}")
            (keep / state_path.name).write_text(state_path.read_text(), encoding="utf-8")
    if refused is not None or differing:
        (keep / f"{name}.trf").write_text(text, encoding="utf-8")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bbp", type=Path, help="bbpPairings.exe (without: standings only)")
    parser.add_argument("--tournaments", type=int, default=5000)
    parser.add_argument("--min-players", type=int, default=9)
    parser.add_argument("--max-players", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="where to keep the files that differ")
    parser.add_argument("--max-seconds", type=float, help="stop early with the figures so far")
    parser.add_argument("--baku", action="store_true", help="Baku acceleration in every one")
    parser.add_argument("--tiebreaks", action="store_true", help="a random tie-break list")
    return parser.parse_args()


def _report(arguments: argparse.Namespace, tally: _Tally, keep: Path, seconds: float) -> None:
    agreed = f" (bbpPairings finds none either: {tally.unpairable_agreed})"
    print(
        f"tournaments: {tally.tournaments} ({arguments.min_players}-{arguments.max_players} "
        f"players, every knob of the generator{', Baku acceleration' if arguments.baku else ''}"
        f"), rounds: {tally.rounds}, ended early for want of a legal pairing: {tally.stopped}"
        f"{agreed if arguments.bbp is not None else ''}"
    )
    if arguments.bbp is not None:
        print(f"discrepancies (rounds bbpPairings pairs otherwise): {len(tally.discrepancies)}")
        print(f"files bbpPairings refused: {len(tally.refused)}")
    if arguments.tiebreaks:
        print(
            f"standings checked: {tally.standings_checked} tournaments; ranks the tie-break "
            f"list does not give: {len(tally.standings)}"
        )
    for line in tally.discrepancies + tally.refused + tally.standings:
        print(f"  {line}")
    print(f"kept in {keep}; {seconds:.0f} s")


def main() -> int:
    arguments = _arguments()
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
            if arguments.tiebreaks:
                config = random_tiebreaks(config)
            made = generate(config)
            text = write_trf(made.tournament)
            name = f"seed{config.seed}-{config.players}p{config.rounds}r"
            if arguments.bbp is not None:
                _against_bbp(arguments.bbp, made, name, text, Path(scratch), keep, tally)
            if arguments.tiebreaks:
                tally.standings_checked += 1
                problem = _standings(text)
                if problem is not None:
                    tally.standings.append(f"{name} ({config.tiebreaks}): {problem}")
                    (keep / f"{name}.trf").write_text(text, encoding="utf-8")
            tally.tournaments += 1
            tally.rounds += (made.stopped_at or config.rounds + 1) - 1
            tally.stopped += made.stopped_at is not None
            if (index + 1) % 250 == 0:
                print(
                    f"{index + 1} tournaments, {tally.rounds} rounds, "
                    f"{len(tally.discrepancies)} discrepancies, {len(tally.refused)} refused, "
                    f"{len(tally.standings)} standings differ, "
                    f"{time.monotonic() - started:.0f} s",
                    flush=True,
                )
            if arguments.max_seconds and time.monotonic() - started > arguments.max_seconds:
                break
    _report(arguments, tally, keep, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
