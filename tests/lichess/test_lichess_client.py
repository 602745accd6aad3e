"""The REST client against the sandbox over real HTTP: typed results, errors, the one queue."""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import replace

import pytest
from lichess_helpers import BOT, START, TEAM

from bot.lichess import (
    AuthorizationError,
    InboxLimitedError,
    LichessClient,
    LichessError,
    LichessHTTPError,
    LichessTransportError,
    MessageRefusedError,
    NotFoundError,
    RateLimitedError,
)
from bot.lichess.client import _Turns
from bot.runtime.clock import FakeClock
from bot.sandbox.schemas import make_game
from bot.sandbox.state import SandboxState
from rules.core.model import Colour, GameStatus, PlayerId


async def test_get_user_reads_creation_date_title_and_flags(
    client: LichessClient, state: SandboxState
) -> None:
    state.add_user(
        "Eve",
        created_at=dt.datetime(2019, 5, 1, tzinfo=dt.UTC),
        title="BOT",
        tos_violation=True,
        antichess_rating=2012,
        antichess_games=340,
    )
    user = await client.get_user("eve")
    assert user.id == PlayerId("eve")
    assert user.username == "Eve"
    assert user.created_at == dt.datetime(2019, 5, 1, tzinfo=dt.UTC)
    assert user.is_bot
    assert user.tos_violation
    assert not user.disabled
    assert (user.antichess_rating, user.antichess_games) == (2012, 340)


async def test_get_user_reports_a_closed_account(
    client: LichessClient, state: SandboxState
) -> None:
    state.add_user("Gone", disabled=True)
    assert (await client.get_user("Gone")).disabled


async def test_unknown_user_raises_not_found(client: LichessClient) -> None:
    with pytest.raises(NotFoundError) as e:
        await client.get_user("nobody")
    assert e.value.status == 404


async def test_export_filters_by_opponent_since_rated_and_perf(
    client: LichessClient, state: SandboxState
) -> None:
    t = START
    old = state.add_finished_game("Alice", "Bob", created_at=t - dt.timedelta(days=2))
    match = state.add_finished_game("Bob", "Alice", created_at=t, winner="black")
    casual = state.add_finished_game("Alice", "Bob", created_at=t, rated=False)
    other = state.add_finished_game("Alice", "Carol", created_at=t)
    blitz = state.add_finished_game("Alice", "Bob", created_at=t, variant="standard")
    games = await client.export_games(
        "alice", since=t - dt.timedelta(hours=1), vs="bob", rated=True, perf_type="antichess"
    )
    assert [g.id for g in games] == [match.id]
    assert games[0].winner is Colour.BLACK
    assert games[0].white == PlayerId("bob")
    every = await client.export_games("alice")
    assert {g.id for g in every} == {old.id, match.id, casual.id, other.id, blitz.id}
    newest_first = [g.created_at for g in every]
    assert newest_first == sorted(newest_first, reverse=True)


async def test_export_sees_games_put_in_directly_and_their_latest_state(
    client: LichessClient, state: SandboxState
) -> None:
    running = state.start_game(white="Alice", black="Bob", created_at=START)
    assert await client.export_games("alice") == []  # finished games only
    state.finish_game(running.id, status="mate", winner="white")
    direct = make_game("Carol", "Bob", id="direct01", created_at=START)
    state.games[direct.id] = replace(direct, status="resign", winner="black")
    assert {g.id: g.status for g in await client.export_games("alice")} == {
        running.id: GameStatus.MATE
    }
    assert [g.id for g in await client.export_games("carol")] == [direct.id]


async def test_export_until_and_max_limit_the_answer(
    client: LichessClient, state: SandboxState
) -> None:
    for days in range(5):
        state.add_finished_game("Alice", "Bob", created_at=START - dt.timedelta(days=days))
    games = await client.export_games("alice", until=START - dt.timedelta(days=1), max_games=2)
    assert [g.created_at for g in games] == [  # ``until`` is exclusive on Lichess
        START - dt.timedelta(days=2),
        START - dt.timedelta(days=3),
    ]


async def test_export_by_ids_returns_the_named_games(
    client: LichessClient, state: SandboxState
) -> None:
    a = state.add_finished_game("Alice", "Bob", status="outoftime")
    state.add_finished_game("Alice", "Bob")
    running = state.start_game(white="Carol", black="Dave")
    games = await client.export_games_by_ids([a.id, running.id, "missing1"])
    assert {g.id: g.status for g in games} == {
        a.id: GameStatus.OUTOFTIME,
        running.id: GameStatus.STARTED,
    }


