"""``acwc pair``: the FIDE Dutch engine on tournament report files, as the endorsed engines
run: pair the next round (``acwc pair IN.trf -p OUT.txt``), check every round of a tournament
and its standings by its tie-break list (``--check FILE.trf``) and generate a random
tournament (``--generate CONFIG -o OUT.trf``).

It runs in FIDE mode unless ``--outside-fide-mode`` is given (:mod:`rules.swiss.fide_mode`).
``--per-round-ratings`` ranks each round by the ratings of that round (events longer than 30
days; the file's ``XXL`` lines, :mod:`rules.swiss.round_ratings`), as an ``XXO`` line does.

Exit codes, as the FIDE engines: 0 done (for ``--check``: every round and rank matches), 1 no
legal pairing (for ``--check``: a round or a rank differs), 3 invalid input (the message names
its line and column). This module imports only the pairing rules, so the command starts at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rules.core.errors import RulesError

EXIT_INVALID = 3


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise _Refused(f"cannot read {path}: {error.strerror}") from None


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise _Refused(f"cannot write {path}: {error.strerror}") from None


class _Refused(Exception):
    """Ends the command with its message on stderr and exit 3."""


def _pair(arguments: argparse.Namespace) -> int:
    from rules.swiss.trf import run_pair

    code, output = run_pair(
        _read(arguments.trf),
        fide_mode=not arguments.outside_fide_mode,
        per_round_ratings=arguments.per_round_ratings,
    )
    if code != 0:
        print(output, file=sys.stderr)
        return code
    if arguments.output is None:
        sys.stdout.write(output)
    else:
        _write(arguments.output, output)
    return 0


def _check(arguments: argparse.Namespace) -> int:
    from dataclasses import replace

    from rules.swiss.checker import check_tournament
    from rules.swiss.trf import decode_trf, parse_trf

    tournament = parse_trf(decode_trf(_read(arguments.check)))
    if arguments.per_round_ratings:
        tournament = replace(tournament, per_round_ratings=True)
    report = check_tournament(tournament, fide_mode=not arguments.outside_fide_mode)
    print(report.describe())
    return 0 if report.passed else 1


def _generate(arguments: argparse.Namespace) -> int:
    from dataclasses import replace

    from rules.swiss.generator import generate, parse_config
    from rules.swiss.trf import decode_trf, write_trf

    if arguments.output is None:
        raise _Refused("--generate needs -o OUT.trf")
    config = parse_config(decode_trf(_read(arguments.generate)))
    if arguments.seed is not None:
        config = replace(config, seed=arguments.seed)
    made = generate(config)
    _write(arguments.output, write_trf(made.tournament))
    if made.stopped_at is not None:
        print(
            f"round {made.stopped_at} had no legal pairing: the tournament ends after "
            f"round {made.stopped_at - 1}",
            file=sys.stderr,
        )
    return 0


def run(arguments: argparse.Namespace) -> int:
    """Pair, check or generate; report why not on stderr (exit 1 or 3)."""
    try:
        if arguments.check is not None:
            return _check(arguments)
        if arguments.generate is not None:
            return _generate(arguments)
        if arguments.trf is None:
            raise _Refused("give a TRF file to pair, --check FILE or --generate CONFIG")
        return _pair(arguments)
    except _Refused as error:
        print(error, file=sys.stderr)
        return EXIT_INVALID
    except RulesError as error:
        print(error.message, file=sys.stderr)
        return EXIT_INVALID


def register(subparsers: Any) -> None:
    """Add the ``pair`` subcommand to the ``acwc`` command line."""
    from bot.cli.base import command

    parser = command(
        subparsers,
        "pair",
        lambda arguments, _cli: run(arguments),
        "pair the next round of a TRF file by the FIDE Dutch system",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("trf", nargs="?", help="tournament report file (TRF16 or TRF-2026)")
    what.add_argument(
        "--check",
        metavar="FILE",
        help="pair every round of FILE again and rank it by its 202/212 tie-breaks; report the "
        "first pairing or rank that differs (exit 1)",
    )
    what.add_argument(
        "--generate",
        metavar="CONFIG",
        help="write a random tournament made by CONFIG (PlayersNumber=..., see the README)",
    )
    parser.add_argument(
        "-p",
        "-o",
        "--output",
        help="write the pairing (or the generated tournament) here (default: stdout)",
    )
    parser.add_argument("--seed", type=int, help="with --generate: the random seed")
    parser.add_argument(
        "--outside-fide-mode",
        action="store_true",
        help="allow what FIDE mode (the default) does not: accelerations other than Baku's",
    )
    parser.add_argument(
        "--per-round-ratings",
        action="store_true",
        help="rank each round by that round's ratings (XXL lines; events over 30 days)",
    )
