"""The rules of DESIGN.md import-linter cannot express, checked on the source: ``rules/`` never
reads the clock, and ``bot/runtime/clock.py`` is the only place that reads the system time.

The import rules (the layers, rules/ importing only the standard library, nothing importing the
composition root, the demo or the sandbox) are import-linter contracts in pyproject.toml, which
``lint-imports`` checks in .ci/run; tests here check our own contract types. And no service
writes a notice's words itself: they are in ``rules/talk``.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import grimp
import pytest

from tests.contracts import NoCycleContract, StandardLibraryOnlyContract

ROOT = Path(__file__).resolve().parent.parent
CLOCK_CALLS = {"now", "today", "utcnow"}


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
    return [f"line {line}: calls .{attr}()" for line, attr in _clock_calls(ast.parse(source))]


RULES_FILES = sorted((ROOT / "rules").rglob("*.py"))


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_module_never_reads_the_clock(path: Path) -> None:
    assert rules_violations(path.read_text()) == []


@pytest.mark.parametrize(
    "source",
    [
        "import datetime\nx = datetime.datetime.now()",
        "import datetime\nx = datetime.date.today()",
        "import time\nx = time.time()",
    ],
)
def test_checker_catches_each_clock_read(source: str) -> None:
    assert rules_violations(source)


def test_checker_accepts_pure_code() -> None:
    assert (
        rules_violations("import datetime as dt\nfrom fractions import Fraction\nx = dt.UTC") == []
    )


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


def test_the_standard_library_contract_finds_a_third_party_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "purepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "fine.py").write_text("import datetime\nfrom fractions import Fraction\n")
    (package / "impure.py").write_text("import json\n\n\ndef f():\n    import sqlalchemy\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("purepkg", include_external_packages=True, cache_dir=None)
    contract = StandardLibraryOnlyContract(
        "pure",
        {},
        {"source_modules": ["purepkg"], "internal_packages": ["purepkg"]},
    )
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert [(f["importer"], f["imported"], f["lines"]) for f in check.metadata["found"]] == [
        ("purepkg.impure", "sqlalchemy", [5])
    ]


def test_the_no_cycle_contract_finds_a_cycle_through_three_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cyclepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cyclepkg import b\n")
    (package / "b.py").write_text("def f():\n    from cyclepkg import c\n")
    (package / "c.py").write_text("import cyclepkg.a\n")
    (package / "d.py").write_text("import cyclepkg.a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("cyclepkg", cache_dir=None)
    contract = NoCycleContract("acyclic", {}, {"packages": ["cyclepkg"]})
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert check.metadata["cycles"] == [["cyclepkg.a", "cyclepkg.b", "cyclepkg.c"]]
    (package / "c.py").write_text("")
    graph = grimp.build_graph("cyclepkg", cache_dir=None)
    assert contract.check(graph, verbose=False).kept


NOTICE_CALLS = {"dm", "dm_player", "td_alert", "td_note", "team_update", "forum"}
"""The ``Notifier`` methods that write a notice; its words come from ``rules/talk``."""


def _inline_notice_texts(tree: ast.AST) -> list[int]:
    """Lines where a notice's ``text``, ``body`` or ``subject`` is written in place."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in NOTICE_CALLS:
            continue
        for keyword in node.keywords:
            value = keyword.value
            written = isinstance(value, ast.JoinedStr) or (
                isinstance(value, ast.Constant) and isinstance(value.value, str)
            )
            if keyword.arg in ("text", "body", "subject") and written:
                found.append(value.lineno)
    return found


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "bot").rglob("*.py")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_notice_text_is_written_outside_rules_talk(path: Path) -> None:
    lines = _inline_notice_texts(ast.parse(path.read_text(), filename=str(path)))
    assert not lines, f"{path}: a notice's words written in place at lines {lines}"


def test_inline_notice_checker_finds_texts() -> None:
    source = 'n.dm(uow, text=f"Hi {x}")\nn.td_alert(uow, text="x")\nn.dm(uow, text=talk.hi(x))'
    assert _inline_notice_texts(ast.parse(source)) == [1, 2]


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) for v in node.values if isinstance(v, ast.Constant))
    return None


def _is_log_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "log"
    )


