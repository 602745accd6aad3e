"""Two forfeits in different matches: disqualification, pending a TD (rules 6.5)."""

from __future__ import annotations

import dataclasses

import pytest

from rules.core.model import MatchId
from rules.core.ruleset import DEFAULT_RULESET, Conduct
from rules.week.forfeits import (
    ForfeitError,
    ForfeitKind,
    ForfeitRecord,
    disqualifications_due,
)
from tests.rules.stage_helpers import pid

R = DEFAULT_RULESET


def rec(
    player: str, match: int, *, kind: ForfeitKind = ForfeitKind.MATCH, waived: bool = False
) -> ForfeitRecord:
    return ForfeitRecord(pid(player), MatchId(match), kind, waived=waived)


def test_forfeits_in_two_different_matches_disqualify() -> None:
    out = disqualifications_due(
        [rec("a", 1), rec("b", 1), rec("a", 2, kind=ForfeitKind.GAME)], ruleset=R
    )
    assert [(p.player, p.match_ids) for p in out] == [("a", (1, 2))]
    assert "6.5" in out[0].text


def test_two_forfeits_in_one_match_are_not_enough() -> None:
    out = disqualifications_due([rec("a", 1, kind=ForfeitKind.GAME), rec("a", 1)], ruleset=R)
    assert out == ()


def test_waived_forfeits_do_not_count() -> None:
    assert disqualifications_due([rec("a", 1), rec("a", 2, waived=True)], ruleset=R) == ()


def test_already_disqualified_players_are_not_proposed_again() -> None:
    records = [rec("a", 1), rec("a", 2), rec("c", 3), rec("c", 4)]
    out = disqualifications_due(records, ruleset=R, already_disqualified=[pid("a")])
    assert [p.player for p in out] == ["c"]


def test_proposals_are_sorted_by_player_and_limit_is_configurable() -> None:
    records = [rec("z", 5), rec("b", 1), rec("z", 6), rec("b", 2), rec("m", 3)]
    assert [p.player for p in disqualifications_due(records, ruleset=R)] == ["b", "z"]
    strict = dataclasses.replace(R, conduct=Conduct(forfeit_limit=1))
    assert [p.player for p in disqualifications_due(records, ruleset=strict)] == ["b", "m", "z"]
    with pytest.raises(ForfeitError):
        disqualifications_due(
            records, ruleset=dataclasses.replace(R, conduct=Conduct(forfeit_limit=0))
        )
