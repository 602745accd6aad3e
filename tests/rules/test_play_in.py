"""The play-in round (rules/stages/play_in.py): off by default; its matches and the placement
after it."""

from __future__ import annotations

import dataclasses

from rules.core.model import PlayerId
from rules.core.ruleset import DEFAULT_RULESET, Ruleset, StageKind
from rules.stages.formats import STAGE_FORMATS, fixed_stages, next_stage, stage_kinds, stage_name
from rules.stages.play_in import PlayInFormat, play_in_places


def with_play_in(matches: int) -> Ruleset:
    stages = dataclasses.replace(DEFAULT_RULESET.stages, play_in_matches=matches)
    return dataclasses.replace(DEFAULT_RULESET, stages=stages)


def placement(n: int) -> tuple[PlayerId, ...]:
    return tuple(PlayerId(f"p{i:02d}") for i in range(1, n + 1))


def test_the_play_in_is_off_by_default() -> None:
    assert next_stage(StageKind.QUALIFICATION, DEFAULT_RULESET) is StageKind.CANDIDATES
    assert StageKind.PLAY_IN not in stage_kinds(DEFAULT_RULESET)


def test_on_it_comes_between_the_qualification_and_the_candidates() -> None:
    ruleset = with_play_in(2)
    assert next_stage(StageKind.QUALIFICATION, ruleset) is StageKind.PLAY_IN
    assert next_stage(StageKind.PLAY_IN, ruleset) is StageKind.CANDIDATES
    assert stage_kinds(ruleset)[:3] == (
        StageKind.QUALIFICATION,
        StageKind.PLAY_IN,
        StageKind.CANDIDATES,
    )
    assert StageKind.PLAY_IN in fixed_stages(ruleset)
    assert stage_name(StageKind.PLAY_IN) == "Play-in"
    assert STAGE_FORMATS[StageKind.PLAY_IN].round_count(entrants=20, ruleset=ruleset) == 1


def test_the_last_qualifiers_meet_the_next_places_best_against_last() -> None:
    ruleset = with_play_in(2)  # 10 places: 9 and 10 play in against 12 and 11
    assert play_in_places(ruleset) == (9, 12)
    assert PlayInFormat().pairings(placement(14), ruleset) == (
        (PlayerId("p09"), PlayerId("p12")),
        (PlayerId("p10"), PlayerId("p11")),
    )


def test_a_winner_takes_the_better_place_and_a_tie_goes_to_the_better_placed() -> None:
    ruleset = with_play_in(2)
    field = placement(14)
    winners = {
        frozenset((PlayerId("p09"), PlayerId("p12"))): PlayerId("p12"),
        frozenset((PlayerId("p10"), PlayerId("p11"))): None,
    }
    after = PlayInFormat().placement_after(field, winners, ruleset)
    assert after[8:12] == (PlayerId("p12"), PlayerId("p10"), PlayerId("p11"), PlayerId("p09"))
    assert after[:8] == field[:8]
    assert after[12:] == field[12:]


def test_a_short_field_plays_only_the_matches_it_has() -> None:
    ruleset = with_play_in(2)  # 11 players: place 12 is empty, so 9 keeps their place
    assert PlayInFormat().pairings(placement(11), ruleset) == ((PlayerId("p10"), PlayerId("p11")),)
