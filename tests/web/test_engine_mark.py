"""Rules 8.i.2: after an engine-mark disqualification in the qualification, every finished game
of the cheater counts for the opponent: in the standings, the match's score and its pages."""

from __future__ import annotations

from fractions import Fraction

from bot.views.qualification import standings
from bot.views.scores import match_state
from tests.web.helpers import NOW, TD, Browser, Site


async def play(site: Site, match_id: int, results: list[str]) -> None:
    async with site.db.uow() as uow:
        for number, result in enumerate(results, start=1):
            await site.service.services.results.record(
                uow, match_id, game_number=number, result=result, reason="test", now=NOW, actor=TD
            )
        await uow.commit()


async def test_an_engine_mark_gives_every_finished_game_to_the_opponent(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = site.matches["alice-bob"]
    # Alice leads 5-1 after six games (the players alternate White), then is found out.
    await play(site, match_id, ["1-0", "0-1", "1-0", "1-0", "1-0", "0-1"])
    async with site.db.uow() as uow:
        before = await match_state(uow, match_id)
    assert before.score is not None
    played = before.score.games_played
    assert played == 6
    assert before.score.first > before.score.second  # Alice (White in game 1) was ahead
    await play(site, site.matches["carol-dave"], ["1-0", "0-1"] * 3)  # the round finishes
    tina = browsers["tina"]
    await tina.login(TD)
    await tina.get("/desk")
    form = {"player": "Alice", "kind": "disqualification", "engine": "1", "reason": "engine mark"}
    await tina.post("/desk/exit", form)
    async with site.db.uow() as uow:
        after = await match_state(uow, match_id)
        table = await standings(uow, site.service.config.rules)
    assert after.engine_adjudicated
    assert after.score is not None
    assert (after.score.first, after.score.second) == (Fraction(0), Fraction(played))
    bob = next(r for r in table.rows if r.player == "bob")
    alice = next(r for r in table.rows if r.player == "alice")
    assert bob.game_points == Fraction(played)
    assert alice.game_points == Fraction(0)
    html = await browsers["nobody"].get("/standings")
    assert html.count(f">{played}<") >= 1
