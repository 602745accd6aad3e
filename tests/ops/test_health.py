"""``/healthz`` and ``/metrics`` (issue 18): the role, the stream's lag, the oldest undelivered
notice, overdue deadlines and the Lichess requests by endpoint and answer, over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt

import aiohttp

from bot.app import Service
from bot.config import Config, ServiceConfig
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import DeadlineRow
from tests.web.helpers import Waits

START = dt.datetime(2021, 10, 1, 9, 0, tzinfo=dt.UTC)


async def _queue_work(db: Database) -> None:
    async with db.uow() as uow:
        await uow.outbox.enqueue(
            now=START - dt.timedelta(minutes=5), kind="dm", recipient="Alice", body="hello"
        )
        await uow.deadlines.add(
            DeadlineRow(
                kind="nobody_handles_this",
                due_at=START - dt.timedelta(minutes=1),
                created_at=START - dt.timedelta(hours=1),
            )
        )
        await uow.settings.set_time("stream.last_seen", START - dt.timedelta(seconds=90))
        await uow.commit()


async def test_healthz_reports_what_is_due_and_how_far_the_stream_is(db: Database) -> None:
    await _queue_work(db)
    config = Config(service=ServiceConfig(database_url=db.url))
    async with (
        Service(config, clock=FakeClock(START), sandbox=bundled_sandbox(), web_port=0) as service,
        aiohttp.ClientSession() as http,
        http.get(f"{service.ops_url}/healthz") as answer,
    ):
        assert answer.status == 200
        found = await answer.json()
    assert "role" in found, found
    assert found["role"] == "starting"  # run() not started: neither leading nor queued
    assert found["stream"] == {
        "last_seen": (START - dt.timedelta(seconds=90)).isoformat(),
        "lag_seconds": 90.0,
    }
    assert found["outbox"] == {
        "undelivered": 1,
        "oldest_undelivered": (START - dt.timedelta(minutes=5)).isoformat(),
        "oldest_age_seconds": 300.0,
    }
    assert found["deadlines"] == {"overdue": 1}


async def test_metrics_say_the_leader_and_count_lichess_requests_by_endpoint_and_answer(
    db: Database,
) -> None:
    await _queue_work(db)
    sandbox = SandboxState(now=lambda: START)
    sandbox.add_user("Alice")
    # the first call, the start-up check of the token, meets a 503; the client's retry gets in
    sandbox.knobs.server_error_next = 1
    config = Config(service=ServiceConfig(database_url=db.url))
    waits = Waits()
    service = Service(
        config,
        clock=FakeClock(START, auto=True),
        sandbox=bundled_sandbox(sandbox),
        web_port=0,
        watch=waits,
    )
    async with service, aiohttp.ClientSession() as http:
        task = asyncio.create_task(service.run())
        try:
            while service.dispatcher.sent == 0 or service.runner.fired == 0:
                waits.event.clear()
                await waits.event.wait()
            async with http.get(f"{service.ops_url}/metrics") as answer:
                assert answer.status == 200
                assert answer.content_type == "text/plain"
                text = await answer.text()
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    lines = set(text.splitlines())
    assert "acwc_leader 1.0" in lines
    assert "acwc_outbox_undelivered 0.0" in lines
    assert "acwc_deadlines_overdue 0.0" in lines
    assert 'acwc_lichess_requests_total{answer="503",endpoint="test_token"} 1.0' in lines
    assert 'acwc_lichess_requests_total{answer="ok",endpoint="test_token"} 1.0' in lines
    assert 'acwc_lichess_requests_total{answer="ok",endpoint="send_message"} 1.0' in lines
    assert sandbox.inbox_of("Alice") == ["hello"]


async def test_the_checks_have_a_listener_of_their_own_and_the_pages_port_serves_only_pages(
    db: Database,
) -> None:
    config = Config(service=ServiceConfig(database_url=db.url))
    async with (
        Service(config, clock=FakeClock(START), sandbox=bundled_sandbox(), web_port=0) as service,
        aiohttp.ClientSession() as http,
    ):
        assert service.ops_url is not None
        assert service.web_url is not None
        assert service.ops_url.startswith("http://127.0.0.1:")
        assert service.ops_url != service.web_url
        for path in ("/healthz", "/metrics"):
            async with http.get(f"{service.web_url}{path}") as answer:
                assert answer.status == 404, path
            async with http.get(f"{service.ops_url}{path}") as answer:
                assert answer.status == 200, path
        async with http.get(f"{service.ops_url}/") as answer:
            assert answer.status == 404  # and the checks' port serves no page
        async with http.get(f"{service.web_url}/") as answer:
            assert answer.status == 200
