"""The dependency rules of DESIGN.md, checked on the source: rules/ stays pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_RULES = {"bot", "storage", "sqlalchemy", "aiohttp", "asyncio", "os", "berserk"}
CLOCK_CALLS = {"now", "today", "utcnow"}


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _clock_calls(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr = node.func.attr
        # time.time() reads the clock; dt.time(23, 59) builds a value and is fine.
        if attr in CLOCK_CALLS or (attr == "time" and not node.args and not node.keywords):
            found.append((node.lineno, attr))
    return found


def rules_violations(source: str) -> list[str]:
    tree = ast.parse(source)
    problems = [
        f"line {line}: imports {name}"
        for line, name in _imports(tree)
        if name.split(".")[0] in FORBIDDEN_IN_RULES
    ]
    problems += [f"line {line}: calls .{attr}()" for line, attr in _clock_calls(tree)]
    return problems


RULES_FILES = sorted((ROOT / "rules").rglob("*.py"))


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_module_is_pure(path: Path) -> None:
    assert rules_violations(path.read_text()) == []


@pytest.mark.parametrize(
    "source",
    [
        "import os",
        "from sqlalchemy import select",
        "import asyncio.tasks",
        "from bot.config import Config",
        "from storage import models",
        "import aiohttp",
        "import datetime\nx = datetime.datetime.now()",
        "import datetime\nx = datetime.date.today()",
        "import time\nx = time.time()",
    ],
)
def test_checker_catches_each_kind_of_impurity(source: str) -> None:
    assert rules_violations(source)


def test_checker_accepts_pure_code() -> None:
    assert (
        rules_violations("import datetime as dt\nfrom fractions import Fraction\nx = dt.UTC") == []
    )


def test_nothing_imports_bot_from_storage() -> None:
    for path in sorted((ROOT / "storage").rglob("*.py")):
        names = [name for _, name in _imports(ast.parse(path.read_text()))]
        assert not [n for n in names if n.split(".")[0] == "bot"], path


def _system_time_reads(tree: ast.AST) -> list[int]:
    """Lines calling datetime.now(), date.today(), time.time() and the like."""
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        name = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", "")
        if name in ("datetime", "date", "dt", "time") and node.func.attr in (
            "now",
            "today",
            "utcnow",
            "time",
            "monotonic",
        ):
            if node.func.attr == "time" and (node.args or name != "time"):
                continue
            lines.append(node.lineno)
    return lines


def test_only_the_clock_module_reads_the_system_time() -> None:
    offenders = []
    for folder in ("bot", "storage"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "clock.py" and path.parent.name == "runtime":
                continue
            if "sandbox" in path.parts or "bench" in path.parts:
                continue  # the fake Lichess keeps its own time, as the real one does
            offenders += [
                f"{path.relative_to(ROOT)}:{n}"
                for n in _system_time_reads(ast.parse(path.read_text()))
            ]
    assert offenders == []


def test_system_time_checker_finds_reads() -> None:
    assert _system_time_reads(ast.parse("import datetime as dt\ndt.datetime.now(dt.UTC)")) == [2]
    assert _system_time_reads(ast.parse("import time\ntime.time()")) == [2]
    assert _system_time_reads(ast.parse("clock.now()\ndt.time(23, 59)")) == []
