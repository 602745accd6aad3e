"""Colours. In a match "colour" means who has White in game 1."""

from __future__ import annotations

import enum


class Colour(enum.Enum):
    WHITE = "w"
    BLACK = "b"

    @property
    def opposite(self) -> Colour:
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE
