"""Too few qualifiers for the Candidates (a withdrawal in a small field): the service never
stops on it, and the desk puts the choice to the TDs (rules 1.3, 5.10)."""

from __future__ import annotations

import pytest

from bot.config import Config
from bot.web.desk.decisions import Ruling
from bot.web.desk.stage_cards import StageStarts
from rules.core.errors import RulesError
from rules.core.ruleset import StageKind
from storage.db import Database
from tests.stages.helpers import (
    config_for,
    first_wins,
    matches_of,
    pair_qualification,
    play,
    register,
    services,
    tuesday,
)


@pytest.fixture
def config(database_url: str) -> Config:
    return config_for(database_url)


async def test_too_few_qualifiers_is_a_choice_for_the_tds_and_smaller_pools_start(
    db: Database, config: Config
) -> None:
    await register(db, config)
    for number in range(1, 6):
        for match_id in await pair_qualification(db, config, number):
            await play(db, match_id, first_wins())
    found = services(db, config)
    async with db.uow() as uow:  # one of the ten qualifiers leaves: nine remain for ten places
        await found.exits.exit_player(
            uow,
            player="player10",
            kind="withdrawal",
            reason="moving house",
            engine_mark=False,
            now=tuesday(5),
            actor="odmwnd",
        )
        await uow.commit()
    source = StageStarts()
    async with db.uow() as uow:
        (card,) = await source.pending(uow, found, now=tuesday(5))
        with pytest.raises(RulesError, match="need 10 qualifiers"):
            await found.progression.advance(uow, now=tuesday(5), actor="odmwnd")
    assert card.title == "Too few qualifiers for the Candidates: 9 of 10"
    assert "rules 1.3, 5.10" in card.summary
    assert [(c.value, c.needs_reason) for c in card.choices] == [("smaller", True)]
    async with db.uow() as uow:
        said = await source.settle(
            uow,
            found,
            Ruling(card.key, "smaller", "nine qualifiers left; start now", "odmwnd", tuesday(5)),
        )
        await uow.commit()
    assert "candidates" in said.lower()
    async with db.uow() as uow:
        tournament = await uow.tournaments.current()
        assert tournament is not None
        assert tournament.current_stage == StageKind.CANDIDATES.value
        assert await source.pending(uow, found, now=tuesday(5)) == []
        audit = [r.action for r in await uow.audit.list()]
    assert "stage.small_field" in audit
    matches = await matches_of(db, StageKind.CANDIDATES)
    # pools of 6 (3 matches a round) and 5 (2 matches, a bye): 5 Berger rounds each
    assert len(matches) == 5 * 3 + 5 * 2
    assert len({frozenset((m.white_first, m.black_first)) for m in matches}) == 25
    assert "player10" not in {p for m in matches for p in (m.white_first, m.black_first)}
