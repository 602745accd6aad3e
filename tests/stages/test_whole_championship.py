"""A whole championship, registration to champion, through the CLI on SQLite and PostgreSQL.

The qualification is paired by ``acwc round pair`` (the Dutch engine) and published by
``acwc round approve``. Most games are entered with ``services.results.record`` (the operation
behind ``acwc result record``) to keep the test fast; one match per stage goes through the CLI
command itself. Every stage transition, publication, armageddon step and standings view is a CLI
command.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.launch import main
from bot.runtime.clock import FakeClock
from rules.core.ruleset import StageKind
from storage.db import Database
from storage.models import MatchRow
from tests.acwc_words import as_td
from tests.stages.helpers import (
    ENTRANTS,
    SEEDED,
    draws,
    first_wins,
    matches_of,
    play,
    tuesday,
)


def run(url: str, fn: Callable[[Database], Awaitable[Any]]) -> Any:
    async def inner() -> Any:
        db = Database(url)
        try:
            return await fn(db)
        finally:
            await db.dispose()

    return asyncio.run(inner())


# A hang guard, not a timing check: on PostgreSQL beside a CPU hog it outlasts the default 120 s.
@pytest.mark.timeout(600)
def test_a_whole_championship_runs_to_a_champion(
    any_database_url: str,
    in_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = any_database_url
    (in_tmp / "config.toml").write_text(
        f'[tournament]\ntds = ["ODMWND", "Shiaxou"]\n[service]\ndatabase_url = "{url}"\n'
    )
    clock = FakeClock(tuesday(0))

    def acwc(*args: str, code: int = 0) -> str:
        got = main(as_td(args, "ODMWND"), clock=clock)
        out, err = capsys.readouterr()
        assert got == code, f"acwc {' '.join(args)} -> {got}: {out}{err}"
        return out + err

    def acwc_json(*args: str) -> Any:
        return json.loads(acwc(*args, "--json"))

    def matches(stage: StageKind) -> list[MatchRow]:
        rows: list[MatchRow] = run(url, lambda db: matches_of(db, stage))
        return rows

    def games(match_id: int, results: list[str]) -> None:
        run(url, lambda db: play(db, match_id, results))

    def cli_games(match_id: int, results: list[str]) -> None:
        for number, result in enumerate(results, start=1):
            acwc(
                "result",
                "record",
                str(match_id),
                "--game",
                str(number),
                "--result",
                result,
                "--reason",
                "posted in the forum",
            )

    acwc("db", "upgrade")
    acwc("tournament", "create")
    for i, name in enumerate((*SEEDED, *ENTRANTS)):
        acwc("player", "add", name, "--rating", str(2600 - 50 * i))

    # Qualification: 10 entrants, 5 rounds (rules 3.v.2); White in game 1 always wins.
    for number in range(1, 6):
        clock.set(tuesday(number - 1))
        assert acwc_json("round", "pair")["round"] == number
        acwc("round", "approve")
        ids = [m.id for m in matches(StageKind.QUALIFICATION) if m.state == "scheduled"]
        if number == 1:
            cli_games(ids[0], first_wins())
            ids = ids[1:]
        for match_id in ids:
            games(match_id, first_wins())
        if number == 4:
            out = acwc("stage", "advance", code=1)
            assert "Round 5 is not paired yet" in out
    clock.set(tuesday(4) + dt.timedelta(days=6))
    assert "complete" in acwc("stage", "status")

    # Candidates: the two seeded entrants start in the upper and lower pools (rules 3.vi.1-2).
    out = acwc("stage", "advance")
    assert "candidates started" in out
    earliest = dt.date(2021, 11, 23)  # round 5 published 9 Nov, its week, a week's break
    assert f"{earliest:%Y-%m-%d}" in out
    pools = acwc_json("stage", "show", "candidates")
    assert [len(p["players"]) for p in pools] == [6, 6]
    assert pools[0]["players"][0]["player"] == "pepsingaming"
    assert pools[1]["players"][0]["player"] == "grohochetgrom"
    out = acwc("stage", "round", "approve", code=1)
    assert "cannot be published before Tue 2021-11-23" in out
    for number in range(1, 6):
        day = earliest + dt.timedelta(weeks=number - 1)
        clock.set(dt.datetime.combine(day, dt.time(8), tzinfo=dt.UTC))
        assert f"published candidates round {number}" in acwc("stage", "round", "approve")
        rows = [m for m in matches(StageKind.CANDIDATES) if m.state == "scheduled"]
        assert len(rows) == 6
        if number == 1:
            cli_games(rows[0].id, first_wins(6) + draws(4))
            rows = rows[1:]
        for row in rows:
            games(row.id, first_wins(6) + draws(4))
    table = acwc("stage", "standings", "candidates")
    assert "crosstable" not in table  # plain text: the standings and the crosstable of each pool
    standing = acwc_json("standings", "--stage", "candidates")
    upper_order = [r["player"] for r in standing[0]["standings"]]
    lower_order = [r["player"] for r in standing[1]["standings"]]
    assert standing[0]["crosstable"]["rows"][0]["scores"][0] == "x"

    # Semifinals: 1st upper v 2nd lower and 1st lower v 2nd upper (rules 3.vi.5).
    clock.advance(dt.timedelta(days=6))
    out = acwc("stage", "advance")
    assert "semifinal started" in out
    bracket = acwc_json("stage", "show", "knockout")
    sf1, sf2 = bracket["matches"]
    assert (sf1["white_first"], sf1["black_first"]) == (upper_order[0], lower_order[1])
    assert (sf2["white_first"], sf2["black_first"]) == (lower_order[0], upper_order[1])
    clock.advance(dt.timedelta(weeks=1))
    acwc("stage", "round", "approve")
    sf_rows = matches(StageKind.SEMIFINAL)
    cli_games(sf_rows[0].id, draws(10))  # level after 10: armageddon (rules 3.vii.2)
    games(sf_rows[1].id, first_wins(6))
    out = acwc("stage", "advance", code=1)
    assert "needs its armageddon game" in out
    arm = acwc_json("stage", "armageddon", "show", str(sf_rows[0].id))
    assert arm["phase"] == "bidding"
    a, b = sf_rows[0].white_first, sf_rows[0].black_first
    assert b is not None
    out = acwc("stage", "armageddon", "relay", str(sf_rows[0].id), "--player", a, "bid", "1:30")
    assert "sealed" in out
    out = acwc("stage", "armageddon", "relay", str(sf_rows[0].id), "--player", b, "bid", "2:00")
    assert f"{a} plays White with 1:30" in out
    acwc(
        "stage",
        "armageddon",
        "record",
        str(sf_rows[0].id),
        "--result",
        "1/2-1/2",
        "--reason",
        "played on Lichess, posted in the forum",
    )
    arm = acwc_json("stage", "armageddon", "show", str(sf_rows[0].id))
    assert arm["winner"] == b  # a draw is a win for Black (rules 3.ix.1.1)
    assert "white_time_unverifiable" in [f["kind"] for f in arm["findings"]]

    # Final and third place: 12 games, repeated twice when level, then armageddon (3.viii).
    clock.advance(dt.timedelta(days=6))
    out = acwc("stage", "advance")
    assert "final started" in out
    clock.advance(dt.timedelta(days=1))
    out = acwc("stage", "round", "approve")
    assert "published final round 1" in out
    assert "published third_place round 1" in out
    for week in (1, 2, 3):
        final = [m for m in matches(StageKind.FINAL) if m.week == week]
        assert len(final) == 1
        games(final[0].id, draws(12))
        out = acwc("stage", "sync")
        assert ("armageddon" if week == 3 else f"week {week + 1}") in out
    last = final[0]
    assert last.black_first is not None
    acwc("stage", "armageddon", "relay", str(last.id), "--player", last.white_first, "bid", "1:00")
    out = acwc(
        "stage", "armageddon", "relay", str(last.id), "--player", last.black_first, "bid", "1:00"
    )
    assert "rock-paper-scissors" in out
    acwc("stage", "armageddon", "relay", str(last.id), "--player", last.white_first, "rps", "rock")
    out = acwc(
        "stage",
        "armageddon",
        "relay",
        str(last.id),
        "--player",
        last.black_first,
        "rps",
        "scissors",
    )
    assert f"{last.white_first} plays White with 1:00" in out
    acwc("stage", "armageddon", "record", str(last.id), "--result", "1-0", "--reason", "forum")
    third = matches(StageKind.THIRD_PLACE)[0]
    games(third.id, first_wins(7))

    out = acwc("stage", "advance")
    assert "final complete" in out
    result = acwc_json("standings", "--stage", "knockout")
    assert result["placement"][0] == last.white_first  # won the armageddon with White
    assert result["placement"][1] == last.black_first
    assert result["placement"][2] == third.white_first
    assert "championship is over" in acwc("stage", "advance", code=1)
