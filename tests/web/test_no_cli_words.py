"""No text a TD or a player reads names a command of the terminal: every ruling is a desk
button, and the desk's cards, the TDs' alerts, the players' notices and the digests say so in
the desk's words.

The scan reads every string the modules that write those texts hold (not their docstrings and
comments, which are for the programmers) and every template, for ``acwc <command>`` inside a
sentence. A string that is a command line and nothing else (it starts with ``acwc ``: a TD
alert's ``command``, for the command line's own listing) is not text a reader is shown; the
alerts' own text is checked by ``test_an_alert_names_no_command``. What only the terminal
prints may name commands: the command line's own output (``bot/cli``), the start-up refusals of
``acwc run`` (``bot/app.py``) and storage's backup and run-lock errors."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bot.cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
WRITERS = (
    "rules/talk",
    "rules/week",
    "rules/stages",
    "bot/notify",
    "bot/runtime",  # the outbox's holds and the deadlines' notes, shown on the desk
    "bot/lichess",  # Lichess's errors, said to the TDs on the desk and in alerts
    "bot/service",
    "bot/views",
    "bot/web",
)
TEMPLATES = ROOT / "bot" / "web" / "templates"
COMMAND = re.compile(r"\bacwc (" + "|".join(sorted({c.name for c in COMMANDS})) + r")\b")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (of the module, a class, a function)
    or stand alone as statements (an attribute's docstring)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            out.add(id(node.value))
    return out


def texts(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    skip = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    ]


def test_no_text_names_a_cli_command() -> None:
    found = []
    for folder in WRITERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, text in texts(path):
                if COMMAND.search(text) and not text.startswith("acwc "):
                    found.append(f"{path.relative_to(ROOT)}:{line}: {text.strip()[:100]}")
    for path in sorted(TEMPLATES.glob("*.html")):
        for line, text in enumerate(path.read_text().splitlines(), 1):
            if COMMAND.search(text) and "{#" not in text:
                found.append(f"{path.relative_to(ROOT)}:{line}: {text.strip()[:100]}")
    assert not found, "\n".join(found)


def test_the_scan_finds_a_command_in_a_string_but_not_in_a_docstring(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        '"""Run ``acwc round pair``."""\n'
        "def f() -> str:\n"
        '    """As ``acwc claim decide``."""\n'
        '    return f"settle it: acwc dq confirm {1}"\n'
    )
    hits = [line for line, text in texts(source) if COMMAND.search(text)]
    assert hits == [4]


def test_an_alert_names_no_command() -> None:
    from rules.talk.notices import TDAlert

    alert = TDAlert(None, "something happened", ("evidence",), "acwc fault decide 7")
    assert not COMMAND.search(alert.text)
