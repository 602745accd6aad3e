"""Game intake: every game the stream or a backfill delivers is recorded once, by Lichess id.

A game between two paired players is classified against their open match (rules/week/intake.py). A
counted game updates the match (score, clinch, completion, all recomputed from the stored games);
a refused one is stored with its reason, and the TDs get an alert where they should see it. The
same game arriving twice, late, or out of order changes nothing the second time.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy import and_, bindparam, or_, select

from bot.config import Config
from bot.runtime.clock import Clock
from bot.td import refresh_match
from rules.core.model import Game, PlayerId
from rules.core.scoring import Outcome
from rules.week.intake import Accepted, MatchContext, Refused, classify_game
from storage.convert import game_row_values, to_match
from storage.db import Database
from storage.models import GameRow, MatchRow, RoundRow
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

MatchChanged = Callable[[UnitOfWork, int, Outcome | None], Awaitable[None]]
"""Called inside the intake's transaction when a game changed a match's score or state."""

OPEN_STATES = ("scheduled", "in_progress", "repeat", "armageddon")


_MATCHES_BETWEEN = (
    select(MatchRow, RoundRow)
    .join(RoundRow, RoundRow.id == MatchRow.round_id)
    .where(
        or_(
            and_(MatchRow.white_first == bindparam("a"), MatchRow.black_first == bindparam("b")),
            and_(MatchRow.white_first == bindparam("b"), MatchRow.black_first == bindparam("a")),
        )
    )
    .order_by(MatchRow.id.desc())
)


async def matches_between(
    uow: UnitOfWork, a: PlayerId, b: PlayerId
) -> Sequence[tuple[MatchRow, RoundRow]]:
    """Every match of the pair with its round, newest first (one statement, built once: the
    intake asks this for every game the stream delivers)."""
    result = await uow.session.execute(_MATCHES_BETWEEN, {"a": a, "b": b})
    return [(m, r) for m, r in result.all()]


async def td_alert(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, key: str, text: str
) -> None:
    """One DM per TD per event (DESIGN.md); ``key`` makes a repeated event queue nothing."""
    for td in config.tournament.tds:
        await uow.outbox.enqueue(
            now=now, kind="td_alert", recipient=td, body=text, dedupe_key=f"{key}:{td.lower()}"
        )


class GameIntake:
    """The ``on_game`` callback of the games watcher."""

    def __init__(
        self,
        db: Database,
        config: Config,
        clock: Clock,
        *,
        on_match_change: MatchChanged | None = None,
        after_commit: Callable[[], None] | None = None,
    ) -> None:
        self.db = db
        self.config = config
        self.clock = clock
        self.on_match_change = on_match_change
        self.after_commit = after_commit
        self.recorded = 0
        self.after_game: Callable[[Game], None] | None = None
        """Called once each delivered game is dealt with and committed (the demo waits on it)."""

    async def __call__(self, game: Game) -> None:
        async with self.db.uow() as uow:
            changed = await self.record(uow, game)
            await uow.commit()
        if changed and self.after_commit is not None:
            self.after_commit()
        if self.after_game is not None:
            self.after_game(game)

    async def _context(self, uow: UnitOfWork, game: Game) -> tuple[MatchRow, MatchContext] | None:
        """The pair's match whose week holds the game, else their latest published match."""
        options: list[tuple[MatchRow, MatchContext]] = []
        for row, rnd in await matches_between(uow, game.white, game.black):
            if rnd.week_start is None or rnd.week_end is None:
                continue  # not published yet: no game can belong to it
            # A repeat week of a final moves the window on by a week per repeat (rules 3.viii).
            shift = dt.timedelta(weeks=row.week - 1)
            counted = [g for g in await uow.games.for_match(row.id) if g.id != game.id]
            context = MatchContext(
                match=to_match(row, round=rnd.number),
                window_start=rnd.week_start + shift,
                window_end=rnd.week_end + shift,
                is_complete=row.state == "complete" or len(counted) >= row.games,
                previous_game_ended_at=max(
                    (g.last_move_at for g in counted if g.last_move_at is not None), default=None
                ),
            )
            if context.window_start <= game.created_at <= context.window_end:
                return row, context
            options.append((row, context))
        return options[0] if options else None

    async def record(self, uow: UnitOfWork, game: Game) -> bool:
        """Store ``game`` if it concerns a match; True when something changed."""
        now = self.clock.now()
        existing = await uow.games.get(game.id)
        if existing is not None and (
            existing.status == game.status.value or existing.status not in ("created", "started")
        ):
            return False  # seen in this state already, or already final
        found = await self._context(uow, game)
        if found is None:
            return False
        row, context = found
        if row.state == "armageddon":
            # The tied knockout match waits for its armageddon game, which has another clock
            # (rules 3.ix): the stages feature checks and records it. Imported here because
            # bot.stages imports this module.
            from bot.stages import armageddon_game

            return await armageddon_game(uow, self.config, row, game, now=now)
        decision = classify_game(game, context, ruleset=self.config.rules)
        values = game_row_values(game)
        counted = isinstance(decision, Accepted) and decision.is_final
        refusal = decision.reason.value if isinstance(decision, Refused) else None
        if existing is None:
            await uow.games.add(
                GameRow(
                    **values,
                    match_id=row.id,
                    counted=counted,
                    refusal=refusal,
                    source="lichess",
                    recorded_at=now,
                )
            )
        else:
            for key, value in values.items():
                setattr(existing, key, value)
            existing.counted, existing.refusal, existing.recorded_at = counted, refusal, now
        self.recorded += 1
        await self._alerts(uow, row, decision, now)
        await uow.audit.record(
            at=now,
            actor="bot",
            action="game.counted" if counted else ("game.refused" if refusal else "game.seen"),
            match_id=row.id,
            reason=refusal,
            details={"game": game.id, "status": game.status.value, "winner": values["winner"]},
        )
        if counted:
            before = row.outcome
            state = await refresh_match(uow, row.id, now=now)
            if self.on_match_change is not None:
                await self.on_match_change(
                    uow, row.id, state.outcome if row.outcome != before else None
                )
        return True

    async def _alerts(
        self, uow: UnitOfWork, row: MatchRow, decision: Accepted | Refused, now: dt.datetime
    ) -> None:
        game = decision.game
        link = f"https://lichess.org/{game.id}"
        if isinstance(decision, Refused) and decision.alert_td:
            text = (
                f"Game {link} between {game.white} and {game.black} does not count for match "
                f"{row.id}: {decision.reason.value.replace('_', ' ')} "
                f"({game.variant}, {'rated' if game.rated else 'casual'}, "
                f"{game.clock_limit}+{game.clock_increment}). "
                f"If it should count: acwc result record {row.id} --game N --result R --reason ..."
            )
            await td_alert(uow, self.config, now=now, key=f"intake:{game.id}", text=text)
        elif isinstance(decision, Accepted) and decision.alert_td and decision.is_final:
            facts = ", ".join(a.value.replace("_", " ") for a in decision.alerts)
            text = (
                f"Game {link} of match {row.id} ({game.white} - {game.black}) counted, but needs a "
                f"look: {facts}. To change it: acwc result record {row.id} --game N --result R "
                "--reason ..."
            )
            await td_alert(uow, self.config, now=now, key=f"intake-alert:{game.id}", text=text)
