"""``/healthz`` says ``degraded``, with each reason, while Lichess is unreachable, the outbox is
stopped, or a notice has waited longer than ``[outbox] late_after_minutes`` (issue 25), and
``ok`` again once each is over; over real HTTP, against the sandbox."""

from __future__ import annotations

import datetime as dt
from typing import Any

import aiohttp

from bot.app import Service
from bot.config import Config, OutboxConfig, ServiceConfig
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.runtime.outbox import OUTBOX_HOLD
from bot.sandbox.state import SandboxState
from storage.db import Database

START = dt.datetime(2021, 10, 1, 9, 0, tzinfo=dt.UTC)


async def _health(http: aiohttp.ClientSession, service: Service) -> dict[str, Any]:
    async with http.get(f"{service.ops_url}/healthz") as answer:
        assert answer.status == 200  # degraded is alive: a monitor reads the reasons
        found: dict[str, Any] = await answer.json()
        return found


async def test_healthz_is_degraded_while_lichess_is_down_the_outbox_stopped_or_a_notice_late(
    db: Database,
) -> None:
    async with db.uow() as uow:
        await uow.outbox.enqueue(
            now=START - dt.timedelta(minutes=5), kind="dm", recipient="Alice", body="hello"
        )
        await uow.commit()
    sandbox = SandboxState(now=lambda: START)
    sandbox.knobs.server_error_next = 5  # every try of the start-up token check meets a 503
    config = Config(
        service=ServiceConfig(database_url=db.url),
        outbox=OutboxConfig(late_after_minutes=4),
    )
    clock = FakeClock(START, auto=True)
    async with (
        Service(config, clock=clock, sandbox=bundled_sandbox(sandbox), web_port=0) as service,
        aiohttp.ClientSession() as http,
    ):
        async with service.db.uow() as uow:
            await uow.holds.put(OUTBOX_HOLD, since=START, reason="the token was refused")
            await uow.commit()
        found = await _health(http, service)
        assert found["status"] == "degraded"
        reasons = found["degraded"]
        assert len(reasons) == 3, reasons
        assert reasons[0].startswith("Lichess unreachable since 2021-10-01T09:00")
        assert "503" in reasons[0]
        assert reasons[1] == "the outbox is stopped: the token was refused"
        assert reasons[2] == "a notice has waited 5 min (more than 0:04:00 allows)"

        await service.lichess.test_token()  # Lichess answers again
        async with service.db.uow() as uow:
            await uow.holds.clear(OUTBOX_HOLD)
            await uow.outbox.mark_all_sent(
                [r.id for r in await uow.outbox.due(START, kinds=["dm"])], at=START
            )
            await uow.commit()
        found = await _health(http, service)
        assert found["status"] == "ok", found
        assert found["degraded"] == []
