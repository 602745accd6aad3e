"""The words of one language: what every text a player reads is written with.

A text is written in English, its sentences marked by the call that translates them
(``words.gettext("...")``, ``words.ngettext(...)``, ``words.pgettext(context, "...")``), with
``%(name)s`` for what it fills in. The catalogues of the other languages are files the service
reads (``bot/notify/languages.py``); here a language is only the object passed in, so the rules
stay pure. :data:`ENGLISH` is the language written in the code: its words are the code's.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

__all__ = ["ENGLISH", "EVERYONE_IN_ENGLISH", "N_", "Readers", "Words"]


class Words(Protocol):
    """A language's catalogue: :class:`gettext.NullTranslations` and its subclasses are one."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...

    def pgettext(self, context: str, message: str, /) -> str: ...


ENGLISH: Final[Words] = gettext.NullTranslations()
"""The words as the code writes them."""


def N_(message: str) -> str:
    """Marks ``message`` for the catalogue where it is written (a name kept in a table), to be
    translated where it is read, with ``words.gettext(message)``."""
    return message


@dataclass(frozen=True, slots=True)
class Readers:
    """The language of each player a text goes to (by id); anyone not listed reads English."""

    languages: Mapping[str, Words] = field(default_factory=dict)

    def of(self, player: str) -> Words:
        return self.languages.get(player, ENGLISH)


EVERYONE_IN_ENGLISH: Final = Readers()
