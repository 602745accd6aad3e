"""Scenarios end to end through the service, on the fake clock against the sandbox Lichess: the
games come through the intake as the stream delivers them, the deadlines through the deadline
runner, the players' words through their text door, the DMs through the outbox to the sandbox.

- a tied semifinal goes to an armageddon (rules 3.7.2): the lower bid plays White (3.9.1.2), a
  drawn armageddon game goes to Black (3.9.1.1), and Black is paired in the Grand Final;
- a Candidate withdraws mid-stage (8.2): their open match is void, every game of theirs is
  disregarded, and the Saturday check charges nobody;
- a finalist withdraws (8.4): the player they beat moves up into the Grand Final, the Third Place
  Playoff gets the next of their pool, both paired again and in play.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from bot.app import LichessMessenger, bootstrap
from bot.config import Config
from bot.lichess.client import LichessClient
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from bot.runtime.outbox import MERGE_SEPARATOR, OutboxDispatcher
from bot.sandbox.state import SandboxState
from bot.service.services import Services
from bot.views.bracket import armageddon_view, load_bracket, with_results
from bot.views.candidates import pool_tables
from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, PlayerId
from rules.core.ruleset import StageKind
from storage.db import Database
from tests.stages.helpers import (
    ENTRANTS,
    SEEDED,
    advance,
    approve,
    config_for,
    first_wins,
    matches_of,
    play,
    qualification_done,
    semifinals_played,
    semifinals_running,
    tuesday,
)
from tests.weekly.harness import client, clock, sandbox, sandbox_url

__all__ = ["client", "clock", "sandbox", "sandbox_url"]


@pytest.fixture
def config(database_url: str) -> Config:
    return config_for(database_url)


@dataclass
class Scene:
    db: Database
    clock: FakeClock
    state: SandboxState
    services: Services
    runner: DeadlineRunner
    dispatcher: OutboxDispatcher
    games: int = 0

    async def game(
        self,
        white: str,
        black: str,
        *,
        status: GameStatus = GameStatus.DRAW,
        winner: Colour | None = None,
        clock: tuple[int, int] = (120, 5),
        minutes: int = 8,
    ) -> None:
        """A finished game through the intake, as the games stream delivers it."""
        self.games += 1
        start = self.clock.now()
        await self.services.intake(
            Game(
                id=GameId(f"sc{self.games:06d}"),
                white=PlayerId(white),
                black=PlayerId(black),
                status=status,
                winner=winner,
                variant="antichess",
                rated=True,
                clock_limit=clock[0],
                clock_increment=clock[1],
                created_at=start,
                last_move_at=start + dt.timedelta(minutes=minutes),
                source="friend",
            )
        )
        self.clock.advance(dt.timedelta(minutes=minutes + 1))

    async def say(self, match_id: int, player: str, text: str) -> str:
        async with self.db.uow() as uow:
            reply = await self.services.texts.handle(
                uow, match_id=match_id, player=player, text=text, now=self.clock.now(), via="web"
            )
            if reply.changed:
                await uow.commit()
        return reply.text

    async def until(self, when: dt.datetime) -> None:
        """The clock moved on to ``when``, every deadline due on the way fired at its time."""
        while True:
            async with self.db.uow() as uow:
                due = await uow.deadlines.next_due()
            if due is None or due > when:
                break
            self.clock.set(max(due, self.clock.now()))
            await self.runner.fire_due()
        self.clock.set(max(when, self.clock.now()))

    def inbox(self, user: str) -> list[str]:
        return [n for m in self.state.inbox_of(user) for n in m.split(MERGE_SEPARATOR)]


def _scene(
    db: Database, config: Config, clock: FakeClock, state: SandboxState, client: LichessClient
) -> Scene:
    for name in (*SEEDED, *ENTRANTS):
        if PlayerId(name.lower()) not in state.users:
            state.add_user(name)
    services = bootstrap(config, clock=clock, db=db, lichess=client)
    runner = DeadlineRunner(db, clock, services.deadline_handlers)
    dispatcher = OutboxDispatcher(db, LichessMessenger(client), clock)
    return Scene(db, clock, state, services, runner, dispatcher)


async def _week_start(db: Database, round_id: int) -> dt.datetime:
    async with db.uow() as uow:
        rnd = await uow.tournaments.round(round_id)
    assert rnd is not None
    assert rnd.week_start is not None
    return rnd.week_start


async def test_a_tied_semifinal_goes_to_armageddon_and_a_draw_sends_black_to_the_final(
    db: Database, config: Config, clock: FakeClock, sandbox: SandboxState, client: LichessClient
) -> None:
    sf1, sf2 = await semifinals_running(db, config)
    a, b = sf1.white_first, sf1.black_first
    assert b is not None
    clock.set(await _week_start(db, sf1.round_id) + dt.timedelta(days=2, hours=18))
    scene = _scene(db, config, clock, sandbox, client)
    for i in range(10):  # ten draws, colours alternating: level after 10 games (rules 3.7.2)
        await scene.game(*((a, b) if i % 2 == 0 else (b, a)))
    async with db.uow() as uow:
        row = await uow.matches.get(sf1.id)
    assert row is not None
    assert row.state == "armageddon"
    # Both players bid for White from their room (rules 3.9.1.2): the lower bid plays White.
    assert "sealed" in await scene.say(sf1.id, a, "bid 2:30")
    said = await scene.say(sf1.id, b, "bid 2:00")
    assert f"{b} plays White with 2:00, {a} plays Black with 3:00 and draw odds" in said
    async with db.uow() as uow:
        view = await armageddon_view(uow, sf1.id, config.rules)
    assert view is not None
    assert (view["white"], view["white_seconds"]) == (b, 120)
    await scene.dispatcher.deliver_due()
    await scene.until(clock.now() + dt.timedelta(minutes=5))
    await scene.dispatcher.deliver_due()
    async with db.uow() as uow:
        told = [r.body for r in await uow.outbox.list(kind="dm") if r.player == a]
    assert any("Armageddon" in n for n in told)
    # The armageddon game (Black 3 minutes, no increment) is drawn: Black wins (rules 3.9.1.1).
    await scene.game(b, a, clock=(180, 0), status=GameStatus.DRAW)
    async with db.uow() as uow:
        row = await uow.matches.get(sf1.id)
    assert row is not None
    assert (row.state, row.decided_by) == ("complete", "armageddon")
    assert row.outcome == ("first_wins" if a == row.white_first else "second_wins")
    first, second = sf2.white_first, sf2.black_first
    assert second is not None
    for i in range(6):  # the other semifinal: its first player wins six games
        white, black = (first, second) if i % 2 == 0 else (second, first)
        won = Colour.WHITE if white == first else Colour.BLACK
        await scene.game(white, black, status=GameStatus.VARIANT_END, winner=won)
    report = await advance(db, config, clock.now())  # the TDs start the final matches
    assert report.entered is StageKind.FINAL
    async with db.uow() as uow:
        stored = await load_bracket(uow)
        assert stored is not None
        bracket = await with_results(uow, stored)
    final, third = bracket.final, bracket.third_place
    assert final is not None
    assert third is not None
    assert a in (final.white_first, final.black_first)
    assert b in (third.white_first, third.black_first)
    finals = await matches_of(db, StageKind.FINAL)
    assert any(a in (m.white_first, m.black_first) for m in finals)


async def test_a_candidate_withdraws_mid_stage_and_nobody_is_charged(
    db: Database, config: Config, clock: FakeClock, sandbox: SandboxState, client: LichessClient
) -> None:
    await qualification_done(db, config)
    report = await advance(db, config, tuesday(5))
    assert report.earliest_publication is not None
    first = dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC)
    await approve(db, config, StageKind.CANDIDATES, first)
    for row in await matches_of(db, StageKind.CANDIDATES):
        if row.state == "scheduled":
            await play(db, row.id, first_wins(10))
    second = first + dt.timedelta(weeks=1)
    await approve(db, config, StageKind.CANDIDATES, second)
    clock.set(second + dt.timedelta(days=1))
    scene = _scene(db, config, clock, sandbox, client)
    open_row = next(r for r in await matches_of(db, StageKind.CANDIDATES) if r.state == "scheduled")
    leaver, opponent = open_row.white_first, open_row.black_first
    assert opponent is not None
    async with db.uow() as uow:
        preview = await scene.services.exits.exit_player(
            uow,
            player=leaver,
            kind="withdrawal",
            reason="illness",
            engine_mark=False,
            now=clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    assert leaver not in [r[1] for t in preview.after for r in t.rows]
    await scene.until(second + dt.timedelta(days=6))  # Friday's offers check, the weekend
    await scene.dispatcher.deliver_due()
    async with db.uow() as uow:
        void = await uow.matches.get(open_row.id)
        charged = await uow.weekly.forfeits(player=opponent)
        tables = await pool_tables(uow, config)
    assert void is not None
    assert void.state == "void"
    assert charged == []
    assert leaver not in [r.player for t in tables.values() for r in t[1]]
    assert any("will not be played" in n for n in scene.inbox(opponent))


async def test_a_finalist_withdraws_and_the_player_they_beat_moves_up(
    db: Database, config: Config, clock: FakeClock, sandbox: SandboxState, client: LichessClient
) -> None:
    tuesday_after = await semifinals_played(db, config) + dt.timedelta(weeks=1)
    await advance(db, config, tuesday_after + dt.timedelta(hours=9))
    clock.set(tuesday_after + dt.timedelta(hours=9))
    scene = _scene(db, config, clock, sandbox, client)
    await scene.runner.fire_due()  # the final matches go out on their Tuesday
    (final,) = await matches_of(db, StageKind.FINAL)
    assert final.state == "scheduled"
    async with db.uow() as uow:
        stored = await load_bracket(uow)
        assert stored is not None
        before = await with_results(uow, stored)
    finalist = final.white_first
    beaten = next(r.loser for r in before.results if r is not None and r.winner == finalist)
    async with db.uow() as uow:
        preview = await scene.services.exits.exit_player(
            uow,
            player=finalist,
            kind="withdrawal",
            reason="cannot play",
            engine_mark=False,
            now=clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    assert any(f"{beaten} moves up" in c for c in preview.changes)
    (new_final,) = await matches_of(db, StageKind.FINAL)
    (new_third,) = await matches_of(db, StageKind.THIRD_PLACE)
    assert new_final.id != final.id
    assert beaten in (new_final.white_first, new_final.black_first)
    assert finalist not in (new_final.white_first, new_final.black_first)
    assert beaten not in (new_third.white_first, new_third.black_first)
    async with db.uow() as uow:
        old = await uow.matches.get(final.id)
        planned = await uow.weekly.deadlines(new_final.id)
    assert old is not None
    assert old.state == "void"
    assert any(d.kind == "offers_check" and d.cancelled_at is None for d in planned)
    await scene.dispatcher.deliver_due()
    await scene.until(clock.now() + dt.timedelta(minutes=5))
    await scene.dispatcher.deliver_due()
    assert any("paired again" in n for n in scene.inbox(beaten))
