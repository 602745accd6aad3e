"""The sandbox run alone (``python -m bot.sandbox``) and driven through its admin API."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import socket
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest
from lichess_helpers import HANG, START

from bot.lichess import LichessClient
from bot.runtime.clock import FakeClock

ROOT = pathlib.Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
async def standalone() -> AsyncIterator[str]:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.sandbox",
        "--port",
        str(port),
        "--token",
        "lip_standalone",
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as http, asyncio.timeout(HANG):
            while True:
                with contextlib.suppress(aiohttp.ClientConnectionError):
                    async with http.get(f"{url}/_sandbox/state") as resp:
                        if resp.status == 200:
                            break
                await asyncio.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        await proc.wait()


async def test_standalone_sandbox_is_driven_through_the_admin_api(standalone: str) -> None:
    url = standalone
    async with aiohttp.ClientSession() as http:
        async with http.post(
            f"{url}/_sandbox/users",
            json={"username": "Alice", "created_at": "2020-02-01T00:00:00+00:00"},
        ) as resp:
            assert await resp.json() == {"id": "alice", "username": "Alice"}
        async with http.post(f"{url}/_sandbox/users", json={"username": "Bob"}) as resp:
            assert resp.status == 200
        async with http.post(
            f"{url}/_sandbox/games",
            json={"white": "Alice", "black": "Bob", "created_at": START.isoformat(), "start": True},
        ) as resp:
            game = await resp.json()
            assert game["status"] == "started"
        async with http.post(
            f"{url}/_sandbox/games/{game['id']}/finish",
            json={"status": "variantEnd", "winner": "black"},
        ) as resp:
            assert (await resp.json())["winner"] == "black"
        async with http.post(f"{url}/_sandbox/knobs", json={"no_such_knob": 1}) as resp:
            assert resp.status == 400
            assert "no_such_knob" in (await resp.json())["error"]
        async with http.post(f"{url}/_sandbox/games/{game['id']}/finish", json={}) as resp:
            assert resp.status == 400  # already finished

    async with LichessClient(
        base_url=url, token="lip_standalone", clock=FakeClock(START)
    ) as client:
        user = await client.get_user("alice")
        assert user.created_at is not None
        assert user.created_at.year == 2020
        await client.send_message("bob", "Your match starts at 18:00 UTC.")
        await client.post_team_update("acwc", "Pairings are out.")
        games = await client.export_games("alice", vs="bob")
        assert [g.id for g in games] == [game["id"]]

    async with aiohttp.ClientSession() as http:
        async with http.get(f"{url}/_sandbox/inbox", params={"to": "bob"}) as resp:
            inbox = await resp.json()
        async with http.get(f"{url}/_sandbox/team-updates") as resp:
            updates = await resp.json()
    assert [m["text"] for m in inbox] == ["Your match starts at 18:00 UTC."]
    assert [u["message"] for u in updates] == ["Pairings are out."]
