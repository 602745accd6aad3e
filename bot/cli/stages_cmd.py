"""CLI commands of the stages feature."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add this feature's subcommands."""
