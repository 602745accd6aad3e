"""The armageddon's rulings on the desk (rules 3.ix), through the services the command line's
armageddon rulings call: the TDs name White when nobody chose, and record the game by hand."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.config import Config
from bot.runtime.deadlines import DeadlineRunner
from bot.views.bracket import armageddon_view
from bot.web.desk.armageddon_cards import ArmageddonDecisions
from bot.web.desk.decisions import Ruling
from storage.db import Database
from tests.stages.helpers import config_for, semifinal_at_armageddon


@pytest.fixture
def config(database_url: str) -> Config:
    return config_for(database_url)


async def test_the_tds_name_white_and_record_the_armageddon_game_from_the_desk(
    db: Database, config: Config
) -> None:
    sf1, clock, found = await semifinal_at_armageddon(db, config)  # ten draws: level
    a, b = sf1.white_first, sf1.black_first
    assert b is not None
    runner = DeadlineRunner(db, clock, found.armageddons.handlers())
    source = ArmageddonDecisions()
    for _ in range(6):  # nobody bids, nobody plays rock-paper-scissors: the TDs decide
        clock.advance(dt.timedelta(hours=25))
        await runner.fire_due()
        async with db.uow() as uow:
            view = await armageddon_view(uow, sf1.id, config.rules)
        assert view is not None
        if view["phase"] == "needs_td":
            break
    assert view is not None
    assert view["phase"] == "needs_td"
    async with db.uow() as uow:
        (card,) = await source.pending(uow, found, now=clock.now())
        assert card.title.startswith(f"Armageddon of match {sf1.id}")
        assert [c.value for c in card.choices] == [f"white:{a}", f"white:{b}"]
        assert any("rock-paper-scissors" in e.text for e in card.evidence)
        said = await source.settle(
            uow, found, Ruling(card.key, f"white:{b}", "", "odmwnd", clock.now())
        )
        await uow.commit()
    assert said
    async with db.uow() as uow:
        (card,) = await source.pending(uow, found, now=clock.now())
        assert card.optional  # the game is recorded by hand only if Lichess did not show it
        assert [c.value for c in card.choices] == ["1-0", "0-1", "1/2-1/2"]
        said = await source.settle(
            uow,
            found,
            Ruling(card.key, "1/2-1/2", "played on a private link", "odmwnd", clock.now()),
        )
        await uow.commit()
    assert said == f"Match {sf1.id}: {a} wins the armageddon game."  # a draw: Black wins
    async with db.uow() as uow:
        row = await uow.matches.get(sf1.id)
        assert row is not None
        assert (row.state, row.decided_by) == ("complete", "armageddon")
        assert await source.pending(uow, found, now=clock.now()) == []
        actions = [r.action for r in await uow.audit.list(match_id=sf1.id)]
    assert "armageddon.td_decide" in actions or any("armageddon" in x for x in actions)
