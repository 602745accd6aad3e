"""Issue 28: one database, two seasons. A season is played to its champion, next year's is
made from it with `acwc season new` and confirmed, and is played in turn: its seeded entrants
are the first season's champion and runner-up (rules 3.3, 3.4), its Candidates tiebreak reads
the first season's final (3.6.6.4), and the first season's entries are kept as they were."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.config import Config, RegistrationConfig
from bot.errors import OperationError
from bot.launch import main
from bot.runtime.clock import FakeClock
from bot.service.registration import AccountRecord, Registration
from bot.service.seasons import season_config
from bot.views.candidates import pool_tables
from rules.stages.pool_standings import Criterion
from storage import migrate
from storage.db import Database
from storage.models import MatchRow
from tests.acwc_words import as_td
from tests.stages.helpers import (
    ENTRANTS,
    config_for,
    draws,
    first_wins,
    season_played,
    second_wins,
)

# The first season's final: GrohochetGrom beats PepsiNGaming (the config's title holder), so
# the next season's seeding cannot come from the config by chance.
FINAL_2021 = ["GrohochetGrom", "PepsiNGaming", "Player01", "Player02"]


def _run(url: str, fn: Callable[[Database], Awaitable[Any]]) -> Any:
    async def inner() -> Any:
        db = Database(url)
        try:
            return await fn(db)
        finally:
            await db.dispose()

    return asyncio.run(inner())


def _finalists_level(row: MatchRow) -> list[str]:
    """A Candidates match of 2022: a 2021 finalist beats anyone else 10-0, every other match
    is drawn, so each pool's two finalists end level on every count before the previous final
    (rules 3.6.6.1-3) and only it can part them."""
    finalists = {name.lower() for name in FINAL_2021}
    white, black = row.white_first in finalists, row.black_first in finalists
    if white == black:
        return draws(10)
    return first_wins(10) if white else second_wins(10)


async def _season_2022(db: Database, config: Config) -> dict[str, Any]:
    """The 2022 season played on its own rules; what the test checks of it."""
    rules = await season_config(db, config)
    await season_played(db, rules, candidates=_finalists_level)
    async with db.reads() as uow:
        seeded = {p.id: p.seeded_as for p in await uow.players.list() if p.seeded_as}
        tables = await pool_tables(uow, rules)
        seasons = {s.year: s for s in await uow.seasons.all()}
        entries_2021 = await uow.seasons.entries(seasons[2021].id)
    return {
        "rules": rules.rules,
        "seeded": seeded,
        "pools": {pool: rows for pool, (_, rows, _) in tables.items()},
        "entries_2021": {e.player_id: e.seeded_as for e in entries_2021},
    }


OPENS_2021 = dt.datetime(2021, 9, 1, tzinfo=dt.UTC)  # a Wednesday
CLOSES_2021 = dt.datetime(2021, 10, 10, 23, 59, tzinfo=dt.UTC)  # two days before round 1


class _NoLichess:
    """An account source a registration settled without Lichess never asks."""

    async def account(self, username: str, on_game: Any = None) -> AccountRecord | str:
        raise AssertionError("Lichess was asked to settle a registration")

    async def team_members(self, team: str) -> set[str] | str:
        raise AssertionError("Lichess was asked to settle a registration")

    async def token(self) -> tuple[str | None, frozenset[str]] | str:
        raise AssertionError("Lichess was asked to settle a registration")

    async def team_leaders(self, team: str) -> set[str]:
        raise AssertionError("Lichess was asked to settle a registration")

    async def in_team(self, username: str, team: str) -> bool | str:
        raise AssertionError("Lichess was asked to settle a registration")


async def _registering_2022(db: Database) -> list[str]:
    """A new player registering in 2022 at 2021's window, at 2022's, and after 2022's closed:
    the open season's window is the one read (the config's is still 2021's)."""
    config = dataclasses.replace(
        config_for(db.url),
        registration=RegistrationConfig(opens=OPENS_2021, closes=CLOSES_2021),
    )
    registration = Registration(config, db, _NoLichess())
    found = []
    for when in (
        OPENS_2021 + dt.timedelta(days=1),
        dt.datetime(2022, 9, 1, tzinfo=dt.UTC),
        dt.datetime(2022, 10, 10, tzinfo=dt.UTC),
    ):
        try:
            settled = await registration.settled("NewcomerOf2022", now=when)
        except OperationError:
            found.append("closed")
        else:
            found.append("to check" if settled is None else "settled")
    return found


