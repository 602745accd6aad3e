"""The entry points of what Lichess delivers and of what the bot makes there: their transactions.

A service records in the unit of work it is given and never commits; these open and commit it.
:class:`StreamIntake`: a game the stream or a backfill delivers, which
:class:`bot.service.intake.GameIntake` records. A finished game whose source only the export
says is two transactions: the first finds that it must ask (and stores nothing), the export is
asked outside any transaction, and the second records the game with what the export said.
When the watcher hands several games over at once (a burst of game ends),
:meth:`StreamIntake.prepare` asks the export once for every finished one first, then stores the
games in one transaction (their contexts read at once), each counted game's match left a
follow-up row (:data:`bot.service.intake.FOLLOWUP_DEADLINE`) that the deadline runner, woken by
the commit, fires in a transaction of its own: no game's row waits for the others' match
consequences. A batch holds one game a pair: a pair's next game goes in the next transaction,
and before each, the open follow-up rows of its pairs' matches are run here, each claimed in a
transaction of its own (the runner's claim and this one fire a row once), so no game is
classified against a match whose consequences are still to come. The games the batch leaves
(one whose source only the export says, or all of them when the transaction fails) are taken
one by one as before, after those rows are run too; a game of a pair left so leaves that pair's
later games of the batch to the same path, so a pair's games are taken in order.
:func:`make_broadcasts`: each broadcast or round Lichess made, stored in its own transaction.
:func:`run_registration_checks`: the leader's loop of the players' own eligibility checks
(:class:`bot.service.registration_queue.RegistrationChecks`), each step of a check a transaction
of its own, the account read from Lichess between them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

from bot.lichess.errors import LichessError
from bot.runtime.deadlines import Firing, record_fired
from bot.service.broadcasts import Broadcasts
from bot.service.intake import FOLLOWUP_DEADLINE, GameIntake
from bot.service.registration_queue import POLL, CheckState, RegistrationChecks
from rules.core.model import Game, GameId
from storage.db import Database

__all__ = ["StreamIntake", "check_due", "make_broadcasts", "run_registration_checks"]

log = logging.getLogger(__name__)


Taken = Callable[[Game, bool, float, float], None]
"""Told of each game the intake dealt with once its transaction committed, whether it changed
stored state and when the intake began on it (``time.perf_counter()``,
``time.process_time()``; a batch's games: when the batch began)."""


class StreamIntake:
    """``await intake(game)``: ``game`` recorded in a transaction of its own, unless
    :meth:`prepare` stored it with its batch; whether stored state changed
    (:class:`bot.service.intake.Intake`)."""

    def __init__(self, db: Database, intake: GameIntake) -> None:
        self.db = db
        self.intake = intake
        self._exported: dict[GameId, Game] = {}
        """What :meth:`prepare`'s export said of the games about to be taken."""
        self._taken: dict[tuple[GameId, str], bool] = {}
        """The games :meth:`prepare` stored with their batch: whether each changed state."""
        self.on_start: Callable[[str, str], Awaitable[object]] | None = None
        """Told of each game that starts (its White and Black), once it is recorded: the
        broadcasts wake the players' round (:meth:`bot.service.broadcasts.Broadcasts.wake_for`),
        so Lichess's broadcast picks the game up while it goes on."""
        self.on_taken: Taken | None = None

    @property
    def recorded(self) -> int:
        return self.intake.recorded

    async def prepare(self, games: Sequence[Game]) -> None:
        """Games about to be taken one after another: the finished ones the export must
        complete, asked of it in one request (300 ids a request), where each would be one (a
        failed export leaves each game to ask its own); then the batch stored, a transaction
        a pair's game (:meth:`_store_batch`)."""
        began = time.perf_counter(), time.process_time()
        self._taken = {}
        wanted = [g.id for g in games if self.intake.needs_end_time(g)]
        self._exported = {}  # (an answer no game took is not kept)
        try:
            found = await self.intake.look_up(wanted) if wanted else []
        except LichessError as e:  # (those games are left to ask alone)
            log.warning("export of %d finished games failed (%s); each asks alone", len(wanted), e)
            found = []
        asked = set(wanted)
        self._exported = {g.id: g for g in found if g.id in asked}
        try:
            await self._store_batch(games, began)
        except Exception:  # each game left is taken on its own, and tried again if it fails
            log.exception("a batch of %d games failed; each is taken alone", len(games))

    async def _store_batch(self, games: Sequence[Game], began: tuple[float, float]) -> None:
        left = list(games)
        alone: set[frozenset[str]] = set()  # pairs whose games are taken one by one
        while left:
            these: list[Game] = []
            later: list[Game] = []
            pairs: set[frozenset[str]] = set()
            for game in left:
                pair = frozenset[str]((game.white, game.black))
                if pair in alone:
                    continue
                (later if pair in pairs else these).append(game)
                pairs.add(pair)
            if not these:
                return
            await self.settle(pairs)
            async with self.db.uow() as uow:
                batch = await self.intake.read_batch(uow, these)
                taken: list[tuple[Game, bool]] = []
                for game in these:
                    exported = self._exported.get(game.id)
                    if exported is not None:
                        game = await self.intake.with_source(game, exported=exported)
                    changed = await self.intake.record(uow, game, look_up=True, batch=batch)
                    if changed is None:  # its source only the export says: taken alone
                        alone.add(frozenset[str]((game.white, game.black)))
                    else:
                        taken.append((game, changed))
                await uow.commit()
            for game, changed in taken:
                self._taken[game.id, game.status.value] = changed
                self._exported.pop(game.id, None)
            # the finished games told at once; a started one once its round is woken (the
            # players may end it as soon as they hear it was taken)
            for game, changed in sorted(taken, key=lambda t: not t[0].status.is_finished):
                await self._started(game)
                self._told(game, changed, began)
            left = later

    async def settle(self, pairs: set[frozenset[str]]) -> int:
        """Run the open follow-up rows of the matches of ``pairs``, each claimed in a
        transaction of its own (one the runner fired meanwhile is not run again); how many."""
        async with self.db.reads() as uow:
            rows = await uow.deadlines.all_open_of_kind(FOLLOWUP_DEADLINE)
        ran = 0
        for row in rows:
            if frozenset(row.payload.get("players", ())) not in pairs:
                continue
            async with self.db.uow() as uow:
                now = self.intake.clock.now()
                claimed = await uow.claims.deadline(row.id, now)
                if claimed is None:
                    continue  # fired by the runner, or another process leads
                await self.intake.follow_up(uow, claimed)
                await record_fired(uow, claimed, Firing(claimed, now))  # as the runner would
                await uow.commit()
                ran += 1
        return ran

    def _told(self, game: Game, changed: bool, began: tuple[float, float]) -> None:
        if self.on_taken is not None:
            self.on_taken(game, changed, *began)

    async def _started(self, game: Game) -> None:
        if self.on_start is not None and not game.status.is_finished:
            await self.on_start(game.white, game.black)

    async def __call__(self, game: Game) -> bool:
        taken = self._taken.pop((game.id, game.status.value), None)
        if taken is not None:
            return taken  # stored with its batch, which told of it
        began = time.perf_counter(), time.process_time()
        await self.settle({frozenset[str]((game.white, game.black))})
        changed = await self._take(game)
        await self._started(game)
        self._told(game, changed, began)
        return changed

    async def _take(self, game: Game) -> bool:
        exported = self._exported.pop(game.id, None)
        if exported is None:
            # The first pass of a game the export must complete only reads (whether it is
            # stored in this state already, and whether its pair has a published match): no
            # transaction to begin and roll back, two round trips fewer on PostgreSQL.
            reads = self.intake.needs_end_time(game)
            async with self.db.reads() if reads else self.db.uow() as uow:
                changed = await self.intake.record(uow, game, look_up=True)
                if changed is not None:
                    if not reads:
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
