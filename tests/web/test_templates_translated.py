"""Issue 28 item 5: every text a player reads on a page goes through the message catalogue.

A template's words are either inside ``_()`` (so ``scripts/messages`` extracts them and
tests/test_languages.py checks each has its French) or they are not text at all. This test reads
each public template's own text, the HTML left once every ``{{ }}`` and ``{% %}`` is taken out,
and fails on any word written there directly: it would reach a French reader in English.

The TDs' pages (the desk, its tools, the audit log and the registrations' list) are written for
the TDs, who run the championship in English; they are listed in :data:`TDS_ONLY` and not read.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest

TEMPLATES = Path(__file__).resolve().parents[2] / "bot" / "web" / "templates"

TDS_ONLY = ("desk", "register_list")
"""Templates read by the TDs only: their words stay English (docs/operations.md, "Languages")."""

PUBLIC = sorted(p.name for p in TEMPLATES.glob("*.html") if not p.stem.startswith(TDS_ONLY))

READ_ALOUD = ("alt", "title", "placeholder", "aria-label", "value", "label")
"""Attributes whose value a reader sees or a screen reader reads (a button's value is shown)."""

NAMES = {"UTC", "ACWC", "Lichess", "JSON", "iCalendar", "TRF"}
"""Words the same in every language: names, not sentences."""

WORD = re.compile(r"[^\W\d_]{2,}")
HOLE = "\x00"


def _own_text(source: str) -> str:
    """The template with every Jinja expression, statement and comment replaced by a hole (a
    space where it stands inside a tag, so the tag still reads as one)."""
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"])
    text = ""
    in_data = True
    for _line, kind, value in env.lex(source):
        if kind == "data":
            text += value
            in_data = True
        elif in_data:
            text += " " if text.rfind("<") > text.rfind(">") else HOLE
            in_data = False
    return text


class _Words(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in READ_ALOUD and value and not (tag == "input" and name == "value"):
                self._take(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._take(data)

    def _take(self, text: str) -> None:
        for piece in text.split(HOLE):
            words = [w for w in WORD.findall(piece) if w not in NAMES]
            if words:
                self.found.append(piece.strip())


def untranslated(source: str) -> list[str]:
    parser = _Words()
    parser.feed(_own_text(source))
    parser.close()
    return parser.found


def test_the_check_finds_words_written_outside_the_catalogue() -> None:
    assert untranslated('<h1>Seasons</h1><a title="Open it">{{ _("x") }}</a>') == [
        "Seasons",
        "Open it",
    ]
    assert untranslated('<h1>{{ _("Seasons") }}</h1>{% if x %} · {% endif %}(UTC)') == []
    assert untranslated('<nav aria-label="{{ _("Main") }}">{# a note #}</nav>') == []
    assert "room.html" in PUBLIC
    assert "desk.html" not in PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_a_public_template_writes_no_word_outside_the_catalogue(name: str) -> None:
    found = untranslated((TEMPLATES / name).read_text())
    assert not found, f"{name}: words not in the catalogue (wrap them in _()): {found}"
