"""The crash test's season, killed 10 times, with the upgrade test's upgrade at one of its kills.

Both tests need a season whose service is ``acwc run`` in a child process (about a minute of
CI each); they share one: the kills of ``test_crash.py`` and, while the service is down at the
kill nearest half way, the database taken back to the previous release's schema, checked and
upgraded through the command line (``test_upgrade.py``). Each test asserts its own part of the
one run, which is played once per test session (the first of the two tests to ask plays it).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from dataclasses import dataclass
from pathlib import Path

from bot.launch import main
from storage import migrate
from storage.db import Database
from tests.robustness.harness import Outcome, reference_season, season

SEED = 3
KILLS = 10
PREVIOUS_RELEASE = "0014"
"""The schema head of the release before this one (the parent of its first migration)."""


@dataclass
class CrashedSeason:
    reference: Outcome
    run: Outcome
    upgrade_said: list[str]
    """What ``acwc db upgrade --check`` printed, and then ``acwc db upgrade``."""
    upgraded_at: int
    """The settle before which the database was taken back and upgraded."""


_PLAYED: dict[int, CrashedSeason] = {}


def _acwc(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


async def crashed_season(database_url: str, folder: Path) -> CrashedSeason:
    """The season of :data:`SEED` killed before :data:`KILLS` settles of a seeded draw, upgraded
    from the previous release's schema at the kill nearest half way; played once."""
    if SEED in _PLAYED:
        return _PLAYED[SEED]
    reference = await reference_season(SEED, folder)
    points = sorted(random.Random(SEED).sample(range(5, reference.settles - 5), KILLS))
    upgraded_at = min(points, key=lambda p: abs(p - reference.settles // 2))
    config = folder / "upgrade.toml"
    config.write_text(f'[service]\ndatabase_url = "{database_url}"\n')
    said: list[str] = []
    kills = iter(points)

    async def previous_then_upgrade() -> None:
        if next(kills) != upgraded_at:
            return
        db = Database(database_url)
        try:
            await migrate.downgrade(db, PREVIOUS_RELEASE)
            assert await migrate.current_revision(db) == PREVIOUS_RELEASE
        finally:
            await db.dispose()
        for argv in (("db", "upgrade", "--check"), ("db", "upgrade")):
            code, out = await asyncio.to_thread(_acwc, "--config", str(config), *argv)
            said.append(out)
            assert code == 0, out

    run = await season(
        SEED, url=database_url, mode="crash", folder=folder, kill_at=frozenset(points),
        between=previous_then_upgrade,
    )  # fmt: skip
    _PLAYED[SEED] = CrashedSeason(reference, run, said, upgraded_at)
    return _PLAYED[SEED]
