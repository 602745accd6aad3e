"""Structured logs (issue 18): ``--log-format json`` writes one JSON object a line, and no
secret reaches a log line, a traceback included."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path

import pytest

from bot.runtime.logs import setup_logging

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "lip_S3cretBotToken42"
SESSION = "session-secret-that-signs-cookies"


@pytest.fixture
def restore_logging() -> object:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield None
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_carry_no_token_in_message_arguments_or_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    setup_logging(level=logging.INFO, fmt="json", secrets=(TOKEN, SESSION, None))
    log = logging.getLogger("acwc.test")
    log.info("calling Lichess with %s and cookie key %s", TOKEN, SESSION)
    log.warning("header Authorization: Bearer %s", "lip_someOtherToken999")
    try:
        raise RuntimeError(f"refused token {TOKEN}")
    except RuntimeError:
        log.exception("the call failed")
    lines = capsys.readouterr().err.splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["level"] for e in entries] == ["INFO", "WARNING", "ERROR"]
    assert entries[0]["logger"] == "acwc.test"
    assert entries[0]["message"] == "calling Lichess with [redacted] and cookie key [redacted]"
    assert "lip_someOtherToken999" not in entries[1]["message"]
    assert "RuntimeError: refused token [redacted]" in entries[2]["exception"]
    for line in lines:
        assert TOKEN not in line
        assert SESSION not in line


async def test_acwc_with_log_format_json_writes_json_lines(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[service]\nlichess_url = "http://127.0.0.1:9"\n')
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "-v",
        "--log-format",
        "json",
        "--config",
        str(config),
        "registration",
        "check",
        "--by",
        "ODMWND",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "ACWC_LICHESS_TOKEN": TOKEN},
        cwd=str(tmp_path),
    )
    _, err = await process.communicate()
    # Lichess is unreachable: the one-line error, whole (a thread's last debug line may follow)
    said = err.decode().splitlines()
    errors = [line for line in said if line.startswith("acwc: error: ")]
    assert len(errors) == 1, said[-5:]
    lines = [line for line in said if line not in errors]
    # -v: every debug line, each a JSON object (the check stops at the token test it cannot
    # make: its tries and the start-up's lines)
    assert len(lines) > 5
    for line in lines:
        assert set(json.loads(line)) >= {"time", "level", "logger", "message"}
        assert TOKEN not in line
