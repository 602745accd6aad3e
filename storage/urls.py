"""What the command line reads of a database URL, without SQLAlchemy outside ``storage/``."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url

__all__ = ["missing_sqlite_file", "shown"]


def missing_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite ``url`` when it does not exist yet (``None`` for PostgreSQL, an
    in-memory database or a file that exists)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(parsed.database)
    return None if path.exists() else path


def shown(url: str) -> str:
    """``url`` as it may be printed: its password hidden."""
    return make_url(url).render_as_string(hide_password=True)
