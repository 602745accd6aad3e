"""A TD command line run by a test names the TD it is run as (``--by``): with TDs in the config,
the command line refuses a TD command without one. :func:`as_td` adds it to the command lines
that take it, so a test reads as the command a TD types, less the ``--by`` every one carries."""

from __future__ import annotations

from collections.abc import Sequence

from bot.cli.base import CliError
from bot.cli.main import build_parser
from bot.launch import TOOLS


def takes_by(words: Sequence[str]) -> bool:
    """Whether the command line ``words`` is a TD command (one with a ``--by`` option)."""
    try:
        args = build_parser(TOOLS).parse_args(list(words))
    except (CliError, SystemExit):
        return False
    return hasattr(args, "by")


def as_td(words: Sequence[str], td: str | None) -> list[str]:
    """``words`` with ``--by TD`` added when it is a TD command that names no TD yet."""
    found = list(words)
    if td is not None and "--by" not in found and takes_by(found):
        found += ["--by", td]
    return found
