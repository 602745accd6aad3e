"""Rows for tests that need a stored match before pairing exists in the flow."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from rules.core.ruleset import DEFAULT_RULESET, StageKind
from rules.core.states import MatchState, RoundState
from storage.convert import fraction_to_text
from storage.db import Database
from storage.models import MatchRow, PlayerRow, RoundRow

if TYPE_CHECKING:
    from bot.config import Config
    from bot.runtime.clock import Clock
    from bot.service.services import Services

NOW = dt.datetime(2021, 10, 12, 12, 0, tzinfo=dt.UTC)


async def stored_match(
    db: Database,
    white: str = "alice",
    black: str = "bob",
    stage: StageKind = StageKind.QUALIFICATION,
) -> int:
    """A tournament (if none), two players (if absent) and a match between them; its id."""
    from bot.config import Config
    from bot.service.tournament import Tournament

    async with db.uow() as uow:
        tournament = await uow.tournaments.current()
        if tournament is None:
            tournament = await Tournament(Config()).create(uow, now=NOW, actor="test")
        stage_row = await uow.tournaments.stage(tournament.id, stage.value)
        assert stage_row is not None
        rnd = await uow.tournaments.add_round(
            RoundRow(
                stage_id=stage_row.id, number=len(await uow.tournaments.rounds(stage_row.id)) + 1
            )
        )
        for name in (white, black):
            if await uow.players.get(name) is None:
                await uow.players.add(
                    PlayerRow(id=name, username=name.title(), registered_at=NOW, seed_rating=2000)
                )
        fmt = DEFAULT_RULESET.formats.for_stage(stage)
        row = await uow.matches.add(
            MatchRow(
                round_id=rnd.id,
                stage=stage.value,
                board=1,
                white_first=white,
                black_first=black,
                games=fmt.games,
                clinch_at=fraction_to_text(fmt.clinch_at),
                tiebreak=fmt.tiebreak.value,
                max_weeks=fmt.max_weeks,
            )
        )
        await uow.commit()
        return row.id


def services_for(db: Database, config: Config, clock: Clock | None = None) -> Services:
    """The services the composition root builds, on ``db`` (no Lichess client)."""
    from bot.app import bootstrap
    from bot.runtime.clock import FakeClock

    return bootstrap(config, clock=clock or FakeClock(NOW), db=db)


async def published_match(db: Database, white: str = "alice", black: str = "bob") -> int:
    """:func:`stored_match` in a round of its own, published for the week of 2021-10-12 and
    scheduled: the games of that week belong to it."""
    match_id = await stored_match(db, white, black)
    async with db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        rnd = await uow.session.get(RoundRow, row.round_id)
        assert rnd is not None
        rnd.state = RoundState.PUBLISHED
        rnd.week_start = dt.datetime(2021, 10, 12, tzinfo=dt.UTC)
        rnd.week_end = dt.datetime(2021, 10, 18, 23, 59, tzinfo=dt.UTC)
        row.state = MatchState.SCHEDULED
        await uow.commit()
    return match_id
