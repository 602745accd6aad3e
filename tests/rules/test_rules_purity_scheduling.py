"""The scheduling rules modules stay pure: no I/O, no clock, no service imports (STYLE.md)."""

from __future__ import annotations

import ast
import pathlib

import pytest

MODULES = [
    "week",
    "commands",
    "negotiation",
    "deadlines",
    "conduct",
    "notices",
    "cheat_reports",
]
ROOT = pathlib.Path(__file__).resolve().parents[2] / "rules"
FORBIDDEN_IMPORTS = {"bot", "storage", "sqlalchemy", "aiohttp", "asyncio", "os", "time", "random"}
CLOCK_READS = {"now", "today", "utcnow"}


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_nothing_impure_and_reads_no_clock(module: str) -> None:
    tree = ast.parse((ROOT / f"{module}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN_IMPORTS, f"{module} imports {name}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            assert attr not in CLOCK_READS, f"{module} calls .{attr}()"
            # time.time() reads the clock; dt.time(18, 0) builds a value and is fine.
            is_clock = attr == "time" and not node.args and not node.keywords
            assert not is_clock, f"{module} calls .time()"
