"""The public pages' cache of ``acwc run`` (issue 18, a final's crowd): an anonymous visitor's
page is rendered once and shared; a change this process makes shows at once; a logged-in
viewer's page is never shared."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from bot.app import Service
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.web.ops import PageCache
from tests.web.helpers import NOW, Browser, Site, make_config, seed


@pytest.fixture
async def cached_site(database_url: str) -> AsyncIterator[Site]:
    async with Service(
        make_config(database_url),
        clock=FakeClock(NOW),
        web_port=0,
        sandbox=bundled_sandbox(),
        page_cache_seconds=3600.0,  # long: the test decides when a page changes, not time
    ) as service:
        assert service.web_url is not None
        matches = await seed(service)
        yield Site(service=service, clock=FakeClock(NOW), url=service.web_url, matches=matches)


def _cache(site: Site) -> PageCache:
    assert site.service.page_cache is not None
    return site.service.page_cache


async def test_an_anonymous_page_is_rendered_once_until_this_process_changes_something(
    cached_site: Site,
) -> None:
    cache = _cache(cached_site)
    visitor = Browser(cached_site)
    try:
        first = await visitor.get("/standings")
        raw = await visitor.get_raw("/standings")
        assert (cache.renders, cache.hits) == (1, 1)
        assert raw.headers["Content-Security-Policy"]  # the outer middlewares still run
        assert raw.headers["Content-Type"].startswith("text/html")
        assert await visitor.get("/standings") == first
        assert (cache.renders, cache.hits) == (1, 2)
        cached_site.service.changed()  # a change committed here: the next visitor sees it
        await visitor.get("/standings")
        assert (cache.renders, cache.hits) == (2, 2)
        await visitor.get("/rules")  # not a crowd page: never cached
        assert (cache.renders, cache.hits) == (2, 2)
    finally:
        await visitor.close()


async def test_a_logged_in_viewers_page_is_never_shared(cached_site: Site) -> None:
    cache = _cache(cached_site)
    alice = Browser(cached_site)
    visitor = Browser(cached_site)
    try:
        await alice.login("alice")
        own = await alice.get("/pairings")
        assert await alice.get("/pairings") == own
        assert (cache.renders, cache.hits) == (0, 0)  # hers is rendered each time
        seen = await visitor.get("/pairings")
        assert cache.renders == 1  # the visitor's copy only
        assert own != seen  # (hers names her)
        await alice.get("/pairings")
        assert cache.hits == 0
    finally:
        await alice.close()
        await visitor.close()


async def test_an_old_copy_is_served_while_one_rendering_replaces_it(database_url: str) -> None:
    """Past ``seconds`` nobody waits: the old copy goes out and one rendering in the background
    replaces it; after a change of this process's the next visitor waits for the new one."""
    async with Service(
        make_config(database_url),
        clock=FakeClock(NOW),
        web_port=0,
        sandbox=bundled_sandbox(),
        page_cache_seconds=0.0,  # every copy is old at once
    ) as service:
        assert service.web_url is not None
        await seed(service)
        site = Site(service=service, clock=FakeClock(NOW), url=service.web_url, matches={})
        cache = _cache(site)
        visitor = Browser(site)
        try:
            first = await visitor.get("/standings")
            assert (cache.renders, cache.hits) == (1, 0)
            assert await visitor.get("/standings") == first  # the old copy, at once
            assert cache.hits == 1
            await cache.idle()
            assert cache.renders == 2  # replaced in the background
            await visitor.get("/standings")
            await visitor.get("/standings")  # (its rendering still runs, or ran: a copy)
            assert cache.hits == 3
            await cache.idle()
            service.changed()
            renders = cache.renders
            await visitor.get("/standings")  # a change of ours: rendered for this visitor
            assert (cache.renders, cache.hits) == (renders + 1, 3)
        finally:
            await visitor.close()


async def test_a_crowd_on_an_old_copy_starts_one_rendering() -> None:
    """Requests that arrive together on an old copy all get it at once, and only one rendering
    starts (each request in its own task, as aiohttp runs them)."""
    cache = PageCache(0.0)
    gate = asyncio.Event()
    calls = 0

    async def page(_request: web.Request) -> web.StreamResponse:
        nonlocal calls
        calls += 1
        await gate.wait()
        return web.Response(body=f"rendering {calls}".encode())

    gate.set()
    first = await cache.middleware(make_mocked_request("GET", "/standings"), page)
    assert isinstance(first, web.Response)
    assert first.body == b"rendering 1"
    gate.clear()  # the next rendering waits: nobody may wait with it
    crowd = await asyncio.gather(
        *(cache.middleware(make_mocked_request("GET", "/standings"), page) for _ in range(8))
    )
    assert [r.body for r in crowd if isinstance(r, web.Response)] == [b"rendering 1"] * 8
    assert calls == 2
    gate.set()
    await cache.idle()
    again = await cache.middleware(make_mocked_request("GET", "/standings"), page)
    assert isinstance(again, web.Response)
    assert again.body == b"rendering 2"


async def test_a_cached_page_is_kept_once_per_language(cached_site: Site) -> None:
    cache = _cache(cached_site)
    french, english, plain = (
        Browser(cached_site, headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}),
        Browser(cached_site, headers={"Accept-Language": "en-GB,en;q=0.9"}),
        Browser(cached_site),
    )
    try:
        html = await french.get("/standings")
        assert '<html lang="fr">' in html
        assert "<h1>Classement de la qualification</h1>" in html
        assert (cache.renders, cache.hits) == (1, 0)
        # the English reader of the same page: never the French copy
        html = await english.get("/standings")
        assert '<html lang="en">' in html
        assert "<h1>Qualification standings</h1>" in html
        assert (cache.renders, cache.hits) == (2, 0)
        # each reads their own copy from now on; a browser that asks for nothing reads English
        assert "<h1>Classement de la qualification</h1>" in await french.get("/standings")
        assert "<h1>Qualification standings</h1>" in await english.get("/standings")
        assert "<h1>Qualification standings</h1>" in await plain.get("/standings")
        assert (cache.renders, cache.hits) == (2, 3)
        raw = await french.get_raw("/standings")
        assert "Accept-Language" in raw.headers["Vary"]
    finally:
        for b in (french, english, plain):
            await b.close()
