"""Make the test set of files written by bbpPairings (``tests/data/bbp_set``), once.

    PYTHONPATH=. python bench/pairing_bbp_set.py --bbp BBP [--out tests/data/bbp_set]
        [--random N [--seed S]] [--check]

``BBP`` is bbpPairings' ``bbpPairings.exe`` (built outside this repository, see
``bench/pairing_diff.py``). Its random tournament generator (``BBP --dutch -g CONFIG -o FILE
-s SEED``) makes each tournament of ``TOURNAMENTS`` with forfeits, half-point byes and
retirements; the file is kept as bbpPairings wrote it (CR line ends, ``092`` line, no round
count), for ``acwc pair --check``. From it, each round from the second on is cut out as a
state to pair: the rounds before it, and the round's own cells where they are not a pairing
(requested byes ``H``/``F``, absences and withdrawals ``Z``), with the score column recomputed
over the rounds played, as the standard asks of in-tournament data exchange. The states
take turns in three forms, all with CR line ends: the cells as bbpPairings writes them with
an ``XXR`` line; TRF-2026, the round's byes as ``240`` records and a ``142`` line; and the
absences with a blank result (``0000 -`` and two blanks). Every state is given to ``BBP
--dutch STATE -p``; a state it refuses is not kept, and its output is kept beside the state
as ``NAME.bbp.txt`` (exit code 1: the word ``none``). ``MANIFEST.txt`` records the version,
the configurations, the seeds and the commands.

``--random N`` makes N tournaments of random configurations (seeded by ``--seed``) in place of
the six of ``TOURNAMENTS``: 7-100 players, 3-11 rounds, every rate from 2 to 25 (bbpPairings'
generator refuses a rate of 0 or 1); a tournament the generator cannot finish (no legal
pairing for a round) is left out and counted. ``--check`` then runs ``acwc pair --check`` on
every file made and ``acwc pair`` on every state (in this process), and prints how many exit
otherwise than 0 or pair otherwise than bbpPairings (a state it finds unpairable must exit 1),
each named on a line of its own. The figures of a run are in ``bench/pairing_bbp_set.txt``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

from bot.launch import main as acwc

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "bbp_set"

TOURNAMENTS = (
    # (players, rounds, draw %, forfeit rate, retired rate, half-point bye rate, seed)
    (9, 5, 30, 8, 10, 6, 11),
    (15, 7, 25, 10, 12, 5, 12),
    (24, 7, 35, 6, 15, 4, 13),
    (40, 9, 30, 12, 20, 5, 14),
    (61, 9, 40, 15, 25, 6, 15),
    (100, 11, 30, 20, 30, 8, 16),
)
_FIRST = 91
_WIDTH = 10
_POINTS = {"1": 2, "=": 1, "0": 0, "+": 2, "-": 0, "W": 2, "D": 1, "L": 0}
_POINTS |= {"U": 2, "F": 2, "H": 1, "Z": 0, " ": 0}


def config_text(
    players: int, rounds: int, draws: int, forfeit: int, retired: int, half: int
) -> str:
    """bbpPairings' generator configuration (JaVaFo's keys)."""
    return (
        f"PlayersNumber={players}\nRoundsNumber={rounds}\nDrawPercentage={draws}\n"
        f"ForfeitRate={forfeit}\nRetiredRate={retired}\nHalfPointByeRate={half}\n"
        "HighestRating=2700\nLowestRating=1200\n"
    )


def _cell(line: str, index: int) -> str:
    start = _FIRST + index * _WIDTH
    return line[start : start + 8].ljust(8)


def cut(text: str, round_number: int, form: int) -> str:
    """The state before ``round_number`` of a tournament bbpPairings wrote (see the module's
    notes; ``form`` 0, 1 or 2)."""
    lines = text.split("\r")
    out: list[str] = []
    byes: dict[str, list[int]] = {}
    for line in lines:
        if not line.startswith("001"):
            out.append(line)
            continue
        played = [_cell(line, index) for index in range(round_number - 1)]
        halves = sum(_POINTS[cell[7].upper()] for cell in played)
        record = f"{line[:80]}{float(Fraction(halves, 2)):4.1f}{line[84 : _FIRST - 2]}"
        record += "".join("  " + cell for cell in played)
        own = _cell(line, round_number - 1)
        if own.startswith("0000 - ") and own[7] != "U":
            if form == 1:
                byes.setdefault(own[7], []).append(int(line[4:8]))
            elif form == 2 and own[7] == "Z":
                record += "  0000 -  "
            else:
                record += "  " + own
        out.append(record.rstrip() if not record.endswith("0000 -  ") else record)
    total = sum(1 for index in range(10_000) if any(_has(line, index) for line in lines))
    if form == 1:
        out.insert(1, f"142 {total}")
        for kind, numbers in sorted(byes.items()):
            out.append(f"240 {kind} {round_number:03d} " + " ".join(f"{n:4d}" for n in numbers))
    else:
        out.insert(1, f"XXR {total}")
    return "\r".join(line for line in out if line) + "\r"


def _has(line: str, index: int) -> bool:
    return line.startswith("001") and bool(_cell(line, index).strip())


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)


Knobs = tuple[int, int, int, int, int, int, int]
"""A tournament's configuration and seed, as in ``TOURNAMENTS``."""


