"""Stored Lichess tokens go when no longer needed (issue 28): the Candidates' advance to the
semifinals plans a sweep, which deletes the tokens of the candidates who did not reach them and
keeps the semifinalists'; the advance to the final keeps all four (the losers play for third
place). Without Lichess here: nothing to revoke, the rows go at once."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.config import Config
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from rules.core.ruleset import StageKind
from storage.db import Database
from storage.models_tokens import PlayerTokenRow
from tests.stages.helpers import (
    advance,
    approve,
    candidates_done,
    config_for,
    first_wins,
    matches_of,
    play,
    services,
)


@pytest.fixture
def config(database_url: str) -> Config:
    return config_for(database_url)


async def test_the_advance_forgets_the_tokens_of_the_players_out_of_the_next_stage(
    db: Database, config: Config
) -> None:
    last = await candidates_done(db, config)
    now = dt.datetime.combine(last, dt.time(23), tzinfo=dt.UTC)
    async with db.uow() as uow:
        everyone = sorted(p.id for p in await uow.players.list())
        for pid in everyone:
            await uow.tokens.put(
                PlayerTokenRow(
                    player_id=pid, secret="sealed", scopes="challenge:write", created_at=now
                )
            )
        await uow.commit()
    report = await advance(db, config, now)
    async with db.reads() as uow:
        assert sorted(await uow.tokens.player_ids()) == everyone  # not yet: a deadline does it
    semifinalists = sorted(
        p
        for m in await matches_of(db, StageKind.SEMIFINAL)
        for p in (m.white_first, m.black_first)
        if p is not None
    )
    assert len(semifinalists) == 4
    found = services(db, config)
    await DeadlineRunner(db, FakeClock(now), found.deadline_handlers).fire_due()
    async with db.reads() as uow:
        assert sorted(await uow.tokens.player_ids()) == semifinalists
        gone = await uow.audit.list(actions=("games.withdrawn",))
    assert sorted(a.player or "" for a in gone) == sorted(set(everyone) - set(semifinalists))
    assert {a.details["why"] for a in gone} == {"stage"}

    assert report.earliest_publication is not None
    publish = dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC)
    await approve(db, config, StageKind.SEMIFINAL, publish)
    for row in await matches_of(db, StageKind.SEMIFINAL):
        await play(db, row.id, first_wins(6))
    later = publish + dt.timedelta(weeks=1, hours=8)
    await advance(db, config, later)
    await DeadlineRunner(db, FakeClock(later), found.deadline_handlers).fire_due()
    async with db.reads() as uow:
        assert sorted(await uow.tokens.player_ids()) == semifinalists
