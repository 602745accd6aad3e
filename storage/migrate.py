"""Apply, inspect and revert the schema with alembic from async code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import Script, ScriptDirectory
from sqlalchemy import inspect, select, update
from sqlalchemy.engine import Connection

import migrations
from storage.db import Database
from storage.models_ops import LeadershipRow

SCRIPT_LOCATION = str(Path(migrations.__file__).parent)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


async def _with_connection(db: Database, action: str, revision: str) -> None:
    cfg = alembic_config(db.url)

    def run(connection: Connection) -> None:
        cfg.attributes["connection"] = connection
        if action == "upgrade":
            command.upgrade(cfg, revision)
        else:
            command.downgrade(cfg, revision)

    async with db.engine.begin() as connection:
        await connection.run_sync(run)


async def upgrade(db: Database, revision: str = "head") -> None:
    await _with_connection(db, "upgrade", revision)
    current = await current_revision(db)
    if current is not None and _known(current) and "leadership" in await _tables(db):
        async with db.engine.begin() as connection:
            await connection.execute(update(LeadershipRow).values(oldest_code=oldest_code(current)))


async def downgrade(db: Database, revision: str) -> None:
    await _with_connection(db, "downgrade", revision)


@dataclass(frozen=True, slots=True)
class Step:
    """One migration of an upgrade: its revision, its title, and whether it *contracts* the
    schema (drops or changes what code written for the schema before it uses)."""

    revision: str
    title: str
    contract: bool


@dataclass(frozen=True, slots=True)
class UpgradeCheck:
    """What ``acwc db upgrade`` would do to a database, and whether the version that runs on
    it now can keep running through it and after it."""

    current: str | None
    head: str | None
    steps: tuple[Step, ...]

    @property
    def keeps_going(self) -> bool:
        """The running version may serve while the upgrade runs and after it: every step only
        expands the schema (a new table, a new nullable column)."""
        return self.current is not None and not any(s.contract for s in self.steps)

    def lines(self) -> list[str]:
        if not self.steps:
            return [f"the database is at {self.current}, this version's head: nothing to do"]
        said = [
            f"the database is at {self.current or 'base (empty)'}; the upgrade to {self.head} "
            f"runs {len(self.steps)} migration(s):"
        ]
        said += [
            f"  {s.revision} {'contract' if s.contract else 'expand  '} {s.title}"
            for s in self.steps
        ]
        if self.current is None:
            said.append("an empty database: nothing runs on it yet; upgrade, then start")
        elif self.keeps_going:
            said.append(
                f"the version running on {self.current} can keep going: upgrade now, start "
                "this version beside it, then stop the old one"
            )
        else:
            contracts = ", ".join(s.revision for s in self.steps if s.contract)
            said.append(
                f"the version running on {self.current} cannot keep going ({contracts} "
                "changes what it uses): stop every instance, upgrade, then start this version"
            )
        return said


def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config("sqlite://"))


def known_revision(revision: str) -> bool:
    """Whether ``revision`` is one of this version's migrations (a backup from a newer
    version, or no acwc backup at all, names one it does not know)."""
    try:
        return _script().get_revision(revision) is not None
    except Exception:  # alembic's CommandError / ResolutionError for a name it cannot resolve
        return False


_known = known_revision


def _step(script: Script) -> Step:
    title = (script.doc or "").strip().splitlines()[0] if script.doc else script.revision
    # A migration that does not say it only expands is taken to contract.
    contract = bool(getattr(script.module, "contract", True))
    return Step(script.revision, title, contract)


def steps(current: str | None, head: str | None = None) -> tuple[Step, ...]:
    """The migrations from ``current`` (exclusive) to ``head`` (this version's), oldest first."""
    head = head or head_revision()
    if head is None:
        return ()
    walked = _script().walk_revisions(base=current or "base", head=head)
    return tuple(_step(s) for s in reversed(list(walked)) if s.revision != current)


def oldest_code(revision: str) -> str | None:
    """The oldest revision whose code can run on the schema at ``revision``: the last one up
    to it that contracted the schema (``None``: any)."""
    for script in _script().walk_revisions(base="base", head=revision):  # newest first
        if _step(script).contract:
            return script.revision
    return None


async def check_upgrade(db: Database) -> UpgradeCheck:
    """``acwc db upgrade --check``: what the upgrade would do, and whether it is safe now."""
    current = await current_revision(db)
    if current is not None and not _known(current):
        raise UnknownRevision(
            f"the database is at {current}, which this version does not know: it is newer "
            "than this version (nothing to upgrade)"
        )
    return UpgradeCheck(current, head_revision(), steps(current))


class UnknownRevision(Exception):
    """The database's schema revision is not one of this version's migrations."""


async def why_not_run(db: Database) -> str | None:
    """Why this version cannot run on ``db`` as it is (``None``: it can): not set up, older
    than this version (upgrade first), or newer and contracted past what this version knows.
    A newer schema that only expanded since this version's head serves it (a standby of the
    previous version, restarted during an upgrade)."""
    current = await current_revision(db)
    head = head_revision()
    if current == head:
        return None
    if current is None:
        return "the database is not initialised"
    if _known(current):
        return f"the database is at revision {current}, older than this version's {head}"
    oldest = None
    if "leadership" in await _tables(db):
        async with db.engine.connect() as connection:
            oldest = await connection.scalar(select(LeadershipRow.oldest_code))
    if oldest is not None and _known(oldest) and oldest in _ancestry(head):
        return None
    return (
        f"the database is at revision {current}, newer than this version ({head}), and changed "
        "since in ways this version cannot use"
    )


def _ancestry(head: str | None) -> set[str]:
    if head is None:
        return set()
    return {s.revision for s in _script().walk_revisions(base="base", head=head)}


async def _tables(db: Database) -> set[str]:
    async with db.engine.connect() as connection:
        return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))


def head_revision() -> str | None:
    return _script().get_current_head()


async def current_revision(db: Database) -> str | None:
    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with db.engine.connect() as connection:
        return await connection.run_sync(read)