@pytest.mark.timeout(300)  # a hang guard: two seasons in storage take some seconds
def test_next_season_is_made_from_this_one_and_played(
    database_url: str, in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = database_url
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND", "Shiaxou"]\n[service]\ndatabase_url = "{url}"\n'
        f"[registration]\nopens = {OPENS_2021.isoformat()}\ncloses = {CLOSES_2021.isoformat()}\n"
    )
    config = config_for(url)

    async def first(db: Database) -> dt.datetime:
        await migrate.upgrade(db)
        return await season_played(db, config, final=second_wins(7))

    clock = FakeClock(_run(url, first) + dt.timedelta(weeks=2))

    def acwc(*args: str, code: int = 0) -> str:
        got = main(as_td(args, "ODMWND"), clock=clock)
        out, err = capsys.readouterr()
        assert got == code, f"acwc {' '.join(args)} -> {got}: {out}{err}"
        return out + err

    # what the command line reads of 2021 while it is in play, to read again once archived
    reads_2021 = {
        what: acwc(*what)
        for what in (
            ("trf", "export"),
            ("standings", "--json"),
            ("stage", "standings", "candidates", "--json"),
            ("stage", "show", "knockout", "--json"),
        )
    }
    assert "confirm it or discard it" not in acwc("season", "new")
    assert "drafted already" in acwc("season", "new", code=1)
    draft = {s["year"]: s for s in json.loads(acwc("season", "show", "--json"))}[2022]
    assert draft["state"] == "draft"
    assert (draft["title_holder"], draft["runner_up"]) == ("GrohochetGrom", "PepsiNGaming")
    assert draft["rules"]["calendar"]["first_publication"] == "2022-10-11"  # a Tuesday
    assert draft["rules"]["seeding"]["previous_final_order"] == FINAL_2021
    # the registration window moves with the first pairings: 364 days, Wednesday to Sunday
    assert draft["registration"] == [
        "2022-08-31T00:00:00+00:00",
        "2022-10-09T23:59:00+00:00",
    ]
    acwc("season", "confirm")
    assert _run(url, _registering_2022) == ["closed", "to check", "closed"]

    got = _run(url, lambda db: _season_2022(db, config))
    shown = {s["year"]: s for s in json.loads(acwc("season", "show", "--json"))}
    assert (shown[2021]["state"], shown[2022]["state"]) == ("archived", "open")
    assert shown[2021]["final"] == FINAL_2021
    for what, before in reads_2021.items():
        assert acwc(*what, "--season", "2021") == before, what
        assert acwc(*what) == acwc(*what, "--season", "2022"), what
    # the qualification is played alike in both years; the later stages are seeded otherwise
    for what in list(reads_2021)[2:]:
        assert acwc(*what) != reads_2021[what], what
    assert "there is no 1999 season (the seasons: 2021, 2022)" in acwc(
        "trf", "export", "--season", "1999", code=1
    )

    seeding = got["rules"].seeding
    assert (seeding.title_holder, seeding.runner_up) == ("GrohochetGrom", "PepsiNGaming")
    assert got["seeded"] == {"grohochetgrom": "title_holder", "pepsingaming": "runner_up"}
    # the 2021 entries as they were in 2021, though the same people entered 2022
    assert len(got["entries_2021"]) == 2 + len(ENTRANTS)
    assert {k: v for k, v in got["entries_2021"].items() if v} == {
        "pepsingaming": "title_holder",
        "grohochetgrom": "runner_up",
    }
    # the Candidates tiebreak of 2022 reads the 2021 final (rules 3.6.6.4)
    place = {name.lower(): i for i, name in enumerate(FINAL_2021, start=1)}
    by_final = 0
    for rows in got["pools"].values():
        placed = [r for r in rows if r.previous_final_place is not None]
        assert [r.previous_final_place for r in placed] == sorted(place[r.player] for r in placed)
        for row in placed:
            assert row.previous_final_place == place[row.player]
        by_final += sum(r.separated_by is Criterion.PREVIOUS_FINAL for r in rows)
    assert by_final == 2  # in each pool, its two finalists
