"""Rules 7.3's daily look at the players' accounts, against the sandbox over real HTTP: one
``POST /api/users`` for every active player (lila's ``Api.usersByIds`` takes 300 names), where
one ``GET /api/user`` a player a day was the demo's largest share of Lichess calls."""

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
        row = DeadlineRow(kind=RECHECK_DEADLINE, due_at=NOW, subject="", payload={}, created_at=NOW)
        before = len(state.requests)
        async with svc.db.uow() as uow:
            await handler(uow, Firing(row, NOW + dt.timedelta(minutes=1)))
            await uow.commit()
            marked = {
                (a.player, tuple(a.details["marks"]))
                for a in await uow.audit.list()
                if a.action == MARK_ACTION
            }
    asked = state.requests[before:]
    assert [r for r in asked if "/api/user" in r[1]] == [("POST", "/api/users")]
    exports = sorted(p for _, p in asked if p.startswith("/api/games/"))
    assert exports == [f"/api/games/user/{name}" for name in PLAYERS]  # cheat-detected games
    assert marked == {("bob", ("tos_violation",)), ("dave", ("account_closed",))}
