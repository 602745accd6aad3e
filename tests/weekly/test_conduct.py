"""Match conduct: no-shows with the appearing player's claim, breaks, forfeits and
disqualification (rules 6.1-6.5), with user statuses read from the sandbox over HTTP."""

from __future__ import annotations

import pytest

from bot.errors import OperationError
from rules.core.model import PlayerId
from rules.talk.spelling import as_lichess_message
from tests.weekly.harness import Week, at


async def _agreed(week: Week, pair: tuple[str, str] = ("alice", "bob")) -> int:
    """A match agreed for Thu 14 Oct 18:00 UTC."""
    (match_id,) = await week.publish(pair)
    await week.say(match_id, pair[0], "offer wed 18:00, thu 18:00, fri 20:00")
    assert (await week.say(match_id, pair[1], "accept 2")).ok
    return match_id


async def test_no_show_alerts_then_the_appearing_player_claims_and_wins(week: Week) -> None:
    match_id = await _agreed(week)
    week.state.users[PlayerId("alice")].online = True
    assert await week.until(at(14, 18, 10)) == ["no_show_first"]
    (first,) = await week.alerts()
    assert "Bob has not shown up 10 minutes after the agreed time; Alice is there" in first
    assert "seen online since then: Alice" in first
    assert "The TDs have been told for you" in (await week.dms_to("alice"))[-1]
    assert "you have not shown up" in (await week.dms_to("bob"))[-1]

    week.state.users[PlayerId("alice")].online = False  # seen at +10 still counts at +20
    assert await week.until(at(14, 18, 20)) == ["no_show_second"]
    second = (await week.alerts())[-1]
    assert "Settle it with the buttons on the TD desk." in second
    assert "acwc claim" not in second
    assert "You may `claim win`" in (await week.dms_to("alice"))[-1]
    assert "claim win" in (await week.view(match_id, "alice")).actions
    assert "claim win" not in (await week.view(match_id, "bob")).actions

    assert (await week.say(match_id, "bob", "claim win")).reason == "no_claim"
    week.clock.set(at(14, 18, 22))
    claim = await week.say(match_id, "alice", "claim win")
    assert claim.changed
    assert (
        "Alice claims the match win: Bob did not show up (rules 6.3)" in (await week.alerts())[-1]
    )
    again = await week.say(match_id, "alice", "claim win")
    assert not again.changed
    assert "already claimed" in again.text

    async with week.db.uow() as uow:
        await week.services.decisions.decide_claim(
            uow,
            match_id,
            winner="alice",
            reason="bob did not show",
            now=week.clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    row = await week.match(match_id)
    assert (row.outcome, row.decided_by, row.state) == ("first_wins", "forfeit", "complete")
    async with week.db.uow() as uow:
        (forfeit,) = await uow.weekly.forfeits()
    assert (forfeit.player_id, forfeit.kind, forfeit.reason) == ("bob", "match", "no_show")
    assert "Alice - Bob by forfeit (Alice wins)" in (await week.dms_to("bob"))[-1]
    assert await week.open_deadlines(match_id) == []

    sent = await week.deliver()
    assert sent > 0
    # as stored, but a `command` reaches Lichess as "command" (no Markdown there)
    assert week.received("alice") == [as_lichess_message(b) for b in await week.dms_to("alice")]
    alerts = [r for r in await week.outbox("td_alert") if r.recipient == "ODMWND"]
    assert len(week.received("odmwnd")) == len(alerts)


async def test_dismissed_claim_leaves_the_match_open(week: Week) -> None:
    match_id = await _agreed(week)
    week.state.users[PlayerId("bob")].online = True
    await week.until(at(14, 18, 21))
    assert (await week.say(match_id, "bob", "claim win")).changed
    async with week.db.uow() as uow:
        await week.services.decisions.decide_claim(
            uow,
            match_id,
            winner=None,
            reason="alice had a power cut",
            now=week.clock.now(),
            actor="shiaxou",
        )
        await uow.commit()
    assert (await week.match(match_id)).outcome is None
    assert "dismissed the claim" in (await week.dms_to("bob"))[-1]
    assert (await week.say(match_id, "bob", "claim win")).reason == "no_claim"


async def test_breaks_once_each_and_an_overrun_gives_the_opponent_a_claim(week: Week) -> None:
    match_id = await _agreed(week)
    await week.play("alice", "bob", start=at(14, 18, 0), minutes=6)
    week.clock.set(at(14, 18, 7))
    reply = await week.say(match_id, "alice", "break")
    assert reply.changed
    assert "next game must start by Thu 14 Oct 18:17 UTC" in reply.text
    assert "Alice called their one break" in (await week.dms_to("bob"))[-1]
    await week.play("bob", "alice", start=at(14, 18, 15), minutes=6, winner="b")
    assert await week.alerts() == []  # a 9-minute break is within the rules
    week.clock.set(at(14, 18, 22))
    assert (await week.say(match_id, "alice", "break")).reason == "break_used"
    assert (await week.say(match_id, "bob", "break")).changed
    await week.play("alice", "bob", start=at(14, 18, 36), minutes=6)  # 15 minutes later
    (alert,) = [a for a in await week.alerts() if "Pause after game" in a]
    assert "longer than the 10 min 00 s a break may last" in alert
    assert "taken by Bob" in alert
    assert "You may send `claim win`" in (await week.dms_to("alice"))[-1]
    assert (await week.say(match_id, "alice", "claim win")).changed
    assert "Bob overran the break of 10 minutes" in (await week.alerts())[-1]
    view = await week.view(match_id, "bob")
    assert [b.player for b in view.breaks] == ["alice", "bob"]
    assert view.score == "3-0"  # game 2: alice won with Black
    assert len(view.games) == 3


async def test_decided_match_sends_the_result_to_both_and_a_forum_draft(week: Week) -> None:
    match_id = await _agreed(week)
    start = at(14, 18)
    for game in range(6):
        white, black = ("alice", "bob") if game % 2 == 0 else ("bob", "alice")
        winner = "w" if white == "alice" else "b"
        await week.play(white, black, start=start, minutes=6, winner=winner)
        start = week.clock.now()
    row = await week.match(match_id)
    assert (row.outcome, row.decided_by) == ("first_wins", "games")
    assert "result: Alice - Bob 6-0 (Alice wins)" in (await week.dms_to("bob"))[-1]
    await week.settle()
    drafts = [r.body for r in await week.outbox("forum_draft")]
    assert "1. Alice - Bob: 6-0, Alice wins" in drafts[-1]  # the round's closing post
    assert "result: 6-0, Alice wins" in drafts[0]  # its pairings post, kept current
    assert await week.open_deadlines(match_id) == []


async def test_second_forfeit_in_another_match_leads_to_disqualification_once_confirmed(
    week: Week,
) -> None:
    """Week 1: nobody offers (rules 5.6, a forfeit each). Week 2: alice makes no offers
    (rules 5.5), carol picks the time, alice does not show, carol's claim is granted (rules
    6.3): alice's second forfeit, in another match: TD alert, then `dq confirm` (rules 6.5)."""
    (first,) = await week.publish(("alice", "bob"))
    await week.until(at(16, 0))
    assert not [a for a in await week.alerts() if "rules 6.5" in a]
    week.clock.set(at(19, 9))  # the next Tuesday
    (second,) = await week.publish(("alice", "carol"))
    await week.say(second, "carol", "offer wed 18:00, thu 18:00, fri 18:00")
    await week.until(at(23, 0, 1))
    assert (await week.say(second, "carol", "choose sun 12:00")).ok
    week.state.users[PlayerId("carol")].online = True
    await week.until(at(24, 12, 21))
    assert (await week.say(second, "carol", "claim win")).changed
    assert not [a for a in await week.alerts() if "rules 6.5" in a]
    async with week.db.uow() as uow:
        await week.services.decisions.decide_claim(
            uow,
            second,
            winner="carol",
            reason="no-show",
            now=week.clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    dq_alerts = [a for a in await week.alerts() if "rules 6.5" in a]
    assert len(dq_alerts) == 1
    assert f"Alice was forfeited in 2 different matches ({first}, {second})" in dq_alerts[0]
    assert "on the TD desk" in dq_alerts[0]
    assert "acwc dq" not in dq_alerts[0]
    async with week.db.uow() as uow:
        with pytest.raises(OperationError, match="bob has forfeits in 1 match"):
            await week.services.conduct.confirm_disqualification(
                uow, "bob", reason="x", now=week.clock.now(), actor="odmwnd"
            )
        await week.services.conduct.confirm_disqualification(
            uow, "Alice", reason="two forfeits", now=week.clock.now(), actor="odmwnd"
        )
        await uow.commit()
        (exit_row,) = [e for e in await uow.stages.exits() if e.player_id == "alice"]
    assert (exit_row.kind, exit_row.decided_by) == ("disqualification", "odmwnd")
    async with week.db.uow() as uow:
        player = await uow.players.get("alice")
        assert player is not None
        assert player.status == "disqualified"
        audit = [a.action for a in await uow.audit.list(player="alice")]
        with pytest.raises(OperationError, match="already left"):
            await week.services.conduct.confirm_disqualification(
                uow, "alice", reason="again", now=week.clock.now(), actor="odmwnd"
            )
    assert "player.disqualify" in audit
    assert "You are disqualified" in (await week.dms_to("alice"))[-1]
