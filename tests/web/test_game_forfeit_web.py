"""The TDs' single game forfeit (rules 6.2) from the match room, over HTTP: a TD-only form that
records the next game as the opponent's win, puts the forfeit on the record, and tells why."""

from __future__ import annotations

from tests.web.helpers import TD, Browser, Site, flash_text


async def test_a_td_charges_a_game_forfeit_from_the_room(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = site.matches["alice-bob"]
    alice = browsers["alice"]
    await alice.login("alice")
    html = await alice.get(f"/match/{match_id}")
    assert "charge a game forfeit" not in html  # a player does not see the TDs' form
    await alice.post(
        f"/desk/match/{match_id}/game-forfeit", {"player": "bob", "reason": "x"}, status=403
    )
    tina = browsers["tina"]
    await tina.login(TD)
    html = await tina.get(f"/match/{match_id}")
    assert "TD: charge a game forfeit (rules 6.2)" in html
    html = await tina.post(f"/desk/match/{match_id}/game-forfeit", {"player": "bob"})
    assert flash_text(html) == "a reason is required: it goes into the audit log"
    html = await tina.post(
        f"/desk/match/{match_id}/game-forfeit",
        {"player": "bob", "reason": "no rematch offered, again"},
    )
    assert flash_text(html) == "Game 1 recorded as forfeited by Bob (rules 6.2)."
    async with site.db.uow() as uow:
        (forfeit,) = await uow.weekly.forfeits(player="bob")
        (game,) = await uow.games.for_match(match_id)
    assert (forfeit.kind, forfeit.recorded_by) == ("game", TD)
    assert (game.white, game.winner) == ("alice", "w")
