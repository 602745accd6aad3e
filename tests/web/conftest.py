from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from tests.web.helpers import NOW, Browser, Site, make_config, seed


@pytest.fixture
async def site(database_url: str) -> AsyncIterator[Site]:
    clock = FakeClock(NOW)
    async with Service(
        make_config(database_url), clock=clock, web_port=0, sandbox=bundled_sandbox()
    ) as service:
        assert service.web_url is not None
        matches = await seed(service)
        yield Site(service=service, clock=clock, url=service.web_url, matches=matches)


@pytest.fixture
async def browsers(site: Site) -> AsyncIterator[dict[str, Browser]]:
    """One logged-out browser per person; log them in as a test needs."""
    made = {name: Browser(site) for name in ("alice", "bob", "carol", "tina", "eve", "nobody")}
    yield made
    for b in made.values():
        await b.close()