def random_tournaments(count: int, seed: int) -> list[Knobs]:
    """``count`` configurations like ``TOURNAMENTS``', drawn at random."""
    rng = random.Random(seed)
    out: list[Knobs] = []
    for number in range(count):
        players = rng.choice((7, 9, 12, 15, 20, 24, 31, 40, 55, 70, 100))
        forfeit, retired, half = (rng.randint(2, 25) for _ in range(3))
        rounds, draws = rng.randint(3, 11), rng.randint(10, 50)
        out.append((players, rounds, draws, forfeit, retired, half, seed * 1000 + number))
    return out


def make_set(bbp: Path, out: Path, tournaments: list[Knobs]) -> list[str]:
    """Write the tournaments and their states in ``out``; the manifest's lines."""
    version = _run([str(bbp)]).stdout.splitlines()[:1]
    manifest = [
        f"Made by bench/pairing_bbp_set.py with bbpPairings {' '.join(version)}.",
        "Each tournament: bbpPairings.exe --dutch -g CONFIG -o tNN.trf -s SEED",
        "Each state: bbpPairings.exe --dutch STATE.trf -p (output in STATE.bbp.txt)",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="acwc-bbp-set-") as scratch:
        for number, (*knobs, seed) in enumerate(tournaments, start=1):
            config = Path(scratch) / "config.txt"
            config.write_text(config_text(*knobs))
            name = f"t{number:02d}"
            path = out / f"{name}.trf"
            made = _run([str(bbp), "--dutch", "-g", str(config), "-o", str(path), "-s", str(seed)])
            if made.returncode != 0:
                print(f"{name}: left out, generator failed: {made.stderr.strip()}")
                path.unlink(missing_ok=True)
                continue
            manifest.append(f"{name}.trf: seed {seed}, config {config_text(*knobs).split()}")
            _states(bbp, out, name, path.read_bytes().decode("utf-8"), knobs[1])
    return manifest


def _states(bbp: Path, out: Path, name: str, text: str, rounds: int) -> None:
    for round_number in range(2, rounds + 1):
        state = out / f"{name}-r{round_number:02d}.trf"
        state.write_bytes(cut(text, round_number, round_number % 3).encode("utf-8"))
        paired = _run([str(bbp), "--dutch", str(state), "-p"])
        if paired.returncode not in (0, 1):
            print(f"{state.name}: refused by bbpPairings: {paired.stderr.strip()}")
            state.unlink()
            continue
        output = paired.stdout if paired.returncode == 0 else "none\n"
        state.with_suffix(".bbp.txt").write_text(output)


def _acwc(arguments: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return acwc(arguments)


def check_set(out: Path) -> list[str]:
    """Every file's ``acwc pair --check`` and every state's ``acwc pair``: what fails."""
    failures: list[str] = []
    for path in sorted(out.glob("t*.trf")):
        if (code := _acwc(["pair", "--check", str(path)])) != 0:
            failures.append(f"{path.name}: acwc pair --check exits {code}")
        expected = path.with_suffix(".bbp.txt")
        if not expected.exists():
            continue
        ours = out / "acwc-pairing.txt"
        code = _acwc(["pair", str(path), "-p", str(ours)])
        if expected.read_text() == "none\n":
            if code != 1:
                failures.append(
                    f"{path.name}: bbpPairings finds no pairing, acwc pair exits {code}"
                )
        elif code != 0 or ours.read_text() != expected.read_text():
            failures.append(f"{path.name}: acwc pair exits {code} or pairs otherwise")
        ours.unlink(missing_ok=True)
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bbp", type=Path, required=True, help="bbpPairings.exe")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--random", type=int, default=0, help="N random tournaments")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="run acwc pair on every file")
    arguments = parser.parse_args()
    arguments.out.mkdir(parents=True, exist_ok=True)
    chosen: list[Knobs] = list(TOURNAMENTS)
    if arguments.random:
        chosen = random_tournaments(arguments.random, arguments.seed)
    manifest = make_set(arguments.bbp, arguments.out, chosen)
    (arguments.out / "MANIFEST.txt").write_text("\n".join(manifest) + "\n")
    if not arguments.check:
        return 0
    files = sorted(arguments.out.glob("t*.trf"))
    states = sum(1 for path in files if path.with_suffix(".bbp.txt").exists())
    failures = check_set(arguments.out)
    print(f"tournaments kept: {len(files) - states}, states kept: {states}")
    print(f"files where acwc pair or --check fails: {len(failures)}")
    print("\n".join(failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
