"""What each stage is, for the progression from one stage to the next (rules 3.ii-3.viii, 4.2).

A :class:`StageFormat` says which stage comes next, how many rounds a stage has, the break
before it and the shape of its matches. The service keeps a registry of stage formats and moves
the championship through it; a new kind of stage is a new :class:`StageFormat` here and its
runner in the service (``bot/service/stages/registry.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from rules.core.ruleset import MatchFormat, Ruleset, StageKind
from rules.stages.order import candidates_round_count, next_stage
from rules.stages.qualification import number_of_rounds

__all__ = [
    "STAGE_FORMATS",
    "CandidatesFormat",
    "FinalFormat",
    "QualificationFormat",
    "SemifinalFormat",
    "StageFormat",
]


class StageFormat(Protocol):
    """The pure facts of one stage."""

    @property
    def kind(self) -> StageKind: ...

    @property
    def members(self) -> tuple[StageKind, ...]:
        """The stages played together as one (the final and the third place playoff)."""
        ...

    def next_stage(self) -> StageKind | None:
        """The stage after this one (rules 3.ii); ``None`` after the final matches."""
        ...

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        """Empty weeks between the previous stage's last round and this stage (rules 4.2)."""
        ...

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        """The stage's rounds (a tied final's repeat weeks are matches of its one round)."""
        ...

    def match_format(self, ruleset: Ruleset) -> MatchFormat: ...


@dataclass(frozen=True, slots=True)
class _Format:
    kind: StageKind

    @property
    def members(self) -> tuple[StageKind, ...]:
        return (self.kind,)

    def next_stage(self) -> StageKind | None:
        return next_stage(self.kind)

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return 0

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return 1

    def match_format(self, ruleset: Ruleset) -> MatchFormat:
        return ruleset.formats.for_stage(self.kind)


@dataclass(frozen=True, slots=True)
class QualificationFormat(_Format):
    """Rules 3.v: a Swiss of floor(log2 n) + 2 rounds."""

    kind: StageKind = StageKind.QUALIFICATION

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return 1 if entrants < 2 else number_of_rounds(entrants)


@dataclass(frozen=True, slots=True)
class CandidatesFormat(_Format):
    """Rules 3.vi: two round-robin pools, after the break of rules 4.2."""

    kind: StageKind = StageKind.CANDIDATES

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return ruleset.calendar.break_weeks_after_qualification

    def round_count(self, *, entrants: int, ruleset: Ruleset) -> int:
        return candidates_round_count(ruleset)


@dataclass(frozen=True, slots=True)
class SemifinalFormat(_Format):
    """Rules 3.vii: one round of two matches, after the break of rules 4.2."""

    kind: StageKind = StageKind.SEMIFINAL

    def break_weeks_before(self, ruleset: Ruleset) -> int:
        return ruleset.calendar.break_weeks_after_candidates


@dataclass(frozen=True, slots=True)
class FinalFormat(_Format):
    """Rules 3.viii: the final and the third place playoff, the week after the semifinals."""

    kind: StageKind = StageKind.FINAL

    @property
    def members(self) -> tuple[StageKind, ...]:
        return (StageKind.FINAL, StageKind.THIRD_PLACE)

    def next_stage(self) -> StageKind | None:
        return None


STAGE_FORMATS: Mapping[StageKind, StageFormat] = {
    StageKind.QUALIFICATION: QualificationFormat(),
    StageKind.CANDIDATES: CandidatesFormat(),
    StageKind.SEMIFINAL: SemifinalFormat(),
    StageKind.FINAL: FinalFormat(),
    StageKind.THIRD_PLACE: FinalFormat(),
}
"""The 2021 championship's stages, by kind (the third place playoff is part of the final)."""
