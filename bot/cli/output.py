"""Readable tables for people and JSON for scripts."""

from __future__ import annotations

import json
from typing import Any

from bot.views.tables import text_table as table

__all__ = ["as_json", "table"]


def as_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)
