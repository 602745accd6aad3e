"""Start-up time of the ``acwc`` command line (issue 16: at most 0.3 s on a quiet machine).

    PYTHONPATH=. python bench/cli_start.py [--repeat 15] [--trf tests/data/bbp_issue_7.trf]

Runs ``acwc --help`` and ``acwc pair TRF`` (a 60-player file by default) as fresh processes
(``python -m bot``, bytecode cached as after installation) and prints, for each, the median and
the fastest wall-clock time and the median CPU time (user + system: what the machine's load
changes least), then the modules that take longest to import for ``acwc pair`` (``python -X
importtime``). Figures only: no assertions.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# As after installation: compiled bytecode is cached (in a folder of its own, not the
# worktree), even where the environment sets PYTHONDONTWRITEBYTECODE.
ENV = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": os.path.join(os.environ.get("TMPDIR", "/tmp"), "acwc-bench-pyc"),
}


def _run(argv: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one ``acwc`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bot", *argv], cwd=ROOT, env=ENV, capture_output=True, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def _slowest_imports(argv: list[str], count: int) -> list[tuple[int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", *argv],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs per command")
    parser.add_argument("--trf", default="tests/data/bbp_issue_7.trf", help="file to pair")
    arguments = parser.parse_args(argv)
    commands = {"acwc --help": ["--help"], f"acwc pair {arguments.trf}": ["pair", arguments.trf]}
    print(f"{'command':<40} {'median s':>9} {'fastest s':>9} {'median cpu':>10}")
    for label, words in commands.items():
        _run(words)  # writes the compiled bytecode
        runs = [_run(words) for _ in range(arguments.repeat)]
        wall = [first for first, _ in runs]
        cpu = statistics.median(second for _, second in runs)
        print(
            f"{label:<40} {statistics.median(wall):>9.3f} {min(wall):>9.3f} {cpu:>10.3f}",
            flush=True,
        )
    print("slowest imports of acwc pair (cumulative microseconds):")
    for micros, name in _slowest_imports(["pair", arguments.trf], 8):
        print(f"{micros:>10}  {name}")


if __name__ == "__main__":
    main()
