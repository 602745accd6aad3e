"""A whole service week on a real database, a sandbox Lichess over real HTTP and a fake clock.

The :class:`Week` harness drives the same pieces the service runs, built by the composition root
(``bot.app.bootstrap``): the one door for a player's text (as the web match room and the TD relay
call it), the ``DeadlineRunner`` with the services' handlers, and the ``OutboxDispatcher`` sending
through a real ``LichessClient`` to the sandbox, whose inbox the tests read.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import pytest
from aiohttp import web

from bot.app import LichessMessenger, bootstrap
from bot.config import Config, GamesConfig, ServiceConfig, TournamentConfig
from bot.lichess.client import LichessClient
from bot.notify.notifier import DIGEST_DEADLINE
from bot.notify.undelivered import UndeliveredAlerts
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from bot.runtime.outbox import MERGE_SEPARATOR, SENDABLE_KINDS, OutboxDispatcher
from bot.sandbox.app import make_app
from bot.sandbox.state import SandboxState
from bot.service.forum import PAIRINGS_REDRAW_DEADLINE, ROUND_CLOSE_DEADLINE
from bot.service.recheck import RECHECK_DEADLINE
from bot.service.services import Services
from bot.service.weekly.texts import Reply
from bot.views.match_room import MatchView, match_view
from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, PlayerId
from rules.core.ruleset import DEFAULT_RULESET, StageKind
from storage.convert import fraction_to_text
from storage.db import Database
from storage.models import DeadlineRow, GameRow, MatchRow, OutboxRow, PlayerRow, RoundRow

UTC = dt.UTC
START = dt.datetime(2021, 10, 12, 9, 0, tzinfo=UTC)  # Tuesday: pairings are published
BOT = "acwc-bot"
TEAM = "acwc-2021"
TDS = ("ODMWND", "Shiaxou")
UNLISTED = (DIGEST_DEADLINE, RECHECK_DEADLINE, ROUND_CLOSE_DEADLINE, PAIRINGS_REDRAW_DEADLINE)
"""The deadline kinds :meth:`Week.until` fires but does not list: not a match's."""
PLAYERS = ("Alice", "Bob", "Carol", "Dave")


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    """A moment of October 2021 (the first match week runs Tue 12 to Mon 18)."""
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


def make_config(*, team: str | None = TEAM, challenges: bool = False) -> Config:
    """The week's config; the bot's game challenges (their deadlines and DMs) only when asked,
    so the week's own deadlines and messages are what the tests list."""
    return Config(
        tournament=TournamentConfig(tds=TDS, team=team),
        service=ServiceConfig(public_url="https://acwc.example"),
        games=GamesConfig(challenges=challenges),
    )


