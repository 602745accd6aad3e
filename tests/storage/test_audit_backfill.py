"""Migration 0034: the audit entries of a database that held several seasons before 0033 are
named by the season open when they were written.

The seasons are made and confirmed by this version's own service (``Seasons.confirm``), and
entries written in each (while a draft waits too), so every entry is first named by the INSERT
itself: that naming is what the backfill must find again. The database is then taken back to
0032, the schema before entries named a season; upgrading runs 0033 (which leaves them all
unnamed: several seasons) and 0034.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import text

from bot.service.seasons import Seasons
from rules.core.ruleset import StageKind
from storage import migrate
from storage.db import Database
from storage.models import SeasonState, TournamentRow
from tests.stages.helpers import config_for

BEFORE = "0032"  # the schema before audit entries named their season


def _season(year: int, state: SeasonState) -> TournamentRow:
    return TournamentRow(
        name="ACWC",
        created_at=dt.datetime(year, 8, 1, tzinfo=dt.UTC),
        current_stage=StageKind.QUALIFICATION,
        year=year,
        state=state,
    )


async def _note(db: Database, action: str, at: dt.datetime) -> None:
    async with db.uow() as uow:
        await uow.audit.record(at=at, actor="ODMWND", action=action, details={})
        await uow.commit()


async def _three_seasons(db: Database) -> dict[int, int]:
    """2021 (the first, never confirmed), 2022 and 2023 confirmed after it, 2024 a draft; a few
    entries in each. The seasons' ids by year."""
    config = config_for(db.url)
    seasons = Seasons(config)
    async with db.uow() as uow:
        first = await uow.tournaments.add(_season(2021, SeasonState.OPEN))
        await uow.commit()
    ids = {2021: first.id}
    await _note(db, "in 2021", dt.datetime(2021, 9, 1, tzinfo=dt.UTC))
    for year in (2022, 2023, 2024):
        async with db.uow() as uow:
            draft = await uow.tournaments.add(_season(year, SeasonState.DRAFT))
            await uow.commit()
        ids[year] = draft.id
        await _note(db, f"drafted {year}", dt.datetime(year - 1, 10, 1, tzinfo=dt.UTC))
        if year == 2024:
            break  # left a draft: never open
        async with db.uow() as uow:
            await seasons.confirm(uow, now=dt.datetime(year, 8, 1, tzinfo=dt.UTC), actor="ODMWND")
            await uow.commit()
        await _note(db, f"in {year}", dt.datetime(year, 9, 1, tzinfo=dt.UTC))
    return ids


Log = list[tuple[str, int | None]]


async def _log(db: Database) -> Log:
    """Each entry's action and season, in the order written."""
    async with db.engine.connect() as connection:
        rows = await connection.execute(
            text("SELECT action, tournament_id FROM audit_log ORDER BY id")
        )
        return [(row.action, row.tournament_id) for row in rows]


async def _backfilled(url: str, change: str = "") -> tuple[dict[int, int], Log, Log]:
    """The seasons' ids, the log as written, and as named again after going back to 0032 (and
    ``change``, a statement with the seasons' ids by year as ``:y2021``...) and up to the head."""
    db = Database(url)
    try:
        await migrate.upgrade(db)
        ids = await _three_seasons(db)
        written = await _log(db)  # as this version's INSERT named them
        await migrate.downgrade(db, BEFORE)
        await migrate.upgrade(db, "0033")
        assert {s for _, s in await _log(db)} == {None}  # several seasons: 0033 named none
        if change:
            async with db.engine.begin() as connection:
                await connection.execute(text(change), {f"y{y}": i for y, i in ids.items()})
        await migrate.upgrade(db)
        return ids, written, await _log(db)
    finally:
        await db.dispose()


async def test_the_entries_of_several_seasons_are_named_by_the_season_open_when_written(
    any_database_url: str,
) -> None:
    ids, written, after = await _backfilled(any_database_url)
    assert written == [
        ("in 2021", ids[2021]),
        ("drafted 2022", ids[2021]),
        ("season.confirm", ids[2022]),  # in the confirming transaction: the new season's
        ("in 2022", ids[2022]),
        ("drafted 2023", ids[2022]),
        ("season.confirm", ids[2023]),
        ("in 2023", ids[2023]),
        ("drafted 2024", ids[2023]),
    ]
    assert after == written


async def test_without_the_confirmations_entries_the_confirmation_times_tell(
    database_url: str,
) -> None:
    ids, written, after = await _backfilled(
        database_url, "DELETE FROM audit_log WHERE action = 'season.confirm'"
    )
    assert after == [e for e in written if e[0] != "season.confirm"]
    assert ids[2024] not in {s for _, s in after}  # a draft names nothing


async def test_entries_before_the_first_confirmation_stay_unnamed_when_no_first_season_is_known(
    database_url: str,
) -> None:
    # two seasons never confirmed (the draft taken for an archived one): which was first?
    ids, _, after = await _backfilled(
        database_url, "UPDATE tournaments SET state = 'archived' WHERE id = :y2024"
    )
    names = dict(after)
    assert (names["in 2021"], names["drafted 2022"]) == (None, None)
    assert (names["in 2022"], names["in 2023"]) == (ids[2022], ids[2023])
