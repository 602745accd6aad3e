"""An ordinary week: publication, offers, acceptance, the game on time, the result."""

from __future__ import annotations

from rules.talk.spelling import spell_names
from storage.models import GameRow
from tests.weekly.harness import START, TEAM, Week, at


async def test_publication_queues_pairing_notices_and_plans_deadlines(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    alice = await week.dms_to("alice")
    assert len(alice) == 1
    assert "you play Bob" in alice[0]
    assert f"https://acwc.example/match/{match_id}" in alice[0]
    assert "Fri 15 Oct 23:59 UTC, in 3 days 14 hours" in alice[0]
    assert len(await week.dms_to("bob")) == 1
    (team,) = await week.outbox("team_update")
    assert team.recipient == TEAM
    assert f"1. Alice - Bob  https://acwc.example/match/{match_id}" in team.body
    (forum,) = await week.outbox("forum_draft")
    assert forum.recipient == "forum"
    assert "Alice - Bob" in forum.body
    assert await week.open_deadlines(match_id) == [
        ("offers_check", at(16, 0)),
        ("completion_check", at(19, 0)),
    ]


async def test_ordinary_negotiation_agrees_a_time_and_the_game_starts(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    reply = await week.say(match_id, "Alice", "offer wed 18:00, thu 18:00, fri 20:00")
    assert reply.ok
    assert reply.changed
    assert reply.command == "offer 2021-10-13 18:00, 2021-10-14 18:00, 2021-10-15 20:00"
    assert "1. Wed 13 Oct 18:00 UTC, in 1 day 9 hours" in reply.text
    assert "You have made 3 of 3 offers" in reply.text
    # the same confirmation as a DM, the opponent named as they spell their username
    assert (await week.dms_to("alice"))[-1] == spell_names(reply.text, {"bob": "Bob"})
    assert "Alice offered times" in (await week.dms_to("bob"))[-1]
    assert ("reply_reminder", at(13, 9)) in await week.open_deadlines(match_id)

    week.clock.set(at(12, 20))
    reply = await week.say(match_id, "bob", "accept 2")
    assert reply.ok
    assert reply.changed
    assert "fixed: Thu 14 Oct 18:00 UTC, in 1 day 22 hours" in reply.text
    assert "Thu 14 Oct 18:00 UTC" in (await week.dms_to("alice"))[-1]
    assert (await week.match(match_id)).agreed_time == at(14, 18)
    drafts = [r.body for r in await week.outbox("forum_draft")]
    assert len(drafts) == 1  # the round's pairings post, rewritten in place (issue 17)
    assert f"Alice - Bob  {week.config.room_url(match_id)}  agreed: Thu 14 Oct 18:00" in drafts[0]
    assert await week.open_deadlines(match_id) == [
        ("no_show_first", at(14, 18, 10)),
        ("no_show_second", at(14, 18, 20)),
        ("completion_check", at(19, 0)),
    ]
    view = await week.view(match_id, "alice")
    assert view.phase == "agreed"
    assert view.agreed_time == at(14, 18)
    assert "change" in view.actions
    assert [o.state for o in view.offers] == ["closed", "accepted", "closed"]  # none can be taken

    # The first game starts on time: the no-show checks find nothing to report.
    await week.add_game(
        match_id,
        GameRow(
            id="gAme0001",
            white="alice",
            black="bob",
            status="started",
            winner=None,
            variant="antichess",
            rated=True,
            clock_limit=120,
            clock_increment=5,
            created_at=at(14, 18, 2),
            last_move_at=None,
            counted=False,
            recorded_at=at(14, 18, 2),
        ),
    )
    fired = await week.until(at(19, 0))
    assert fired == ["no_show_first", "no_show_second", "completion_check"]
    assert await week.alerts() == [
        a for a in await week.alerts() if "not completed" in a
    ]  # only the completion check speaks: the match has no result yet

    sent = await week.deliver()
    assert sent == len(await week.outbox("dm")) + len(await week.outbox("td_alert")) + 1
    assert len(week.received("alice")) == len(await week.dms_to("alice"))
    assert week.clock.now() > START
