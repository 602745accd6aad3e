"""The ``acwc`` fixture: the command line in-process, in an empty folder, on the test database;
``sandbox``: the sandbox Lichess served over HTTP from a thread of its own (the command line
runs its own event loop)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from bot.launch import main
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState
from tests.acwc_words import as_td

TD = "ODMWND"
TEAM = "acwc-2021"
BOT = "acwc-bot"


@pytest.fixture
def acwc(in_tmp: Path, database_url: str, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["{TD}"]\n[service]\ndatabase_url = "{database_url}"\n'
    )

    def run(*args: str, by: str | None = TD) -> tuple[int, str, str]:
        """Run ``acwc ARGS``; a TD command is run ``--by`` the config's TD unless the test
        names another (``by=``) or none (``by=None``)."""
        code = main(as_td(args, by))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def sandbox() -> Iterator[tuple[SandboxState, str]]:
    state = SandboxState()
    state.make_team(TEAM, leaders=[BOT])
    for name in ("Alice", "Bob", "Carol"):
        state.add_user(name)
    state.join_team(TEAM, "Alice")
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    box: dict[str, object] = {}

    async def serve() -> None:
        runner = web.AppRunner(make_app(state), shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        box["url"], box["runner"] = f"http://127.0.0.1:{site.port}", runner
        ready.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(serve(), loop)
    assert ready.wait(10)
    try:
        yield state, str(box["url"])
    finally:
        runner = box["runner"]
        assert isinstance(runner, web.AppRunner)
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
