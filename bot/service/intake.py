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

A burst's games (:meth:`GameIntake.read_batch`, then :meth:`GameIntake.record` with the
:class:`Batch`) are stored in one transaction, their contexts read at once, and what a counted
game (or a spent challenge) brings about for its match (the score, the match listeners, the
next challenge: :meth:`GameIntake.follow_up`) is left to a deadline row of the match
(:data:`FOLLOWUP_DEADLINE`, due at once) that a transaction of its own claims right after:
the deadline runner's firing, or the intake's before it takes the match's next game. A crash
between leaves the row due. No game is classified while its match's row is open (one game a
match a batch; the entry point runs the open rows of a batch's matches first).
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
from bot.runtime.deadlines import Firing, Handler
from bot.service.challenges import GameChallenges
from bot.service.results import MatchChanged, refresh_match
from rules.core.model import Game, GameId
from rules.core.states import MatchState
from rules.talk import alerts
from rules.week.intake import Accepted, MatchContext, RefusalReason, Refused, classify_game
from storage.convert import to_match
from storage.models import DeadlineRow, GameRow, MatchRow, RoundRow
from storage.models_games import ChallengeRow
from storage.uow import UnitOfWork

__all__ = [
    "FOLLOWUP_DEADLINE",
    "ArmageddonIntake",
    "Batch",
    "GameIntake",
    "GameLookup",
    "Intake",
    "reopen_unhandled_followups",
]

FOLLOWUP_DEADLINE = "match_followup"
"""The deadline row a batch's counted game (or spent challenge) leaves its match (its subject:
the game's id; its payload: the two players and whether the game counted): what follows for
the match, in a transaction of its own (:meth:`GameIntake.follow_up`)."""

log = logging.getLogger(__name__)


class ArmageddonIntake(Protocol):
    """Takes a game of a match in state ``armageddon``; True when it stored something."""

    async def take(
        self, uow: UnitOfWork, row: MatchRow, game: Game, *, now: dt.datetime, source: str = ...
    ) -> bool: ...


class GameLookup(Protocol):
    """The export of games by id (``POST /api/games/export/_ids``): says each game's source."""

    async def __call__(self, ids: Iterable[GameId]) -> list[Game]: ...


def _followup(row: MatchRow, game: Game, *, counted: bool, now: dt.datetime) -> DeadlineRow:
    """The follow-up row of ``row`` that ``game`` leaves (a batch's: :data:`FOLLOWUP_DEADLINE`)."""
    return DeadlineRow(
        kind=FOLLOWUP_DEADLINE,
        due_at=now,
        match_id=row.id,
        subject=game.id,
        payload={"players": sorted((game.white, game.black)), "counted": counted},
        created_at=now,
    )


def _spent(refusal: str | None, game_id: str, bots: set[str]) -> bool:
    """An aborted game of one of the bot's challenges: lila spent the challenge's id."""
    return refusal == RefusalReason.ABORTED.value and game_id in bots


@dataclasses.dataclass(slots=True)
class Batch:
    """What a burst's games need read, read at once (:meth:`GameIntake.read_batch`): their
    stored rows, their pairs' matches and those matches' challenges (their games are in the
    transaction's memo, ``uow.games.preload``)."""

    stored: dict[str, GameRow]
    matches: dict[frozenset[str], list[tuple[MatchRow, RoundRow]]]
    challenges: dict[int, list[ChallengeRow]]


async def reopen_unhandled_followups(uow: UnitOfWork) -> int:
    """Open again every follow-up row a release that does not know its kind fired without a
    handler (an upgrade's two versions side by side: ``deadline.unhandled`` in the audit log),
    once each, so the runner fires it; how many (the daily digest's sweep)."""
    unhandled: dict[int, int] = {}
    for entry in await uow.audit.list(actions=["deadline.unhandled"]):
        details = entry.details or {}
        if details.get("kind") == FOLLOWUP_DEADLINE:
            row_id = int(details.get("id", 0))
            unhandled[row_id] = unhandled.get(row_id, 0) + 1
    reopened = 0
    for row_id, times in sorted(unhandled.items()):
        row = await uow.deadlines.get(row_id)
        if row is None or row.fired_at is None or row.payload.get("reopened", 0) >= times:
            continue  # (reopened as often as it was fired without a handler)
        row.fired_at, row.payload = None, {**row.payload, "reopened": times}
        reopened += 1
    return reopened


