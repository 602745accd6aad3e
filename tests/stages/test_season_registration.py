"""Issue 28: a season's registration is its own. A player's eligibility check names the season
it was asked in: once next year's season is confirmed, its pages and its check queue no longer
show or run last year's checks (kept, named as last year's), and a player asks again in the
new season's own window."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.config import RegistrationConfig
from bot.errors import OperationError
from bot.runtime.clock import FakeClock
from bot.service.registration import AccountRecord, Registration
from bot.service.registration_queue import CHECK_PREFIX, CheckState, RegistrationChecks, check_of
from bot.service.seasons import Seasons
from rules.core.ruleset import StageKind
from storage.db import Database
from storage.models import SeasonState, TournamentRow
from tests.stages.helpers import config_for

OPENS_2021 = dt.datetime(2021, 9, 1, tzinfo=dt.UTC)
IN_2021 = dt.datetime(2021, 9, 10, tzinfo=dt.UTC)
IN_2022 = dt.datetime(2022, 9, 10, tzinfo=dt.UTC)


class _NoLichess:
    """An account source nothing here asks: a check is only queued, never run."""

    async def account(self, username: str, on_game: Any = None) -> AccountRecord | str:
        raise AssertionError("Lichess was asked")

    async def team_members(self, team: str) -> set[str] | str:
        raise AssertionError("Lichess was asked")

    async def token(self) -> tuple[str | None, frozenset[str]] | str:
        raise AssertionError("Lichess was asked")

    async def team_leaders(self, team: str) -> set[str]:
        raise AssertionError("Lichess was asked")

    async def in_team(self, username: str, team: str) -> bool | str:
        raise AssertionError("Lichess was asked")


def _season(year: int, state: SeasonState, opens: dt.datetime) -> TournamentRow:
    return TournamentRow(
        name="ACWC",
        created_at=opens,
        current_stage=StageKind.QUALIFICATION,
        year=year,
        state=state,
        registration_opens=opens,
        registration_closes=opens + dt.timedelta(days=39),
    )


async def test_last_season_s_checks_are_not_this_season_s(db: Database) -> None:
    config = config_for(db.url)
    registration = Registration(config, db, _NoLichess())
    checks = RegistrationChecks(db, FakeClock(IN_2021), registration)
    async with db.uow() as uow:
        first = await uow.tournaments.add(_season(2021, SeasonState.OPEN, OPENS_2021))
        await uow.commit()
    async with db.uow() as uow:
        asked = await checks.request(uow, "Alice", now=IN_2021)
        await uow.audit.record(
            at=IN_2021, actor="ODMWND", action="registration.refuse", player="carol", details={}
        )
        # a check the version before seasons wrote: it names no season
        await uow.settings.set(
            CHECK_PREFIX + "bob", CheckState("Bob", "done", IN_2021, registered=False).text()
        )
        await uow.commit()
    assert isinstance(asked, CheckState)
    assert asked.season == first.id
    async with db.reads() as uow:
        assert await check_of(uow, "Bob") is not None  # the open season's until one follows
    assert isinstance(await checks.next_due(), CheckState)

    async with db.uow() as uow:
        await uow.tournaments.add(
            _season(2022, SeasonState.DRAFT, dt.datetime(2022, 8, 31, tzinfo=dt.UTC))
        )
        await Seasons(config).confirm(uow, now=IN_2022, actor="ODMWND")
        await uow.commit()

    async with db.reads() as uow:
        assert await check_of(uow, "Alice") is None
        assert await check_of(uow, "Bob") is None
        kept = await uow.settings.with_prefix(CHECK_PREFIX)
    assert {CheckState.read(t).season for t in kept.values()} == {first.id}  # kept, named
    assert await checks.next_due() is None  # 2021's queued check is not 2022's to run

    try:
        async with db.uow() as uow:
            await checks.request(uow, "Alice", now=IN_2021)
    except OperationError:
        pass  # 2021's window is not 2022's
    else:
        raise AssertionError("registered in 2021's window during the 2022 season")
    async with db.uow() as uow:
        again = await checks.request(uow, "Alice", now=IN_2022)
        await uow.commit()
        second = await uow.tournaments.current()
    assert isinstance(again, CheckState)
    assert second is not None
    assert (second.year, again.season, again.requested_at) == (2022, second.id, IN_2022)
    due = await checks.next_due()
    assert isinstance(due, CheckState)
    assert due.season == second.id
    async with db.uow() as uow:
        await uow.audit.record(at=IN_2022, actor="ODMWND", action="note", details={})
        await uow.commit()
    async with db.reads() as uow:
        log = {e.action: e.tournament_id for e in await uow.audit.list()}
        shown = [e.action for e in await uow.web.recent_audit(limit=50)]
    assert (log["registration.refuse"], log["note"]) == (first.id, second.id)
    assert "note" in shown
    assert "registration.refuse" not in shown  # the desk's log is this season's
    assert config.registration == RegistrationConfig()  # the seasons' own windows were read
