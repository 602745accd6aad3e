"""Stage order, completion and the calendar (rules 3.ii, 4.1-4.5)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from rules.core.ruleset import DEFAULT_RULESET, Calendar, StageKind, Stages
from rules.core.scoring import Outcome
from rules.stages.formats import (
    STAGES,
    next_stage,
    stage_format,
    stage_kinds,
    stage_name,
    stage_title,
)
from rules.stages.order import (
    MatchStatus,
    Missing,
    StageError,
    StageErrorReason,
    candidates_round_count,
    completion_deadline,
    season_calendar,
    stage_complete,
    stage_progress,
)
from tests.rules.stage_helpers import make_match

R = DEFAULT_RULESET
UTC = dt.UTC


@pytest.mark.parametrize(
    ("kind", "after"),
    [
        (StageKind.QUALIFICATION, StageKind.CANDIDATES),
        (StageKind.CANDIDATES, StageKind.SEMIFINAL),
        (StageKind.SEMIFINAL, StageKind.FINAL),
        (StageKind.FINAL, None),
        (StageKind.THIRD_PLACE, None),
    ],
)
def test_next_stage(kind: StageKind, after: StageKind | None) -> None:
    assert next_stage(kind, R) is after


def test_the_2021_championship_has_four_stages_and_five_kinds() -> None:
    assert len([fmt for fmt in STAGES if fmt.played(R)]) == 4
    assert stage_kinds(R) == (
        StageKind.QUALIFICATION,
        StageKind.CANDIDATES,
        StageKind.SEMIFINAL,
        StageKind.FINAL,
        StageKind.THIRD_PLACE,
    )


def test_every_kind_has_one_format_and_its_names() -> None:
    for kind in StageKind:
        assert stage_name(kind)
        assert stage_title(kind)
    assert (stage_name("semifinal"), stage_title("semifinal")) == ("Semifinal", "Semifinals")
    assert stage_name(StageKind.THIRD_PLACE) == "Third place"


# --- completion ------------------------------------------------------------------------------


def status(a: str, b: str, stage: StageKind, outcome: Outcome, **kw: int) -> MatchStatus:
    mid = kw.pop("mid", 1)
    return MatchStatus(make_match(a, b, stage, mid=mid, **kw), outcome)


def test_candidates_complete_only_when_every_round_is_finished() -> None:
    done = [
        status("a", "b", StageKind.CANDIDATES, Outcome.TIED, mid=1, round_=1),
        status("c", "d", StageKind.CANDIDATES, Outcome.FIRST_WINS, mid=2, round_=2),
    ]
    assert stage_complete(StageKind.CANDIDATES, done, rounds=2)
    running = [*done, status("a", "c", StageKind.CANDIDATES, Outcome.IN_PROGRESS, mid=3, round_=2)]
    progress = stage_progress(StageKind.CANDIDATES, running, rounds=3)
    assert not progress.complete
    assert [(m.reason, m.round, m.match_id) for m in progress.missing] == [
        (Missing.UNFINISHED, 2, 3),
        (Missing.NOT_PAIRED, 3, None),
    ]
    assert "a v c" in progress.missing[0].text


def test_tied_semifinal_waits_for_its_armageddon() -> None:
    tied = status("a", "b", StageKind.SEMIFINAL, Outcome.ARMAGEDDON)
    progress = stage_progress(StageKind.SEMIFINAL, [tied])
    assert [m.reason for m in progress.missing] == [Missing.ARMAGEDDON]
    played = dataclasses.replace(tied, armageddon_played=True)
    assert stage_complete(StageKind.SEMIFINAL, [played])


def test_tied_final_week_waits_for_the_next_week() -> None:
    w1 = status("a", "b", StageKind.FINAL, Outcome.REPEAT, mid=1)
    third = status("c", "d", StageKind.THIRD_PLACE, Outcome.FIRST_WINS, mid=2)
    progress = stage_progress(StageKind.FINAL, [w1, third])
    assert [m.reason for m in progress.missing] == [Missing.NEXT_WEEK]
    w2 = status("b", "a", StageKind.FINAL, Outcome.SECOND_WINS, mid=3, week=2)
    assert stage_complete(StageKind.FINAL, [w1, w2, third])


def test_stage_progress_refuses_foreign_matches_and_rounds() -> None:
    with pytest.raises(StageError) as err:
        stage_progress(StageKind.CANDIDATES, [status("a", "b", StageKind.SEMIFINAL, Outcome.TIED)])
    assert err.value.reason is StageErrorReason.WRONG_STAGE
    with pytest.raises(StageError) as err:
        stage_progress(
            StageKind.CANDIDATES,
            [status("a", "b", StageKind.CANDIDATES, Outcome.TIED, round_=6)],
            rounds=5,
        )
    assert err.value.reason is StageErrorReason.BAD_ROUNDS
    with pytest.raises(StageError):
        stage_progress(StageKind.CANDIDATES, [], rounds=0)


# --- calendar --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("publish", "deadline"),
    [
        (dt.date(2021, 10, 12), dt.datetime(2021, 10, 18, 23, 59, tzinfo=UTC)),  # Tuesday
        (dt.date(2021, 10, 18), dt.datetime(2021, 10, 25, 23, 59, tzinfo=UTC)),  # a Monday
        (dt.date(2021, 10, 17), dt.datetime(2021, 10, 18, 23, 59, tzinfo=UTC)),  # a Sunday
    ],
)
def test_matches_complete_by_the_following_monday_2359_utc(
    publish: dt.date, deadline: dt.datetime
) -> None:
    assert completion_deadline(publish, R.calendar) == deadline


def test_candidates_round_count() -> None:
    assert candidates_round_count(R) == 5
    double = dataclasses.replace(R, stages=Stages(candidates_meetings=2))
    assert candidates_round_count(double) == 10
    odd = dataclasses.replace(R, stages=Stages(pool_size=5))
    assert candidates_round_count(odd) == 5


def test_2021_season_calendar_with_seven_swiss_rounds() -> None:
    cal = season_calendar(qualification_rounds=7, ruleset=R)
    by = {(d.stage, d.round): d for d in cal}
    assert by[(StageKind.QUALIFICATION, 1)].publish == dt.date(2021, 10, 12)
    assert by[(StageKind.QUALIFICATION, 7)].publish == dt.date(2021, 11, 23)
    # one free week (Nov 30), then the Candidates
    assert by[(StageKind.CANDIDATES, 1)].publish == dt.date(2021, 12, 7)
    assert by[(StageKind.CANDIDATES, 5)].publish == dt.date(2022, 1, 4)
    # one free week (Jan 11), then the semifinals
    assert by[(StageKind.SEMIFINAL, 1)].publish == dt.date(2022, 1, 18)
    assert by[(StageKind.FINAL, 1)].publish == dt.date(2022, 1, 25)
    assert by[(StageKind.THIRD_PLACE, 3)].publish == dt.date(2022, 2, 8)
    assert by[(StageKind.FINAL, 3)].complete_by == dt.datetime(2022, 2, 14, 23, 59, tzinfo=UTC)
    assert all(d.publish.weekday() == 1 for d in cal)
    assert all(d.complete_by.weekday() == 0 for d in cal)
    weeks = sorted({d.week for d in cal})
    assert 7 not in weeks
    assert 13 not in weeks


def test_break_lengths_come_from_the_calendar() -> None:
    ruleset = dataclasses.replace(
        R, calendar=Calendar(break_weeks_after_qualification=0, break_weeks_after_candidates=2)
    )
    cal = season_calendar(qualification_rounds=1, candidates_rounds=1, ruleset=ruleset)
    assert [(d.stage, d.week) for d in cal[:3]] == [
        (StageKind.QUALIFICATION, 0),
        (StageKind.CANDIDATES, 1),
        (StageKind.SEMIFINAL, 4),
    ]


def test_calendar_refuses_a_first_publication_off_the_weekday() -> None:
    ruleset = dataclasses.replace(R, calendar=Calendar(first_publication=dt.date(2021, 10, 13)))
    with pytest.raises(StageError) as err:
        season_calendar(qualification_rounds=7, ruleset=ruleset)
    assert err.value.reason is StageErrorReason.BAD_CALENDAR
    with pytest.raises(StageError) as err:
        season_calendar(qualification_rounds=0, ruleset=R)
    assert err.value.reason is StageErrorReason.BAD_ROUNDS


def test_each_stage_declares_the_match_format_of_each_of_its_members() -> None:
    formats = dataclasses.replace(
        DEFAULT_RULESET.formats,
        third_place=dataclasses.replace(DEFAULT_RULESET.formats.final, games=8),
    )
    ruleset = dataclasses.replace(DEFAULT_RULESET, formats=formats)
    for fmt in STAGES:
        for kind in fmt.members:
            assert fmt.match_format(ruleset, kind) == formats.for_stage(kind), kind
    final = stage_format(StageKind.FINAL)
    assert final.match_format(ruleset).games == 12
    assert final.match_format(ruleset, StageKind.THIRD_PLACE).games == 8
