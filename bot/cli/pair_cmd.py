"""Placeholder until the pairing engine lands."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add the pair subcommand."""
