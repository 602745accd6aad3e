"""Shared fixtures: real databases (SQLite files and PostgreSQL), never mocks.

``ACWC_TEST_DB`` picks the database that database-backed tests use: ``sqlite`` (default) or
``postgresql`` (the server at ``ACWC_TEST_PG``, default postgresql://postgres@127.0.0.1:5432).
Tests that must cover both databases use the ``any_database_url`` fixture, parametrised over both.
PostgreSQL tests skip when the server is unreachable, unless ``ACWC_REQUIRE_POSTGRES=1`` (CI),
where they fail instead.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from hypothesis import settings

from storage import migrate
from storage.db import Database

# CI (``CI`` set, as .ci/run does) draws the same hypothesis examples every run, so a landing is
# never decided by a new random draw; a local run draws new ones each time, which is how the
# generated bad-input tests keep finding new cases.
# No example has a deadline: a slow example on a busy machine is not a failure (the suite's
# speed is measured by bench/, never asserted), and a deadline made two stream tests flaky.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("local", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "local")

PG_ADMIN = os.environ.get("ACWC_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
TEST_DB = os.environ.get("ACWC_TEST_DB", "sqlite")
REQUIRE_PG = os.environ.get("ACWC_REQUIRE_POSTGRES") == "1"


def _pg_base() -> str:
    return PG_ADMIN.rsplit("/", 1)[0]


async def _pg_available() -> bool:
    try:
        conn = await asyncio.wait_for(asyncpg.connect(PG_ADMIN), timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError):
        return False
    await conn.close()
    return True


async def _create_pg_database() -> str:
    name = f"acwc_test_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(PG_ADMIN)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return name


async def _drop_pg_database(name: str) -> None:
    conn = await asyncpg.connect(PG_ADMIN)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def _url_for(kind: str, tmp_path: Path) -> AsyncIterator[str]:
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'acwc-test.db'}"
        return
    if not await _pg_available():
        if REQUIRE_PG:
            pytest.fail(f"PostgreSQL is required (ACWC_REQUIRE_POSTGRES=1) but {PG_ADMIN} is down")
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN}")
    name = await _create_pg_database()
    try:
        yield f"postgresql+asyncpg://{_pg_base().split('://', 1)[1]}/{name}"
    finally:
        await _drop_pg_database(name)


@pytest.fixture
async def database_url(tmp_path: Path) -> AsyncIterator[str]:
    """An empty database of the kind ACWC_TEST_DB names."""
    async for url in _url_for(TEST_DB, tmp_path):
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database, once of each kind."""
    async for url in _url_for(request.param, tmp_path):
        yield url


@pytest.fixture
async def pg_url(tmp_path: Path) -> AsyncIterator[str]:
    """An empty PostgreSQL database whatever ACWC_TEST_DB says (leader election is PostgreSQL's)."""
    async for url in _url_for("postgresql", tmp_path):
        yield url


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    """A migrated database of the kind ACWC_TEST_DB names."""
    database = Database(database_url)
    await migrate.upgrade(database)
    yield database
    await database.dispose()


@pytest.fixture
async def any_db(any_database_url: str) -> AsyncIterator[Database]:
    """A migrated database, once SQLite and once PostgreSQL."""
    database = Database(any_database_url)
    await migrate.upgrade(database)
    yield database
    await database.dispose()


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty folder, so ./config.toml and ./acwc.db are the test's own."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


DATABASE_FIXTURES = frozenset({"database_url", "pg_url"})
"""The fixtures whose database ``ACWC_TEST_DB`` picks (or PostgreSQL's own)."""


def _postgresql_case(item: pytest.Item) -> bool:
    """An ``any_database_url`` test's PostgreSQL case."""
    callspec = getattr(item, "callspec", None)
    return callspec is not None and callspec.params.get("any_database_url") == "postgresql"


SAME_ON_BOTH = "same_on_both_databases"
"""The marker of a test that takes the database ``ACWC_TEST_DB`` picks but whose subject does not
depend on it (a browser's layout, accessibility, the words of a language): the PostgreSQL run
leaves it to the SQLite run."""
IN_THE_POSTGRESQL_RUN = "in_the_postgresql_run"
"""The marker of a test that takes no database, which CI runs in the PostgreSQL run instead of
the SQLite run to even the two (the pure tests of ``tests/rules`` are such tests too)."""


def _moved_to_postgresql_run(item: pytest.Item) -> bool:
    rules = Path(__file__).parent / "rules"
    return item.get_closest_marker(IN_THE_POSTGRESQL_RUN) is not None or item.path.is_relative_to(
        rules
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{SAME_ON_BOTH}: {SAME_ON_BOTH.replace('_', ' ')}")
    config.addinivalue_line("markers", f"{IN_THE_POSTGRESQL_RUN}: CI's PostgreSQL run has it")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """CI runs the suite twice side by side, and these two variables split the work:

    ``ACWC_DB_TESTS_ONLY=1`` (the PostgreSQL run): keep only the tests whose database
    ``ACWC_TEST_DB`` picks (but those marked :data:`SAME_ON_BOTH`), the PostgreSQL case of the
    ``any_database_url`` tests (which take both databases), and the tests that take no database
    moved to this run (:data:`IN_THE_POSTGRESQL_RUN`); every other test does the same on both
    runs, and the SQLite run has it.
    ``ACWC_POSTGRESQL_CASES_ELSEWHERE=1`` (the SQLite run): leave those PostgreSQL cases and the
    moved tests to the PostgreSQL run. Without either variable every test runs."""
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    only_db = os.environ.get("ACWC_DB_TESTS_ONLY") == "1"
    elsewhere = os.environ.get("ACWC_POSTGRESQL_CASES_ELSEWHERE") == "1"
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        moved = _moved_to_postgresql_run(item)
        if only_db:
            picked = bool(names & DATABASE_FIXTURES) and "any_database_url" not in names
            same = item.get_closest_marker(SAME_ON_BOTH) is not None
            wanted = (picked and not same) or _postgresql_case(item) or moved
        else:
            wanted = not (elsewhere and (_postgresql_case(item) or moved))
        (keep if wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
