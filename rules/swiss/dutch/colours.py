"""Colour allocation (C.04.3 Article 5, formerly E.1-E.5)."""

from __future__ import annotations

from rules.core.colour import Colour
from rules.swiss.dutch.state import PlayerState


def preferences_compatible(a: Colour | None, b: Colour | None) -> bool:
    """Whether two colour preferences can both be granted (C.04.3 C12)."""
    return a is None or b is None or a is not b


def _first_difference(a: PlayerState, b: PlayerState) -> tuple[Colour | None, Colour | None]:
    """The two players' colours in the latest round (of their played games) they differed."""
    for colour_a, colour_b in zip(
        reversed(a.played_colours), reversed(b.played_colours), strict=False
    ):
        if colour_a is not colour_b:
            return colour_a, colour_b
    return None, None


def _neutral_colour(player: PlayerState, opponent: PlayerState) -> Colour | None:
    if preferences_compatible(player.preference, opponent.preference):
        if player.preference is not None:
            return player.preference
        if opponent.preference is not None:
            return opponent.preference.opposite
        return None
    assert player.preference is not None
    assert opponent.preference is not None
    if player.absolute and (player.imbalance > opponent.imbalance or not opponent.absolute):
        return player.preference
    if opponent.absolute and (opponent.imbalance > player.imbalance or not player.absolute):
        return opponent.preference.opposite
    if player.strong and not opponent.strong:
        return player.preference
    if opponent.strong and not player.strong:
        return opponent.preference.opposite
    mine, theirs = _first_difference(player, opponent)
    if mine is not None and theirs is not None:
        return theirs
    return None


def colour_of(player: PlayerState, opponent: PlayerState, initial: Colour) -> Colour:
    """Colour of ``player`` against ``opponent`` (C.04.3 Article 5, formerly E.1-E.5)."""
    neutral = _neutral_colour(player, opponent)
    if neutral is not None:
        return neutral
    player_higher = (player.score, -player.rank) > (opponent.score, -opponent.rank)
    higher = player if player_higher else opponent
    if player.preference is None:
        # E.5: the higher ranked player gets the initial colour on an odd pairing number.
        higher_colour = initial if higher.rank % 2 == 0 else initial.opposite
    else:
        # E.4: the higher ranked player gets his preference.
        assert higher.preference is not None
        higher_colour = higher.preference
    return higher_colour if player_higher else higher_colour.opposite
