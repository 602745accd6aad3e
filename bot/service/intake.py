"""Game intake: every game the stream or a backfill delivers is recorded once, by Lichess id.

A game between two paired players is classified against their open match (rules/week/intake.py).
A counted game updates the match (score, clinch, completion, all recomputed from the stored
games) and the match listeners run; a refused one is stored with its reason, and the TDs get an
alert where they should see it. The same game arriving twice, late, or out of order changes
nothing the second time. A game of a tied knockout match waiting for its armageddon goes to the
armageddon's own intake (another clock, rules 3.ix).

A game of one of the bot's own challenges is known by its id (the challenge's), and its colours
are checked against the game it was made for. The games stream does not say how a game was made
(its ``source``); a finished game of a paired couple that is not one of the bot's challenges is
looked up in the export first (``lookup``), which says. After a counted game that leaves more to
play, the next game's challenge is asked for.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Protocol, overload

from bot.config import Config
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.runtime.clock import Clock
from bot.service.challenges import GameChallenges
from bot.service.results import MatchChanged, refresh_match
from rules.core.model import Game, GameId
from rules.core.states import MatchState
from rules.talk import alerts
from rules.week.intake import Accepted, MatchContext, RefusalReason, Refused, classify_game
from storage.convert import to_match
from storage.models import MatchRow
from storage.uow import UnitOfWork

__all__ = ["ArmageddonIntake", "GameIntake", "GameLookup", "Intake"]

log = logging.getLogger(__name__)


class ArmageddonIntake(Protocol):
    """Takes a game of a match in state ``armageddon``; True when it stored something."""

    async def take(
        self, uow: UnitOfWork, row: MatchRow, game: Game, *, now: dt.datetime, source: str = ...
    ) -> bool: ...


class GameLookup(Protocol):
    """The export of games by id (``POST /api/games/export/_ids``): says each game's source."""

    async def __call__(self, ids: Iterable[GameId]) -> list[Game]: ...


def _spent(refusal: str | None, game_id: str, bots: set[str]) -> bool:
    """An aborted game of one of the bot's challenges: lila spent the challenge's id."""
    return refusal == RefusalReason.ABORTED.value and game_id in bots


class Intake(Protocol):
    """The entry point of a game the stream or a backfill delivers (``await intake(game)``:
    whether stored state changed), which owns its transactions
    (:class:`bot.lichess.intake.StreamIntake`)."""

    on_start: Callable[[str, str], Awaitable[object]] | None

    @property
    def recorded(self) -> int:
        """How many games changed stored state."""
        ...

    async def prepare(self, games: Sequence[Game]) -> None:
        """Games about to be delivered one after another (a burst): what can be asked of
        Lichess for all of them at once is asked now."""
        ...

    async def __call__(self, game: Game) -> bool: ...


