"""The error tree of the rules package.

A request that breaks a rule raises a :class:`RulesError` subclass carrying a machine-readable
``reason`` (an enum member) and a sentence a player or a TD can read.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

from rules.core.words import ENGLISH, Words

Value = object | Callable[[Words], str]
"""What fills a refusal's sentence: a value, or a function that writes it in the reader's words
(a date, a list of examples)."""


class RulesError(ValueError):
    """A request that the regulations do not allow.

    ``reason`` is an enum member naming the broken rule; ``message`` is a sentence for people,
    in English. A refusal a player reads may also carry its ``template`` (a text marked for the
    catalogue, with ``%(name)s`` for each of ``values``), so :meth:`said` writes it in the
    player's words.
    """

    def __init__(
        self,
        reason: enum.Enum,
        message: str,
        *,
        template: str | None = None,
        values: Mapping[str, Value] | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.template = template
        self.values = dict(values or {})

    def __str__(self) -> str:
        return self.message

    def said(self, words: Words = ENGLISH) -> str:
        """The sentence in ``words`` (the English message when it has no template)."""
        if self.template is None:
            return self.message
        return words.gettext(self.template) % _filled(self.values, words)


def _filled(values: Mapping[str, Value], words: Words) -> dict[str, object]:
    return {k: v(words) if callable(v) else v for k, v in values.items()}


def refusal(
    error: Callable[..., RulesError], reason: enum.Enum, template: str, **values: Value
) -> RulesError:
    """``error(reason, message)`` whose message is ``template`` filled in English, and which
    :meth:`RulesError.said` writes in a reader's words."""
    message = template % _filled(values, ENGLISH)
    return error(reason, message, template=template, values=values)
