"""``acwc player withdraw|disqualify``: the tables before and after, then a confirmation."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.launch import main
from tests.acwc_words import as_td


@pytest.fixture
def acwc(in_tmp: Path, database_url: str, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND"]\n[service]\ndatabase_url = "{database_url}"\n'
    )

    def run(*args: str) -> tuple[int, str]:
        code = main(as_td(args, "ODMWND"))
        out, err = capsys.readouterr()
        return code, out + err

    assert run("db", "upgrade")[0] == 0
    assert run("tournament", "create")[0] == 0
    for name in ("Alice", "Bob"):
        assert run("player", "add", name, "--rating", "2000")[0] == 0
    return run


def test_declining_the_confirmation_changes_nothing(acwc, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out = acwc("player", "withdraw", "alice", "--reason", "moving house")
    assert code == 1
    assert "BEFORE" in out
    assert "cancelled: nothing changed" in out
    code, out = acwc("player", "list", "--json")
    assert {p["username"]: p["status"] for p in json.loads(out)}["Alice"] == "active"


def test_yes_applies_and_the_audit_log_keeps_the_reason(acwc) -> None:  # type: ignore[no-untyped-def]
    code, out = acwc(
        "player", "disqualify", "bob", "--reason", "engine", "--engine-mark", "--yes", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert (data["kind"], data["stage"], data["applied"]) == (
        "engine_disqualification",
        "registration",
        True,
    )
    code, out = acwc("audit", "--player", "bob", "--json")
    entries = json.loads(out)
    assert entries[-1]["action"] == "player.disqualify"
    assert entries[-1]["reason"] == "engine"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("player", "withdraw", "nobody", "--reason", "x", "--yes"), "not registered"),
        (("player", "withdraw", "alice", "--reason", " ", "--yes"), "reason is required"),
        (("player", "withdraw", "alice", "--yes"), "required: --reason"),
        (("stage", "advance"), "not complete"),
        (("stage", "armageddon", "show", "9"), "no armageddon"),
        (("stage", "round", "approve", "--round", "1"), "--round needs --stage"),
    ],
)
def test_bad_requests_get_one_clear_error(acwc, args: tuple[str, ...], words: str) -> None:  # type: ignore[no-untyped-def]
    code, out = acwc(*args)
    assert code != 0
    assert words in out
    assert "Traceback" not in out