def _written_words(tree: ast.AST) -> list[int]:
    """Lines where a module writes words of its own: a string or f-string of three words or
    more, not a docstring, nor in a ``raise`` (an error's sentence) or a log call."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        text = _literal(node)
        up = parents.get(node)
        if not isinstance(node, ast.expr) or text is None or text.count(" ") < 2:
            continue
        if isinstance(up, ast.JoinedStr | ast.Expr):
            continue
        scope = ast.Raise | ast.FunctionDef | ast.AsyncFunctionDef | ast.Module
        while up is not None and not isinstance(up, scope) and not _is_log_call(up):
            up = parents.get(up)
        if not (isinstance(up, ast.Raise) or (up is not None and _is_log_call(up))):
            found.append(node.lineno)
    return sorted(found)


WORDS_LEFT = {
    # the TDs' command-line reports and audit lines (what a TD's operation changed, the doctor's
    # findings, a forfeit's recorded note), not notices:
    "bot/service/doctor.py",
    "bot/service/stages/candidates.py",
    "bot/service/stages/exits.py",
    "bot/service/stages/knockout.py",
    "bot/service/stages/placement.py",
    "bot/service/stages/qualification.py",
    "bot/service/stages/registry.py",
    "bot/service/stages/runner.py",
    "bot/service/stages/small_field.py",
    "bot/service/weekly/conduct.py",
    "bot/service/weekly/handlers.py",
    "bot/notify/kinds.py",
    "bot/service/bulk_games.py",  # the audit's reason of a forgotten token
    "bot/service/challenges.py",  # a challenge's audit subject ("week 1 game 2")
}
"""The modules of bot/service and bot/notify that still write words of their own."""


@pytest.mark.parametrize(
    "path",
    sorted([*(ROOT / "bot" / "service").rglob("*.py"), *(ROOT / "bot" / "notify").rglob("*.py")]),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_services_and_the_notifier_take_their_words_from_rules_talk(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    lines = _written_words(ast.parse(path.read_text(), filename=name))
    if name in WORDS_LEFT:
        assert lines, f"{name} writes no words of its own now: drop it from WORDS_LEFT"
        return
    assert not lines, f"{name}: words written in place at lines {lines}; put them in rules/talk"


def test_the_words_checker_finds_sentences_and_spares_errors_logs_and_docstrings() -> None:
    source = (
        'def f(x):\n    """A docstring of words."""\n'
        '    a = f"Hello {x}, how are you"\n'
        '    b = "three words here"\n'
        '    c = f"key:{x}:two"\n'
        '    log.info("logged with %s words", x)\n'
        '    raise ValueError(f"refused for {x} reasons")\n'
    )
    assert _written_words(ast.parse(source)) == [3, 4]


MAX_FUNCTION_LINES = 80
"""No function of bot/, rules/ or storage/ is longer (its def line to its last line)."""

LONG_FUNCTIONS: dict[str, set[str]] = {
    # Dutch engine: C.04.3's S1/S2 assignment, hot loops kept flat for speed (bench/pairing.py).
    "rules/swiss/dutch/assignment.py": {"run", "_s1_rows"},
    # Dutch engine: bracket and remainder pairing, hot loops kept flat for speed (bench/pairing.py).
    "rules/swiss/dutch/brackets.py": {"_pair_bracket", "_pair_remainder"},
    # Dutch engine: the duals' cover check, a hot loop kept flat for speed (bench/pairing.py).
    "rules/swiss/dutch/cover.py": {"uncovered_pairs"},
}
"""The functions over the limit, each with its reason: shrink this list, never add to it."""


def _long_functions(tree: ast.AST) -> set[str]:
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (node.end_lineno or node.lineno) - node.lineno + 1 > MAX_FUNCTION_LINES
    }


LIMITED_FILES = sorted(
    path for part in ("bot", "rules", "storage") for path in (ROOT / part).rglob("*.py")
)


@pytest.mark.parametrize("path", LIMITED_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_is_over_80_lines(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    found = _long_functions(ast.parse(path.read_text(), filename=name))
    allowed = LONG_FUNCTIONS.get(name, set())
    assert found <= allowed, f"{name}: over {MAX_FUNCTION_LINES} lines: {sorted(found - allowed)}"
    assert allowed <= found, f"{name}: {sorted(allowed - found)} are short now; drop them"


def test_the_long_function_list_names_existing_files() -> None:
    assert all((ROOT / name).is_file() for name in LONG_FUNCTIONS)


def test_the_length_checker_counts_a_function_from_def_to_end() -> None:
    body = "\n".join("    x = 1" for _ in range(MAX_FUNCTION_LINES - 1))
    assert _long_functions(ast.parse(f"def short():\n{body}\n")) == set()
    assert _long_functions(ast.parse(f"async def long():\n{body}\n    y = 2\n")) == {"long"}


def _session_uses(tree: ast.AST) -> list[int]:
    """Lines that reach a unit of work's SQLAlchemy session (``uow.session``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "session":
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if name.endswith("uow"):
                found.append(node.lineno)
    return found


