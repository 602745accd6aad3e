"""The games stream over real HTTP: every game delivered once, whatever the stream does."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lichess_helpers import HANG, until

from bot.lichess import GameWatcher, LichessClient, chunk_players
from bot.runtime.clock import FakeClock
from bot.sandbox.state import SandboxState
from rules.core.model import Colour, Game, GameId, GameStatus, PlayerId

ALICE, BOB, CAROL, DAVE = (PlayerId(n) for n in ("alice", "bob", "carol", "dave"))


class Inbox:
    """What the watcher delivered, in order."""

    def __init__(self) -> None:
        self.games: list[Game] = []
        self.changed = asyncio.Event()

    async def __call__(self, game: Game) -> None:
        self.games.append(game)
        self.changed.set()

    def events(self, game_id: str) -> list[GameStatus]:
        return [g.status for g in self.games if g.id == game_id]

    async def wait_for(self, game_id: str, status: GameStatus, within: float = HANG) -> Game:
        async with asyncio.timeout(within):
            while True:
                for g in self.games:
                    if g.id == game_id and g.status is status:
                        return g
                self.changed.clear()
                await self.changed.wait()


def pairs_of(*pairs: tuple[PlayerId, PlayerId]):  # type: ignore[no-untyped-def]
    async def provider() -> Iterable[tuple[PlayerId, PlayerId]]:
        return pairs

    return provider


@contextlib.asynccontextmanager
async def watching(watcher: GameWatcher) -> AsyncIterator[GameWatcher]:
    task = asyncio.create_task(watcher.run())
    try:
        async with asyncio.timeout(HANG):
            await watcher.connected.wait()
        yield watcher
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def make_watcher(
    client: LichessClient,
    clock: FakeClock,
    inbox: Callable[[Game], Awaitable[None]],
    players: Iterable[PlayerId] = (ALICE, BOB),
    pairs: tuple[tuple[PlayerId, PlayerId], ...] = ((ALICE, BOB),),
    **kwargs: object,
) -> GameWatcher:
    return GameWatcher(
        client=client,
        clock=clock,
        on_game=inbox,
        players=players,
        pairs_provider=pairs_of(*pairs),
        **kwargs,  # type: ignore[arg-type]
    )


async def play_sentinel(state: SandboxState, inbox: Inbox) -> None:
    """A later game on the same stream: once its end is in, everything before it is too."""
    sentinel = state.start_game(white="Bob", black="Alice")
    state.finish_game(sentinel.id, status="draw")
    await inbox.wait_for(sentinel.id, GameStatus.DRAW)


async def test_game_start_and_end_are_delivered_once_each(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    inbox = Inbox()
    async with watching(make_watcher(client, clock, inbox)) as watcher:
        game = state.start_game(white="Alice", black="Bob")
        started = await inbox.wait_for(game.id, GameStatus.STARTED)
        assert started.variant == "antichess"
        state.finish_game(game.id, status="variantEnd", winner="black")
        finished = await inbox.wait_for(game.id, GameStatus.VARIANT_END)
        assert finished.winner is Colour.BLACK
        await play_sentinel(state, inbox)
        await watcher.wait_backfilled()
    assert inbox.events(game.id) == [GameStatus.STARTED, GameStatus.VARIANT_END]


async def test_games_of_other_players_are_not_delivered(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    inbox = Inbox()
    async with watching(make_watcher(client, clock, inbox)):
        outsider = state.start_game(white="Alice", black="Carol")
        await play_sentinel(state, inbox)
    assert inbox.events(outsider.id) == []


async def test_repeated_lines_are_delivered_once(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    state.knobs.repeat_lines = True
    inbox = Inbox()
    async with watching(make_watcher(client, clock, inbox)):
        game = state.start_game(white="Alice", black="Bob")
        state.finish_game(game.id, winner="white")
        await play_sentinel(state, inbox)
    assert inbox.events(game.id) == [GameStatus.STARTED, GameStatus.RESIGN]


async def test_a_malformed_line_is_skipped_without_reconnecting(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    state.knobs.malformed_lines_next = 1
    inbox = Inbox()
    async with watching(make_watcher(client, clock, inbox)) as watcher:
        game = state.start_game(white="Alice", black="Bob")
        await inbox.wait_for(game.id, GameStatus.STARTED)
        assert state.knobs.malformed_lines_next == 0  # the garbage line was sent
        assert watcher.connections == 1


async def test_stream_dropped_mid_game_still_delivers_the_end_once(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    state.knobs.drop_stream_after_lines = 1
    inbox = Inbox()
    async with watching(make_watcher(client, clock, inbox)) as watcher:
        await watcher.wait_backfilled()  # the start-up backfill must not find the game
        game = state.start_game(white="Alice", black="Bob")
        await inbox.wait_for(game.id, GameStatus.STARTED)
        await clock.wait_for_sleepers(1)  # the stream ended; the watcher waits to reconnect
        state.finish_game(game.id, winner="white")  # while it is away
        state.knobs.drop_stream_after_lines = None
        assert inbox.events(game.id) == [GameStatus.STARTED]
        clock.advance(dt.timedelta(seconds=1))
        await until(lambda: watcher.connections == 2)
        await inbox.wait_for(game.id, GameStatus.RESIGN)
        await watcher.wait_backfilled()
        await play_sentinel(state, inbox)
    assert inbox.events(game.id) == [GameStatus.STARTED, GameStatus.RESIGN]


async def test_game_ending_while_lichess_refuses_streams_comes_from_the_backfill(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    inbox = Inbox()
    async with watching(make_watcher(client, clock, inbox)) as watcher:
        await watcher.wait_backfilled()
        game = state.start_game(white="Alice", black="Bob")
        await inbox.wait_for(game.id, GameStatus.STARTED)
        state.knobs.stream_unavailable = True
        state.drop_streams()
        await clock.wait_for_sleepers(1)
        clock.advance(dt.timedelta(seconds=1))  # first retry: refused with 503
        await until(lambda: clock.sleepers == 1 and not watcher.connected.is_set())
        # a whole game starts and ends inside the gap, and the running one ends
        short = state.start_game(white="Bob", black="Alice")
        state.finish_game(short.id, status="outoftime", winner="white")
        state.finish_game(game.id, status="timeout", winner="black")
        state.knobs.stream_unavailable = False
        clock.advance(dt.timedelta(seconds=2))
        await watcher.connected.wait()
        await watcher.wait_backfilled()
        await play_sentinel(state, inbox)
    assert inbox.events(game.id) == [GameStatus.STARTED, GameStatus.TIMEOUT]
    assert inbox.events(short.id) == [GameStatus.OUTOFTIME]


async def test_a_restarted_service_backfills_from_the_saved_last_seen(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    saved: list[dt.datetime] = []

    async def save(when: dt.datetime) -> None:
        saved.append(when)

    async def load() -> dt.datetime | None:
        return saved[-1] if saved else None

    first = Inbox()
    watcher = make_watcher(client, clock, first, save_last_seen=save, load_last_seen=load)
    async with watching(watcher):
        game = state.start_game(white="Alice", black="Bob")
        await first.wait_for(game.id, GameStatus.STARTED)
        await watcher.wait_backfilled()
    assert saved  # the first watcher recorded how far it was up to date

    clock.advance(dt.timedelta(hours=3))  # the service is down for three hours
    state.finish_game(game.id, winner="white", at=clock.now() - dt.timedelta(hours=2))

    second = Inbox()
    restarted = make_watcher(client, clock, second, save_last_seen=save, load_last_seen=load)
    async with watching(restarted):
        await second.wait_for(game.id, GameStatus.RESIGN)
        await restarted.wait_backfilled()
    assert second.events(game.id) == [GameStatus.RESIGN]
    assert saved[-1] >= clock.now() - dt.timedelta(seconds=1)


async def test_new_players_restart_the_stream(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    inbox = Inbox()
    pairs: list[tuple[PlayerId, PlayerId]] = [(ALICE, BOB)]

    async def provider() -> Iterable[tuple[PlayerId, PlayerId]]:
        return list(pairs)

    watcher = GameWatcher(
        client=client, clock=clock, on_game=inbox, players=[ALICE, BOB], pairs_provider=provider
    )
    async with watching(watcher):
        pairs.append((CAROL, DAVE))
        watcher.set_players([ALICE, BOB, CAROL, DAVE])
        await until(lambda: watcher.connections == 2)
        await watcher.connected.wait()
        game = state.start_game(white="Carol", black="Dave")
        await inbox.wait_for(game.id, GameStatus.STARTED)


async def test_players_past_the_limit_are_split_over_streams_keeping_pairs_together(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    inbox = Inbox()
    watcher = make_watcher(
        client,
        clock,
        inbox,
        players=[ALICE, BOB, CAROL, DAVE],
        pairs=((ALICE, BOB), (CAROL, DAVE)),
        chunk_limit=2,
    )
    async with watching(watcher):
        assert watcher.connections == 2
        one = state.start_game(white="Alice", black="Bob")
        two = state.start_game(white="Dave", black="Carol")
        await inbox.wait_for(one.id, GameStatus.STARTED)
        await inbox.wait_for(two.id, GameStatus.STARTED)


async def test_a_rate_limited_stream_pauses_the_rest_calls_too(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    state.knobs.rate_limit_next = 1  # the first request is the stream's connection
    inbox = Inbox()
    watcher = make_watcher(client, clock, inbox)
    task = asyncio.create_task(watcher.run())
    try:
        await clock.wait_for_sleepers(1)
        assert client.paused_until == clock.now() + dt.timedelta(seconds=60)
        assert not watcher.connected.is_set()
        clock.advance(dt.timedelta(seconds=60))
        await asyncio.wait_for(watcher.connected.wait(), HANG)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_a_failing_callback_does_not_stop_the_watcher(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    inbox = Inbox()
    failures = collections.Counter[GameId]()

    async def flaky(game: Game) -> None:
        if failures[game.id] == 0:
            failures[game.id] += 1
            raise RuntimeError("database is down")
        await inbox(game)

    watcher = GameWatcher(
        client=client,
        clock=clock,
        on_game=flaky,
        players=[ALICE, BOB],
        pairs_provider=pairs_of((ALICE, BOB)),
    )
    async with watching(watcher):
        game = state.start_game(white="Alice", black="Bob")
        state.finish_game(game.id, winner="white")
        # the first delivery failed and was forgotten, so the end still comes through
        await inbox.wait_for(game.id, GameStatus.RESIGN)


@given(
    players=st.sets(st.sampled_from([PlayerId(f"p{i}") for i in range(40)]), max_size=40),
    pair_indexes=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=60),
    limit=st.integers(min_value=2, max_value=12),
)
def test_chunks_cover_every_player_and_pair_within_the_limit(
    players: set[PlayerId], pair_indexes: list[tuple[int, int]], limit: int
) -> None:
    pairs = [(PlayerId(f"p{a}"), PlayerId(f"p{b}")) for a, b in pair_indexes if a != b]
    chunks = chunk_players(players, pairs, limit=limit)
    assert all(len(c) <= limit for c in chunks)
    covered = set().union(*chunks) if chunks else set()
    assert covered >= players
    for a, b in pairs:
        assert any(a in c and b in c for c in chunks)


def test_small_groups_stay_whole_in_one_stream() -> None:
    pairs = [(ALICE, BOB), (CAROL, DAVE)]
    assert chunk_players([ALICE, BOB, CAROL, DAVE], pairs, limit=300) == [
        frozenset({ALICE, BOB, CAROL, DAVE})
    ]


def test_chunk_limit_below_two_is_refused() -> None:
    with pytest.raises(ValueError, match="at least the two players"):
        chunk_players([ALICE], [], limit=1)


async def test_new_pairs_of_the_same_players_over_several_streams_restart_them(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    """Past the limit each stream carries whole pairs (lila streams the games between its
    listed players): a new round pairs the same players otherwise, and the streams follow."""
    inbox = Inbox()
    pairs: list[tuple[PlayerId, PlayerId]] = [(ALICE, BOB), (CAROL, DAVE)]

    async def provider() -> Iterable[tuple[PlayerId, PlayerId]]:
        return list(pairs)

    players = [ALICE, BOB, CAROL, DAVE]
    watcher = GameWatcher(
        client=client,
        clock=clock,
        on_game=inbox,
        players=players,
        pairs_provider=provider,
        chunk_limit=2,
    )
    async with watching(watcher):
        assert watcher.connections == 2
        pairs[:] = [(ALICE, CAROL), (BOB, DAVE)]
        watcher.set_players(players)  # the next round is published: the same players
        await until(lambda: watcher.connections == 4)
        await watcher.connected.wait()
        game = state.start_game(white="Alice", black="Carol")
        await inbox.wait_for(game.id, GameStatus.STARTED)


async def test_games_read_while_one_is_taken_are_handed_over_together(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    """A burst of game ends: the lines read while the first game is being taken go to
    ``on_batch`` together (the intake asks the export once for them), then each to ``on_game``
    in the order read."""
    inbox = Inbox()
    release = asyncio.Event()
    batches: list[list[str]] = []

    async def slow(game: Game) -> None:
        await inbox(game)
        await release.wait()

    async def on_batch(games: Iterable[Game]) -> None:
        batches.append([g.id for g in games])

    watcher = GameWatcher(
        client=client,
        clock=clock,
        on_game=slow,
        on_batch=on_batch,
        players=(ALICE, BOB, CAROL, DAVE),
        pairs_provider=pairs_of((ALICE, BOB), (CAROL, DAVE)),
    )
    async with watching(watcher):
        await watcher.wait_backfilled()
        first = state.start_game(white="Alice", black="Bob")
        await inbox.wait_for(first.id, GameStatus.STARTED)  # held there
        second = state.start_game(white="Carol", black="Dave")
        state.finish_game(first.id, status="resign", winner="white")
        state.finish_game(second.id, status="draw")
        await until(lambda: watcher.pending == 4)  # the one in hand and the three read
        release.set()
        await inbox.wait_for(second.id, GameStatus.DRAW)
    assert batches == [[second.id, first.id, second.id]]
    assert [(g.id, g.status) for g in inbox.games] == [
        (first.id, GameStatus.STARTED),
        (second.id, GameStatus.STARTED),
        (first.id, GameStatus.RESIGN),
        (second.id, GameStatus.DRAW),
    ]


async def test_a_game_read_during_a_batch_or_the_save_after_it_is_handed_over(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    """No game waits for another's arrival to be taken (57e2dd3 left a game read while the
    mark was saved after a batch in the queue until the next line came, for good when none
    came: 'games not dealt with' in the seasons): one game ends while another is taken, and
    a game starts while the last-seen mark is saved after a batch; each is handed over with
    no later line to wake the watcher."""
    inbox = Inbox()
    hold, release, saving, saved = (asyncio.Event() for _ in range(4))
    arm: list[bool] = []

    async def held(game: Game) -> None:
        await inbox(game)
        if game.id == first.id and game.status.is_finished:
            hold.set()
            await release.wait()
        if game.id == second.id and game.status.is_finished:
            arm.append(True)  # the save the drain makes after this batch is held

    async def save(_: dt.datetime) -> None:
        if arm:
            arm.clear()
            saving.set()
            await saved.wait()

    watcher = GameWatcher(
        client=client,
        clock=clock,
        on_game=held,
        players=(ALICE, BOB, CAROL, DAVE),
        pairs_provider=pairs_of((ALICE, BOB), (CAROL, DAVE)),
        save_last_seen=save,
        save_every=dt.timedelta(0),
    )
    async with watching(watcher):
        await watcher.wait_backfilled()
        first = state.start_game(white="Alice", black="Bob")
        second = state.start_game(white="Carol", black="Dave")
        await inbox.wait_for(second.id, GameStatus.STARTED)
        state.finish_game(first.id, status="resign", winner="white")
        await hold.wait()  # the first end being taken (the mark held before it) ...
        clock.advance(dt.timedelta(minutes=1))  # (so the mark moves on after the burst)
        state.finish_game(second.id, status="draw")  # ... when the second is read
        await until(lambda: watcher.pending == 2)
        release.set()
        await saving.wait()  # the mark saved after the second's batch, with nothing queued
        third = state.start_game(white="Bob", black="Alice")
        await until(lambda: watcher.pending == 1)
        saved.set()
        await inbox.wait_for(third.id, GameStatus.STARTED)
        await inbox.wait_for(second.id, GameStatus.DRAW)


async def test_a_game_taken_when_the_watcher_stops_is_taken_when_it_runs_again(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    """The lead lost while a game is being taken (its transaction rolled back): the same
    watcher, run again when the lead comes back, takes it, and what was queued behind it."""
    taken: list[tuple[str, GameStatus]] = []
    hold, never = asyncio.Event(), asyncio.Event()
    inbox = Inbox()

    async def stopped_once(game: Game) -> None:
        if game.status.is_finished and not hold.is_set():
            hold.set()
            await never.wait()  # cancelled here
        taken.append((game.id, game.status))
        await inbox(game)

    watcher = GameWatcher(
        client=client,
        clock=clock,
        on_game=stopped_once,
        players=(ALICE, BOB, CAROL, DAVE),
        pairs_provider=pairs_of((ALICE, BOB), (CAROL, DAVE)),
    )
    async with watching(watcher):
        first = state.start_game(white="Alice", black="Bob")
        second = state.start_game(white="Carol", black="Dave")
        await inbox.wait_for(second.id, GameStatus.STARTED)
        state.finish_game(first.id, status="resign", winner="white")
        await hold.wait()
        state.finish_game(second.id, status="draw")
        await until(lambda: watcher.pending == 2)
    async with watching(watcher):
        await inbox.wait_for(first.id, GameStatus.RESIGN)
        await inbox.wait_for(second.id, GameStatus.DRAW)
    assert taken.count((first.id, GameStatus.RESIGN)) == 1
    assert taken.count((second.id, GameStatus.DRAW)) == 1


async def test_the_runner_waits_for_a_busy_watcher_once_a_spell_not_before_every_deadline(
    client: LichessClient, state: SandboxState, clock: FakeClock
) -> None:
    """``settled`` lets a burst's games be stored before the deadline runner fires what they
    caused, but a game held longer than its wait (an export behind lila's rate limit) holds
    up one deadline of that busy spell, not every one after it."""
    inbox = Inbox()
    entered = asyncio.Event()
    release = asyncio.Event()

    async def held(game: Game) -> None:
        entered.set()
        await release.wait()  # this game's intake waits, as behind a rate-limited export
        await inbox(game)

    async with watching(make_watcher(client, clock, held)) as watcher:
        assert watcher.idle.is_set()
        await watcher.settled(3600)  # nothing read: no wait at all
        game = state.start_game(white="Alice", black="Bob")
        await asyncio.wait_for(entered.wait(), HANG)
        assert not watcher.idle.is_set()
        await watcher.settled(0)  # the spell's one wait, run out
        # the same spell again: no wait (a wait of an hour would hang the test)
        await asyncio.wait_for(watcher.settled(3600), HANG)
        assert not release.is_set()
        assert not watcher.idle.is_set()
        release.set()
        await inbox.wait_for(game.id, GameStatus.STARTED)
        await asyncio.wait_for(watcher.idle.wait(), HANG)
        # a new spell: the wait holds until its games are taken
        release.clear()
        entered.clear()
        state.finish_game(game.id, status="draw")
        await asyncio.wait_for(entered.wait(), HANG)
        waiting = asyncio.create_task(watcher.settled(3600))
        for _ in range(20):
            await asyncio.sleep(0)
        assert not waiting.done()
        release.set()
        await asyncio.wait_for(waiting, HANG)
        assert inbox.events(game.id) == [GameStatus.STARTED, GameStatus.DRAW]
