"""The play-in: one round between the qualification and the Candidates for the last places
(off unless ``rules.stages.play_in_matches`` is set; not in the 2021 regulations).

With ``k`` play-in matches and ``n`` places in the Candidates, the players placed ``n-k+1`` to
``n+k`` play: the best of them against the last (``n-k+1`` v ``n+k``), and so on inwards, the
better placed with White in game 1. The winner of each takes the better of the two places and
the loser the other; a tied match goes to the better placed (the match format's ties stand).
Everyone else keeps their place, as does a player whose opponent's place is empty. Played
from the qualification's placement by the service's generic stage runner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.core.model import PlayerId
from rules.core.ruleset import MatchFormat, Ruleset, StageKind
from rules.core.words import N_
from rules.stages.qualification import qualifier_count

__all__ = ["PlayInFormat", "play_in_places"]


def play_in_places(ruleset: Ruleset) -> tuple[int, int]:
    """The first and the last place (from 1) of the players who play in."""
    seeded = [n for n in (ruleset.seeding.title_holder, ruleset.seeding.runner_up) if n]
    places = qualifier_count(
        stages=ruleset.stages, seeding=ruleset.seeding, seeded_participants=seeded
    )
    matches = ruleset.stages.play_in_matches
    return places - matches + 1, places + matches


@dataclass(frozen=True, slots=True)
class PlayInFormat:
    kind: StageKind = StageKind.PLAY_IN

    @property
    def members(self) -> tuple[StageKind, ...]:
        return (self.kind,)

    @property
    def fixed_rounds(self) -> bool:
        return True

    def name_of(self, kind: StageKind) -> str:
        return N_("Play-in")

    def title_of(self, kind: StageKind) -> str:
        return N_("Play-in")

    def played(self, ruleset: Ruleset) -> bool:
        return ruleset.stages.play_in_matches > 0

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return 0

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return 1

    def match_format(self, ruleset: Ruleset, kind: StageKind | None = None) -> MatchFormat:
        return ruleset.formats.play_in

    def pairings(
        self, placement: Sequence[PlayerId], ruleset: Ruleset
    ) -> tuple[tuple[PlayerId, PlayerId], ...]:
        return tuple((placement[a], placement[b]) for a, b in _pairs(len(placement), ruleset))

    def placement_after(
        self,
        placement: Sequence[PlayerId],
        winners: Mapping[frozenset[PlayerId], PlayerId | None],
        ruleset: Ruleset,
    ) -> tuple[PlayerId, ...]:
        after = list(placement)
        for a, b in _pairs(len(placement), ruleset):
            if winners.get(frozenset((placement[a], placement[b]))) == placement[b]:
                after[a], after[b] = placement[b], placement[a]
        return tuple(after)


def _pairs(size: int, ruleset: Ruleset) -> list[tuple[int, int]]:
    """The indexes in a placement of ``size`` of each match's better and worse placed player
    (a player whose opponent's place is empty keeps their place)."""
    first, last = play_in_places(ruleset)
    pairs = [(first - 1 + i, last - 1 - i) for i in range(ruleset.stages.play_in_matches)]
    return [(a, b) for a, b in pairs if a >= 0 and b < size]