@dataclass
class Week:
    db: Database
    config: Config
    clock: FakeClock
    state: SandboxState
    client: LichessClient
    services: Services
    runner: DeadlineRunner
    dispatcher: OutboxDispatcher
    games_played: int = 0

    async def publish(self, *pairs: tuple[str, str]) -> list[int]:
        """A qualification round of ``pairs`` (by id), published now; the match ids."""
        async with self.db.uow() as uow:
            tournament = await uow.tournaments.current()
            if tournament is None:
                tournament = await self.services.tournament.create(
                    uow, now=self.clock.now(), actor="test"
                )
            stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
            assert stage is not None
            number = len(await uow.tournaments.rounds(stage.id)) + 1
            rnd = await uow.tournaments.add_round(
                RoundRow(stage_id=stage.id, number=number, state="approved")
            )
            fmt = DEFAULT_RULESET.formats.qualification
            ids = []
            for board, (white, black) in enumerate(pairs, start=1):
                for name in (white, black):
                    if await uow.players.get(name) is None:
                        await uow.players.add(
                            PlayerRow(
                                id=name,
                                username=name.title(),
                                registered_at=self.clock.now(),
                                seed_rating=2000,
                            )
                        )
                row = await uow.matches.add(
                    MatchRow(
                        round_id=rnd.id,
                        stage=StageKind.QUALIFICATION.value,
                        board=board,
                        white_first=white,
                        black_first=black,
                        games=fmt.games,
                        clinch_at=fraction_to_text(fmt.clinch_at),
                        tiebreak=fmt.tiebreak.value,
                        max_weeks=fmt.max_weeks,
                        state="proposed",
                    )
                )
                ids.append(row.id)
            await self.services.publication.publish_round(
                uow, rnd, now=self.clock.now(), actor="odmwnd"
            )
            await uow.commit()
        await self.settle()
        return ids

    async def say(
        self, match_id: int, player: str, text: str, *, via: str = "web", settle: bool = True
    ) -> Reply:
        """What the web match room does: handle the text, commit only if it changed state; then,
        as the service, the deadlines due fire (``settle=False``: not yet, to look between)."""
        async with self.db.uow() as uow:
            reply = await self.services.texts.handle(
                uow,
                match_id=match_id,
                player=player,
                text=text,
                now=self.clock.now(),
                via=via,
            )
            if reply.changed:
                await uow.commit()
        if reply.changed and settle:
            await self.settle()
        return reply

    async def view(self, match_id: int, viewer: str | None) -> MatchView:
        async with self.db.uow() as uow:
            return await match_view(
                uow, self.config, match_id=match_id, viewer=viewer, now=self.clock.now()
            )

    async def until(self, when: dt.datetime) -> list[str]:
        """Move the clock to ``when`` firing every deadline due on the way, in order, each at
        its own due time (as the running service would); the weekly kinds fired (the daily
        digest job, the daily look at the accounts and a round's closing fire too, unlisted)."""
        fired: list[str] = []
        while True:
            async with self.db.uow() as uow:
                next_due = await uow.deadlines.next_due()
            if next_due is None or next_due > when:
                break
            if next_due > self.clock.now():
                self.clock.set(next_due)
            before = {r.id for r in await self.deadlines(fired_only=True)}
            await self.runner.fire_due()
            fired.extend(
                r.kind
                for r in await self.deadlines(fired_only=True)
                if r.id not in before and r.kind not in UNLISTED
            )
        self.clock.set(max(when, self.clock.now()))
        return fired

    async def deliver(self) -> int:
        """Send what the outbox holds as the running service would once the merge window of
        every DM queued so far has passed: the clock moves on to when they go (firing the
        deadlines due on the way); how many notices went out."""
        sent = await self.dispatcher.deliver_due()
        latest = self.clock.now() + self.config.outbox.merge_window
        while True:
            async with self.db.uow() as uow:
                due = await uow.outbox.next_retry(SENDABLE_KINDS)
            if due is None or due > latest or due <= self.clock.now():
                return sent
            await self.until(due)
            sent += await self.dispatcher.deliver_due()

    async def outbox(self, kind: str | None = None) -> Sequence[OutboxRow]:
        async with self.db.uow() as uow:
            return await uow.outbox.list(kind=kind)

    def received(self, user: str) -> list[str]:
        """The notices ``user`` got on the sandbox, merged DMs split into their notices."""
        return [n for m in self.state.inbox_of(user) for n in m.split(MERGE_SEPARATOR)]

    async def dms_to(self, user: str) -> list[str]:
        """Queued DMs to ``user`` (any status), oldest first."""
        return [r.body for r in await self.outbox("dm") if r.recipient == user]

    async def alerts(self) -> list[str]:
        """TD alerts as the first TD gets them, and the notes for their daily digest."""
        rows = [r for r in await self.outbox() if r.kind in ("td_alert", "td_note")]
        return [r.body for r in rows if r.recipient in (TDS[0], "tds")]

    async def deadlines(
        self, match_id: int | None = None, *, fired_only: bool = False
    ) -> list[DeadlineRow]:
        async with self.db.uow() as uow:
            rows = await uow.weekly.deadlines(match_id)
        return [r for r in rows if r.fired_at is not None or not fired_only]

    async def open_deadlines(self, match_id: int) -> list[tuple[str, dt.datetime]]:
        return [
            (r.kind, r.due_at)
            for r in await self.deadlines(match_id)
            if r.fired_at is None and r.cancelled_at is None
        ]

    async def match(self, match_id: int) -> MatchRow:
        async with self.db.uow() as uow:
            row = await uow.matches.get(match_id)
            assert row is not None
            return row

    async def play(
        self,
        white: str,
        black: str,
        *,
        start: dt.datetime,
        minutes: int = 6,
        winner: str | None = "w",
        status: GameStatus = GameStatus.VARIANT_END,
        settle: bool = True,
    ) -> Game:
        """A finished 2+5 rated antichess game through the game intake (as the stream
        delivers it), with the match listeners; then, as the service, the deadlines due fire
        (:meth:`settle`; ``settle=False``: not yet, as when the service stops right after the
        game's commit, or another game of a burst comes first)."""
        self.games_played += 1
        game = Game(
            id=GameId(f"g{self.games_played:07d}"),
            white=PlayerId(white),
            black=PlayerId(black),
            status=status,
            winner=None if winner is None else Colour(winner),
            variant="antichess",
            rated=True,
            clock_limit=120,
            clock_increment=5,
            created_at=start,
            last_move_at=start + dt.timedelta(minutes=minutes),
            source="friend",  # a challenge game, as the export would say
        )
        self.clock.set(max(self.clock.now(), game.last_move_at or start))
        if await self.services.intake(game) and settle:
            await self.settle()
        return game

    async def settle(self) -> int:
        """Fire what is due now, as the running service's deadline runner does right after a
        commit wakes it: a result or an agreed time leaves the round's pairings post to it
        (``pairings_redraw``), a round's last result its closing (``round_close``); how many
        fired."""
        return await self.runner.fire_due()

    async def add_game(self, match_id: int, game: GameRow) -> None:
        async with self.db.uow() as uow:
            game.match_id = match_id
            await uow.games.add(game)
            await uow.commit()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def sandbox(clock: FakeClock) -> SandboxState:
    state = SandboxState(now=clock.now)
    state.knobs.keepalive_seconds = 0.5
    for name in (*PLAYERS, *TDS):
        state.add_user(name, online=False)
    state.add_token(BOT, token="lip_bot_token_weekly")
    state.make_team(TEAM, leaders=[BOT])
    return state


@pytest.fixture
async def sandbox_url(sandbox: SandboxState) -> AsyncIterator[str]:
    runner = web.AppRunner(make_app(sandbox), shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{site.port}"
    finally:
        sandbox.drop_streams()
        await runner.cleanup()


@pytest.fixture
async def client(sandbox_url: str, clock: FakeClock) -> AsyncIterator[LichessClient]:
    async with LichessClient(
        base_url=sandbox_url, token="lip_bot_token_weekly", clock=clock, timeout=10.0
    ) as client:
        yield client


def build_week(
    db: Database, clock: FakeClock, sandbox: SandboxState, client: LichessClient
) -> Week:
    config = make_config()
    services = bootstrap(config, clock=clock, db=db, lichess=client)
    runner = DeadlineRunner(db, clock, services.deadline_handlers)
    dispatcher = OutboxDispatcher(
        db, LichessMessenger(client), clock, alerts=UndeliveredAlerts(services.notifier)
    )
    return Week(db, config, clock, sandbox, client, services, runner, dispatcher)


@pytest.fixture
def week(db: Database, clock: FakeClock, sandbox: SandboxState, client: LichessClient) -> Week:
    return build_week(db, clock, sandbox, client)
