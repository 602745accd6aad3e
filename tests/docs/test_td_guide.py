"""The TDs' guide (docs/td-guide.md), followed as written: every command of its ``sh`` blocks, in
order, from ``acwc init`` to round 1's pairings published, against the bundled fake Lichess.

The test changes only what must differ on a test machine, and says so: Lichess is the sandbox
(served by ``python -m bot.sandbox`` with the guide's team and token), the guide's PostgreSQL
database gets a name of its own (two test runs may share the server), ``acwc run`` serves on a
free port, and more players are added with the guide's own ``acwc player add`` line so that there
is a round to pair."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import asyncpg
import pytest

from bot.launch import main
from tests.conftest import PG_ADMIN
from tests.docs.commands import shell_commands

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "td-guide.md"


def guide_commands() -> list[str]:
    """The guide's shell commands, in order (:mod:`tests.docs.commands` reads every document)."""
    return [command.text for command in shell_commands(GUIDE)]


def exported(line: str) -> tuple[str, str]:
    """The variable an ``export NAME=value`` line sets, and its value as the shell makes it."""
    name = line.removeprefix("export ").split("=", 1)[0]
    value = subprocess.run(
        ["bash", "-c", f'{line}\nprintf %s "${name}"'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return name, value


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sandbox() -> Iterator[str]:
    """``python -m bot.sandbox`` with the team and the token the guide names."""
    exports = dict(exported(line) for line in guide_commands() if line.startswith("export "))
    init = next(line for line in guide_commands() if line.startswith("acwc init"))
    team = shlex.split(init)[shlex.split(init).index("--team") + 1]
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bot.sandbox",
            "--port",
            str(port),
            "--team",
            team,
            "--token",
            exports["ACWC_LICHESS_TOKEN"],
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    """Until ``port`` takes a connection (or the process died)."""
    while process.poll() is None:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        with contextlib.suppress(subprocess.TimeoutExpired):  # until it serves or dies
            process.wait(0.05)
    raise AssertionError(f"{process.args!r} exited {process.returncode} before serving")


async def _page(url: str) -> str:
    async with aiohttp.ClientSession() as http, http.get(url) as resp:
        assert resp.status == 200, url
        return await resp.text()


async def _drop(name: str) -> None:
    conn = await asyncpg.connect(PG_ADMIN)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def test_the_td_guide_runs_from_init_to_round_one_published(  # type: ignore[no-untyped-def]
    in_tmp: Path, sandbox: str, pg_url: str, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = f"acwc_guide_{uuid.uuid4().hex[:10]}"
    web_port = _free_port()
    service: subprocess.Popen[bytes] | None = None
    ran: list[str] = []
    try:
        for line in guide_commands():
            if line.startswith("export "):
                name, value = exported(line)
                monkeypatch.setenv(name, value)
                continue
            words = shlex.split(line)
            assert words[0] == "acwc", f"the guide's sh blocks hold acwc commands: {line}"
            words = [re.sub(r"/acwc2027$", f"/{database}", w) for w in words[1:]]
            if words == ["run"]:
                service = _start(in_tmp, web_port)
                ran.append(line)
                continue
            code = main(words)
            out, err = capsys.readouterr()
            assert code == 0, f"{line}\n{out}{err}"
            ran.append(line)
            if words[0] == "init":  # Lichess is the sandbox, and the pages get a free port
                config = in_tmp / "config.toml"
                config.write_text(
                    config.read_text().replace('"https://lichess.org"', f'"{sandbox}"')
                )
                _set_web_port(config, web_port)
            if words[:2] == ["player", "add"]:  # the same line for more players
                for i, name in enumerate(("Bob", "Carol", "Dave", "Erin", "Frank", "Gina")):
                    extra = [*words[:2], name, "--rating", str(2100 - 10 * i), *words[5:]]
                    assert main(extra) == 0, capsys.readouterr()
                capsys.readouterr()
        assert [w.split()[1] for w in ran if len(w.split()) > 1][:3] == ["init", "db", "doctor"]
        assert "acwc round approve --by ODMWND" in ran
        assert main(["round", "show", "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert (shown["round"], shown["state"], len(shown["boards"])) == (1, "published", 4)
        assert service is not None
        pairings = asyncio.run(_page(f"http://127.0.0.1:{web_port}/pairings"))
        assert "Alice" in pairings
    finally:
        if service is not None:
            service.send_signal(signal.SIGTERM)
            assert service.wait(30) == 0
        asyncio.run(_drop(database))


def _set_web_port(config: Path, port: int) -> None:
    """``web_port`` in the config's ``[service]`` table (acwc init leaves the default 8080),
    and the checks' listener on any free port (two test runs may run this test at once)."""
    text = config.read_text()
    text = text.replace("[service]\n", f"[service]\nweb_port = {port}\nops_port = 0\n", 1)
    config.write_text(text)


def _start(folder: Path, port: int) -> subprocess.Popen[bytes]:
    """``acwc run`` as the guide says, in its own process; back once its pages answer."""
    with (folder / "run.log").open("wb") as log:  # the service's own lines, for a failure
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "run"],
            cwd=folder,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    _wait_for_port(port, process)
    return process
