"""Candidates, semifinals, finals and armageddon on top of storage (rules 3.vi-3.ix, 8.ii-8.iv)."""

from __future__ import annotations

from bot.app import Hooks


def register(hooks: Hooks) -> None:
    """Match hooks of the later stages (a decided semifinal builds the final, ...)."""
