"""Match conduct on the clock (rules 6.1-6.4), through the service against the sandbox: every
game's end time (from the export when the stream lacks it), a deadline at a break's end, a
leaver's 10 minutes timed from the game's end with the opponent's claim opening at once, and
the TDs' single game forfeit (rules 6.2)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from bot.errors import OperationError
from bot.sandbox.schemas import make_game
from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, PlayerId
from tests.weekly.harness import Week, at


async def _agreed(week: Week) -> int:
    """alice - bob, agreed for Thu 14 Oct 18:00 UTC."""
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")
    assert (await week.say(match_id, "bob", "accept 2")).ok
    return match_id


async def test_a_break_has_a_deadline_at_its_end_and_the_claim_opens_then(week: Week) -> None:
    match_id = await _agreed(week)
    await week.play("alice", "bob", start=at(14, 18, 0), minutes=6)
    week.clock.set(at(14, 18, 7))
    assert (await week.say(match_id, "alice", "break")).changed
    assert ("pause_check", at(14, 18, 17) + dt.timedelta(seconds=1)) in await week.open_deadlines(
        match_id
    )
    assert await week.until(at(14, 18, 17)) == []  # the break is not over
    assert await week.until(at(14, 18, 18)) == ["pause_check"]  # and nobody came back
    (alert,) = [a for a in await week.alerts() if "Pause after game 1" in a]
    assert "so far, longer than the 10 min 00 s a break may last" in alert
    assert "taken by Alice" in alert
    assert "You may send `claim win`" in (await week.dms_to("bob"))[-1]
    assert (await week.say(match_id, "bob", "claim win")).changed
    assert "Alice overran the break" in (await week.alerts())[-1]


async def test_a_leavers_ten_minutes_run_from_the_games_end(week: Week) -> None:
    """Rules 6.4: bob leaves game 1 (lost on time); 10 minutes later alice may claim at once,
    not when (if ever) another game comes."""
    match_id = await _agreed(week)
    await week.play(
        "alice", "bob", start=at(14, 18, 0), minutes=6, winner="w", status=GameStatus.TIMEOUT
    )
    view = await week.view(match_id, "alice")
    assert "break" in view.actions  # the game's end is known: a break may be called
    assert (await week.say(match_id, "alice", "claim win")).reason == "no_claim"
    assert await week.until(at(14, 18, 16)) == []
    assert await week.until(at(14, 18, 17)) == ["pause_check"]
    assert "You may send `claim win`" in (await week.dms_to("alice"))[-1]
    reply = await week.say(match_id, "alice", "claim win")  # +11 minutes
    assert reply.changed
    assert "Bob overran the break" in (await week.alerts())[-1]


async def test_a_game_that_comes_back_in_time_cancels_the_check(week: Week) -> None:
    match_id = await _agreed(week)
    await week.play("alice", "bob", start=at(14, 18, 0), minutes=6)
    await week.play("bob", "alice", start=at(14, 18, 8), minutes=6, winner="b")
    checks = [d for d in await week.deadlines(match_id) if d.kind == "pause_check"]
    assert [d.cancelled_at is not None for d in checks] == [True, False]
    assert await week.until(at(14, 18, 24)) == []  # game 1's check was cancelled
    assert not [a for a in await week.alerts() if "Pause after game" in a]
    # Then nobody plays on, and nobody called a break: the TDs hear of it at once, no claim.
    assert await week.until(at(14, 18, 25)) == ["pause_check"]
    (alert,) = [a for a in await week.alerts() if "Pause after game 2" in a]
    assert "so far" in alert
    view = await week.view(match_id, "alice")
    assert view.claims == ()


async def test_the_end_time_comes_from_the_export_when_the_stream_lacks_it(week: Week) -> None:
    match_id = await _agreed(week)
    start, end = at(14, 18, 0), at(14, 18, 7)
    week.state.add_game(
        make_game(
            "alice",
            "bob",
            id="endtime1",
            created_at=start,
            last_move_at=end,
            status="variantEnd",
            winner="white",
        )
    )
    streamed = Game(
        id=GameId("endtime1"),
        white=PlayerId("alice"),
        black=PlayerId("bob"),
        status=GameStatus.VARIANT_END,
        winner=Colour.WHITE,
        variant="antichess",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        created_at=start,
        last_move_at=None,  # the stream's finished game says no end time
        source=None,
    )
    week.clock.set(at(14, 18, 8))
    assert await week.services.intake(streamed)
    async with week.db.uow() as uow:
        stored = await uow.games.get("endtime1")
    assert stored is not None
    assert stored.counted
    assert stored.last_move_at == end
    assert "break" in (await week.view(match_id, "bob")).actions
    week.clock.set(at(14, 18, 20))
    lost = dataclasses.replace(streamed, id=GameId("endtime2"), created_at=at(14, 18, 9))
    assert await week.services.intake(lost)  # the export does not know it: seen ends it
    async with week.db.uow() as uow:
        second = await uow.games.get("endtime2")
    assert second is not None
    assert second.last_move_at == at(14, 18, 20)


async def test_the_tds_charge_a_single_game_forfeit(week: Week) -> None:
    match_id = await _agreed(week)
    await week.play("alice", "bob", start=at(14, 18, 0), minutes=6)
    async with week.db.uow() as uow:
        with pytest.raises(OperationError, match="carol does not play"):
            await week.services.conduct.charge_game_forfeit(
                uow,
                week.services.results,
                match_id=match_id,
                player="carol",
                reason="x",
                now=week.clock.now(),
                actor="odmwnd",
            )
        number = await week.services.conduct.charge_game_forfeit(
            uow,
            week.services.results,
            match_id=match_id,
            player="Bob",
            reason="no rematch offered after game 1, twice",
            now=week.clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    assert number == 2
    view = await week.view(match_id, "alice")
    assert view.score == "2-0"  # game 2: bob had White and forfeited it
    async with week.db.uow() as uow:
        (forfeit,) = await uow.weekly.forfeits(player="bob")
    assert (forfeit.kind, forfeit.match_id) == ("game", match_id)
    assert "forfeited by Bob (rules 6.2" in (await week.dms_to("alice"))[-1]
