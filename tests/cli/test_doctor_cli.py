"""``acwc doctor`` and the scope check of ``acwc registration check``, against the sandbox
Lichess served over HTTP from a thread of its own (the command line runs its own event loop)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.sandbox.state import SandboxState
from tests.cli.conftest import BOT, TEAM


@pytest.fixture
def with_team(in_tmp: Path, database_url: str) -> None:
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND"]\nteam = "{TEAM}"\n'
        f'[service]\ndatabase_url = "{database_url}"\n'
    )


def _token(monkeypatch: pytest.MonkeyPatch, state: SandboxState, scopes: list[str]) -> None:
    monkeypatch.setenv("ACWC_LICHESS_TOKEN", state.add_token(BOT, scopes=scopes))


FULL = ["msg:write", "team:lead", "team:read", "study:write", "challenge:write", "challenge:bulk"]
"""Every scope the default config's features need with a team (study:write: the broadcasts of
the later stages; challenge:write: the open challenges; challenge:bulk: the games the bot
starts)."""


def _lines(out: str) -> dict[str, str]:
    """Each finding's line by its topic."""
    return {line.split(":", 1)[0]: line for line in out.splitlines() if ":" in line}


def test_doctor_names_every_missing_scope_with_what_needs_it(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    _token(monkeypatch, state, [s for s in FULL if s != "msg:write"])
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    for name in ("Alice", "Bob"):
        assert acwc("player", "add", name)[0] == 0
    code, out, err = acwc("doctor", "--lichess-url", url, "--json")
    assert code == 1
    assert (
        err
        == "acwc: error: doctor: scopes: the token lacks msg:write (the DMs to players and TDs)\n"
    )
    report = json.loads(out)
    assert report["missing_scopes"] == ["msg:write"]
    assert report["bot"] == BOT
    topics = {f["topic"]: f for f in report["findings"]}
    assert topics["leader"]["ok"] is True
    assert topics["members"]["text"] == f"not members of {TEAM}: Bob"

    # a token without challenge:write: its own line, naming the open challenges
    _token(monkeypatch, state, [s for s in FULL if s != "challenge:write"])
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 1
    line = _lines(out)["scopes"]
    assert "PROBLEM" in line
    assert "challenge:write (the games' open challenges" in line


def test_doctor_passes_with_every_scope_and_prints_the_team(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    _token(monkeypatch, state, FULL)
    assert acwc("db", "upgrade")[0] == 0
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 0, out
    assert f"{BOT} leads {TEAM} with the Updates permission" in _lines(out)["leader"]
    assert "PROBLEM" not in out
    assert state.team_updates == []  # the permission's probe sent nothing


def test_doctor_refuses_a_bot_account(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    state.add_user(BOT, title="BOT")
    _token(monkeypatch, state, FULL)
    assert acwc("db", "upgrade")[0] == 0
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 1
    assert f"{BOT} is a BOT account" in _lines(out)["account"]
    assert "PROBLEM" in _lines(out)["account"]


def test_doctor_says_when_the_bot_does_not_lead_the_team_or_lacks_updates(  # type: ignore[no-untyped-def]
    acwc, with_team: None, sandbox: tuple[SandboxState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = sandbox
    _token(monkeypatch, state, FULL)
    assert acwc("db", "upgrade")[0] == 0
    state.without_updates.add((TEAM, BOT))
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 1
    assert "leads acwc-2021 without the Updates permission" in _lines(out)["leader"]

    state.team_leaders[TEAM] = {"alice"}
    code, out, _ = acwc("doctor", "--lichess-url", url)
    assert code == 1
    assert f"{BOT} does not lead {TEAM}" in _lines(out)["leader"]
    assert state.team_updates == []


def test_doctor_says_lichess_cannot_be_reached_and_guesses_nothing(  # type: ignore[no-untyped-def]
    acwc, with_team: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACWC_LICHESS_TOKEN", "lip_whatever")
    assert acwc("db", "upgrade")[0] == 0
    url = _closed_port_url()
    code, out, err = acwc("doctor", "--lichess-url", url)
    assert code == 1
    assert out.splitlines()[0].startswith(f"lichess:       PROBLEM  cannot reach Lichess at {url}")
    assert "nothing else was checked" in out
    for guess in ("not valid", "lacks", "lead"):
        assert guess not in out
        assert guess not in err


def _closed_port_url() -> str:
    """A local address where nothing listens (the port was bound, then freed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_registration_check_without_lichess_exits_non_zero_and_changes_nothing(  # type: ignore[no-untyped-def]
    acwc, with_team: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACWC_LICHESS_TOKEN", "lip_whatever")
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    assert acwc("player", "add", "Bob")[0] == 0
    before = acwc("audit", "--json")
    code, out, err = acwc("registration", "check", "--lichess-url", _closed_port_url())
    assert code == 1
    assert "nothing was checked or changed" in err
    assert "eligible" not in out
    assert acwc("audit", "--json") == before


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
