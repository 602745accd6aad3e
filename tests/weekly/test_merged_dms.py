"""A burst of room actions reaches the opponent as one DM (issue 15: the per-player limit on
room actions, and the merging of the DMs they cause; issue 13 item 4: the merge window).

Through the real text door, outbox and the sandbox's inbox over HTTP, on the fake clock.
"""

from __future__ import annotations

import datetime as dt

from bot.runtime.outbox import MERGE_SEPARATOR
from rules.talk.spelling import as_lichess_message
from tests.weekly.harness import Week, at


async def test_offers_and_withdrawals_in_a_burst_reach_the_opponent_as_one_dm(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.deliver()  # the pairings
    before = len(week.state.inbox_of("bob"))
    week.clock.set(at(12, 12))
    queued = len(await week.dms_to("bob"))
    for n, day in enumerate(("wed", "thu", "fri"), start=1):
        assert (await week.say(match_id, "alice", f"offer {day} 18:00")).changed
        week.clock.advance(dt.timedelta(seconds=10))
        assert (await week.say(match_id, "alice", f"withdraw offer {n}")).changed
        week.clock.advance(dt.timedelta(seconds=10))
    notices = await week.dms_to("bob")
    assert len(notices) - queued == 6  # every notice is kept, each in its own row
    assert await week.dispatcher.deliver_due() == 0  # the window after the first has not passed
    await week.deliver()
    new = week.state.inbox_of("bob")[before:]
    assert len(new) == 1
    # as stored, but a `command` reaches Lichess as "command" (no Markdown there)
    assert new[0].split(MERGE_SEPARATOR) == [as_lichess_message(n) for n in notices[queued:]]
    assert all(r.status == "sent" for r in await week.outbox("dm") if r.recipient == "bob")


async def test_a_dm_written_after_the_window_goes_on_its_own(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.deliver()
    before = len(week.state.inbox_of("bob"))
    week.clock.set(at(12, 12))
    await week.say(match_id, "alice", "offer wed 18:00")
    await week.deliver()
    week.clock.set(at(12, 13))
    await week.say(match_id, "alice", "offer thu 18:00")
    await week.deliver()
    assert len(week.state.inbox_of("bob")[before:]) == 2
