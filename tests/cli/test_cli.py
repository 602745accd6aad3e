"""The acwc command line, run in-process against a real database file."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.launch import main

ROOT = Path(__file__).resolve().parents[2]


def test_help_lists_every_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0
    for name in ("db", "tournament", "player", "match", "result", "audit"):
        assert name in result.stdout


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("player", "add", "x", "--by", "\n1UTu)"), "--by \\n1UTu): not a TD"),
        (("player", "add", "x", "--by", "td\x06\tx"), "--by td\\x06\\tx: not a TD"),
    ],
)
def test_an_error_naming_typed_control_characters_stays_one_line(acwc, args, shown) -> None:  # type: ignore[no-untyped-def]
    assert acwc("db", "upgrade")[0] == 0
    code, out, err = acwc(*args)
    assert out == ""
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith(f"acwc: error: {shown}")


def test_a_whole_registration_flow(acwc) -> None:  # type: ignore[no-untyped-def]
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    assert acwc("player", "add", "Alice", "--rating", "2100")[0] == 0
    code, out, _ = acwc("player", "add", "PepsiNGaming", "--rating", "2400", "--by", "odmwnd")
    assert code == 0
    assert "seeded: title_holder" in out
    code, out, _ = acwc("player", "list")
    assert code == 0
    assert out.index("PepsiNGaming") < out.index("Alice")  # by rating
    code, out, _ = acwc("player", "list", "--json")
    assert [p["username"] for p in json.loads(out)] == ["PepsiNGaming", "Alice"]
    assert acwc("player", "remove", "alice", "--reason", "registered by mistake")[0] == 0
    code, out, _ = acwc("audit", "--player", "Alice", "--json")
    entries = json.loads(out)
    assert [e["action"] for e in entries] == ["player.add", "player.remove"]
    assert entries[1]["reason"] == "registered by mistake"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("bogus",), "invalid choice"),
        (("player", "add"), "required: username"),
        (("player", "add", "x", "--rating", "high"), "invalid int value"),
        (("result", "record", "1", "--game", "1", "--result", "1-0"), "required: --reason"),
        (("match", "show", "seven"), "is not a number"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(acwc, args: tuple[str, ...], words: str) -> None:  # type: ignore[no-untyped-def]
    code, _out, err = acwc(*args)
    assert code == 2
    assert words in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_commands_before_db_upgrade_say_what_to_do(acwc) -> None:  # type: ignore[no-untyped-def]
    code, _, err = acwc("player", "list")
    assert code == 1
    assert "run `acwc db upgrade`" in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("player", "add", "bad name"), "not a Lichess username"),
        (("player", "add", "alice", "--rating", "-5"), "not a Lichess rating"),
        (("player", "remove", "nobody", "--reason", "x"), "not registered"),
        (("match", "show", "99"), "no match 99"),
        (
            ("result", "record", "99", "--game", "1", "--result", "1-0", "--reason", "x"),
            "no match 99",
        ),
        (("player", "add", "alice", "--by", "mallory"), "not a TD"),
        (("audit", "--limit", "0"), "at least 1"),
        (("db", "downgrade", "nonsense"), "cannot downgrade"),
    ],
)
def test_refused_operations_change_nothing(acwc, args: tuple[str, ...], words: str) -> None:  # type: ignore[no-untyped-def]
    acwc("db", "upgrade")
    acwc("tournament", "create")
    before = acwc("audit", "--json")[1]
    code, _, err = acwc(*args)
    assert code == 1, err
    assert words in err
    assert len(err.strip().splitlines()) == 1
    assert acwc("audit", "--json")[1] == before


def test_second_tournament_is_refused(acwc) -> None:  # type: ignore[no-untyped-def]
    acwc("db", "upgrade")
    assert acwc("tournament", "create")[0] == 0
    code, _, err = acwc("tournament", "create")
    assert code == 1
    assert "already exists" in err


def test_config_errors_name_the_key(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "config.toml").write_text("[rules.offers]\nmin_gap = 3\n")
    assert main(["player", "list"]) == 2
    assert "rules.offers.min_gap" in capsys.readouterr().err


def test_explicit_config_path_that_does_not_exist(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["player", "list", "--config", "missing.toml"]) == 2
    assert "missing.toml does not exist" in capsys.readouterr().err


def test_unreachable_database_is_one_line(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "config.toml").write_text(
        '[service]\ndatabase_url = "postgresql+asyncpg://nobody@127.0.0.1:1/x"\n'
    )
    assert main(["player", "list"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


async def _match(database_url: str) -> int:
    from storage.db import Database
    from tests.factories import stored_match

    db = Database(database_url)
    try:
        return await stored_match(db)
    finally:
        await db.dispose()


def test_td_records_and_corrects_results_by_hand(acwc, database_url: str) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    acwc("db", "upgrade")
    match_id = asyncio.run(_match(database_url))
    for n in range(1, 6):
        code, out, err = acwc(
            "result",
            "record",
            str(match_id),
            "--game",
            str(n),
            "--result",
            "1-0" if n % 2 else "0-1",
            "--reason",
            "stream was down",
            "--by",
            "ODMWND",
        )
        assert code == 0, err
    code, out, _ = acwc("match", "show", str(match_id), "--json")
    data = json.loads(out)
    assert data["score"] == ["5", "0"]  # alice won every game: white in odd games, black in even
    assert data["state"] == "scheduled"
    code, out, _ = acwc(
        "result", "record", str(match_id), "--game", "6", "--result", "1/2-1/2", "--reason", "r"
    )
    assert "5.5-0.5" in out
    assert json.loads(acwc("match", "show", str(match_id), "--json")[1])["state"] == "complete"
    # a correction of game 1 reopens the match: 4.5-1.5 is no clinch
    code, out, _ = acwc(
        "result",
        "record",
        str(match_id),
        "--game",
        "1",
        "--result",
        "0-1",
        "--reason",
        "wrong winner",
    )
    assert code == 0
    data = json.loads(acwc("match", "show", str(match_id), "--json")[1])
    assert data["score"] == ["4.5", "1.5"]
    assert data["state"] == "scheduled"
    audit = json.loads(acwc("audit", "--match", str(match_id), "--json")[1])
    assert [a["action"] for a in audit][-1] == "result.correct"
    assert audit[-1]["reason"] == "wrong winner"
    assert audit[-1]["details"]["before"] == {"status": "resign", "winner": "w"}
    code, _, err = acwc(
        "result", "record", str(match_id), "--game", "9", "--result", "1-0", "--reason", "r"
    )
    assert code == 1
    assert "from 1 to 7" in err
    code, _, err = acwc(
        "result", "record", str(match_id), "--game", "7", "--result", "2-0", "--reason", "r"
    )
    assert "not one of" in err


class _ClosedPipe(io.StringIO):
    """A stdout whose reader went away after the first line (``acwc ... | head -1``)."""

    def write(self, text: str) -> int:
        if self.tell() > 0:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_a_reader_that_stops_early_is_no_error(  # type: ignore[no-untyped-def]
    acwc, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    for i, name in enumerate(("Alice", "Bob", "Carol", "Dave")):
        assert acwc("player", "add", name, "--rating", str(2000 + i))[0] == 0
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    code = main(["round", "pair", "--by", "ODMWND"])
    assert code == 0
    assert "Broken pipe" not in capsys.readouterr().err


def test_the_demo_refuses_a_field_too_small_for_its_script_up_front(acwc) -> None:  # type: ignore[no-untyped-def]
    code, out, err = acwc("demo", "--players", "10", "--seed", "3")
    assert code == 1
    assert out == ""
    assert "needs at least 11 players" in err
    assert "unexpected" not in err


def test_a_td_command_names_a_configured_td(acwc) -> None:  # type: ignore[no-untyped-def]
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    code, _, err = acwc("player", "add", "Alice", by=None)
    assert code == 1
    assert "--by USERNAME, one of ODMWND" in err
    code, _, err = acwc("player", "add", "Alice", by="Mallory")
    assert code == 1
    assert "not a TD" in err
    assert json.loads(acwc("player", "list", "--json")[1]) == []
    assert acwc("player", "add", "Alice", by="odmwnd")[0] == 0
    audit = json.loads(acwc("audit", "--player", "Alice", "--json")[1])
    assert [entry["actor"] for entry in audit] == ["odmwnd"]


def test_ids_and_usernames_are_checked_before_any_query(acwc) -> None:  # type: ignore[no-untyped-def]
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    code, _, err = acwc("match", "show", "99999999999999999999")
    assert code == 2
    assert "is not a number from 1 to 2147483647" in err
    code, _, err = acwc("match", "show", "0")
    assert code == 2
    for name in ("A", "bob-", "x" * 31):
        code, _, err = acwc("player", "add", name)
        assert code == 1
        assert "is not a Lichess username" in err
    assert acwc("player", "add", "x" * 30)[0] == 0  # an old account's name (lila: 2-30)
    assert [p["username"] for p in json.loads(acwc("player", "list", "--json")[1])] == ["x" * 30]


def test_read_only_commands_never_create_a_database(in_tmp: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    for words in (("db", "current"), ("player", "list"), ("db", "backup", "b.json")):
        assert main(list(words)) == 1
        err = capsys.readouterr().err
        assert "there is no database at acwc.db" in err
        assert not (in_tmp / "acwc.db").exists()


def test_downgrade_asks_first_and_names_unknown_revisions(acwc) -> None:  # type: ignore[no-untyped-def]
    assert acwc("db", "upgrade")[0] == 0
    assert acwc("tournament", "create")[0] == 0
    code, out, _ = acwc("db", "downgrade", "base")  # no terminal to say yes on
    assert code == 1
    assert "drops every table and row" in out
    assert "cancelled: nothing changed" in out
    assert "Lichess Antichess" in acwc("tournament", "show")[1]
    assert acwc("db", "downgrade", "base", "--yes")[0] == 0
    assert "base (empty)" in acwc("db", "current")[1]


def test_a_restore_from_an_unknown_revision_is_refused_and_leaves_nothing(  # type: ignore[no-untyped-def]
    in_tmp: Path, capsys
) -> None:
    backup = in_tmp / "future.json"
    backup.write_text(
        json.dumps({"format": "acwc-backup/1", "revision": "ffffffffffff", "tables": {}})
    )
    assert main(["db", "restore", str(backup)]) == 1
    assert "which this version does not know" in capsys.readouterr().err
    assert not (in_tmp / "acwc.db").exists()


@pytest.mark.parametrize("players", ["2", "10", "5000"])
def test_the_demo_names_the_field_it_can_take(acwc, players: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = acwc("demo", "--players", players)
    assert code == 1
    assert "give between 11 and 4096" in err
