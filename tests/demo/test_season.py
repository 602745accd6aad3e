"""A small demo season through the real service, the sandbox over HTTP and a real database.

Short matches (4 games, a setting) keep it to seconds; everything else is the 2021 rules: a
13-player field with both seeded entrants, 5 qualification rounds, two Candidates pools, the
semifinals and a final that is tied three weeks running and goes to armageddon.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

from bot.config import Config
from bot.demo.report import Reporter
from bot.demo.season import DemoOptions, SeasonResult, run_season
from rules.ruleset import Formats, MatchFormat, Ruleset, Tiebreak

PLAYERS = 13


def short_matches() -> Config:
    formats = Formats(
        qualification=MatchFormat(games=4, clinch_at=Fraction(5, 2), tiebreak=Tiebreak.NONE),
        candidates=MatchFormat(games=4, clinch_at=None, tiebreak=Tiebreak.NONE),
        semifinal=MatchFormat(games=4, clinch_at=Fraction(5, 2), tiebreak=Tiebreak.ARMAGEDDON),
        final=MatchFormat(
            games=4,
            clinch_at=Fraction(5, 2),
            tiebreak=Tiebreak.REPEAT_THEN_ARMAGEDDON,
            max_weeks=3,
        ),
        third_place=MatchFormat(
            games=4,
            clinch_at=Fraction(5, 2),
            tiebreak=Tiebreak.REPEAT_THEN_ARMAGEDDON,
            max_weeks=3,
        ),
    )
    return Config(rules=dataclasses.replace(Ruleset(), formats=formats))


async def season(seed: int, *, url: str | None = None, folder: Path | None = None) -> SeasonResult:
    options = DemoOptions(
        players=PLAYERS,
        seed=seed,
        folder=folder,
        database_url=url,
        serve_web=False,
        settle_timeout=30.0,
    )
    return await run_season(short_matches(), options, reporter=Reporter(write=None))


async def test_a_season_runs_to_a_champion_and_the_same_seed_repeats_it_on_sqlite(
    database_url: str, tmp_path: Path
) -> None:
    first = await season(7, url=database_url)
    assert first.lines[-1] == f"Champion: {first.lines[-1].split(': ', 1)[1]}"
    assert first.champion == first.placement[0]
    assert len(first.placement) == 4
    assert first.anomalies == []
    text = "\n".join(first.lines)
    assert "withdraws (rules 8.i)" in text
    assert "grant" in text  # the no-show's opponent claimed and the TDs granted it
    assert "sends a sealed `bid`" in text
    assert "sends a sealed `rps`" in text  # equal bids in the final: rock-paper-scissors
    assert "week 3" in text  # the final was repeated twice before its armageddon
    finals = [m for m in first.matches if m[1] == "final"]
    assert [m[4] for m in finals] == [1, 2, 3]
    assert finals[-1][9] == "armageddon"
    assert first.game_delays
    assert first.requests["POST /api/stream/games-by-users"] >= 1

    again = await season(7, folder=tmp_path / "again")  # SQLite, whatever ACWC_TEST_DB says
    assert again.fingerprint() == first.fingerprint()


async def test_another_seed_gives_another_season(tmp_path: Path) -> None:
    a = await season(7, folder=tmp_path / "a")
    b = await season(8, folder=tmp_path / "b")
    assert a.fingerprint() != b.fingerprint()