async def test_statuses_show_online_and_playing(client: LichessClient, state: SandboxState) -> None:
    state.add_user("Offline")
    game = state.start_game(white="Alice", black="Bob")
    statuses = {s.id: s for s in await client.get_statuses(["alice", "carol", "offline", "nobody"])}
    assert set(statuses) == {"alice", "carol", "offline"}
    assert statuses[PlayerId("alice")].playing
    assert statuses[PlayerId("alice")].playing_id == game.id
    assert statuses[PlayerId("carol")].online
    assert not statuses[PlayerId("carol")].playing
    assert not statuses[PlayerId("offline")].online


async def test_send_message_lands_in_the_inbox(client: LichessClient, state: SandboxState) -> None:
    await client.send_message("Alice", "Your match vs Bob is published.")
    assert state.inbox_of("alice") == ["Your match vs Bob is published."]
    assert state.inbox[0].sender == "acwc-bot"


async def test_team_update_is_posted(client: LichessClient, state: SandboxState) -> None:
    await client.post_team_update(TEAM, "Round 1 pairings are out.")
    assert [(u.team_id, u.message) for u in state.team_updates] == [
        (TEAM, "Round 1 pairings are out.")
    ]


async def test_message_without_msg_write_scope_is_refused(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    token = state.add_token("readonly-bot", scopes={"team:lead"})
    async with LichessClient(base_url=sandbox_url, token=token, clock=clock) as client:
        with pytest.raises(LichessHTTPError) as e:
            await client.send_message("Alice", "hi")
    assert e.value.status == 403
    assert "Missing scope" in e.value.body
    assert state.inbox == []


async def test_team_update_by_a_non_leader_is_refused(
    sandbox_url: str, state: SandboxState, clock: FakeClock, bot_token: str
) -> None:
    token = state.add_token("stranger")
    async with LichessClient(base_url=sandbox_url, token=token, clock=clock) as client:
        # lila redirects a non-leader to the team page (app/controllers/Team.scala,
        # WithOwnedTeam), before it reads the text; the probe sees the redirect itself
        assert await client.post_status("probe", f"/team/{TEAM}/pm-all", {"message": ""}) == 303
        with pytest.raises(LichessError):
            await client.post_team_update(TEAM, "hello")
    assert state.team_updates == []


async def test_bad_token_gets_401_and_no_retry(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    async with LichessClient(base_url=sandbox_url, token="lip_wrong", clock=clock) as client:
        with pytest.raises(LichessHTTPError) as e:
            await client.send_message("Alice", "hi")
        assert e.value.status == 401
        assert client.requests_made == 1


async def test_server_errors_are_retried_until_success(
    sandbox_url: str, bot_token: str, state: SandboxState
) -> None:
    clock = FakeClock(START, auto=True)
    state.knobs.server_error_next = 2
    async with LichessClient(
        base_url=sandbox_url, token=bot_token, clock=clock, max_attempts=5
    ) as client:
        await client.send_message("Bob", "hello")
        assert client.requests_made == 3
    assert state.inbox_of("bob") == ["hello"]
    assert clock.now() > START  # the backoff waited on the service clock


async def test_server_errors_give_up_after_the_cap(
    sandbox_url: str, bot_token: str, state: SandboxState
) -> None:
    clock = FakeClock(START, auto=True)
    state.knobs.server_error_next = 10
    async with LichessClient(
        base_url=sandbox_url, token=bot_token, clock=clock, max_attempts=3
    ) as client:
        with pytest.raises(LichessHTTPError) as e:
            await client.get_user("alice")
        assert e.value.status == 503
        assert client.requests_made == 3


async def test_a_slow_answer_times_out_as_a_transport_error(
    sandbox_url: str, bot_token: str, state: SandboxState
) -> None:
    state.knobs.delay_seconds = 2.0
    async with LichessClient(
        base_url=sandbox_url, token=bot_token, clock=FakeClock(START), timeout=0.2, max_attempts=1
    ) as client:
        with pytest.raises(LichessTransportError, match="Timeout"):
            await client.get_user("alice")


async def test_unreachable_lichess_raises_a_transport_error_from_the_cause() -> None:
    clock = FakeClock(START, auto=True)
    async with LichessClient(
        base_url="http://127.0.0.1:9", token="t", clock=clock, max_attempts=2, timeout=2.0
    ) as client:
        with pytest.raises(LichessTransportError) as e:
            await client.get_user("alice")
    assert e.value.__cause__ is not None


async def test_rate_limit_pauses_every_call_for_a_minute_and_loses_nothing(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    state.knobs.rate_limit_next = 1
    first = asyncio.create_task(client.post_team_update(TEAM, "one"))
    second = asyncio.create_task(client.send_message("Bob", "two"))
    third = asyncio.create_task(client.get_user("carol"))
    await clock.wait_for_sleepers(1)
    assert client.paused_until == START + dt.timedelta(seconds=60)
    assert len(state.requests) == 1  # only the request that got the 429

    await clock.advance_and_settle(dt.timedelta(seconds=59))
    assert clock.sleepers == 1
    assert not any(task.done() for task in (first, second, third))
    assert len(state.requests) == 1

    clock.advance(dt.timedelta(seconds=1))
    await asyncio.gather(first, second)
    assert (await third).id == "carol"
    assert [u.message for u in state.team_updates] == ["one"]
    assert state.inbox_of("bob") == ["two"]
    assert len(state.requests) == 4


async def test_a_429_from_the_inbox_pauses_nothing_and_says_whose_message_it_was(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    state.knobs.rate_limit_next = 1  # the inbox's answer when the message budget is spent
    with pytest.raises(InboxLimitedError):
        await client.send_message("Alice", "one")
    assert client.paused_until is None
    assert (await client.get_user("carol")).id == "carol"
    assert clock.now() == START  # nothing waited
    assert state.inbox_of("alice") == []


async def test_a_rejected_message_and_a_missing_scope_are_their_own_errors(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    state.messaging.refuse_strangers.add("alice")
    token = state.add_token(BOT, scopes=["team:lead"])
    async with LichessClient(base_url=sandbox_url, token=token, clock=clock) as client:
        with pytest.raises(AuthorizationError) as denied:
            await client.send_message("Bob", "hi")
        info = await client.test_token()
    assert denied.value.status == 403
    assert info.user == BOT
    assert info.missing(["msg:write", "team:lead"]) == ["msg:write"]
    full = state.add_token(BOT)
    async with LichessClient(base_url=sandbox_url, token=full, clock=clock) as client:
        with pytest.raises(MessageRefusedError) as refused:
            await client.send_message("Alice", "hi")
        await client.send_message("Bob", "hi")
    assert "rejected" in refused.value.body
    assert state.inbox_of("alice") == []
    assert state.inbox_of("bob") == ["hi"]


async def test_persistent_rate_limit_finally_raises(
    sandbox_url: str, bot_token: str, state: SandboxState
) -> None:
    clock = FakeClock(START, auto=True)
    state.knobs.rate_limit_next = 100
    async with LichessClient(
        base_url=sandbox_url, token=bot_token, clock=clock, max_rate_limit_waits=2
    ) as client:
        with pytest.raises(RateLimitedError):
            await client.get_user("alice")
    assert clock.now() >= START + dt.timedelta(minutes=2)


async def test_requests_run_one_at_a_time(client: LichessClient, state: SandboxState) -> None:
    state.knobs.delay_seconds = 0.02
    names = ("alice", "bob", "carol", "dave")
    users = await asyncio.gather(*(client.get_user(n) for n in names))
    assert [u.id for u in users] == list(names)
    assert state.max_in_flight == 1
    assert [p for _, p in state.requests] == [f"/api/user/{n}" for n in names]


def test_client_repr_hides_the_token(bot_token: str, clock: FakeClock) -> None:
    client = LichessClient(base_url="http://127.0.0.1:1", token=bot_token, clock=clock)
    try:
        assert bot_token not in repr(client)
    finally:
        asyncio.run(client.aclose())


async def test_the_export_by_ids_goes_before_the_calls_waiting_never_two_at_once() -> None:
    """One request at a time (lila's rule); the export of finished games (``first``) goes
    before the calls already waiting, after the one under way; a waiting call cancelled
    leaves the line moving."""
    turns = _Turns()
    order: list[str] = []
    inside = 0
    held = asyncio.Event()
    release = asyncio.Event()

    async def call(name: str, *, first: bool = False) -> None:
        nonlocal inside
        async with turns.turn(first=first):
            inside += 1
            assert inside == 1
            order.append(name)
            if name == "dm 1":
                held.set()
                await release.wait()
            await asyncio.sleep(0)
            inside -= 1

    under_way = asyncio.create_task(call("dm 1"))
    await held.wait()
    waiting = [asyncio.create_task(call(n)) for n in ("challenge", "dm 2", "gone")]
    export = asyncio.create_task(call("export", first=True))
    for _ in range(3):
        await asyncio.sleep(0)  # each asks for its turn
    waiting[2].cancel()
    release.set()
    await asyncio.gather(under_way, export, *waiting[:2])
    assert order == ["dm 1", "export", "challenge", "dm 2"]
    assert waiting[2].cancelled()
    async with turns.turn():  # free again
        order.append("later")
    assert order[-1] == "later"
