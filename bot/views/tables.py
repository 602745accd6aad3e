"""Small tables for people (text) and scripts (data), as the CLI prints them and the desk shows
them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Table", "text_table"]


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table with a header rule; ``None`` shows as ``-``."""
    cells = [[str(h) for h in headers]] + [["-" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Table:
    """A small table for people (``text``) and scripts (``data``)."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def text(self) -> str:
        return f"{self.title}\n{text_table(self.headers, self.rows)}"

    def data(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "rows": [dict(zip(self.headers, row, strict=True)) for row in self.rows],
        }
