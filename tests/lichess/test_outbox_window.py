"""The merge window (issue 13 item 4), through the real notifier, outbox and sandbox over HTTP.

A DM to a player waits ``[outbox] merge_window_seconds``; every other DM to them written
meanwhile goes out with it as one message, each notice keeping its own outbox row. The failure
classes of a recipient (429, 400, 401/403) apply to the merged message's every notice.
"""

from __future__ import annotations

import datetime as dt

import pytest
from lichess_helpers import BOT, START, TEAM
from test_outbox_failures import outbox, rows

from bot.config import Config, OutboxConfig, TournamentConfig
from bot.notify import Notifier
from bot.notify import keys as notice_keys
from bot.notify.kinds import NoticeKind
from bot.runtime.clock import FakeClock
from bot.runtime.outbox import BATCH, MERGE_SEPARATOR, OUTBOX_HOLD
from bot.sandbox.state import SandboxState
from storage.db import Database
from storage.models import Channel, OutboxStatus

TD = "Shiaxou"
WINDOW = dt.timedelta(seconds=90)
CONFIG = Config(
    tournament=TournamentConfig(name="ACWC test", tds=(TD,), team=TEAM),
    outbox=OutboxConfig(merge_window_seconds=90),
)


async def dm(
    db: Database,
    clock: FakeClock,
    to: str,
    text: str,
    *,
    kind: NoticeKind = NoticeKind.NEGOTIATION_STEP,
    config: Config = CONFIG,
) -> None:
    async with db.uow() as uow:
        key = notice_keys.NoticeKey(kind, f"test:{to}:{text}", 7)
        await Notifier(config).dm(uow, now=clock.now(), to=to, text=text, key=key)
        await uow.commit()


@pytest.fixture
def sandbox(state: SandboxState, bot_token: str) -> SandboxState:
    state.add_user(TD)
    for name in ("Alice", "Bob", TD):
        state.join_team(TEAM, name)
    return state


