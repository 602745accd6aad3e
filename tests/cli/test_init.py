"""`acwc init` (issue 30): a season's config from flags or answers, checked before writing."""

from __future__ import annotations

import argparse
import datetime as dt
import shlex
import subprocess
import sys
import uuid
from pathlib import Path

import asyncpg
import pytest

from bot.cli.init_cmd import gather, second_tuesday_of_october
from bot.config import load_config
from bot.launch import main
from tests.conftest import PG_ADMIN

REAL = ("--tds", "ODMWND,Shiaxou", "--team", "acwc-team", "--year", "2027")


def test_round_one_defaults_to_the_second_tuesday_of_october() -> None:
    assert second_tuesday_of_october(2021) == dt.date(2021, 10, 12)  # 2021's first round
    for year in range(2022, 2040):
        day = second_tuesday_of_october(year)
        assert day.weekday() == 1
        assert 8 <= day.day <= 14


def test_a_real_season_config_loads_with_the_seasons_dates(in_tmp: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["init", "--yes", *REAL, "--database-url", "sqlite+aiosqlite:///season.db"])
    out = capsys.readouterr().out
    assert code == 0, out
    config = load_config(in_tmp / "config.toml", {})
    assert config.tournament.tds == ("ODMWND", "Shiaxou")
    assert config.tournament.team == "acwc-team"
    assert config.rules.calendar.first_publication == dt.date(2027, 10, 12)
    assert config.registration.closes == dt.datetime(2027, 10, 10, 23, 59, tzinfo=dt.UTC)
    assert config.rules.eligibility.games_before == dt.datetime(2027, 9, 1, tzinfo=dt.UTC)
    assert config.rules.seeding.title_holder is None  # never 2021's champion by default
    assert "scopes%5B%5D=msg%3Awrite" in out  # the token page with its scopes ticked
    assert "`acwc db upgrade`" in out
    assert "`acwc doctor`" in out


def test_a_real_season_is_told_to_set_the_players_token_key_and_how(  # type: ignore[no-untyped-def]
    in_tmp: Path, capsys
) -> None:
    """On lichess.org with bulk pairing (the default) `acwc doctor` wants ACWC_TOKEN_KEY: the
    steps name it, and the command they give makes a key the config accepts."""
    assert main(["init", "--yes", *REAL, "--database-url", "sqlite+aiosqlite:///s.db"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "ACWC_TOKEN_KEY" in x)
    command = shlex.split(line.split("`")[1])
    assert command[0] == "python3"
    key = subprocess.run(
        [sys.executable, *command[1:]], capture_output=True, text=True, check=True
    ).stdout.strip()
    config = load_config(in_tmp / "config.toml", {"ACWC_TOKEN_KEY": key})
    assert config.secrets.token_key == key
    Path("config.toml").unlink()
    assert main(["init", "--yes", "--lichess-url", "sandbox", "--tds", "ODMWND"]) == 0
    assert "ACWC_TOKEN_KEY" not in capsys.readouterr().out  # the sandbox makes its own


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--tds", "ODMWND", "--year", "2027"), "needs the team"),
        (("--team", "t", "--year", "2027"), "TDs' Lichess usernames"),
        ((*REAL, "--first-round", "2027-10-13"), "on a Tuesday"),
        ((*REAL, "--tds", "x"), "not a Lichess username"),
    ],
)
def test_a_config_the_service_would_refuse_is_not_written(  # type: ignore[no-untyped-def]
    in_tmp: Path, capsys, flags: tuple[str, ...], words: str
) -> None:
    assert main(["init", "--yes", *flags]) == 1
    assert words in capsys.readouterr().err
    assert not (in_tmp / "config.toml").exists()


def test_an_existing_config_is_kept_unless_forced(in_tmp: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (in_tmp / "config.toml").write_text("# mine\n")
    assert main(["init", "--yes", "--lichess-url", "sandbox"]) == 1
    assert "exists" in capsys.readouterr().err
    assert (in_tmp / "config.toml").read_text() == "# mine\n"
    assert main(["init", "--yes", "--lichess-url", "sandbox", "--force"]) == 0
    assert load_config(in_tmp / "config.toml", {}).service.uses_sandbox


def test_questions_are_asked_for_what_no_flag_gave() -> None:
    asked: list[str] = []
    answers = {"Season (year)": "2030", "Lichess Antichess": None}

    def ask(question: str, default: str | None) -> str | None:
        asked.append(question)
        return answers.get(question, default) or default

    args = argparse.Namespace(
        year=None,
        first_round=None,
        tds="Alice",
        team="t",
        lichess_url=None,
        bot_account=None,
        database_url=None,
        public_url=None,
        title_holder="Bob",
        runner_up=None,
    )
    got = gather(args, ask, dt.date(2026, 1, 1))
    assert got.year == 2030
    assert got.first_round == dt.date(2030, 10, 8)
    assert got.tds == ("Alice",)
    assert got.title_holder == "Bob"
    assert "Season (year)" in asked
    assert not any("TDs" in q for q in asked)


async def _exists(admin: str, name: str) -> bool:
    conn = await asyncpg.connect(admin)
    try:
        return bool(await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
    finally:
        await conn.close()


def test_the_postgresql_database_is_created_when_it_can_be(  # type: ignore[no-untyped-def]
    in_tmp: Path, capsys, pg_url: str
) -> None:
    import asyncio

    name = f"acwc_init_{uuid.uuid4().hex[:8]}"
    url = pg_url.rsplit("/", 1)[0]  # the server the fixture found up (or skipped without)
    pg_admin_url = PG_ADMIN
    try:
        assert main(["init", "--yes", *REAL, "--database-url", f"{url}/{name}"]) == 0
        assert f"created the database {name}" in capsys.readouterr().out
        assert asyncio.run(_exists(pg_admin_url, name))
        assert main(["init", "--yes", *REAL, "--database-url", f"{url}/{name}", "--force"]) == 0
        assert f"the database {name} exists" in capsys.readouterr().out
    finally:

        async def drop() -> None:
            conn = await asyncpg.connect(pg_admin_url)
            try:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            finally:
                await conn.close()

        asyncio.run(drop())
