"""The two piece colours, shared by every part of the rules package.

``rules.model`` re-exports :class:`Colour`, so there is a single colour type in the project.
"""

from __future__ import annotations

import enum


class Colour(enum.Enum):
    """The colour a player has in a game (for a 10-game match: in its first game)."""

    WHITE = "w"
    BLACK = "b"

    @property
    def opposite(self) -> Colour:
        """The other colour."""
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE
