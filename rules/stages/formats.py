"""What each stage is, and the one list of them (rules 3.ii-3.viii, 4.2).

A :class:`StageFormat` declares a stage: its kind (and the kinds played with it as one), its
names, whether the rule set plays it, the break before it, its rounds, the shape of its
matches, and whether the rules fix its rounds (the daily job publishes them). :data:`STAGES` is
the championship's stages in order, the only list of them: the stage after one is the next
format in it that the rule set plays (:func:`next_stage`), and the tournament is created with
one stage row for each kind of those (:func:`stage_kinds`).

How a stage is seeded, played out and left is the service's stage runner for its kind
(``bot/service/stages/``); a format that implements :class:`PlacementStage` (pairs from the
placement the previous stage hands over, and hands over a placement after it) needs no runner
of its own: the service's generic one plays it. See ARCHITECTURE.md, "A new stage".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from rules.core.model import PlayerId
from rules.core.ruleset import MatchFormat, Ruleset, StageKind
from rules.core.words import ENGLISH, N_, Words
from rules.stages.order import candidates_round_count
from rules.stages.play_in import PlayInFormat
from rules.stages.qualification import number_of_rounds

__all__ = [
    "STAGES",
    "STAGE_FORMATS",
    "CandidatesFormat",
    "FinalFormat",
    "PlacementStage",
    "QualificationFormat",
    "SemifinalFormat",
    "StageFormat",
    "fixed_stages",
    "next_stage",
    "stage_format",
    "stage_kinds",
    "stage_name",
    "stage_title",
]


class StageFormat(Protocol):
    """The pure facts of one stage."""

    @property
    def kind(self) -> StageKind: ...

    @property
    def members(self) -> tuple[StageKind, ...]:
        """The stages played together as one (the final and the third place playoff)."""
        ...

    @property
    def fixed_rounds(self) -> bool:
        """The rules fix the stage's rounds once it starts (the daily job may publish them)."""
        ...

    def name_of(self, kind: StageKind) -> str:
        """What a match of ``kind`` (one of :attr:`members`) is called: ``Semifinal``."""
        ...

    def title_of(self, kind: StageKind) -> str:
        """What the stage ``kind`` is called as a whole: ``Semifinals``."""
        ...

    def played(self, ruleset: Ruleset) -> bool:
        """Whether the championship of ``ruleset`` has this stage."""
        ...

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        """Empty weeks between the previous stage's last round and this stage (rules 4.2)."""
        ...

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        """The stage's rounds (a tied final's repeat weeks are matches of its one round)."""
        ...

    def match_format(self, ruleset: Ruleset, kind: StageKind | None = None) -> MatchFormat:
        """The format of a match of ``kind`` (one of :attr:`members`; None: :attr:`kind`)."""
        ...


@runtime_checkable
class PlacementStage(StageFormat, Protocol):
    """A stage of one round played from the placement the previous stage hands over."""

    def pairings(
        self, placement: Sequence[PlayerId], ruleset: Ruleset
    ) -> tuple[tuple[PlayerId, PlayerId], ...]:
        """The matches of its round (``white_first``, ``black_first``), from ``placement``
        (the previous stage's players who go on, best first)."""
        ...

    def placement_after(
        self,
        placement: Sequence[PlayerId],
        winners: Mapping[frozenset[PlayerId], PlayerId | None],
        ruleset: Ruleset,
    ) -> tuple[PlayerId, ...]:
        """The placement handed to the next stage, given each match's winner (``None``: tied)."""
        ...


@dataclass(frozen=True, slots=True)
class _Format:
    kind: StageKind
    name: str
    title: str

    @property
    def members(self) -> tuple[StageKind, ...]:
        return (self.kind,)

    @property
    def fixed_rounds(self) -> bool:
        return True

    def name_of(self, kind: StageKind) -> str:
        return self.name

    def title_of(self, kind: StageKind) -> str:
        return self.title

    def played(self, ruleset: Ruleset) -> bool:
        return True

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return 0

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return 1

    def match_format(self, ruleset: Ruleset, kind: StageKind | None = None) -> MatchFormat:
        return ruleset.formats.for_stage(self.kind if kind is None else kind)


@dataclass(frozen=True, slots=True)
class QualificationFormat(_Format):
    """Rules 3.v: a Swiss of floor(log2 n) + 2 rounds, each paired by the TDs."""

    kind: StageKind = StageKind.QUALIFICATION
    name: str = N_("Qualification")
    title: str = N_("Qualification")

    @property
    def fixed_rounds(self) -> bool:
        return False

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return 1 if entrants < 2 else number_of_rounds(entrants)


@dataclass(frozen=True, slots=True)
class CandidatesFormat(_Format):
    """Rules 3.vi: two round-robin pools, after the break of rules 4.2."""

    kind: StageKind = StageKind.CANDIDATES
    name: str = N_("Candidates")
    title: str = N_("Candidates")

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return ruleset.calendar.break_weeks_after_qualification

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return candidates_round_count(ruleset)


@dataclass(frozen=True, slots=True)
class SemifinalFormat(_Format):
    """Rules 3.vii: one round of two matches, after the break of rules 4.2."""

    kind: StageKind = StageKind.SEMIFINAL
    name: str = N_("Semifinal")
    title: str = N_("Semifinals")

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return ruleset.calendar.break_weeks_after_candidates


@dataclass(frozen=True, slots=True)
class FinalFormat(_Format):
    """Rules 3.viii: the final and the third place playoff, the week after the semifinals."""

    kind: StageKind = StageKind.FINAL
    name: str = N_("Final")
    title: str = N_("Final")

    @property
    def members(self) -> tuple[StageKind, ...]:
        return (StageKind.FINAL, StageKind.THIRD_PLACE)

    def name_of(self, kind: StageKind) -> str:
        return N_("Third place") if kind is StageKind.THIRD_PLACE else self.name

    def title_of(self, kind: StageKind) -> str:
        return N_("Third place match") if kind is StageKind.THIRD_PLACE else self.title


STAGES: tuple[StageFormat, ...] = (
    QualificationFormat(),
    PlayInFormat(),
    CandidatesFormat(),
    SemifinalFormat(),
    FinalFormat(),
)
"""The championship's stages in order (rules 3.ii): the only list of them."""

STAGE_FORMATS: Mapping[StageKind, StageFormat] = {
    member: fmt for fmt in STAGES for member in fmt.members
}
"""Each stage kind's format (the third place playoff is part of the final)."""


def stage_format(kind: StageKind) -> StageFormat:
    return STAGE_FORMATS[kind]


def stage_name(kind: StageKind | str, words: Words = ENGLISH) -> str:
    """What a match of stage ``kind`` is called (``Semifinal``, ``Third place``)."""
    kind = StageKind(kind)
    return words.gettext(STAGE_FORMATS[kind].name_of(kind))


def stage_title(kind: StageKind | str, words: Words = ENGLISH) -> str:
    """What stage ``kind`` is called as a whole (``Semifinals``, ``Third place match``)."""
    kind = StageKind(kind)
    return words.gettext(STAGE_FORMATS[kind].title_of(kind))


def next_stage(kind: StageKind, ruleset: Ruleset) -> StageKind | None:
    """The stage after ``kind`` that ``ruleset`` plays; ``None`` after the last one."""
    played = [fmt for fmt in STAGES if fmt.played(ruleset)]
    index = next(i for i, fmt in enumerate(played) if kind in fmt.members)
    return played[index + 1].kind if index + 1 < len(played) else None


def stage_kinds(ruleset: Ruleset) -> tuple[StageKind, ...]:
    """Every stage kind ``ruleset`` plays, in order (the final's members together)."""
    return tuple(member for fmt in STAGES if fmt.played(ruleset) for member in fmt.members)


def fixed_stages(ruleset: Ruleset) -> tuple[StageKind, ...]:
    """The stage kinds whose rounds the rules fix (a round robin, a bracket), in order."""
    return tuple(
        member
        for fmt in STAGES
        if fmt.played(ruleset) and fmt.fixed_rounds
        for member in fmt.members
    )
