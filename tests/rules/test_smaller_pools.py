"""Smaller Candidates pools, the TDs' choice when too few qualify (rules 1.3, 5.10)."""

from __future__ import annotations

import pytest

from rules.core.model import PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.stages.candidates import (
    CandidatesError,
    CandidatesErrorReason,
    Pool,
    fewest_qualifiers,
    smaller_pools,
)


def placement(count: int) -> list[PlayerId]:
    return [PlayerId(f"q{i}") for i in range(1, count + 1)]


def test_nine_qualifiers_fill_the_regulation_table_without_place_ten() -> None:
    pools = smaller_pools(placement(9), ruleset=DEFAULT_RULESET)
    # rules 3.vi.2.1: upper 9, 8, 5, 4, 2 and the title holder; lower 10, 7, 6, 3, 1 and the
    # runner-up; place 10 was reached by nobody.
    assert [e.qualification_place for e in pools.entries(Pool.UPPER)] == [None, 2, 4, 5, 8, 9]
    assert [e.qualification_place for e in pools.entries(Pool.LOWER)] == [None, 1, 3, 6, 7]
    assert pools.players(Pool.UPPER)[0] == "pepsingaming"
    assert pools.players(Pool.LOWER)[0] == "grohochetgrom"


def test_pools_that_would_play_fewer_rounds_are_refused() -> None:
    assert fewest_qualifiers(DEFAULT_RULESET) == 8  # pools of 5 and 5 still play 5 rounds
    smaller_pools(placement(8), ruleset=DEFAULT_RULESET)
    with pytest.raises(CandidatesError) as caught:
        smaller_pools(placement(7), ruleset=DEFAULT_RULESET)
    assert caught.value.reason is CandidatesErrorReason.POOL_TOO_SMALL
    assert "fewer than the 5 rounds" in str(caught.value)
