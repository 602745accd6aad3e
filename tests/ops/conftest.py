"""Fixtures of the operations tests: a PostgreSQL database whatever ACWC_TEST_DB says (leader
election is PostgreSQL's), skipped when the server is down unless ACWC_REQUIRE_POSTGRES=1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import _url_for


@pytest.fixture
async def pg_url(tmp_path: Path) -> AsyncIterator[str]:
    async for url in _url_for("postgresql", tmp_path):
        yield url
