"""The error tree of the rules package.

A request that breaks a rule raises a :class:`RulesError` subclass carrying a machine-readable
``reason`` (an enum member) and a sentence a player or a TD can read.
"""

from __future__ import annotations

import enum


class RulesError(ValueError):
    """A request that the regulations do not allow.

    ``reason`` is an enum member naming the broken rule; ``message`` is a sentence for people.
    """

    def __init__(self, reason: enum.Enum, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __str__(self) -> str:
        return self.message
