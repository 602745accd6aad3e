"""``acwc doctor`` and the scope check of ``acwc registration check``, against the sandbox
Lichess served over HTTP from a thread of its own (the command line runs its own event loop)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState

TEAM = "acwc-2021"
BOT = "acwc-bot"


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


@pytest.fixture
def with_team(in_tmp: Path, database_url: str) -> None:
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND"]\nteam = "{TEAM}"\n'
        f'[service]\ndatabase_url = "{database_url}"\n'
    )


def _token(monkeypatch: pytest.MonkeyPatch, state: SandboxState, scopes: list[str]) -> None:
    monkeypatch.setenv("ACWC_LICHESS_TOKEN", state.add_token(BOT, scopes=scopes))


def test_doctor_names_a_missing_msg_write_and_exits_non_zero(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    # study:write: the default config follows the later stages with a Lichess broadcast;
    # challenge:write: its open challenges (lila refuses a token without it there)
    _token(monkeypatch, state, ["team:lead", "team:read", "study:write", "challenge:write"])
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    for name in ("Alice", "Bob"):
        assert acwc("player", "add", name)[0] == 0
    code, out, err = acwc("doctor", "--lichess-url", url, "--json")
    assert code == 1
    assert err == "acwc: error: doctor: the token lacks the scope msg:write\n"
    report = json.loads(out)
    assert report["missing_scopes"] == ["msg:write"]
    assert report["bot"] == BOT
    assert report["leads_team"] is True
    assert report["not_team_members"] == ["Bob"]
    assert report["problems"] == ["the token lacks the scope msg:write"]

    # every missing scope is named, not the first (study:write: the default broadcasts)
    _token(monkeypatch, state, ["team:lead", "study:write", "challenge:write"])
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 1
    assert "missing:       msg:write, team:read" in out


def test_doctor_passes_with_every_scope_and_prints_the_team(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    _token(
        monkeypatch,
        state,
        ["msg:write", "team:lead", "team:read", "study:write", "challenge:write"],
    )
    assert acwc("db", "upgrade")[0] == 0
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 0, out
    assert f"team:          {TEAM} (led by the bot)" in out
    assert "missing:       none" in out


def test_registration_check_refuses_a_token_without_team_read_and_shows_non_members(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    _token(monkeypatch, state, ["msg:write"])
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    assert acwc("player", "add", "Bob")[0] == 0
    assert acwc("player", "add", "Alice")[0] == 0
    code, _, err = acwc("registration", "check", "--lichess-url", url)
    assert code == 1
    assert "lacks the scope team:read" in err

    _token(monkeypatch, state, ["msg:write", "team:read"])
    code, out, _ = acwc("registration", "check", "--lichess-url", url, "--json")
    assert code == 0
    reasons = {row["player"]: row["reasons"] for row in json.loads(out)}
    assert any("not a team member" in r for r in reasons["Bob"])
    assert not any("not a team member" in r for r in reasons["Alice"])
