"""Live Lichess broadcasts of the stages that matter most (issue 14 item 4).

Each stage the config lists (``games.broadcast_stages``) gets one Lichess broadcast, and each of
its published rounds (a week) gets a round of it following the games of that week's players
(``syncUsers``), so the community sees every game and its result on Lichess's own broadcast page.
:meth:`Broadcasts.sync` makes whatever is missing: it reads the database, asks Lichess
outside any transaction, and hands each broadcast or round to its caller, which stores it in a
transaction of its own (:func:`bot.lichess.entries.make_broadcasts`); a Lichess
failure leaves the rest for the next sync (at start-up and whenever a round is published). The
pages and the round's forum pairings post.

lila syncs a round only while it is started and moves keep coming: each round is made to start
at once (``status=new``, ``startsAt`` now), and when a game of its players starts after the
sync may have stopped (:data:`WAKE_AFTER` since the bot last started it: lila stops after an
hour without a move, and finishes a round three hours after), :meth:`Broadcasts.wake_for`
starts it again, so lila picks up the game going on.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from bot.config import Config
from bot.runtime.clock import Clock
from bot.service.forum import Forum
from rules.core.ruleset import StageKind
from rules.core.states import RoundState
from rules.stages.formats import stage_title
from rules.talk.games import broadcast_description, time_control_text
from storage.db import Database
from storage.models_games import BroadcastRoundRow, BroadcastRow
from storage.uow import UnitOfWork, Write

__all__ = [
    "BroadcastFailed",
    "BroadcastMaker",
    "Broadcasts",
    "Made",
    "MadeBroadcast",
    "RoundToBroadcast",
]

log = logging.getLogger(__name__)

WAKE_AFTER = dt.timedelta(minutes=45)
"""Start a round's sync again when a game of its players starts this long after the bot last
started it (lila stops a sync after an hour without a move)."""


@dataclasses.dataclass(frozen=True, slots=True)
class MadeBroadcast:
    """A broadcast tournament or round Lichess made: its id and page."""

    id: str
    url: str


class BroadcastFailed(Exception):
    """Lichess did not make the broadcast or round; the text says why."""


class BroadcastMaker(Protocol):
    """Creates broadcasts on Lichess (scope ``study:write``); raises :class:`BroadcastFailed`."""

    async def tour(self, *, name: str, markdown: str) -> MadeBroadcast: ...

    async def round(
        self, tour_id: str, *, name: str, players: Sequence[str], starts_at: dt.datetime
    ) -> MadeBroadcast: ...

    async def wake(
        self, round_id: str, *, name: str, players: Sequence[str], starts_at: dt.datetime
    ) -> None: ...


@dataclasses.dataclass(frozen=True, slots=True)
class RoundToBroadcast:
    """A published round of a broadcast stage that has no broadcast round yet."""

    stage: StageKind
    round_id: int
    number: int
    players: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Made:
    """A broadcast, a round or a failure to record (``write``), and how many rounds it made."""

    write: Write
    rounds: int = 0


class Broadcasts:
    def __init__(
        self, config: Config, db: Database, clock: Clock, forum: Forum, maker: BroadcastMaker
    ) -> None:
        self.config = config
        self.db = db
        self.clock = clock
        self.forum = forum
        self.maker = maker
        self.woken: dict[str, dt.datetime] = {}
        """When the bot last started each round's sync (made or woken), by round id."""
        self.wakes = 0
        self._known: list[BroadcastRoundRow] | None = None

    async def wake_for(self, white: str, black: str) -> bool:
        """Start the sync of the latest round following both players again, unless the bot
        started it less than :data:`WAKE_AFTER` ago; whether it asked Lichess. Never raises
        for a Lichess failure (logged: the next game tries again)."""
        now = self.clock.now()
        found = [r for r in await self._rounds() if white in r.players and black in r.players]
        if not found:
            return False
        row = max(found, key=lambda r: r.created_at)
        last = self.woken.get(row.id)
        if last is not None and now - last < WAKE_AFTER:
            return False
        self.woken[row.id] = now
        try:
            await self.maker.wake(row.id, name=row.name, players=row.players, starts_at=now)
        except BroadcastFailed as e:
            log.warning("waking broadcast round %s failed: %s", row.id, e)
            self.woken.pop(row.id, None)
            return False
        self.wakes += 1
        return True

    async def missing(self) -> list[RoundToBroadcast]:
        """The published rounds of the broadcast stages without a broadcast round, in order."""
        stages = set(self.config.games.broadcast_stages)
        if not stages:
            return []
        out: list[RoundToBroadcast] = []
        async with self.db.reads() as uow:
            tournament = await uow.tournaments.current()
            if tournament is None:
                return []
            repo = uow.lichess
            for stage in await uow.tournaments.stages(tournament.id):
                if stage.kind not in stages:
                    continue
                for rnd in await uow.tournaments.rounds(stage.id):
                    if rnd.state not in (RoundState.PUBLISHED, RoundState.COMPLETE):
                        continue
                    if await repo.broadcast_round(rnd.id) is not None:
                        continue
                    players: set[str] = set()
                    for match in await uow.matches.for_round(rnd.id):
                        players.add(match.white_first)
                        if match.black_first is not None:
                            players.add(match.black_first)
                    out.append(
                        RoundToBroadcast(stage.kind, rnd.id, rnd.number, tuple(sorted(players)))
                    )
        return out

    async def sync(self) -> AsyncIterator[Made]:
        """Make the missing broadcasts and rounds, one at a time: each is handed to the caller
        (:func:`bot.lichess.entries.make_broadcasts`) to record in a transaction it commits
        before Lichess is asked for the next, so a failure keeps what went before. Never raises
        for a Lichess failure (logged, and its audit handed over; the next sync tries again)."""
        for todo in await self.missing():
            try:
                tour, stored = await self._tour(todo.stage)
                if not stored:
                    yield Made(self._store_tour(tour))
                name = f"Round {todo.number}"
                result = await self.maker.round(
                    tour.id, name=name, players=todo.players, starts_at=self.clock.now()
                )
            except BroadcastFailed as e:
                log.warning("broadcast of %s round %d failed: %s", todo.stage, todo.number, e)
                yield Made(self._audit_failure(todo, str(e)))
                return
            now = self.clock.now()
            self.woken[result.id] = now
            made_row = BroadcastRoundRow(
                id=result.id,
                broadcast_id=tour.id,
                round_id=todo.round_id,
                name=name,
                url=result.url,
                players=list(todo.players),
                created_at=now,
            )

            async def store(uow: UnitOfWork, made_row: BroadcastRoundRow = made_row) -> None:
                await uow.lichess.add(made_row)
                await uow.audit.record(
                    at=made_row.created_at,
                    actor="bot",
                    action="broadcast.round",
                    details={
                        "round": made_row.round_id,
                        "broadcast": made_row.id,
                        "url": made_row.url,
                    },
                )
                round_row = await uow.tournaments.round(made_row.round_id)
                if round_row is not None:  # the round's one pairings post names it (issue 17)
                    await self.forum.pairings_post(uow, round_row, now=made_row.created_at)

            yield Made(store, rounds=1)
            self._known = None  # read again, with the new round

    async def _rounds(self) -> list[BroadcastRoundRow]:
        """Every broadcast round made (read once; :meth:`sync` adds what it makes)."""
        if self._known is None:
            async with self.db.reads() as uow:
                self._known = list(await uow.lichess.all_broadcast_rounds())
        return self._known

    async def _tour(self, stage: StageKind) -> tuple[BroadcastRow, bool]:
        """The stage's broadcast, and whether it is stored: the one stored, or one Lichess
        makes now."""
        async with self.db.reads() as uow:
            found = await uow.lichess.broadcast(stage)
        if found is not None:
            return found, True
        stage_name = stage_title(stage)
        name = f"{self.config.games.event} {stage_name}"
        control = time_control_text(self.config.rules.time_control)
        markdown = broadcast_description(stage_name, self.config.tournament.name, control)
        made = await self.maker.tour(name=name, markdown=markdown)
        row = BroadcastRow(
            id=made.id, stage=stage, name=name, url=made.url, created_at=self.clock.now()
        )
        return row, False

    @staticmethod
    def _store_tour(row: BroadcastRow) -> Write:
        async def store(uow: UnitOfWork) -> None:
            await uow.lichess.add(row)

        return store

    def _audit_failure(self, todo: RoundToBroadcast, why: str) -> Write:
        at = self.clock.now()

        async def record(uow: UnitOfWork) -> None:
            await uow.audit.record(
                at=at,
                actor="bot",
                action="broadcast.failed",
                reason=why,
                details={"round": todo.round_id, "stage": str(todo.stage)},
            )

        return record

    async def for_round(self, round_id: int) -> BroadcastRoundRow | None:
        async with self.db.reads() as uow:
            return await uow.lichess.broadcast_round(round_id)
