"""Every shell command the documents give is run (issue 30), or is one of the few that cannot run
in a test, listed below with the reason, and then at least parsed.

The commands of README.md, ARCHITECTURE.md and docs/ (:mod:`tests.docs.commands` finds them) run
in order, a document at a time, each in ``bash`` in a new folder whose config ``acwc init`` made
for the bundled sandbox Lichess and SQLite, with the schema, the tournament and one player in it.
What differs on a test machine, and only that: paths under ``/var/lib/acwc-bot`` and
``/etc/acwc-bot`` are the folder's own, and where a document tells the reader to do something by
hand before a command (``PREPARE``), the test does it. The TDs' guide has a test of its own
(``tests/docs/test_td_guide.py``, on PostgreSQL), which reads it through the same module.

The Python commands the documents give in backticks (the benchmarks' tables, the tools) are parsed
by the program's own parser, and every ``acwc …`` a document names in backticks is a command of
``acwc``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.cli.base import CliError
from bot.cli.main import build_parser
from bot.launch import TOOLS
from tests.cli.test_named_commands import NAMED, unknown_command
from tests.docs.commands import ROOT, Command, all_commands, documents, shell_commands

RUN_ELSEWHERE = {"docs/td-guide.md": "tests/docs/test_td_guide.py"}

# The commands a test cannot run, with the reason; each is parsed instead (``acwc`` by its
# parser, a script of scripts/ by ``bash -n`` and the ``acwc`` command it hands its arguments to,
# anything else by ``bash -n``).
# A path under /opt/acwc-bot (the install's copy of the repository) names a file of this one.
INSTALL = "changes the machine as root (a system user, /opt, /etc, systemd) or downloads packages"
NOT_RUN = {
    ("README.md", "./scripts/demo"): "a whole 48-player championship, about a minute on two "
    "cores; tests/demo/ plays the demo's seasons",
    ("README.md", "./scripts/test"): "the whole suite, 15 to 25 minutes, this test among it",
    ("docs/reference.md", "acwc demo --players 48 --seed 1"): "the README's demo with its "
    "defaults, about a minute; its output is quoted as a run printed it",
    ("docs/reference.md", "acwc demo --players 13 --seasons 2"): "two championships, minutes; "
    "tests/demo/test_two_seasons.py plays two the same way, with shorter matches",
    **{
        ("docs/operations.md", line): INSTALL
        for line in (
            "useradd --system --home-dir /var/lib/acwc-bot --shell /usr/sbin/nologin acwc",
            "python3.11 -m venv /opt/acwc-bot/.venv",
            "/opt/acwc-bot/.venv/bin/pip install --require-hashes -r "
            "/opt/acwc-bot/requirements.lock",
            "/opt/acwc-bot/.venv/bin/pip install --no-deps -e /opt/acwc-bot",
            "install -d -m 0750 -g acwc /etc/acwc-bot",
            "install -m 0640 -g acwc config.toml /etc/acwc-bot/config.toml",
            "install -m 0600 /dev/null /etc/acwc-bot/env",
            "cp /opt/acwc-bot/deploy/acwc-bot.service /etc/systemd/system/",
            "systemctl daemon-reload",
            "systemctl enable --now acwc-bot",
            "journalctl -u acwc-bot -o cat",
        )
    },
}
INSTALLED = re.compile(r"/opt/acwc-bot/((?!\.venv)[\w./-]+)")


def _move_the_sqlite_file_aside(folder: Path) -> None:
    """Operations: "on SQLite, move the damaged file aside" (the restore's empty database)."""
    (folder / "acwc.db").rename(folder / "acwc.db.damaged")


# What a document tells the reader to do by hand before a command, done by the test.
PREPARE: dict[tuple[str, str], Callable[[Path], None]] = {
    ("docs/operations.md", "acwc db restore /var/lib/acwc-bot/backup-2027-10-12.json"): (
        _move_the_sqlite_file_aside
    ),
}

SETUP = (
    "acwc init --yes --lichess-url sandbox --tds ODMWND,Shiaxou"
    " --database-url sqlite+aiosqlite:///acwc.db",
    "acwc db upgrade",
    "acwc tournament create",
    "acwc player add Alice --rating 2150 --by ODMWND",
)
MACHINE_PATHS = re.compile(r"(?<![\w./])/(?=(?:var/lib|etc)/acwc-bot\b)")


def words(command: Command | str) -> list[str]:
    """The words of a command line, without its comment."""
    text = command.text if isinstance(command, Command) else command
    return shlex.split(text, comments=True)


def key(command: Command) -> tuple[str, str]:
    return (command.document, " ".join(words(command)))


def documents_to_run() -> list[str]:
    """The documents with a command to run here."""
    return sorted(
        {
            c.document
            for c in all_commands()
            if c.document not in RUN_ELSEWHERE and key(c) not in NOT_RUN
        }
    )


class Shell:
    """``bash -c`` in ``folder`` with this checkout's ``acwc`` first on the PATH; an ``export``
    line sets the variable for the commands after it, as in one shell."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        bin_dir = Path(sys.executable).parent
        self.env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("ACWC_") or name.startswith("ACWC_TEST")
        }
        self.env["PATH"] = f"{bin_dir}{os.pathsep}{self.env.get('PATH', '')}"
        self.env["PYTHONPATH"] = str(ROOT)
        assert shutil.which("acwc", path=self.env["PATH"]), f"no acwc in {bin_dir}"

    def run(self, line: str) -> subprocess.CompletedProcess[str]:
        line = MACHINE_PATHS.sub(f"{self.folder}/", line)
        if line.startswith("export "):
            name, value = words(line)[1].split("=", 1)
            self.env[name] = value
        return subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", line],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


@pytest.mark.timeout(600)  # dozens of `acwc` processes, one after another, on a busy machine
@pytest.mark.in_the_postgresql_run  # no database of the suite's: CI runs it beside PostgreSQL's
@pytest.mark.parametrize("document", documents_to_run())
def test_the_documents_commands_run(document: str, tmp_path: Path) -> None:
    for place in ("var/lib/acwc-bot", "etc/acwc-bot"):
        (tmp_path / place).mkdir(parents=True)
    shell = Shell(tmp_path)
    for line in SETUP:
        done = shell.run(line)
        assert done.returncode == 0, f"set-up {line}\n{done.stdout}{done.stderr}"
    ran = 0
    for command in shell_commands(ROOT / document):
        if key(command) in NOT_RUN:
            continue
        prepare = PREPARE.get(key(command))
        if prepare is not None:
            prepare(tmp_path)
        done = shell.run(command.text)
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
        ran += 1
    assert ran > 0


def test_every_command_is_run_or_named_as_not_run() -> None:
    """A document with commands is run here or by its own test; every command not run is
    listed with its reason, and every listed one is still in its document."""
    commands = all_commands()
    ran = set(documents_to_run())
    unaccounted = [
        str(c)
        for c in commands
        if c.document not in ran and c.document not in RUN_ELSEWHERE and key(c) not in NOT_RUN
    ]
    assert unaccounted == []
    assert set(NOT_RUN) <= {key(c) for c in commands}, "a listed command left its document"
    assert set(PREPARE) <= {key(c) for c in commands}
    assert {c.document for c in commands} >= {"README.md", "docs/operations.md"}


def test_the_td_guide_is_followed_by_its_own_test() -> None:
    from tests.docs.test_td_guide import guide_commands

    for document, test in RUN_ELSEWHERE.items():
        assert (ROOT / test).is_file()
        assert guide_commands() == [c.text for c in shell_commands(ROOT / document)]


@pytest.mark.parametrize(("document", "command"), sorted(NOT_RUN))
def test_a_command_not_run_is_parsed(document: str, command: str) -> None:
    said = words(command)
    if said[0] == "acwc":
        _parse_acwc(said[1:])
    elif said[0].startswith("./scripts/"):
        script = ROOT / said[0]
        _bash_n(["bash", "-n", str(script)])
        hands_on = re.search(r'^exec acwc (\S+) "\$@"$', script.read_text(), re.M)
        if hands_on:
            _parse_acwc([hands_on.group(1), *said[1:]])
        else:
            assert said[1:] == [], f"{command}: arguments to a script that takes none"
    else:
        _bash_n(["bash", "-n", "-c", command])
    for named in INSTALLED.findall(command):
        assert (ROOT / named).exists(), f"{command}: {named} is not in the repository"


def _parse_acwc(argv: list[str]) -> None:
    try:
        build_parser(TOOLS).parse_args(argv)
    except CliError as e:
        raise AssertionError(f"acwc {' '.join(argv)}: {e}") from None


def _bash_n(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# The Python commands in backticks (the benchmarks' tables, the tools): each parsed by its own
# parser. `python -m bot` names the process entry beside `acwc`, not a command line.
SPAN = re.compile(r"`([^`]+)`")
ENTRY_NAMES = {"python -m bot"}
# One Python process parses every command, one after another (a process each cost 30 imports of
# the service, about 50 s of CPU): each program runs as ``__main__`` until its parser has read the
# arguments, and what it wrote to stderr is kept for the command's own test.
PARSE_ALL = """
import argparse, contextlib, io, json, runpy, sys
class Parsed(Exception):
    pass
parse = argparse.ArgumentParser.parse_args
def parse_only(self, args=None, namespace=None):
    parse(self, args, namespace)  # a bad argument exits 2 here
    raise Parsed
argparse.ArgumentParser.parse_args = parse_only
said = {}
for argv in json.loads(sys.stdin.read()):
    target, sys.argv = argv[0], list(argv)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            if target.endswith(".py"):
                runpy.run_path(target, run_name="__main__")
            else:
                runpy.run_module(target, run_name="__main__", alter_sys=True)
        said[" ".join(argv)] = "the program ran without parsing its arguments"
    except Parsed:
        said[" ".join(argv)] = ""
    except SystemExit as e:
        said[" ".join(argv)] = f"exit {e.code}: {err.getvalue()}"
    except Exception as e:
        said[" ".join(argv)] = f"{type(e).__name__}: {e}"
print(json.dumps(said))
"""


def python_commands() -> list[str]:
    found = []
    for path in documents():
        for span in SPAN.findall(path.read_text(encoding="utf-8")):
            said = _program(span.split())
            if said and said[0] == "python" and span not in ENTRY_NAMES:
                found.append(span)
    return list(dict.fromkeys(found))


def _program(said: list[str]) -> list[str]:
    """The command without its environment assignments and ``nice``."""
    while said and (re.match(r"^[A-Z_]+=", said[0]) or said[0] == "nice"):
        said = said[3:] if said[:2] == ["nice", "-n"] else said[1:]
    return said


def _argv(span: str) -> list[str]:
    """The program and its arguments, as the parsing process runs them."""
    said = _program(shlex.split(span))
    return said[2:] if said[1] == "-m" else said[1:]


@pytest.fixture(scope="module")
def parsed() -> dict[str, str]:
    """Every Python command of the documents parsed in one process: the command (as
    :func:`_argv` gives it, joined) to what went wrong, or ``""``."""
    done = subprocess.run(
        [sys.executable, "-c", PARSE_ALL],
        input=json.dumps([_argv(span) for span in python_commands()]),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said: dict[str, str] = json.loads(done.stdout.splitlines()[-1])
    return said


@pytest.mark.parametrize("span", python_commands())
def test_a_python_command_parses(span: str, parsed: dict[str, str]) -> None:
    assert parsed[" ".join(_argv(span))] == "", f"{span}\n{parsed[' '.join(_argv(span))]}"


def test_the_python_walk_sees_the_commands() -> None:
    found = python_commands()
    assert len(found) >= 12
    assert "python -m bench.screenshots" in found


def test_every_acwc_command_a_document_names_exists() -> None:
    parser = build_parser(TOOLS)
    wrong = []
    texts = [*documents(), ROOT / "config.example.toml", *(ROOT / "deploy").iterdir()]
    for path in texts:
        for match in NAMED.finditer(path.read_text(encoding="utf-8")):
            said = match.group(1).split()
            bad = unknown_command(said, parser)
            if bad is not None:
                wrong.append(f"{path.relative_to(ROOT)}: `acwc {' '.join(said)}` ({bad!r})")
    assert wrong == []
