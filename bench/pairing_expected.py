"""Make or verify the expected pairings of ``tests/data`` with bbpPairings, never with our engine.

    PYTHONPATH=. python bench/pairing_expected.py --bbp BBP [--write] [NAME ...]

``BBP`` is bbpPairings' ``bbpPairings.exe``, built outside this repository (see
``bench/pairing_diff.py``). For each state ``tests/data/NAME.trf`` (default: every one with an
``.expected.txt`` beside it) the file is given to ``BBP --dutch FILE -p`` with its score
column filled in (bbpPairings requires it; ``bench.pairing_diff.bbp_trf``), in a scratch
folder outside the repository. Without ``--write`` each output is compared with
``NAME.expected.txt`` and the differences are printed (exit 1 if any); with ``--write`` the
outputs replace the expected files. ``tests/data/README.md`` records the version and the
command that made them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench.pairing_diff import bbp_trf, run_bbp
from rules.swiss.trf import next_round_number, parse_trf

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def bbp_output(binary: Path, trf: Path, scratch: Path) -> str:
    """bbpPairings' pairing of the next round of ``trf`` (its exact output).

    Raises:
        RuntimeError: bbpPairings failed on the file.
    """
    state = parse_trf(trf.read_text(encoding="utf-8"))
    copy = scratch / trf.name
    copy.write_text(bbp_trf(state, next_round_number(state)), encoding="utf-8")
    done = run_bbp(binary, str(copy), "-p")
    if done.returncode != 0:
        raise RuntimeError(f"{trf.name}: exit code {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bbp", type=Path, required=True, help="bbpPairings.exe")
    parser.add_argument("--write", action="store_true", help="replace the expected files")
    parser.add_argument("names", nargs="*", help="states to do (default: every expected file)")
    arguments = parser.parse_args()
    names = arguments.names or sorted(
        path.name.removesuffix(".expected.txt") for path in DATA.glob("*.expected.txt")
    )
    differ = 0
    with tempfile.TemporaryDirectory(prefix="acwc-bbp-") as scratch:
        for name in names:
            output = bbp_output(arguments.bbp, DATA / f"{name}.trf", Path(scratch))
            expected = DATA / f"{name}.expected.txt"
            if arguments.write:
                expected.write_text(output, encoding="utf-8")
                print(f"{name}: written")
            elif not expected.exists() or expected.read_text(encoding="utf-8") != output:
                differ += 1
                print(f"{name}: bbpPairings gives\n{output}")
            else:
                print(f"{name}: same as bbpPairings")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
