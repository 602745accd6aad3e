"""Column types shared by the tables."""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any, Generic, TypeVar

from sqlalchemy import DateTime, String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[dt.datetime]):
    """An aware UTC datetime on every database.

    SQLite keeps no zone, so UTC is re-attached on load; naive datetimes are refused on the way
    in so a local time can never be stored by mistake.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r} cannot be stored; use UTC")
        value = value.astimezone(dt.UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: dt.datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


E = TypeVar("E", bound=enum.StrEnum)


class EnumText(TypeDecorator[E], Generic[E]):
    """A ``StrEnum`` stored as its value in a plain string column: rows read back as members, and
    a value that is not one of the enum's is refused on the way in."""

    impl = String
    cache_ok = True

    def __init__(self, enum_type: type[E], length: int) -> None:
        super().__init__(length)
        self.enum_type = enum_type

    def process_bind_param(self, value: E | str | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        return self.enum_type(value).value

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        return None if value is None else self.enum_type(value)
