"""``acwc`` starts at once: ``--help`` and ``pair`` import neither the service nor the
database, and the command table that makes this possible says what the modules register."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import COMMANDS, build_parser, chosen_command
from bot.launch import TOOLS

DATA = Path(__file__).parent.parent / "data"
HEAVY = ("bot.app", "bot.config", "bot.service", "bot.web", "bot.demo", "sqlalchemy", "storage")


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _helps(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in action._choices_actions}


def test_the_command_table_is_what_the_modules_register() -> None:
    full = build_parser(TOOLS)
    entries = (*COMMANDS, *TOOLS)
    assert list(dict.fromkeys(entry.name for entry in entries)) == list(_choices(full))
    assert {entry.name: entry.help for entry in entries} == _helps(full)
    for entry in entries:
        # Loading only the row's module gives the command in full: its own arguments or
        # subcommands, and a handler.
        lazy = _choices(build_parser(TOOLS, lazy=True, command=entry.name))[entry.name]
        assert lazy.format_help() == _choices(full)[entry.name].format_help(), entry.name


def test_a_lazy_parser_has_only_names_for_the_other_commands() -> None:
    parser = build_parser(TOOLS, lazy=True, command="pair")
    assert _choices(parser)["db"].format_help() != _choices(build_parser())["db"].format_help()
    assert _helps(parser) == _helps(build_parser(TOOLS))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["pair", "x.trf"], "pair"),
        (["--config", "pair", "db", "upgrade"], "db"),
        (["--config=c.toml", "-v", "round", "show"], "round"),
        (["-v"], None),
        (["--help"], None),
        (["--", "pair"], None),
    ],
)
def test_the_command_word_is_found(argv: list[str], expected: str | None) -> None:
    assert chosen_command(argv) == expected


def _modules_after(*argv: str) -> tuple[int, set[str]]:
    script = (
        "import sys\n"
        "from bot.launch import main\n"
        "try:\n"
        f"    code = main({list(argv)!r})\n"
        "except SystemExit as stop:\n"
        "    code = stop.code\n"
        "print(code)\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parent.parent.parent,
    )
    lines = done.stdout.strip().splitlines()
    return int(lines[-2]), set(lines[-1].split())


@pytest.mark.parametrize(
    "argv",
    [
        ("pair", str(DATA / "bbp_issue_7.trf")),
        ("pair", "--help"),
        ("--help",),
        ("nope",),
    ],
)
def test_help_and_pair_import_no_service(argv: tuple[str, ...]) -> None:
    code, modules = _modules_after(*argv)
    assert code in (0, 2)
    loaded = sorted(
        name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )
    assert loaded == []
    assert "asyncio" not in modules


def test_a_database_command_still_loads_what_it_needs(in_tmp: Path) -> None:
    code, modules = _modules_after("db", "current", "--config", str(in_tmp / "missing.toml"))
    assert code != 0  # the config file does not exist: a clear error, after loading it
    assert "bot.config" in modules
