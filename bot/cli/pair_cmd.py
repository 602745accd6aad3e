"""``acwc pair IN.trf -p OUT.txt``: pair the next round of a TRF file (FIDE engines' style)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rules.swiss.trf import run_pair


def run(arguments: argparse.Namespace) -> int:
    """Read the TRF, pair it, write the pairing (exit 0), or report why not (1, 3)."""
    try:
        data = Path(arguments.trf).read_bytes()
    except OSError as error:
        print(f"cannot read {arguments.trf}: {error.strerror}", file=sys.stderr)
        return 3
    code, output = run_pair(data)
    if code != 0:
        print(output, file=sys.stderr)
        return code
    if arguments.output is None:
        sys.stdout.write(output)
    else:
        Path(arguments.output).write_text(output, encoding="utf-8")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``pair`` subcommand to the ``acwc`` command line."""
    from bot.cli.base import command

    parser = command(
        subparsers,
        "pair",
        lambda arguments, _config: run(arguments),
        "pair the next round of a TRF file by the FIDE Dutch system",
    )
    parser.add_argument("trf", help="tournament report file (TRF16 or TRF-2026)")
    parser.add_argument("-p", "--output", help="write the pairing here (default: stdout)")