class Intake(Protocol):
    """The entry point of a game the stream or a backfill delivers (``await intake(game)``:
    whether stored state changed), which owns its transactions
    (:class:`bot.lichess.intake.StreamIntake`)."""

    on_start: Callable[[str, str], Awaitable[object]] | None
    on_taken: Callable[[Game, bool, float, float], None] | None
    """Told of each game once its transaction committed: whether it changed stored state,
    when the intake began on it (``time.perf_counter()`` and ``time.process_time()``)."""

    @property
    def recorded(self) -> int:
        """How many games changed stored state."""
        ...

    async def prepare(self, games: Sequence[Game]) -> None:
        """Games about to be delivered one after another (a burst): what can be asked of
        Lichess for all of them at once is asked now, and what can be stored together is."""
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

    async def read_batch(self, uow: UnitOfWork, games: Sequence[Game]) -> Batch:
        """What :meth:`record` reads for each of ``games``, read for all at once: four
        statements for the batch, where each game was four."""
        stored = await uow.games.get_many(g.id for g in games)
        matches = await uow.matches.between_pairs((g.white, g.black) for g in games)
        published = [
            row.id
            for found in matches.values()
            for row, rnd in found
            if rnd.week_start is not None and rnd.week_end is not None
        ]
        await uow.games.preload(published)
        return Batch(stored, matches, await uow.lichess.challenges_of(published))

    async def _context(
        self, uow: UnitOfWork, game: Game, bots: set[str], batch: Batch | None = None
    ) -> tuple[MatchRow, MatchContext] | None:
        """The pair's match whose week holds the game, else their latest published match;
        ``bots`` gets the ids of the bot's challenges of their published matches."""
        options: list[tuple[MatchRow, MatchContext]] = []
        pair = frozenset((game.white, game.black))
        between = (
            await uow.matches.between(game.white, game.black)
            if batch is None
            else batch.matches.get(pair, [])
        )
        for row, rnd in between:
            if rnd.week_start is None or rnd.week_end is None:
                continue  # not published yet: no game can belong to it
            # A repeat week of a final moves the window on by a week per repeat (rules 3.viii).
            shift = dt.timedelta(weeks=row.week - 1)
            counted = [g for g in await uow.games.for_match(row.id) if g.id != game.id]
            challenges = (
                await uow.lichess.challenges(row.id)
                if batch is None
                else batch.challenges.get(row.id, [])
            )
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
    async def record(
        self, uow: UnitOfWork, game: Game, *, look_up: bool, batch: Batch | None = None
    ) -> bool | None: ...

    async def record(
        self, uow: UnitOfWork, game: Game, *, look_up: bool = False, batch: Batch | None = None
    ) -> bool | None:
        """Store ``game`` if it concerns a match; True when something changed. With
        ``look_up``: ``None`` (nothing done) when the export must say the game's source first:
        a finished game of a paired couple that is not one of the bot's challenges (those are
        known from the match's challenges, read here anyway: nearly every game); a game that
        :meth:`needs_end_time` is then only read, never written (a unit of work for reads
        will do). With ``batch`` (what :meth:`read_batch` read): the match's follow-up is
        left to its row."""
        now = self.clock.now()
        existing = await uow.games.get(game.id) if batch is None else batch.stored.get(game.id)
        if existing is not None and (existing.status is game.status or existing.status.is_finished):
            return False  # seen in this state already, or already final
        if look_up and self.needs_end_time(game):
            # The export is asked whatever the match holds: the pair's published match is
            # all this pass must find (its games and challenges are read after the export).
            return None if await self._published_match(uow, game) else False
        bots: set[str] = set()
        found = await self._context(uow, game, bots, batch)
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
            flush=batch is None,  # a batch's rows: all at its commit
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
        spent = not counted and _spent(refusal, game.id, bots)
        if (counted or spent) and batch is not None:
            await uow.deadlines.add(_followup(row, game, counted=counted, now=now), flush=False)
        elif counted or spent:
            await self._consequences(uow, row, counted=counted, now=now)
        return True

    async def _consequences(
        self, uow: UnitOfWork, row: MatchRow, *, counted: bool, now: dt.datetime
    ) -> None:
        """What a counted game brings about for its match (its state from its games, the match
        listeners, the next game's challenge); a spent challenge only its new challenge."""
        if counted:
            before = row.outcome
            state = await refresh_match(uow, row.id, now=now)
            await self.on_match_change(
                uow, row.id, state.outcome if row.outcome != before else None
            )
        if self.challenges is not None:
            await self.challenges.schedule_next(uow, row, now=now)

    async def follow_up(self, uow: UnitOfWork, deadline: DeadlineRow) -> None:
        """A batch's game's follow-up row, claimed by the caller: what the game brings about
        for its match, as of the moment the game was taken (the row's due time)."""
        row = None if deadline.match_id is None else await uow.matches.get(deadline.match_id)
        if row is not None:
            counted = bool(deadline.payload.get("counted"))
            await self._consequences(uow, row, counted=counted, now=deadline.due_at)

    def handlers(self) -> dict[str, Handler]:
        return {FOLLOWUP_DEADLINE: self.on_followup}

    async def on_followup(self, uow: UnitOfWork, firing: Firing) -> None:
        """The runner fires a follow-up row right after its batch committed (woken by the
        commit), or late after a crash between (the intake claims one itself only before it
        takes the match's next game)."""
        await self.follow_up(uow, firing.deadline)

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
