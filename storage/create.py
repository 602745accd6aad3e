"""``acwc init``'s database: a PostgreSQL database made if it does not exist yet."""

from __future__ import annotations

import asyncpg
from sqlalchemy.engine import make_url

__all__ = ["create_database"]


async def create_database(url: str) -> str | None:
    """Create a PostgreSQL database that does not exist yet; what happened, in a line."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql" or not parsed.database:
        return None
    name = parsed.database
    admin = parsed.set(drivername="postgresql", database="postgres")
    dsn = admin.render_as_string(hide_password=False)
    try:
        conn = await asyncpg.connect(dsn, timeout=10)
    except (OSError, asyncpg.PostgresError) as e:
        return (
            f"could not reach PostgreSQL to create the database {name} ({e}): "
            f"run `createdb {name}` there"
        )
    try:
        if await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            return f"the database {name} exists"
        await conn.execute(f'CREATE DATABASE "{name.replace(chr(34), chr(34) * 2)}"')
        return f"created the database {name}"
    except asyncpg.PostgresError as e:
        return f"could not create the database {name} ({e}): run `createdb {name}` as its owner"
    finally:
        await conn.close()
