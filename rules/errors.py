"""Base class of every error a rule raises.

A request that breaks a rule raises a subclass of :class:`RulesError`, carrying a reason enum
(for code) and a sentence a player can read (for people).
"""

from __future__ import annotations

import enum


class RulesError(ValueError):
    """A rule forbids what was asked; ``reason`` says which rule, ``message`` says it in words."""

    def __init__(self, reason: enum.Enum, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
