"""How the bot's texts read where people read them: players as they spell their usernames, and,
in a Lichess message, commands in quotation marks (pure).

The texts are written with the players' Lichess ids, which are their usernames in lower case
(``bob``); a player reads ``Bob`` if that is how they spell it (:func:`spell_names`). The texts
mark a command with Markdown's backticks (``send `accept 1` ``), which the web pages show as
code; Lichess's private messages do not render Markdown, so a message sent there has the
command in quotation marks instead (:func:`as_lichess_message`).

Neither touches what is quoted: a web address, a command in backticks, or someone's own words
between “ and ” (a private report's text, rules 7.1), which go on as their author wrote them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

__all__ = ["as_lichess_message", "name_candidates", "quoted", "spell_names"]

_QUOTED = re.compile(r"https?://\S+|`[^`\n]*`|“[^\n]*”")
"""A web address, a command, or quoted words (to the line's last closing mark, so that a
closing mark inside the words does not end them early)."""
_ID = r"[a-z0-9][a-z0-9_-]{0,29}"  # a Lichess id: a username in lower case, 1-30 characters
_CANDIDATE = re.compile(rf"(?<![\w@/.-])({_ID})(?![\w-])")
_CODE = re.compile(r"`([^`\n]+)`")


def quoted(words: str) -> str:
    """Someone's own words, quoted: nothing here changes them."""
    return f"“{words}”"


def _outside_quotes(
    text: str, change: Callable[[str], str], quote: Callable[[str], str] = str
) -> str:
    """``text`` with ``change`` applied to every part that is not quoted (and ``quote`` to
    every part that is)."""
    parts, last = [], 0
    for found in _QUOTED.finditer(text):
        parts.append(change(text[last : found.start()]))
        parts.append(quote(found.group(0)))
        last = found.end()
    parts.append(change(text[last:]))
    return "".join(parts)


def name_candidates(text: str) -> set[str]:
    """The words of ``text`` (outside quotes) that could be a player's id."""
    found: set[str] = set()

    def collect(part: str) -> str:
        found.update(m.group(1) for m in _CANDIDATE.finditer(part))
        return part

    _outside_quotes(text, collect)
    return found


def spell_names(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each id of ``names`` (id -> username) written as its username, where it
    stands as a word of its own outside quotes (not inside a reference such as
    ``R-20211014-1802-alice`` or a web address)."""
    wanted = {i: n for i, n in names.items() if n != i}

    def spell(part: str) -> str:
        return _CANDIDATE.sub(lambda m: wanted.get(m.group(1), m.group(1)), part)

    return _outside_quotes(text, spell) if wanted else text


def as_lichess_message(text: str) -> str:
    """``text`` for a Lichess private message: each `command` as "command"."""

    def plain(piece: str) -> str:
        return _CODE.sub(r'"\1"', piece) if piece.startswith("`") else piece

    return _outside_quotes(text, str, plain)
