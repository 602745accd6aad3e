"""The database's errors, for the callers outside ``storage/`` (the only package that imports
SQLAlchemy): a failure of the database, and the conflict of two writers on one unique key."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError as WriteConflict
from sqlalchemy.exc import SQLAlchemyError as DatabaseError

__all__ = ["DatabaseError", "WriteConflict"]