async def test_dms_to_one_player_within_the_window_go_out_as_one_message(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    await dm(db, clock, "Alice", "Bob offers Thursday 18:00")
    clock.advance(dt.timedelta(seconds=30))
    await dm(db, clock, "alice", "Bob withdraws offer 1")  # any spelling of her name
    await dm(db, clock, "Bob", "Your offer went to Alice")
    clock.advance(dt.timedelta(seconds=50))
    await dm(db, clock, "Alice", "Bob offers Friday 21:00")
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 0  # her first DM's window has not passed
        assert sandbox.inbox_of("alice") == []
        clock.set(START + WINDOW)
        assert await dispatcher.deliver_due() == 3
        assert sandbox.inbox_of("bob") == []  # his window opened 30 s later
        assert await dispatcher.deliver_due() == 0
        clock.set(START + WINDOW + dt.timedelta(seconds=30))
        assert await dispatcher.deliver_due() == 1
        assert dispatcher.messages == 2
    (alice,) = sandbox.inbox_of("alice")
    assert alice.split(MERGE_SEPARATOR) == [
        "Bob offers Thursday 18:00",
        "Bob withdraws offer 1",
        "Bob offers Friday 21:00",
    ]
    assert sandbox.inbox_of("bob") == ["Your offer went to Alice"]
    stored = await rows(db)
    assert [(r.status, r.sent_at) for r in stored] == [
        (OutboxStatus.SENT, START + WINDOW),
        (OutboxStatus.SENT, START + WINDOW),
        (OutboxStatus.SENT, START + WINDOW + dt.timedelta(seconds=30)),
        (OutboxStatus.SENT, START + WINDOW),
    ]


async def test_a_dm_after_the_window_waits_for_a_window_of_its_own(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    await dm(db, clock, "Alice", "first")
    clock.advance(WINDOW)
    await dm(db, clock, "Alice", "second")  # the first is due now: this one waits anew
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 1
        clock.advance(WINDOW)
        assert await dispatcher.deliver_due() == 1
    assert sandbox.inbox_of("alice") == ["first", "second"]


async def test_an_urgent_notice_goes_at_once_and_takes_the_waiting_ones(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    await dm(db, clock, "Alice", "Bob accepts: Thursday 18:00")
    await dm(db, clock, "Bob", "Alice's offers")
    clock.advance(dt.timedelta(seconds=10))
    await dm(db, clock, "Alice", "Bob is not online (rules 6.3)", kind=NoticeKind.NO_SHOW_NOTICE)
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 2
    assert sandbox.inbox_of("alice") == [
        f"Bob accepts: Thursday 18:00{MERGE_SEPARATOR}Bob is not online (rules 6.3)"
    ]
    assert sandbox.inbox_of("bob") == []  # his own window still runs


async def test_with_no_window_each_dm_goes_at_once(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    at_once = Config(outbox=OutboxConfig(merge_window_seconds=0))
    await dm(db, clock, "Alice", "first", config=at_once)
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 1
        await dm(db, clock, "Alice", "second", config=at_once)
        assert await dispatcher.deliver_due() == 1
    assert sandbox.inbox_of("alice") == ["first", "second"]


async def test_a_players_dms_go_together_even_beyond_one_batch(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    """The dispatcher reads the outbox a batch at a time; a player's DM written after a round's
    worth of others still goes in the same message as her first."""
    await dm(db, clock, "Alice", "your pairing")
    for n in range(BATCH + 5):
        name = f"Player{n}"
        sandbox.add_user(name)
        sandbox.join_team(TEAM, name)
        await dm(db, clock, name, "your pairing")
    await dm(db, clock, "Alice", "your reminder")
    clock.advance(WINDOW)
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == BATCH + 7
        assert dispatcher.messages == BATCH + 6
        assert dispatcher.sent == BATCH + 7  # each notice counted once, whatever the batches
    assert sandbox.inbox_of("alice") == [f"your pairing{MERGE_SEPARATOR}your reminder"]


async def test_a_merged_dm_over_a_spent_budget_holds_each_of_its_notices(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.knobs.dm_limits = True
    sandbox.knobs.new_conversations_per_day = 0
    sandbox.add_user("Eve")  # not in the team: a new conversation costs from the budget
    await dm(db, clock, "Eve", "your pairing")
    await dm(db, clock, "Eve", "your reminder")
    await dm(db, clock, "Alice", "your pairing")
    clock.advance(WINDOW)
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 1  # Alice's; Eve's wait, nobody else does
        eve = [r for r in await rows(db) if r.recipient == "Eve"]
        assert [r.status for r in eve] == [OutboxStatus.PENDING] * 2
        assert {r.next_attempt_at for r in eve} == {clock.now() + dt.timedelta(hours=1)}
        sandbox.join_team(TEAM, "Eve")
        clock.advance(dt.timedelta(hours=1))
        assert await dispatcher.deliver_due() == 2
    assert sandbox.inbox_of("eve") == [f"your pairing{MERGE_SEPARATOR}your reminder"]


async def test_a_merged_dm_refused_fails_each_notice_and_tells_the_tds_once(
    db: Database, sandbox: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    sandbox.knobs.dm_limits = True
    sandbox.messaging.refuse_strangers.add("alice")
    await dm(db, clock, "Alice", "your pairing")
    await dm(db, clock, "Alice", "your reminder")
    clock.advance(WINDOW)
    async with outbox(db, sandbox_url, bot_token, clock) as (dispatcher, _):
        await dispatcher.deliver_due()
    assert [(r.status, r.attempts) for r in await rows(db)] == [(OutboxStatus.FAILED, 1)] * 2
    (note,) = await rows(db, Channel.TD_NOTE)
    assert note.notice == NoticeKind.UNDELIVERED.value
    assert "Alice" in note.body
    assert sandbox.inbox_of("alice") == []


async def test_a_refused_token_stops_the_outbox_with_the_window_s_dms_kept(
    db: Database, sandbox: SandboxState, sandbox_url: str, clock: FakeClock
) -> None:
    token = sandbox.add_token(BOT, scopes=["team:lead"])
    await dm(db, clock, "Alice", "your pairing")
    await dm(db, clock, "Alice", "your reminder")
    clock.advance(WINDOW)
    async with outbox(db, sandbox_url, token, clock) as (dispatcher, _):
        assert await dispatcher.deliver_due() == 0
        assert dispatcher.stopped is not None
    async with db.uow() as uow:
        assert await uow.holds.get(OUTBOX_HOLD) is not None
    assert [(r.status, r.attempts) for r in await rows(db)] == [(OutboxStatus.PENDING, 0)] * 2
