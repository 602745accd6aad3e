"""Each failure class of a notice, through the real outbox, client and sandbox over HTTP.

The sandbox answers ``POST /inbox`` as lila does (bot/sandbox/inbox.py): a spent budget of new
conversations is a 429, a player who takes messages only from people they follow answers 400, a
token without ``msg:write`` 403. The outbox must hold only that recipient on a 429, tell the TDs
once of a refused player, stop (and say so) on a bad token, and keep a global 429 pause in the
database for every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import AsyncIterator

import pytest
from lichess_helpers import BOT, START, TEAM

from bot.app import LichessMessenger, Service
from bot.config import Config, OutboxConfig, Secrets, ServiceConfig, TournamentConfig
from bot.errors import StartupError
from bot.lichess.client import LichessClient
from bot.lichess.pause import RATE_LIMIT_HOLD, DatabasePause
from bot.notify import Notifier
from bot.notify import keys as notice_keys
from bot.notify.kinds import NoticeKind
from bot.notify.undelivered import UndeliveredAlerts
from bot.runtime.clock import FakeClock
from bot.runtime.outbox import LIMIT_GIVE_UP, OUTBOX_HOLD, REFUSED_HOLD, OutboxDispatcher
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import Channel, OutboxRow, OutboxStatus

TD = "Shiaxou"
CONFIG = Config(
    tournament=TournamentConfig(name="ACWC test", tds=(TD,), team=TEAM),
    outbox=OutboxConfig(merge_window_seconds=0),
)
"""Each DM due as it is written: these tests time the failure classes alone (with the merge
window on: ``test_outbox_window.py``)."""


@contextlib.asynccontextmanager
async def outbox(
    db: Database, url: str, token: str, clock: FakeClock
) -> AsyncIterator[tuple[OutboxDispatcher, LichessClient]]:
    async with LichessClient(
        base_url=url, token=token, clock=clock, timeout=10.0, pause_board=DatabasePause(db, clock)
    ) as client:
        alerts = UndeliveredAlerts(Notifier(CONFIG))
        yield OutboxDispatcher(db, LichessMessenger(client), clock, alerts=alerts), client


async def dm(db: Database, clock: FakeClock, to: str, text: str, match_id: int = 7) -> None:
    async with db.uow() as uow:
        key = notice_keys.pairing(match_id, hash(text) % 1000)
        await Notifier(CONFIG).dm(uow, now=clock.now(), to=to, text=text, key=key)
        await uow.commit()


async def rows(db: Database, kind: Channel = Channel.DM) -> list[OutboxRow]:
    async with db.uow() as uow:
        return list(await uow.outbox.list(kind=kind))


@pytest.fixture
def sandbox(state: SandboxState, bot_token: str) -> SandboxState:
    state.add_user(TD)
    state.knobs.dm_limits = True
    state.knobs.new_conversations_per_day = 1
    return state


async def test_a_spent_message_budget_holds_that_player_only_and_pauses_no_other_call(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    await dm(db, clock, "Alice", "round 1: you play Carol")
    await dm(db, clock, "Bob", "round 1: you play Dave")
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, client):
        assert await dispatcher.deliver_due() == 1
        alice, bob = await rows(db)
        assert alice.status is OutboxStatus.SENT
        assert bob.status is OutboxStatus.PENDING
        assert bob.next_attempt_at == START + dt.timedelta(hours=1)
        assert "InboxLimitedError" in (bob.last_error or "")
        # Nothing else waits: no pause anywhere, and the next call goes at once.
        assert client.paused_until is None
        assert await DatabasePause(db, clock).paused_until() is None
        assert (await client.get_user("carol")).id == "carol"
        assert clock.now() == START

        # Bob joins the team the bot leads: a new conversation with him costs nothing.
        sandbox.join_team(TEAM, "Bob")
        clock.advance(dt.timedelta(hours=1))
        assert await dispatcher.deliver_due() == 1
    assert sandbox.inbox_of("bob") == ["round 1: you play Dave"]


async def test_a_notice_held_by_the_budget_for_a_day_is_failed_and_the_tds_told(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.join_team(TEAM, TD)  # the TDs hear of it
    sandbox.knobs.new_conversations_per_day = 0
    await dm(db, clock, "Bob", "round 1: you play Dave")
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        held = []
        while clock.now() - START < LIMIT_GIVE_UP + dt.timedelta(days=1):
            await dispatcher.deliver_due()
            (bob,) = await rows(db)
            if bob.status is not OutboxStatus.PENDING:
                break
            assert bob.next_attempt_at is not None
            held.append(bob.next_attempt_at - clock.now())
            clock.advance(bob.next_attempt_at - clock.now())
        assert bob.status is OutboxStatus.FAILED
        assert held == [dt.timedelta(hours=h) for h in (1, 2, 4, 8, 16)]
        (alert,) = await rows(db, Channel.TD_NOTE)  # for the TDs' daily digest (issue 17)
        assert alert.notice == NoticeKind.UNDELIVERED.value
        assert alert.player == "bob"
        assert "Bob" in alert.body
        assert "Pairing (match 7)" in alert.body
        await dispatcher.deliver_due()
    assert alert.status is OutboxStatus.PENDING  # waits for the digest, not sent on its own


async def test_a_player_who_refuses_the_bot_is_marked_and_the_tds_told_once(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.join_team(TEAM, TD)
    sandbox.join_team(TEAM, "Alice")
    sandbox.messaging.refuse_strangers.add("alice")
    await dm(db, clock, "Alice", "round 1: you play Carol", match_id=3)
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        await dispatcher.deliver_due()
        (refused,) = await rows(db)
        assert refused.status is OutboxStatus.FAILED
        assert refused.attempts == 1
        async with db.uow() as uow:
            hold = await uow.holds.get(REFUSED_HOLD + "alice")
        assert hold is not None
        assert "rejected" in (hold.reason or "")
        clock.advance(dt.timedelta(hours=2))
        await dm(db, clock, "Alice", "reminder: offer times", match_id=3)
        await dispatcher.deliver_due()
        assert [r.status for r in await rows(db)] == [OutboxStatus.FAILED] * 2
        alerts = await rows(db, Channel.TD_NOTE)  # for the TDs' daily digest (issue 17)

        sandbox.messaging.refuse_strangers.discard("alice")  # she takes messages again
        await dm(db, clock, "Alice", "result: you won", match_id=3)
        await dispatcher.deliver_due()
        async with db.uow() as uow:
            assert await uow.holds.get(REFUSED_HOLD + "alice") is None
    assert len(alerts) == 1  # one a player a day, not one a notice
    assert "Alice" in alerts[0].body
    assert "does not accept messages" in alerts[0].body
    assert alerts[0].status is OutboxStatus.PENDING  # waits for the digest
    assert sandbox.inbox_of("alice") == ["result: you won"]


async def test_a_token_without_msg_write_stops_the_outbox_and_says_so(
    db: Database, sandbox: SandboxState, sandbox_url: str, clock: FakeClock
) -> None:
    token = sandbox.add_token(BOT, scopes=["team:lead"])
    await dm(db, clock, "Alice", "round 1: you play Carol")
    await dm(db, clock, "Bob", "round 1: you play Dave")
    async with outbox(db, sandbox_url, token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 0
        assert dispatcher.stopped is not None
        assert "403" in dispatcher.stopped
        asked = len(sandbox.requests)
        assert await dispatcher.deliver_due() == 0  # stopped: asks Lichess nothing
        assert len(sandbox.requests) == asked
    async with db.uow() as uow:
        hold = await uow.holds.get(OUTBOX_HOLD)
    assert hold is not None
    assert "msg:write" in (hold.reason or "")
    assert [(r.status, r.attempts) for r in await rows(db)] == [(OutboxStatus.PENDING, 0)] * 2


async def test_a_global_429_is_one_pause_for_every_process_on_the_database(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.knobs.rate_limit_next = 1
    async with (
        LichessClient(
            base_url=sandbox_url, token=bot_token, clock=clock, pause_board=DatabasePause(db, clock)
        ) as service,
        LichessClient(
            base_url=sandbox_url, token=bot_token, clock=clock, pause_board=DatabasePause(db, clock)
        ) as command_line,
    ):
        first = asyncio.create_task(service.get_user("alice"))
        await clock.wait_for_sleepers(1)
        await service.pause_shared()  # (written beside the call, not before its pause)
        async with db.uow() as uow:
            until = await uow.holds.until(RATE_LIMIT_HOLD, clock.now())
        assert until == START + dt.timedelta(seconds=60)
        other = asyncio.create_task(command_line.get_user("bob"))
        await clock.wait_for_sleepers(2)  # the other client waits for the same row
        assert len(sandbox.requests) == 1
        clock.advance(dt.timedelta(seconds=60))
        assert (await first).id == "alice"
        assert (await other).id == "bob"
    assert len(sandbox.requests) == 3


async def test_notices_due_together_to_one_player_go_out_as_one_dm(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.join_team(TEAM, "Alice")
    await dm(db, clock, "Alice", "round 1: you play Carol")
    await dm(db, clock, "Alice", "offer times by Friday")
    await dm(db, clock, "Bob", "round 1: you play Dave")
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 3
        assert dispatcher.messages == 2
    assert sandbox.inbox_of("alice") == ["round 1: you play Carol\n\n---\n\noffer times by Friday"]
    assert sandbox.inbox_of("bob") == ["round 1: you play Dave"]


async def test_dms_are_paced_to_the_reply_budget_and_a_reply_429_waits_a_minute(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.knobs.replies_per_minute = 2
    for name in ("Alice", "Bob", "Carol"):
        sandbox.join_team(TEAM, name)
        sandbox.messaging.conversations.add(frozenset((BOT, name.lower())))  # replies, all
    for name in ("Alice", "Bob", "Carol"):
        await dm(db, clock, name, f"round 2: {name}")
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        dispatcher.dm_per_minute = 2
        assert await dispatcher.deliver_due() == 2
        (carol,) = [r for r in await rows(db) if r.status is OutboxStatus.PENDING]
        assert carol.next_attempt_at == START + dt.timedelta(minutes=1)  # paced, not refused
        assert carol.attempts == 0
        assert sandbox.messaging.limited == 0
        clock.advance(dt.timedelta(minutes=1))
        assert await dispatcher.deliver_due() == 1

        # Without pacing, the budget answers 429 for a player the bot has written to before:
        # a reply's budget is per minute, so that player waits one minute, not an hour.
        dispatcher.dm_per_minute = None
        for name in ("Alice", "Bob"):
            await dm(db, clock, name, f"reminder: {name}")
        clock.advance(dt.timedelta(seconds=1))
        await dm(db, clock, "Carol", "reminder: Carol")
        assert await dispatcher.deliver_due() == 1  # Carol's earlier DM still fills the minute
        held = [r for r in await rows(db) if r.status is OutboxStatus.PENDING]
    assert sandbox.messaging.limited == 2
    assert [r.recipient for r in held] == ["Bob", "Carol"]
    assert {r.next_attempt_at for r in held} == {clock.now() + dt.timedelta(minutes=1)}


async def test_the_service_refuses_to_start_without_msg_write_and_a_good_token_lifts_the_stop(
    db: Database, sandbox: SandboxState, sandbox_url: str, clock: FakeClock
) -> None:
    def config(token: str) -> Config:
        return Config(
            tournament=TournamentConfig(tds=(TD,), team=TEAM),
            service=ServiceConfig(database_url=db.url, lichess_url=sandbox_url),
            secrets=Secrets(lichess_token=token),
        )

    weak = sandbox.add_token(BOT, scopes=["team:lead", "team:read"])
    with pytest.raises(StartupError) as refused:
        async with Service(config(weak), clock=clock, serve_web=False):
            pass
    assert "msg:write" in str(refused.value)
    assert "team:lead" not in str(refused.value)

    async with db.uow() as uow:  # an earlier run met a 403 and stopped the outbox
        await uow.holds.put(OUTBOX_HOLD, since=clock.now(), reason="Lichess answered HTTP 403")
        await uow.commit()
    async with Service(config(bot_token_of(sandbox)), clock=clock, serve_web=False) as svc:
        assert await svc.dispatcher.is_stopped() is None


def bot_token_of(sandbox: SandboxState) -> str:
    return sandbox.add_token(BOT)