@pytest.mark.parametrize(
    "path", sorted((ROOT / "bot").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_nothing_outside_storage_reaches_the_session_of_a_unit_of_work(path: Path) -> None:
    lines = _session_uses(ast.parse(path.read_text(), filename=str(path)))
    assert not lines, f"{path}: uow.session at lines {lines}; use the unit of work's repositories"


def test_the_session_checker_finds_a_use() -> None:
    source = "uow.session.commit()\nself.uow.session.get(X, 1)\nuow.matches.get(1)"
    assert _session_uses(ast.parse(source)) == [1, 2]


WEB = ROOT / "bot" / "web"
WRITING_CALLS = {"uow", "one_write", "commit", "rollback", "flush"}
"""A unit of work that may write (``db.uow()``, ``db.one_write()``) and what writes through it."""
GET_WRITERS = {
    "bot.web.auth.callback": "Lichess's OAuth redirect comes back by GET: the login is stored",
    "bot.web.games_permission.callback": "the same for the games permission's token",
    "bot.web.desk.pairing.editor_page": "a rehearsal never committed, as bot/service/preview.py",
}
"""GET handlers that open a writing unit of work, each with its reason; every other page reads
through ``db.reads()``, which refuses to write."""


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _names_imported(tree: ast.AST, module: str) -> dict[str, str]:
    """Each name a module imports from its package's modules, to the module or function."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*module.split(".")[: -node.level], *([base] if base else [])])
            for alias in node.names:
                found[alias.asname or alias.name] = f"{base}.{alias.name}"
    return found


def get_handlers(trees: Mapping[str, ast.AST]) -> set[str]:
    """Every function a ``router.add_get`` names, as ``module.function``."""
    handlers = set()
    for module, tree in trees.items():
        imported = _names_imported(tree, module)
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_get"
            ):
                continue
            handler = node.args[1]
            if isinstance(handler, ast.Name):
                handlers.add(f"{module}.{handler.id}")
            elif isinstance(handler, ast.Attribute) and isinstance(handler.value, ast.Name):
                owner = imported.get(handler.value.id, handler.value.id)
                handlers.add(f"{owner}.{handler.attr}")
    return handlers


def writes_in(trees: Mapping[str, ast.AST], handler: str) -> list[str]:
    """The writing calls of ``handler`` and of the functions of its module it calls."""
    module, _, name = handler.rpartition(".")
    tree = trees.get(module)
    if tree is None:
        return [f"{handler}: not found"]
    functions = {
        n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    todo, seen, found = [name], set(), []
    while todo:
        function = functions.get(todo.pop())
        if function is None or function.name in seen:
            continue
        seen.add(function.name)
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in WRITING_CALLS:
                    found.append(f"{module}:{node.lineno} .{node.func.attr}()")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                todo.append(node.func.id)
    return sorted(found)


def test_a_get_page_reads_through_reads_and_never_commits() -> None:
    trees = {_module(p): ast.parse(p.read_text(), filename=str(p)) for p in WEB.rglob("*.py")}
    handlers = get_handlers(trees)
    assert len(handlers) > 20  # the pages were found
    writing = {h: writes_in(trees, h) for h in sorted(handlers)}
    writing = {h: w for h, w in writing.items() if w}
    assert set(writing) == set(GET_WRITERS), writing
    committing = {h for h, w in writing.items() if any(".commit()" in c for c in w)}
    assert committing == {"bot.web.auth.callback", "bot.web.games_permission.callback"}


def test_the_get_checker_follows_a_page_into_its_module() -> None:
    source = (
        "async def page(r):\n    return await _load(r)\n"
        "async def _load(r):\n    async with db.uow() as uow:\n        await uow.commit()\n"
        "def add_routes(app):\n    app.router.add_get('/x', page)\n"
    )
    trees = {"bot.web.x": ast.parse(source)}
    assert get_handlers(trees) == {"bot.web.x.page"}
    assert writes_in(trees, "bot.web.x.page") == ["bot.web.x:4 .uow()", "bot.web.x:5 .commit()"]


TRANSACTION_CALLS = {"commit", "rollback"}
COMMITTING_SERVICES: dict[str, set[str]] = {}
"""Services that still commit, by function (none now): a service's commit belongs to its entry
point (the web handler, the command, the queue's loop). Never add to it."""


def _committing_functions(tree: ast.AST) -> set[str]:
    """The functions that call ``commit()`` or ``rollback()`` on anything."""
    return {
        function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in TRANSACTION_CALLS
    }


@pytest.mark.parametrize(
    "path", sorted((ROOT / "bot" / "service").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_service_commits_its_unit_of_work(path: Path) -> None:
    """The entry point (a web handler, a command, a deadline's firing, an outbox send, a
    stream event) opens the unit of work and commits it; a service works in the one it is given
    (ARCHITECTURE.md, "Who commits")."""
    name = str(path.relative_to(ROOT))
    found = _committing_functions(ast.parse(path.read_text(), filename=name))
    allowed = COMMITTING_SERVICES.get(name, set())
    assert found <= allowed, f"{name}: {sorted(found - allowed)} commit; their caller should"
    assert allowed <= found, f"{name}: {sorted(allowed - found)} commit no more; drop them"


def test_the_commit_checker_finds_a_commit_in_a_nested_function() -> None:
    source = (
        "async def outer(db):\n    async def inner(uow):\n        await uow.commit()\n"
        "async def fine(uow):\n    await uow.flush()\n"
        "def undo(s):\n    s.rollback()\n"
    )
    assert _committing_functions(ast.parse(source)) == {"outer", "inner", "undo"}


MAX_MODULE_LINES = 800
"""No module of the service (bot/, rules/, storage/) is longer: one job a module."""

SERVICE_MODULES = sorted(
    path for part in ("bot", "rules", "storage") for path in (ROOT / part).rglob("*.py")
)


def test_no_module_of_the_service_is_over_800_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in SERVICE_MODULES
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"over {MAX_MODULE_LINES} lines, split them: {long}"
