"""The Friday offers check and the weekend check (rules 5.5, 5.6, 5.8, 5.9)."""

from __future__ import annotations

from bot.views.qualification import match_results
from bot.views.timeline import timeline
from rules.core.model import PlayerId
from rules.core.scoring import HALF
from storage.match_log import replay
from tests.weekly.harness import Week, at


async def test_player_without_three_offers_must_accept_the_opponents_choice(week: Week) -> None:
    """Rules 5.5: bob made one offer; alice chooses and the bot fixes the time."""
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")
    week.clock.set(at(13, 8))
    await week.say(match_id, "bob", "offer sat 12:00")
    fired = await week.until(at(16, 1))
    assert fired == ["reply_reminder", "offers_check"]
    assert "Reminder: Bob's offers are waiting" in (await week.dms_to("alice"))[-2]
    assert "so you choose the match time: send `choose <time>`" in (await week.dms_to("alice"))[-1]
    assert "You are at fault" in (await week.dms_to("bob"))[-1]
    (alert,) = await week.alerts()
    assert "Bob did not make the required offers" in alert
    assert "buttons on the TD desk" in alert
    assert "acwc fault" not in alert
    refused = await week.say(match_id, "bob", "offer sun 12:00")
    assert refused.reason == "chooser_decides"
    reply = await week.say(match_id, "alice", "choose sun 15:00")
    assert reply.ok
    assert "fixed: Sun 17 Oct 15:00 UTC, in 1 day 14 hours" in reply.text
    assert "fixed: Sun 17 Oct 15:00 UTC" in (await week.dms_to("bob"))[-1]
    assert (await week.match(match_id)).agreed_time == at(17, 15)
    assert ("no_show_first", at(17, 15, 10)) in await week.open_deadlines(match_id)


async def test_both_without_offers_is_a_tied_match_with_a_forfeit_each(week: Week) -> None:
    """Rules 5.6: recorded as a tied match (½ each in the standings) and two forfeits."""
    (match_id,) = await week.publish(("alice", "bob"))
    assert await week.until(at(16, 0)) == ["offers_check"]
    row = await week.match(match_id)
    assert (row.outcome, row.decided_by, row.state) == ("tied", "forfeit", "complete")
    assert await week.open_deadlines(match_id) == []  # the completion check is cancelled
    async with week.db.uow() as uow:
        forfeits = await uow.weekly.forfeits(match_id=match_id)
        results = await match_results(uow, row, 1, week.config.rules)
    assert sorted((f.player_id, f.kind, f.reason) for f in forfeits) == [
        ("alice", "game", "offers"),
        ("bob", "game", "offers"),
    ]
    assert {r.player: r.match_points for r in results} == {
        PlayerId("alice"): HALF,
        PlayerId("bob"): HALF,
    }
    alice = await week.dms_to("alice")
    assert "recorded as a tied match: neither player made the required offers" in alice[-2]
    assert "result: Alice - Bob by forfeit (tied match)" in alice[-1]
    drafts = [r.body for r in await week.outbox("forum_draft")]
    assert any("1. Alice - Bob: tied by forfeit" in d for d in drafts)


async def test_both_offered_without_agreement_goes_to_the_tds_who_find_bob_at_fault(
    week: Week,
) -> None:
    """Rules 5.8, 5.9: the TDs get the whole timeline; one command settles it."""
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 9:00, thu 9:00, fri 9:00")
    await week.say(match_id, "bob", "offer wed 21:00, thu 21:00, fri 21:00")
    assert await week.until(at(16, 0, 30)) == ["offers_check", "weekend_check"]
    (alert,) = await week.alerts()
    assert "both made their offers but agreed no time before the weekend" in alert
    assert "timeline:" in alert
    assert "Alice: offered Wed 13 Oct 09:00 UTC, Thu 14 Oct 09:00 UTC" in alert
    assert "buttons on the TD desk" in alert
    async with week.db.uow() as uow:
        await week.services.decisions.decide_fault(
            uow,
            match_id,
            at_fault="Bob",
            reason="ignored offers",
            now=week.clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    assert "so you choose the match time" in (await week.dms_to("alice"))[-1]
    reply = await week.say(match_id, "alice", "accept 5")  # bob's Thu 21:00 has passed
    assert reply.reason == "offer_passed"
    reply = await week.say(match_id, "alice", "choose sun 18:00")
    assert reply.ok
    async with week.db.uow() as uow:
        entries = await timeline(uow, match_id)
    kinds = [e.kind for e in entries]
    assert "td_decision" in kinds
    assert "fault.decide" in kinds  # the audit entry, with the TD as actor
    assert any(e.actor == "odmwnd" and e.kind == "fault.decide" for e in entries)


async def test_tds_find_nobody_at_fault_and_the_match_is_tied_without_forfeits(
    week: Week,
) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 9:00, thu 9:00, fri 9:00")
    await week.say(match_id, "bob", "offer wed 21:00, thu 21:00, fri 21:00")
    await week.until(at(16, 1))
    async with week.db.uow() as uow:
        await week.services.decisions.decide_fault(
            uow,
            match_id,
            at_fault=None,
            reason="both were travelling",
            now=week.clock.now(),
            actor="shiaxou",
        )
        await uow.commit()
    row = await week.match(match_id)
    assert (row.outcome, row.decided_by) == ("tied", "td")
    async with week.db.uow() as uow:
        assert await uow.weekly.forfeits() == []
    assert "the TDs found neither player at fault" in (await week.dms_to("bob"))[-2]
    assert await week.open_deadlines(match_id) == []


async def test_replay_rebuilds_the_same_negotiation(week: Week) -> None:
    """The event log is the state: replaying it gives what the live steps produced."""
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")
    await week.say(match_id, "alice", "withdraw offer 1")
    await week.say(match_id, "bob", "offer sat 12:00")
    await week.say(match_id, "bob", "accept 3")
    await week.say(match_id, "bob", "change fri 21:00")
    await week.say(match_id, "alice", "accept change")
    async with week.db.uow() as uow:
        events = await uow.weekly.events(match_id)
        n = replay(events, week.config.rules)
    assert n.agreement is not None
    assert n.agreement.time == at(15, 21)
    assert [o.number for o in n.offers if o.is_withdrawn] == [1]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert (await week.match(match_id)).agreed_time == at(15, 21)
