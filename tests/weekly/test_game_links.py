"""Issue 14 item 1: the agreed time's DM carries game 1's challenge link with the time control
written out (one DM, not two), says to use the room when Lichess cannot make the challenge, and
each later game's fresh link goes by DM to the players who asked for it.

Through the real services, deadline runner and outbox, and the sandbox Lichess over HTTP.
"""

from __future__ import annotations

import pytest

from bot.app import LichessMessenger, bootstrap
from bot.lichess.client import LichessClient
from bot.notify.kinds import NoticeKind
from bot.notify.undelivered import UndeliveredAlerts
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from bot.runtime.outbox import OutboxDispatcher
from bot.sandbox.state import SandboxState
from bot.service.challenges import CHALLENGE_DEADLINE, RETRY_AFTER, Announce
from storage.db import Database
from storage.models import OutboxRow
from tests.weekly.harness import Week, at, make_config


@pytest.fixture
def week(db: Database, clock: FakeClock, sandbox: SandboxState, client: LichessClient) -> Week:
    config = make_config(challenges=True)
    services = bootstrap(config, clock=clock, db=db, lichess=client)
    runner = DeadlineRunner(db, clock, services.deadline_handlers)
    dispatcher = OutboxDispatcher(
        db, LichessMessenger(client), clock, alerts=UndeliveredAlerts(services.notifier)
    )
    return Week(db, config, clock, sandbox, client, services, runner, dispatcher)


async def agree(week: Week) -> int:
    """Alice offers three times on Tuesday morning, Bob accepts Thursday 18:00 at 20:00 (the
    deadlines that acceptance made due, the challenge's, not fired yet)."""
    (match_id,) = await week.publish(("alice", "bob"))
    assert (await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")).ok
    week.clock.set(at(12, 20))
    # the state between the commit and the runner's firing
    assert (await week.say(match_id, "bob", "accept 2", settle=False)).changed
    return match_id


async def time_agreed(week: Week) -> list[OutboxRow]:
    return [r for r in await week.outbox("dm") if r.notice == NoticeKind.TIME_AGREED.value]


async def test_the_agreed_time_and_game_1_s_link_reach_each_player_in_one_dm(
    week: Week,
) -> None:
    match_id = await agree(week)
    assert await time_agreed(week) == []  # it waits for the challenge, made at once
    await week.until(week.clock.now())
    (challenge,) = week.state.challenges.values()
    rows = await time_agreed(week)
    assert sorted(r.recipient for r in rows) == ["Alice", "Bob"]
    for row in rows:
        assert "fixed: Thu 14 Oct 18:00 UTC" in row.body
        assert challenge.url in row.body
        assert "Alice (White) - Bob (Black), 2+5 rated antichess" in row.body
        assert week.config.room_url(match_id) in row.body
    assert [r.id for r in await week.outbox("dm") if challenge.url in r.body] == [
        r.id for r in rows
    ]

    # Through the outbox: each gets it in one message, after the merge window.
    week.clock.set(at(12, 20) + week.config.outbox.merge_window)
    await week.deliver()
    for user in ("alice", "bob"):
        (notice,) = [n for n in week.received(user) if "fixed:" in n]
        assert challenge.url in notice


async def test_when_lichess_cannot_make_the_challenge_the_dm_says_to_use_the_room(
    week: Week,
) -> None:
    match_id = await agree(week)
    week.state.knobs.server_error_status = 400  # Lichess refuses the challenge once
    week.state.knobs.server_error_next = 1
    await week.until(week.clock.now())
    assert week.state.challenges == {}
    rows = await time_agreed(week)
    assert sorted(r.recipient for r in rows) == ["Alice", "Bob"]
    for row in rows:
        assert "fixed: Thu 14 Oct 18:00 UTC" in row.body
        assert "could not create game 1's challenge" in row.body
        assert "It sends the link when Lichess takes it" in row.body
        assert week.config.room_url(match_id) in row.body
        assert "Alice (White) challenges Bob (Black) on Lichess to 2+5 rated antichess" in (
            row.body
        )

    # The next attempt makes it: the link follows alone, and the time is not told twice.
    retry = at(12, 20) + RETRY_AFTER
    assert (CHALLENGE_DEADLINE, retry) in await week.open_deadlines(match_id)
    await week.until(retry)
    (challenge,) = week.state.challenges.values()
    assert len(await time_agreed(week)) == 2  # the time, once each
    links = [
        r
        for r in await week.outbox("dm")
        if r.notice == NoticeKind.GAME_LINK.value and challenge.url in r.body
    ]
    assert sorted(r.recipient for r in links) == ["Alice", "Bob"]
    assert not any("fixed:" in r.body for r in links)


async def test_each_later_game_s_link_goes_by_dm_to_who_asked_for_it(week: Week) -> None:
    match_id = await agree(week)
    async with week.db.uow() as uow:
        await week.services.players.set_game_links_by_dm(
            uow, "alice", wanted=True, now=week.clock.now()
        )
        await uow.commit()
    await week.until(week.clock.now())
    (first,) = week.state.challenges.values()
    await week.play("alice", "bob", start=at(14, 18))
    await week.until(week.clock.now())
    (second,) = [c for c in week.state.challenges.values() if c.id != first.id]
    assert second.users == ("bob", "alice")
    links = [r for r in await week.outbox("dm") if second.url in r.body]
    assert [r.recipient for r in links] == ["Alice"]  # Bob did not ask: his is in the room
    assert "Game 2 of your ACWC match, Bob (White) - Alice (Black), 2+5 rated antichess" in (
        links[0].body
    )
    view = await week.view(match_id, "bob")
    assert (view.next_game, view.next_white, view.challenge_url) == (2, "Bob", second.url)


async def test_a_time_agreed_again_before_the_challenge_is_made_is_the_one_told(
    week: Week,
) -> None:
    """Two agreements in one instant (a change accepted at once): the challenge's deadline
    row carries the newest words, and each player gets one DM."""
    match_id = await agree(week)
    async with week.db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        challenges = week.services.challenges
        assert challenges is not None
        newer = Announce("agreed:newer", {"alice": "newer words\n", "bob": "newer words\n"})
        assert await challenges.schedule_next(uow, row, now=week.clock.now(), announce=newer)
        await uow.commit()
    await week.until(week.clock.now())
    rows = await time_agreed(week)
    assert sorted(r.recipient for r in rows) == ["Alice", "Bob"]
    assert all(r.body.startswith("newer words\n") for r in rows)
    assert len(week.state.challenges) == 1
