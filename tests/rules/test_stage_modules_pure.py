"""The stage modules stay pure (STYLE.md): no I/O imports, no clock reads, no global random."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

MODULES = ["candidates", "knockout", "armageddon", "stages", "forfeits"]
FORBIDDEN_IMPORTS = {"bot", "storage", "sqlalchemy", "aiohttp", "asyncio", "os", "time", "secrets"}
FORBIDDEN_CALLS = {"now", "today", "time", "utcnow"}
GLOBAL_RANDOM = {"random", "randrange", "randint", "shuffle", "choice", "seed"}


@pytest.mark.parametrize("name", MODULES)
def test_stage_module_is_pure(name: str) -> None:
    path = Path(__file__).resolve().parents[2] / "rules" / f"{name}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name.split(".")[0] not in FORBIDDEN_IMPORTS, alias.name
        elif isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] not in FORBIDDEN_IMPORTS, node.module
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            assert node.func.attr not in FORBIDDEN_CALLS, f"{name}: .{node.func.attr}()"
            base = node.func.value
            if isinstance(base, ast.Name) and base.id == "random":
                assert node.func.attr not in GLOBAL_RANDOM, f"{name}: random.{node.func.attr}()"
