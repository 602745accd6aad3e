"""What a stage still lacks, and the season calendar (rules 3.ii, 4); the stages and their order
are in :mod:`rules.stages.formats`.

The calendar is date arithmetic only: publication on Tuesdays from the first publication date,
one match a week, completion by the following Monday 23:59 UTC, a break of one week between
the qualification and the Candidates and between the Candidates and the semifinals.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.core.errors import RulesError
from rules.core.model import Match, MatchId
from rules.core.ruleset import Calendar, Ruleset, StageKind
from rules.core.scoring import Outcome

__all__ = [
    "MatchStatus",
    "Missing",
    "MissingItem",
    "RoundDates",
    "StageError",
    "StageErrorReason",
    "StageProgress",
    "candidates_round_count",
    "completion_deadline",
    "season_calendar",
    "stage_complete",
    "stage_progress",
]


class StageErrorReason(enum.Enum):
    WRONG_STAGE = "wrong_stage"
    BAD_ROUNDS = "bad_rounds"
    BAD_CALENDAR = "bad_calendar"


class StageError(RulesError):
    def __init__(self, reason: StageErrorReason, message: str) -> None:
        super().__init__(reason, message)
        self.reason: StageErrorReason = reason


def _members(kind: StageKind) -> frozenset[StageKind]:
    if kind in (StageKind.FINAL, StageKind.THIRD_PLACE):
        return frozenset((StageKind.FINAL, StageKind.THIRD_PLACE))
    return frozenset((kind,))


# --------------------------------------------------------------------------------------------
# Completion


class Missing(enum.Enum):
    NOT_PAIRED = "not_paired"  # a round has no matches yet
    UNFINISHED = "unfinished"  # a match is still being played
    NEXT_WEEK = "next_week"  # a tied final needs its next week (rules 3.viii.3-4)
    ARMAGEDDON = "armageddon"  # a tied knockout match needs its armageddon (3.vii.2, 3.viii.5)


@dataclass(frozen=True, slots=True)
class MatchStatus:
    """A match and where it stands (``rules.scoring.match_outcome``)."""

    match: Match
    outcome: Outcome
    armageddon_played: bool = False


@dataclass(frozen=True, slots=True)
class MissingItem:
    reason: Missing
    round: int
    match_id: MatchId | None
    text: str


@dataclass(frozen=True, slots=True)
class StageProgress:
    stage: StageKind
    missing: tuple[MissingItem, ...]

    @property
    def complete(self) -> bool:
        return not self.missing


def stage_progress(
    kind: StageKind, matches: Sequence[MatchStatus], *, rounds: int = 1
) -> StageProgress:
    """What the stage still lacks before the next one can start.

    ``rounds`` is the number of rounds the stage has (qualification: its Swiss rounds;
    Candidates: :func:`candidates_round_count`; knockout stages: 1, the weekly repeats of a final
    being separate matches of the same round). Passing ``StageKind.FINAL`` covers the Third Place
    Playoff too. Raises :class:`StageError` for a match of another stage or a round out of range.
    """
    if rounds < 1:
        raise StageError(
            StageErrorReason.BAD_ROUNDS, f"A stage has at least 1 round, not {rounds}."
        )
    members = _members(kind)
    missing: list[MissingItem] = []
    present: set[int] = set()
    weeks = {
        (frozenset(s.match.players), s.match.stage, s.match.round, s.match.week) for s in matches
    }
    for status in sorted(matches, key=lambda s: (s.match.round, s.match.id)):
        match = status.match
        if match.stage not in members:
            raise StageError(
                StageErrorReason.WRONG_STAGE,
                f"Match {match.id} belongs to the {match.stage.value} stage, not {kind.value}.",
            )
        if not 1 <= match.round <= rounds:
            raise StageError(
                StageErrorReason.BAD_ROUNDS,
                f"Match {match.id} is in round {match.round}; the stage has {rounds}.",
            )
        present.add(match.round)
        names = f"{match.white_first} v {match.black_first}"
        if status.outcome is Outcome.IN_PROGRESS:
            missing.append(
                MissingItem(Missing.UNFINISHED, match.round, match.id, f"{names} is unfinished.")
            )
        elif status.outcome is Outcome.REPEAT:
            key = (frozenset(match.players), match.stage, match.round, match.week + 1)
            if key not in weeks:
                missing.append(
                    MissingItem(
                        Missing.NEXT_WEEK,
                        match.round,
                        match.id,
                        f"{names} is tied after week {match.week} and is played again.",
                    )
                )
        elif status.outcome is Outcome.ARMAGEDDON and not status.armageddon_played:
            missing.append(
                MissingItem(
                    Missing.ARMAGEDDON,
                    match.round,
                    match.id,
                    f"{names} is tied and needs its armageddon game.",
                )
            )
    for number in range(1, rounds + 1):
        if number not in present:
            missing.append(
                MissingItem(Missing.NOT_PAIRED, number, None, f"Round {number} is not paired yet.")
            )
    missing.sort(key=lambda m: (m.round, m.match_id if m.match_id is not None else -1))
    return StageProgress(kind, tuple(missing))


def stage_complete(kind: StageKind, matches: Sequence[MatchStatus], *, rounds: int = 1) -> bool:
    """True when nothing is missing (see :func:`stage_progress`)."""
    return stage_progress(kind, matches, rounds=rounds).complete


# --------------------------------------------------------------------------------------------
# Calendar (rules 4)


@dataclass(frozen=True, slots=True)
class RoundDates:
    """When a round's pairings are published and by when its matches must be complete.

    ``week`` counts weeks from the first publication (0 for the first round). For the final
    matches ``round`` is the week of the match (1 to ``max_weeks``).
    """

    stage: StageKind
    round: int
    week: int
    publish: dt.date
    complete_by: dt.datetime


def completion_deadline(publish: dt.date, calendar: Calendar) -> dt.datetime:
    """The first ``complete_weekday`` (Monday) after ``publish``, at ``complete_time`` UTC
    (rules 4.5)."""
    days = (calendar.complete_weekday - publish.weekday()) % 7 or 7
    return dt.datetime.combine(
        publish + dt.timedelta(days=days), calendar.complete_time, tzinfo=dt.UTC
    )


def candidates_round_count(ruleset: Ruleset) -> int:
    """Rounds of the Candidates: a Berger cycle per meeting (5 for a pool of 6, one meeting)."""
    size = ruleset.stages.pool_size
    per_leg = size - 1 if size % 2 == 0 else size
    return per_leg * ruleset.stages.candidates_meetings


def season_calendar(
    *,
    qualification_rounds: int,
    ruleset: Ruleset,
    candidates_rounds: int | None = None,
) -> tuple[RoundDates, ...]:
    """Publication and completion dates of every round (rules 4.1-4.5).

    Qualification rounds start on ``calendar.first_publication``; one week later each; the
    breaks after the qualification and after the Candidates are
    ``break_weeks_after_qualification``/``break_weeks_after_candidates`` empty weeks. The
    semifinal takes one week; the final matches follow the next week and may take up to
    ``formats.final.max_weeks`` weeks (rules 3.viii.3-5; the final and third place share dates).
    Armageddon games are not on the calendar: the regulations give them no date.

    Raises :class:`StageError` if the first publication is not on the publication weekday or
    a round count is below 1.
    """
    cal = ruleset.calendar
    if cal.first_publication.weekday() != cal.publish_weekday:
        raise StageError(
            StageErrorReason.BAD_CALENDAR,
            f"The first publication, {cal.first_publication:%A %d %B %Y}, is not on the"
            " publication weekday.",
        )
    cand = candidates_round_count(ruleset) if candidates_rounds is None else candidates_rounds
    if qualification_rounds < 1 or cand < 1:
        raise StageError(StageErrorReason.BAD_ROUNDS, "Each stage needs at least one round.")

    out: list[RoundDates] = []

    def add(stage: StageKind, number: int, week: int) -> None:
        publish = cal.first_publication + dt.timedelta(weeks=week)
        out.append(RoundDates(stage, number, week, publish, completion_deadline(publish, cal)))

    week = 0
    for number in range(1, qualification_rounds + 1):
        add(StageKind.QUALIFICATION, number, week)
        week += 1
    week += cal.break_weeks_after_qualification
    for number in range(1, cand + 1):
        add(StageKind.CANDIDATES, number, week)
        week += 1
    week += cal.break_weeks_after_candidates
    add(StageKind.SEMIFINAL, 1, week)
    week += 1
    for number in range(1, ruleset.formats.final.max_weeks + 1):
        add(StageKind.FINAL, number, week)
        add(StageKind.THIRD_PLACE, number, week)
        week += 1
    return tuple(out)
