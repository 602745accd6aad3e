"""The languages a player may read: their catalogues, read from the ``.po`` files once.

The code writes English (:data:`rules.core.words.ENGLISH`); every other language is a catalogue
in ``bot/locale/<code>/LC_MESSAGES/messages.po``, read at the first use by Babel and kept for
the process's life (no compiled ``.mo`` to build: a fresh clone runs as it is). A catalogue's
entries still marked fuzzy are left out (their English shows), as ``msgfmt`` does.

``scripts/messages`` extracts the marked texts (``pybabel extract``) and updates the catalogues
(``pybabel update``); ``tests/test_languages.py`` fails while a text is not in every catalogue,
translated and not fuzzy.
"""

from __future__ import annotations

import functools
import gettext
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from babel.core import negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from rules.core.words import ENGLISH, Readers, Words
from storage.uow import UnitOfWork

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "LOCALE_DIR",
    "catalogue_path",
    "negotiate",
    "readers",
    "words",
    "words_of",
]

LOCALE_DIR: Final = Path(__file__).resolve().parent.parent / "locale"
DEFAULT: Final = "en"
LANGUAGES: Final = {"en": "English", "fr": "Français"}
"""The languages a player may pick, by code, each named in its own words."""


ACCEPT_LIMIT = 500
"""The longest ``Accept-Language`` header read (a browser's is a few dozen characters)."""


def negotiate(accept_language: str | None) -> str:
    """The offered language a browser's ``Accept-Language`` header asks for first (``fr-CA``
    reads French; a language given ``q=0`` is refused), else :data:`DEFAULT`."""
    asked: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "")[:ACCEPT_LIMIT].split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if tag and tag != "*" and weight > 0:
            asked.append((-weight, index, tag.strip()))
    preferred = [tag for _, _, tag in sorted(asked)]
    found = (negotiate_locale(preferred, list(LANGUAGES), sep="-") or DEFAULT).lower()
    return found if found in LANGUAGES else DEFAULT


def catalogue_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / "messages.po"


@functools.cache
def words(language: str | None) -> Words:
    """The words of ``language`` (English for ``None``, English or a code not offered)."""
    if language is None or language == DEFAULT or language not in LANGUAGES:
        return ENGLISH
    with catalogue_path(language).open("rb") as po:
        catalogue = read_po(po, locale=language)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)  # fuzzy entries are left out
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


async def readers(uow: UnitOfWork, players: Iterable[str]) -> Readers:
    """The language of each of ``players`` (by id), as they chose it: one query for them all
    (a game's challenge, result and time notices ask for both players' several times a game;
    a query a player and the open season's each made it three)."""
    wanted = list(players)
    rows = await uow.players.get_many({player.lower() for player in wanted})
    languages: dict[str, Words] = {}
    for player in wanted:
        row = rows.get(player.lower())
        if row is not None and row.language is not None:
            languages[player] = words(row.language)
    return Readers(languages)


async def words_of(uow: UnitOfWork, player: str) -> Words:
    """The language ``player`` (by id or username) chose; English for anyone else."""
    return (await readers(uow, [player])).of(player)
