"""Rules 7.3's daily look at the players' accounts, against the sandbox over real HTTP: one
``POST /api/users`` for every active player (lila's ``Api.usersByIds`` takes 300 names), where
one ``GET /api/user`` a player a day was the demo's largest share of Lichess calls; and the
games of only those players who finished a game since the last look (lila's ``playTime`` moved),
every player's each 7th look."""

from __future__ import annotations

import datetime as dt

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import Firing
from bot.sandbox.state import SandboxState
from bot.service.recheck import MARK_ACTION, RECHECK_DEADLINE
from rules.core.states import StageState
from storage.models import DeadlineRow
from tests.web.helpers import NOW, PLAYERS, make_config, seed


async def test_the_daily_look_reads_every_account_in_one_request(database_url: str) -> None:
    clock = FakeClock(NOW)
    state = SandboxState(now=clock.now)
    for name in PLAYERS:
        state.add_user(name, tos_violation=name == "Bob", disabled=name == "Dave")
    config = make_config(database_url)
    async with Service(config, clock=clock, web_port=0, sandbox=bundled_sandbox(state)) as svc:
        await seed(svc)
        async with svc.db.uow() as uow:  # the championship is under way
            tournament = await uow.tournaments.current()
            assert tournament is not None
            for stage in await uow.tournaments.stages(tournament.id):
                stage.state = StageState.ACTIVE
            await uow.commit()
        handler = svc.services.deadline_handlers[RECHECK_DEADLINE]
        async with svc.db.reads() as uow:  # the publication planned the first look
            row = await uow.deadlines.open_of_kind(RECHECK_DEADLINE)
        assert row is not None

        async def look(row: DeadlineRow, at: dt.datetime) -> tuple[list[str], DeadlineRow]:
            """One daily look: the accounts it asked for and the games it exported."""
            before = len(state.requests)
            async with svc.db.uow() as uow:
                stored = await uow.deadlines.get(row.id)  # claimed, as the runner claims it
                assert stored is not None
                stored.fired_at = at
                await handler(uow, Firing(row, at))
                await uow.commit()
                following = await uow.deadlines.open_of_kind(RECHECK_DEADLINE)
            assert following is not None
            asked = state.requests[before:]
            assert [r for r in asked if "/api/user" in r[1]] == [("POST", "/api/users")]
            return sorted(p.rsplit("/", 1)[1] for _, p in asked if "/api/games/" in p), following

        day = NOW + dt.timedelta(minutes=1)
        exported, row = await look(row, day)
        assert exported == ["Alice", "Bob", "Carol"]  # every open account's games
        async with svc.db.uow() as uow:
            marked = {
                (a.player, tuple(a.details["marks"]))
                for a in await uow.audit.list()
                if a.action == MARK_ACTION
            }
        assert marked == {("bob", ("tos_violation",)), ("dave", ("account_closed",))}
        exported, row = await look(row, day + dt.timedelta(days=1))
        assert exported == []  # no game ended since: nothing to read
        clock.set(day + dt.timedelta(days=1, hours=2))
        state.add_finished_game("Alice", "Carol", variant="antichess")
        exported, row = await look(row, day + dt.timedelta(days=2))
        assert exported == ["Alice", "Carol"]  # their play time moved
        for n in range(3, 7):
            exported, row = await look(row, day + dt.timedelta(days=n))
        assert exported == []
        exported, row = await look(row, day + dt.timedelta(days=7))
        assert exported == ["Alice", "Bob", "Carol"]  # each 7th look reads everyone's games