class GameIntake:
    """Records a delivered game in its caller's unit of work (:meth:`record`), which commits."""

    def __init__(
        self,
        config: Config,
        clock: Clock,
        *,
        notifier: Notifier,
        on_match_change: MatchChanged,
        armageddon: ArmageddonIntake,
        challenges: GameChallenges | None = None,
        lookup: GameLookup | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.notifier = notifier
        self.on_match_change = on_match_change
        self.armageddon = armageddon
        self.challenges = challenges
        self.lookup = lookup
        self.recorded = 0

    def _needs_export(self, game: Game, bots: set[str]) -> bool:
        """A finished game the export must complete first, with an export to ask: its source
        (not one of the bot's challenges, whose games are known by id), or its end time (the
        stream may not carry ``lastMoveAt``; breaks and the leaver's minutes run from it, rules
        6.1, 6.4)."""
        if not game.status.is_finished or self.lookup is None:
            return False
        return game.last_move_at is None or (game.source is None and game.id not in bots)

    def needs_end_time(self, game: Game) -> bool:
        """A finished game the stream gave without its end time (lila's games stream carries
        no ``lastMoveAt``), with an export to ask it of."""
        return game.status.is_finished and game.last_move_at is None and self.lookup is not None

    async def _published_match(self, uow: UnitOfWork, game: Game) -> bool:
        """Whether the game's two players have a published match (one it may belong to)."""
        return any(
            rnd.week_start is not None and rnd.week_end is not None
            for _, rnd in await uow.matches.between(game.white, game.black)
        )

    async def look_up(self, ids: Sequence[GameId]) -> list[Game]:
        """The export of the games ``ids`` (a batch of :meth:`needs_end_time` games)."""
        assert self.lookup is not None
        return await self.lookup(ids)

    async def with_source(self, game: Game, *, exported: Game | None = None) -> Game:
        """``game`` with the source and the end time the export gives (``exported``: what it
        said of the game already, in a batch). Lookup errors raise (the watcher delivers the
        game again with its next backfill)."""
        assert self.lookup is not None
        answer = [exported] if exported is not None else await self.lookup([game.id])
        for found in answer:
            if found.id == game.id:
                game = dataclasses.replace(
                    game,
                    source=game.source or found.source,
                    initial_fen=game.initial_fen or found.initial_fen,
                    last_move_at=game.last_move_at or found.last_move_at,
                )
        return game

    async def _context(
        self, uow: UnitOfWork, game: Game, bots: set[str]
    ) -> tuple[MatchRow, MatchContext] | None:
        """The pair's match whose week holds the game, else their latest published match;
        ``bots`` gets the ids of the bot's challenges of their published matches."""
        options: list[tuple[MatchRow, MatchContext]] = []
        for row, rnd in await uow.matches.between(game.white, game.black):
            if rnd.week_start is None or rnd.week_end is None:
                continue  # not published yet: no game can belong to it
            # A repeat week of a final moves the window on by a week per repeat (rules 3.viii).
            shift = dt.timedelta(weeks=row.week - 1)
            counted = [g for g in await uow.games.for_match(row.id) if g.id != game.id]
            challenges = await uow.lichess.challenges(row.id)
            bots.update(c.id for c in challenges)
            context = MatchContext(
                match=to_match(row, round=rnd.number),
                window_start=rnd.week_start + shift,
                window_end=rnd.week_end + shift,
                is_complete=row.state == MatchState.COMPLETE or len(counted) >= row.games,
                previous_game_ended_at=max(
                    (g.last_move_at for g in counted if g.last_move_at is not None), default=None
                ),
                next_game=len(counted) + 1,
                challenges={
                    GameId(c.id): c.game_number
                    for c in challenges
                    if c.week == row.week and not c.armageddon
                },
            )
            if context.window_start <= game.created_at <= context.window_end:
                return row, context
            options.append((row, context))
        return options[0] if options else None

    @overload
    async def record(self, uow: UnitOfWork, game: Game) -> bool: ...

    @overload
    async def record(self, uow: UnitOfWork, game: Game, *, look_up: bool) -> bool | None: ...

    async def record(self, uow: UnitOfWork, game: Game, *, look_up: bool = False) -> bool | None:
        """Store ``game`` if it concerns a match; True when something changed. With
        ``look_up``: ``None`` (nothing done) when the export must say the game's source first:
        a finished game of a paired couple that is not one of the bot's challenges (those are
        known from the match's challenges, read here anyway: nearly every game)."""
        now = self.clock.now()
        existing = await uow.games.get(game.id)
        if existing is not None and (existing.status is game.status or existing.status.is_finished):
            return False  # seen in this state already, or already final
        if look_up and self.needs_end_time(game):
            # The export is asked whatever the match holds: the pair's published match is
            # all this pass must find (its games and challenges are read after the export).
            return None if await self._published_match(uow, game) else False
        bots: set[str] = set()
        found = await self._context(uow, game, bots)
        if found is None:
            return False
        if look_up and self._needs_export(game, bots):
            return None
        if game.status.is_finished and game.last_move_at is None:
            # nor did the export say (or there is none): it ended by the time it was seen
            game = dataclasses.replace(game, last_move_at=now)
        row, context = found
        if row.state == MatchState.ARMAGEDDON:
            return await self.armageddon.take(uow, row, game, now=now)
        decision = classify_game(game, context, ruleset=self.config.rules)
        counted = isinstance(decision, Accepted) and decision.is_final
        refusal = decision.reason.value if isinstance(decision, Refused) else None
        stored = await uow.games.store(
            game,
            match_id=row.id,
            counted=counted,
            refusal=refusal,
            source="lichess",
            now=now,
            stored=existing,
        )
        self.recorded += 1
        await self._alerts(uow, row, decision, now)
        await uow.audit.record(
            at=now,
            actor="bot",
            action="game.counted" if counted else ("game.refused" if refusal else "game.seen"),
            match_id=row.id,
            reason=refusal,
            details={"game": game.id, "status": game.status.value, "winner": stored.winner},
        )
        if counted:
            before = row.outcome
            state = await refresh_match(uow, row.id, now=now)
            await self.on_match_change(
                uow, row.id, state.outcome if row.outcome != before else None
            )
            if self.challenges is not None:
                await self.challenges.schedule_next(uow, row, now=now)
        elif self.challenges is not None and _spent(refusal, game.id, bots):
            await self.challenges.schedule_next(uow, row, now=now)  # a new challenge
        return True

    async def _alerts(
        self, uow: UnitOfWork, row: MatchRow, decision: Accepted | Refused, now: dt.datetime
    ) -> None:
        game = decision.game
        if isinstance(decision, Refused) and decision.alert_td:
            text = alerts.game_refused(game, match_id=row.id, reason=decision.reason.label)
            await self.notifier.td_alert(
                uow, now=now, text=text, key=notice.game_refused(game.id, row.id)
            )
        elif isinstance(decision, Accepted) and decision.alert_td and decision.is_final:
            facts = [a.value.replace("_", " ") for a in decision.alerts]
            text = alerts.game_flagged(game, match_id=row.id, facts=facts)
            await self.notifier.td_alert(
                uow, now=now, text=text, key=notice.game_flagged(game.id, row.id)
            )
