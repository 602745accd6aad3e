"""The entry points of what Lichess delivers and of what the bot makes there: their transactions.

A service records in the unit of work it is given and never commits; these open and commit it.
:class:`StreamIntake`: a game the stream or a backfill delivers, which
:class:`bot.service.intake.GameIntake` records. A finished game whose source only the export
says is two transactions: the first finds that it must ask (and stores nothing), the export is
asked outside any transaction, and the second records the game with what the export said.
When the watcher hands several games over at once (a burst of game ends),
:meth:`StreamIntake.prepare` asks the export once for every finished one first, and each such
game is then one transaction, recorded with that answer.
:func:`make_broadcasts`: each broadcast or round Lichess made, stored in its own transaction.
:func:`run_registration_checks`: the leader's loop of the players' own eligibility checks
(:class:`bot.service.registration_queue.RegistrationChecks`), each step of a check a transaction
of its own, the account read from Lichess between them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence

from bot.lichess.errors import LichessError
from bot.service.broadcasts import Broadcasts
from bot.service.intake import GameIntake
from bot.service.registration_queue import POLL, CheckState, RegistrationChecks
from rules.core.model import Game, GameId
from storage.db import Database

__all__ = ["StreamIntake", "check_due", "make_broadcasts", "run_registration_checks"]

log = logging.getLogger(__name__)


class StreamIntake:
    """``await intake(game)``: ``game`` recorded in a transaction of its own; whether stored
    state changed (:class:`bot.service.intake.Intake`)."""

    def __init__(self, db: Database, intake: GameIntake) -> None:
        self.db = db
        self.intake = intake
        self._exported: dict[GameId, Game] = {}
        """What :meth:`prepare`'s export said of the games about to be taken."""
        self.on_start: Callable[[str, str], Awaitable[object]] | None = None
        """Told of each game that starts (its White and Black), once it is recorded: the
        broadcasts wake the players' round (:meth:`bot.service.broadcasts.Broadcasts.wake_for`),
        so Lichess's broadcast picks the game up while it goes on."""

    @property
    def recorded(self) -> int:
        return self.intake.recorded

    async def prepare(self, games: Sequence[Game]) -> None:
        """Games about to be taken one after another: the finished ones the export must
        complete, asked of it in one request (300 ids a request), where each would be one. A
        failed export leaves each game to ask its own."""
        wanted = [g.id for g in games if self.intake.needs_end_time(g)]
        self._exported = {}  # (an answer no game took is not kept)
        if len(wanted) < 2:
            return
        try:
            found = await self.intake.look_up(wanted)
        except LichessError as e:
            log.warning("export of %d finished games failed (%s); each asks alone", len(wanted), e)
            return
        asked = set(wanted)
        self._exported = {g.id: g for g in found if g.id in asked}

    async def __call__(self, game: Game) -> bool:
        changed = await self._take(game)
        if self.on_start is not None and not game.status.is_finished:
            await self.on_start(game.white, game.black)
        return changed

    async def _take(self, game: Game) -> bool:
        exported = self._exported.pop(game.id, None)
        if exported is None:
            async with self.db.uow() as uow:
                changed = await self.intake.record(uow, game, look_up=True)
                if changed is not None:
                    await uow.commit()
                    return changed
        game = await self.intake.with_source(game, exported=exported)
        async with self.db.uow() as uow:
            changed = await self.intake.record(uow, game)
            await uow.commit()
        return bool(changed)


async def make_broadcasts(db: Database, broadcasts: Broadcasts) -> int:
    """The broadcasts and rounds the published rounds miss, each stored in its own transaction
    once Lichess made it (:meth:`Broadcasts.sync`); how many rounds were made."""
    made = 0
    async for step in broadcasts.sync():
        async with db.uow() as uow:
            await step.write(uow)
            await uow.commit()
        made += step.rounds
    return made


async def check_due(db: Database, checks: RegistrationChecks) -> dt.datetime | None:
    """Run every registration check due now, one at a time (the bot keeps one request queue
    to Lichess), each step committed as it comes and the pages told; when the next waits until."""
    while True:
        due = await checks.next_due()
        if not isinstance(due, CheckState):
            return due
        async with contextlib.aclosing(checks.steps(due)) as steps:
            async for write in steps:
                async with checks.gate(), db.uow() as uow:
                    await write(uow)
                    await uow.commit()
                checks.moved()


async def run_registration_checks(db: Database, checks: RegistrationChecks) -> None:
    """Until cancelled: run the players' registration checks as they are asked for."""
    while True:
        checks.wakeup.looking()
        await checks.idle(await check_due(db, checks), poll=POLL)
