"""Every ``acwc …`` command a message, help line or docstring names in backticks is one the
command line has (issue 30: a message named `acwc match adjudicate`, which never existed)."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from bot.cli.main import build_parser
from bot.launch import TOOLS

ROOT = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"`acwc((?: [a-z][a-z-]*)+)")


def _texts() -> list[tuple[str, str]]:
    """(where, text) of every string constant in the product's code."""
    found = []
    for package in ("bot", "rules", "storage", "migrations"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.value))
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return None


def unknown_command(words: list[str], parser: argparse.ArgumentParser) -> str | None:
    """The first word of ``words`` that names no command, walking the groups; ``None`` when
    the words reach a command (what follows are its arguments)."""
    for word in words:
        choices = _subcommands(parser)
        if choices is None:
            return None
        if word not in choices:
            return word
        parser = choices[word]
    return None


def test_every_named_command_exists() -> None:
    parser = build_parser(TOOLS)
    named = 0
    wrong = []
    for where, text in _texts():
        for match in NAMED.finditer(text):
            named += 1
            words = match.group(1).split()
            bad = unknown_command(words, parser)
            if bad is not None:
                wrong.append(f"{where}: `acwc {' '.join(words)}` ({bad!r} is no command)")
    assert named > 30  # the walk sees the messages
    assert wrong == []


def test_the_walk_finds_a_command_that_does_not_exist() -> None:
    parser = build_parser(TOOLS)
    assert unknown_command(["match", "adjudicate"], parser) == "adjudicate"
    assert unknown_command(["round", "pair", "--by"], parser) is None
    assert unknown_command(["db", "upgrade"], parser) is None
