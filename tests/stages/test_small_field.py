"""Too few qualifiers for the Candidates (a withdrawal in a small field): the service never
stops on it, and the desk puts the choice to the TDs (rules 1.3, 5.10)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from bot.config import Config
from bot.errors import OperationError
from bot.service.services import Services
from bot.service.stages.candidates import SMALL_FIELD
from bot.service.stages.registry import AdvanceReport
from bot.service.stages.small_field import SmallFieldChoice, choose
from bot.views.candidates import pool_entries
from bot.views.qualification import qualification_stage
from bot.web.desk.decisions import Ruling
from bot.web.desk.stage_cards import RoundApprovals, StageStarts
from rules.core.errors import RulesError
from rules.core.ruleset import StageKind
from rules.core.states import StageState
from storage.db import Database
from storage.uow import UnitOfWork
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


async def nine_for_ten(db: Database, config: Config, *, reserves: int = 0) -> Services:
    """The qualification played out, then one of the ten qualifiers leaves: nine remain for ten
    places. ``reserves`` players register after the qualification's field was fixed."""
    await register(db, config)
    for number in range(1, 6):
        for match_id in await pair_qualification(db, config, number):
            await play(db, match_id, first_wins())
    found = services(db, config)
    async with db.uow() as uow:
        for i in range(1, reserves + 1):
            await found.players.add(
                uow, f"Reserve{i}", seed_rating=1900 + i, now=tuesday(5), actor="odmwnd"
            )
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
    return found


async def td_chooses(
    uow: UnitOfWork, found: Services, choice: SmallFieldChoice, reason: str, now: dt.datetime
) -> AdvanceReport:
    return await choose(uow, found.progression, choice, reason=reason, now=now, actor="odmwnd")


async def test_too_few_qualifiers_is_a_choice_for_the_tds_and_smaller_pools_start(
    db: Database, config: Config
) -> None:
    found = await nine_for_ten(db, config)
    source = StageStarts()
    async with db.uow() as uow:
        (card,) = await source.pending(uow, found, now=tuesday(5))
        with pytest.raises(RulesError, match="need 10 qualifiers"):
            await found.progression.advance(uow, now=tuesday(5), actor="odmwnd")
    assert card.title == "Too few qualifiers for the Candidates: 9 of 10"
    assert "rules 1.3, 5.10" in card.summary
    # Nobody is left at the next places: smaller pools or the end, each with a reason.
    assert [(c.value, c.needs_reason) for c in card.choices] == [
        ("smaller_pools", True),
        ("end_stage", True),
    ]
    assert "nobody is left to take them" in card.summary
    async with db.uow() as uow:
        said = await source.settle(
            uow,
            found,
            Ruling(card.key, "smaller_pools", "nine left; start now", "odmwnd", tuesday(5)),
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
    by_hand = dataclasses.replace(  # the TDs publish the fixed rounds themselves
        found,
        config=dataclasses.replace(
            found.config,
            tournament=dataclasses.replace(found.config.tournament, publish_fixed_rounds=False),
        ),
    )
    async with db.uow() as uow:  # five rounds proposed; only the next one waits for approval
        titles = [d.title for d in await RoundApprovals().pending(uow, by_hand, now=tuesday(5))]
        # by default the daily job publishes them on their day: nothing for the TDs
        by_itself = await RoundApprovals().pending(uow, found, now=tuesday(5))
    assert titles == ["Approve pairings: Candidates round 1"]
    assert by_itself == []


async def test_the_tds_fill_the_empty_place_from_the_next_places_and_full_pools_start(
    db: Database, config: Config
) -> None:
    found = await nine_for_ten(db, config, reserves=2)
    source = StageStarts()
    async with db.uow() as uow:
        (card,) = await source.pending(uow, found, now=tuesday(5))
        assert "fill_next_places" in [c.value for c in card.choices]
        assert "2 waiting" in card.summary
        said = await source.settle(
            uow, found, Ruling(card.key, "fill_next_places", "reserve asked", "odmwnd", tuesday(5))
        )
        await uow.commit()
    assert "candidates" in said.lower()
    matches = await matches_of(db, StageKind.CANDIDATES)
    seated = {p for m in matches for p in (m.white_first, m.black_first)}
    assert len(seated) == 12  # two full pools of six: ten places and the two seeded
    assert "reserve2" in seated  # the better-rated reserve takes the empty place
    assert "reserve1" not in seated
    assert "player10" not in seated
    assert len(matches) == 5 * 3 * 2  # 5 Berger rounds, 3 matches a pool a round
    async with db.uow() as uow:
        small = [r for r in await uow.audit.list() if r.action == "stage.small_field"]
        pools = await pool_entries(uow)
    assert [(r.reason, r.details["reserves"]) for r in small] == [("reserve asked", ["reserve2"])]
    places = [e.qualification_place for p in pools.values() for e in p if e.player == "reserve2"]
    assert places == [10]  # after the nine qualifiers


async def test_the_tds_end_the_championship_with_the_qualification(
    db: Database, config: Config
) -> None:
    found = await nine_for_ten(db, config)
    async with db.uow() as uow:
        report = await td_chooses(
            uow, found, SmallFieldChoice.END, "too few players for the Candidates", tuesday(5)
        )
        await uow.commit()
    assert report.entered is None
    assert report.placement[:2] == ("player01", "player02")
    assert "player10" not in report.placement
    async with db.uow() as uow:
        stage = await qualification_stage(uow)
        assert stage.state == StageState.COMPLETE
        assert await StageStarts().pending(uow, found, now=tuesday(5)) == []  # nothing waits
        with pytest.raises(OperationError, match="the TDs ended it with the qualification"):
            await found.progression.advance(uow, now=tuesday(6), actor="odmwnd")
        with pytest.raises(OperationError, match="nothing to choose"):
            await td_chooses(
                uow, found, SmallFieldChoice.SMALLER_POOLS, "changed our minds", tuesday(6)
            )
    assert await matches_of(db, StageKind.CANDIDATES) == []


async def test_filling_without_anyone_at_the_next_places_is_refused_and_changes_nothing(
    db: Database, config: Config
) -> None:
    found = await nine_for_ten(db, config)
    async with db.uow() as uow:
        with pytest.raises(OperationError, match="0 reserve"):
            await td_chooses(uow, found, SmallFieldChoice.FILL, "fill it", tuesday(5))
        assert await uow.settings.get(SMALL_FIELD) is None
        assert (await StageStarts().pending(uow, found, now=tuesday(5)))[0].kind == "stage"
