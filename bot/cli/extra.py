"""Subcommands contributed by other areas (pairing, service, demo)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Hook for commands that live beside their feature."""
