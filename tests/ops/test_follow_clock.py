"""``python -m bot.demo.follow_clock`` (the tests' remote clock, issue 18) is a tool of the tests:
neither a setting of the production config nor a command of ``acwc``, and it refuses anything
but a sandbox Lichess."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config
from bot.demo.follow_clock import main
from bot.launch import main as acwc


def test_the_production_config_has_no_clock_setting(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[service]\nclock_url = "http://127.0.0.1:8765"\n')
    with pytest.raises(ConfigError, match=r"service\.clock_url: unknown key"):
        load_config(path, {})


@pytest.mark.parametrize(
    ("lichess", "clock", "error"),
    [
        ("https://lichess.org", "http://127.0.0.1:8765", "a fake clock is for tests only"),
        ("sandbox", "ftp://127.0.0.1:8765", "URL: must be an http(s) URL"),
    ],
)
def test_follow_clock_refuses_a_real_lichess_and_a_bad_url(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    lichess: str,
    clock: str,
    error: str,
) -> None:
    monkeypatch.setenv("ACWC_LICHESS_TOKEN", "lip_a_real_token")
    path = tmp_path / "config.toml"
    path.write_text(f'[tournament]\nteam = "t"\n[service]\nlichess_url = "{lichess}"\n')
    assert main(["--config", str(path), "follow-clock", clock]) == 1
    assert error in capsys.readouterr().err


def test_the_production_command_line_has_no_follow_clock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[service]\nlichess_url = "sandbox"\n')
    assert acwc(["--config", str(path), "follow-clock", "http://127.0.0.1:8765"]) != 0
    assert "invalid choice: 'follow-clock'" in capsys.readouterr().err
