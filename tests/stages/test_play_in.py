"""A season with the play-in round on (rules.stages.play_in_matches), from the qualification
to a champion, through the service's stage progression in storage."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest

from bot.config import Config
from bot.service.stages.registry import AdvanceReport
from bot.views.qualification import standings
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from storage.db import Database
from tests.stages.helpers import (
    config_for,
    draws,
    first_wins,
    matches_of,
    pair_qualification,
    play,
    register,
    second_wins,
    services,
    tuesday,
)

ENTRANTS = tuple(f"Player{i:02d}" for i in range(1, 15))  # 14: two play-in matches and more


@pytest.fixture
def config(database_url: str) -> Config:
    plain = config_for(database_url)
    stages = dataclasses.replace(plain.rules.stages, play_in_matches=2)
    return dataclasses.replace(plain, rules=dataclasses.replace(plain.rules, stages=stages))


async def _advance(db: Database, config: Config, now: dt.datetime) -> AdvanceReport:
    async with db.uow() as uow:
        report = await services(db, config).progression.advance(
            uow, now=now, actor="odmwnd", rng=random.Random(1)
        )
        await uow.commit()
    return report


async def _publish_and_play(
    db: Database, config: Config, stage: StageKind, day: dt.date, results: list[str]
) -> None:
    async with db.uow() as uow:
        await services(db, config).stage_rounds.approve_round(
            uow, stage=stage, now=dt.datetime.combine(day, dt.time(1), tzinfo=dt.UTC), actor="t"
        )
        await uow.commit()
    for row in await matches_of(db, stage):
        if row.state == "scheduled":
            await play(db, row.id, results)


async def test_a_season_with_the_play_in_reaches_a_champion(db: Database, config: Config) -> None:
    await register(db, config, entrants=ENTRANTS)
    for number in range(1, 6):
        for match_id in await pair_qualification(db, config, number):
            await play(db, match_id, first_wins())
    async with db.uow() as uow:
        table = await standings(uow, config.rules)
    place = [row.player for row in table.rows]

    report = await _advance(db, config, tuesday(5))
    assert (report.left, report.entered) == (StageKind.QUALIFICATION, StageKind.PLAY_IN)
    assert report.earliest_publication is not None
    play_in = sorted(await matches_of(db, StageKind.PLAY_IN), key=lambda r: r.board)
    assert [(r.white_first, r.black_first) for r in play_in] == [
        (place[8], place[11]),
        (place[9], place[10]),
    ]
    async with db.uow() as uow:  # nothing is missing but the play-in's own matches
        missing = await services(db, config).progression.progress(uow, StageKind.PLAY_IN)
    assert len(missing.missing) == 2
    await _publish_and_play(db, config, StageKind.PLAY_IN, report.earliest_publication, [])
    await play(db, play_in[0].id, second_wins(6))  # 12th beats 9th
    await play(db, play_in[1].id, draws(10))  # a tie: 10th, the better placed, goes on

    report = await _advance(db, config, tuesday(7))
    assert (report.left, report.entered) == (StageKind.PLAY_IN, StageKind.CANDIDATES)
    assert report.earliest_publication is not None
    async with db.uow() as uow:
        stage = await uow.tournaments.stage(1, StageKind.CANDIDATES.value)
        assert stage is not None
        candidates = {e.player_id for e in await uow.stages.entrants(stage.id)}
    assert {place[11], place[9]} <= candidates
    assert not {place[8], place[10]} & candidates
    assert set(place[:8]) <= candidates

    for week in range(5):
        day = report.earliest_publication + dt.timedelta(weeks=week)
        await _publish_and_play(db, config, StageKind.CANDIDATES, day, first_wins(6) + draws(4))
    last = report.earliest_publication + dt.timedelta(weeks=4)
    report = await _advance(db, config, dt.datetime.combine(last, dt.time(23), tzinfo=dt.UTC))
    assert report.entered is StageKind.SEMIFINAL
    assert report.earliest_publication is not None
    semifinal_day = report.earliest_publication
    await _publish_and_play(db, config, StageKind.SEMIFINAL, semifinal_day, first_wins(6))

    final_day = semifinal_day + dt.timedelta(weeks=1)
    at = dt.datetime.combine(final_day, dt.time(9), tzinfo=dt.UTC)
    report = await _advance(db, config, at)
    assert report.entered is StageKind.FINAL
    for stage_kind in (StageKind.FINAL, StageKind.THIRD_PLACE):
        for row in await matches_of(db, stage_kind):
            await play(db, row.id, first_wins(7))

    report = await _advance(db, config, at + dt.timedelta(days=6))
    assert (report.left, report.entered) == (StageKind.FINAL, None)
    final = (await matches_of(db, StageKind.FINAL))[0]
    assert report.placement[0] == PlayerId(str(final.white_first))


async def test_a_disqualification_in_the_play_in_settles_its_open_match(
    db: Database, config: Config
) -> None:
    """Rules 8.1.1 through the play-in's format: the leaver's unfinished match goes to the
    opponent, who takes the better of the two places into the Candidates."""
    await register(db, config, entrants=ENTRANTS)
    for number in range(1, 6):
        for match_id in await pair_qualification(db, config, number):
            await play(db, match_id, first_wins())
    report = await _advance(db, config, tuesday(5))
    assert report.entered is StageKind.PLAY_IN
    assert report.earliest_publication is not None
    await _publish_and_play(db, config, StageKind.PLAY_IN, report.earliest_publication, [])
    first, second = sorted(await matches_of(db, StageKind.PLAY_IN), key=lambda r: r.board)
    leaver, opponent = str(first.white_first), str(first.black_first)
    await play(db, first.id, first_wins(2))  # two games in, the match unfinished
    at = tuesday(6)
    async with db.uow() as uow:
        preview = await services(db, config).exits.exit_player(
            uow,
            player=leaver,
            kind="disqualification",
            reason="rules 6.5",
            engine_mark=False,
            now=at,
            actor="odmwnd",
        )
        await uow.commit()
    assert preview.stage == StageKind.PLAY_IN.value
    assert any(f"match {first.id} goes to {opponent}" in c for c in preview.changes)
    settled = next(r for r in await matches_of(db, StageKind.PLAY_IN) if r.id == first.id)
    assert (settled.state, settled.decided_by) == ("complete", "forfeit")
    assert settled.outcome == "second_wins"
    async with db.uow() as uow:
        told = [r.body for r in await uow.outbox.list(kind="dm") if r.player == opponent]
    awarded = f"Your Play-in match {first.id} is awarded to you: {leaver.title()} left"
    assert any(body.startswith(awarded) for body in told)

    await play(db, second.id, first_wins(6))
    report = await _advance(db, config, tuesday(7))
    assert (report.left, report.entered) == (StageKind.PLAY_IN, StageKind.CANDIDATES)
    async with db.uow() as uow:
        stage = await uow.tournaments.stage(1, StageKind.CANDIDATES.value)
        assert stage is not None
        candidates = {e.player_id for e in await uow.stages.entrants(stage.id)}
    assert opponent in candidates
    assert leaver not in candidates
