"""The players' and the TDs' names in a text as they spell them (:mod:`rules.talk.spelling`),
read from the players stored and the TDs of the config."""

from __future__ import annotations

from collections.abc import Iterable

from rules.talk.spelling import name_candidates, spell_names
from storage.uow import UnitOfWork

__all__ = ["spelled"]


async def spelled(uow: UnitOfWork, text: str, *, tds: Iterable[str] = ()) -> str:
    """``text`` with each registered player's id (and each TD's, of ``tds``) written as their
    username: ``bob`` as ``Bob``. Quoted words stay as written."""
    words = name_candidates(text)
    if not words:
        return text
    names = {td.lower(): td for td in tds if td.lower() in words}
    names |= {pid: row.username for pid, row in (await uow.players.get_many(words)).items()}
    return spell_names(text, names)
