"""The armageddon game (rules 3.ix.1.1, 3.ix.1.4): taken from game intake, or recorded by a TD.

Game intake hands any game of a match in state ``armageddon`` here instead of checking it against
the match clock. The game is stored uncounted with ``refusal = "armageddon_game"`` (it is not one
of the match's 10 or 12 games) and decides the match: ``decided_by = "armageddon"``.
"""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.languages import words_of
from bot.service.results import parse_result
from bot.service.stages.armageddon import Armageddons
from bot.views.bracket import procedure
from rules.core.model import Game, GameId, PlayerId
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState
from rules.stages.armageddon import ArmageddonProcedure, Phase
from rules.stages.armageddon_game import armageddon_result
from rules.talk import armageddon as talk
from storage.models import MatchRow
from storage.models_stages import ArmageddonRow
from storage.uow import UnitOfWork

__all__ = ["ARMAGEDDON_GAME", "ArmageddonGames"]

ARMAGEDDON_GAME = "armageddon_game"
"""``GameRow.refusal`` of the armageddon game: stored, but not one of the match's games."""


class ArmageddonGames:
    def __init__(self, config: Config, notifier: Notifier, armageddons: Armageddons) -> None:
        self.config = config
        self.notifier = notifier
        self.armageddons = armageddons

    async def _store(
        self,
        uow: UnitOfWork,
        game: Game,
        row: MatchRow,
        *,
        refusal: str | None,
        now: dt.datetime,
        source: str,
    ) -> None:
        await uow.games.store(
            game, match_id=row.id, counted=False, refusal=refusal, source=source, now=now
        )

    async def take(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        game: Game,
        *,
        now: dt.datetime,
        source: str = "lichess",
    ) -> bool:
        """Take a game between the players of a match in state ``armageddon``; True if stored.

        The first finished game without increment after the colours are decided is the
        armageddon game: it decides the match (White wins only by winning, rules 3.ix.1.1) and
        is checked with :func:`rules.stages.armageddon_game.verify_armageddon_game`; what is
        wrong or cannot be verified goes to the TDs. A game with an increment, or one before the
        colours are decided, is stored refused and the TDs are told.
        """
        ruleset = self.config.rules
        arm = await self.armageddons.ensure(uow, row, now=now)
        if arm is None or game.created_at < arm.started_at:
            return False
        proc, _ = await procedure(uow, arm, ruleset)
        refusal = self._refusal(arm, proc, game)
        if refusal is not None:
            await self._store(uow, game, row, refusal=refusal, now=now, source=source)
            await self._tell_refused(uow, row, game, refusal, now=now)
            return True
        if not game.status.is_finished:
            await self._store(uow, game, row, refusal=None, now=now, source=source)
            return True
        if not game.status.is_played:
            await self._store(uow, game, row, refusal=game.status.value, now=now, source=source)
            return True
        await self._decide(uow, row, arm, proc, game, now=now, source=source)
        return True

    def _refusal(self, arm: ArmageddonRow, proc: ArmageddonProcedure, game: Game) -> str | None:
        """Why ``game`` is not the armageddon game (``None``: it may be)."""
        if arm.game_id is not None and arm.game_id != game.id:
            return "match_complete"
        if game.clock_increment != self.config.rules.armageddon.increment_seconds:
            return "wrong_clock"
        if proc.phase is not Phase.DECIDED:
            return "armageddon_undecided"
        return None

    async def _tell_refused(
        self, uow: UnitOfWork, row: MatchRow, game: Game, refusal: str, *, now: dt.datetime
    ) -> None:
        """The TDs' alert of a game stored refused (none for an unplayed game after the
        armageddon game)."""
        link = f"https://lichess.org/{game.id}"
        if refusal == "match_complete":
            if not game.status.is_played:
                return
            text, kind = talk.game_after_armageddon(link, row.id), "extra"
        elif refusal == "wrong_clock":
            players = (game.white, game.black)
            text = talk.game_wrong_increment(
                link, players, row.id, game.clock_increment, self.config.rules
            )
            kind = "clock"
        else:
            text, kind = talk.game_before_colours(link, row.id), "early"
        key = notice.armageddon_game(kind, game.id, row.id)
        await self.notifier.td_alert(uow, now=now, text=text, key=key)

    async def _decide(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        arm: ArmageddonRow,
        proc: ArmageddonProcedure,
        game: Game,
        *,
        now: dt.datetime,
        source: str,
    ) -> None:
        """``game`` is the armageddon game: it decides the match; the players are told, and
        the TDs of what its check found."""
        winner, findings = armageddon_result(proc, game, ruleset=self.config.rules)
        await self._store(uow, game, row, refusal=ARMAGEDDON_GAME, now=now, source=source)
        arm.game_id, arm.winner, arm.played_at, arm.phase = game.id, winner, now, "played"
        arm.findings = [
            {"kind": f.kind.value, "severity": f.severity.value, "message": f.message}
            for f in findings
        ]
        row.outcome = Outcome.FIRST_WINS if winner == row.white_first else Outcome.SECOND_WINS
        row.decided_by, row.state = DecidedBy.ARMAGEDDON, MatchState.COMPLETE
        row.completed_at = now
        await uow.audit.record(
            at=now,
            actor="bot" if source == "lichess" else source,
            action="armageddon.played",
            match_id=row.id,
            player=winner,
            details={"game": game.id, "winner": winner, "findings": arm.findings},
        )
        link = f"https://lichess.org/{game.id}"
        loser = row.black_first if winner == row.white_first else row.white_first
        key = notice.armageddon_result(arm.id, row.id)
        for player in (row.white_first, row.black_first):
            if player is not None:
                words = await words_of(uow, player)
                text = talk.winner_of(winner, str(loser), link, row.id, words)
                await self.notifier.dm_player(uow, now=now, player=player, text=text, key=key)
        if findings:
            facts = " ".join(f"[{f.severity.value}] {f.message}" for f in findings)
            await self.notifier.td_alert(
                uow,
                now=now,
                text=talk.game_needs_a_look(link, row.id, winner, facts),
                key=notice.armageddon_game("check", game.id, row.id),
            )
        await uow.flush()

    async def record(
        self,
        uow: UnitOfWork,
        *,
        match_id: int,
        result: str,
        reason: str,
        now: dt.datetime,
        actor: str,
    ) -> PlayerId:
        """A TD records the armageddon game by hand (``1-0``, ``0-1``, ``1/2-1/2``); the
        winner."""
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        row = await uow.matches.get(match_id)
        if row is None:
            raise OperationError(f"there is no match {match_id}")
        if row.state != MatchState.ARMAGEDDON:
            raise OperationError(
                f"match {match_id} is {row.state}: it has no armageddon game to play"
            )
        arm = await uow.later_stages.armageddon_for_match(match_id)
        if arm is None:
            raise OperationError(f"match {match_id} has not started its armageddon procedure")
        ruleset = self.config.rules
        proc, _ = await procedure(uow, arm, ruleset)
        if proc.phase is not Phase.DECIDED or proc.white is None or proc.black is None:
            raise OperationError(
                f"the colours of the armageddon of match {match_id} are not decided yet"
                f" ({proc.phase.value})"
            )
        status, winner = parse_result(result)
        game = Game(
            id=GameId(f"td-{match_id}-armageddon"),
            white=proc.white,
            black=proc.black,
            status=status,
            winner=winner,
            variant=ruleset.time_control.variant,
            rated=True,
            clock_limit=ruleset.armageddon.black_seconds,
            clock_increment=ruleset.armageddon.increment_seconds,
            created_at=now,
            last_move_at=now,
        )
        if not await self.take(uow, row, game, now=now, source="td") or arm.winner is None:
            raise OperationError(
                f"the armageddon game of match {match_id} was not accepted; see the TD alerts"
            )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="armageddon.record",
            reason=reason,
            match_id=match_id,
            details={"result": result},
        )
        return PlayerId(arm.winner)
