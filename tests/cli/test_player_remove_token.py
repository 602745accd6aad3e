"""``acwc player remove`` of a player who stored a Lichess token: the token is revoked on
Lichess (``DELETE /api/token``) before the player row, and its own, go; while Lichess cannot be
reached nothing is removed and the token stays sealed."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from cryptography.fernet import Fernet

from bot.sandbox.state import SandboxState
from bot.service.player_tokens import TokenVault
from storage.db import Database
from storage.models_tokens import PlayerTokenRow
from tests.cli.conftest import BOT


def _tokens(url: str) -> list[str]:
    async def read() -> list[str]:
        db = Database(url)
        try:
            async with db.reads() as uow:
                return await uow.tokens.player_ids()
        finally:
            await db.dispose()

    return asyncio.run(read())


def _store(url: str, player: str, secret: str) -> None:
    async def write() -> None:
        db = Database(url)
        try:
            async with db.uow() as uow:
                await uow.tokens.put(
                    PlayerTokenRow(
                        player_id=player,
                        secret=secret,
                        scopes="challenge:write",
                        created_at=dt.datetime(2021, 9, 1, tzinfo=dt.UTC),
                    )
                )
                await uow.commit()
        finally:
            await db.dispose()

    asyncio.run(write())


def test_a_removed_player_s_token_is_revoked_on_lichess_first(  # type: ignore[no-untyped-def]
    acwc,
    database_url: str,
    sandbox: tuple[SandboxState, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state, url = sandbox
    key = Fernet.generate_key().decode()
    monkeypatch.setenv("ACWC_TOKEN_KEY", key)
    monkeypatch.setenv("ACWC_LICHESS_TOKEN", state.add_token(BOT))
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    assert acwc("player", "add", "Alice")[0] == 0
    token = state.add_token("Alice", scopes=["challenge:write"])
    _store(database_url, "alice", TokenVault(key).seal(token))

    code, out, err = acwc("player", "remove", "Alice", "--reason", "entered in error")
    assert code == 1
    assert "give --lichess-url" in err

    state.knobs.down_until = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)  # Lichess down
    code, out, err = acwc(
        "player", "remove", "Alice", "--reason", "entered in error", "--lichess-url", url
    )
    assert code == 1, out + err
    assert "nothing is removed" in err
    assert _tokens(database_url) == ["alice"]  # kept, sealed
    assert token in state.tokens  # and still valid on Lichess

    state.knobs.down_until = None  # Lichess back
    code, out, err = acwc(
        "player", "remove", "Alice", "--reason", "entered in error", "--lichess-url", url
    )
    assert code == 0, out + err
    assert token not in state.tokens  # revoked on Lichess
    assert _tokens(database_url) == []
    assert "Alice" not in acwc("player", "list")[1]
