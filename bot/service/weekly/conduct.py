"""Conduct (rules 5.6, 6.1-6.5): forfeits and the disqualification they lead to, a player's one
break and a claim of the match win."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.config import Config
from bot.errors import OperationError
from bot.notify import NoticeKind, Notifier
from bot.notify import keys as notice
from bot.notify.languages import readers, words_of
from bot.service.weekly.log import Loaded, append, is_decided
from bot.service.weekly.planning import plan_pause_check
from bot.views.timeline import timeline
from rules.core.model import GameStatus, MatchId, PlayerId, normalise_username
from rules.core.states import MatchState, PlayerStatus
from rules.talk import conduct as talk
from rules.talk.alerts import forfeit_line
from rules.talk.notices import TDAlert, td_claim_alert
from rules.week.conduct import (
    ConductError,
    ConductErrorReason,
    check_break_call,
    check_claim,
    review_pauses,
)
from rules.week.forfeits import ForfeitKind, ForfeitRecord, disqualifications_due
from storage.convert import to_match
from storage.match_log import LogKind, break_calls, claim_rights, game_spans
from storage.models_weekly import ForfeitRow
from storage.uow import UnitOfWork

__all__ = ["Conduct"]


async def _forfeit_records(uow: UnitOfWork, player: PlayerId | None = None) -> list[ForfeitRecord]:
    rows = await uow.weekly.forfeits(player=player)
    return [
        ForfeitRecord(
            PlayerId(r.player_id), MatchId(r.match_id), ForfeitKind(r.kind), r.at, r.waived
        )
        for r in rows
    ]


async def _exited(uow: UnitOfWork) -> set[PlayerId]:
    return {PlayerId(e.player_id) for e in await uow.stages.exits()}


class ExitPath(Protocol):
    """The one way a player leaves the championship (rules 8), the stages' ``Exits``: the
    consequence of the stage they are in, applied once (the weekly package cannot import the
    stages' package, which builds on it, so the composition root hands it over)."""

    async def exit_player(
        self,
        uow: UnitOfWork,
        *,
        player: str,
        kind: str,
        reason: str,
        engine_mark: bool,
        now: dt.datetime,
        actor: str,
    ) -> object: ...


class GameResults(Protocol):
    """The TDs' record of a game by hand (``Results.record``): the match listeners run."""

    async def record(
        self,
        uow: UnitOfWork,
        match_id: int,
        *,
        game_number: int,
        result: str,
        reason: str,
        now: dt.datetime,
        actor: str,
    ) -> object: ...


class Conduct:
    def __init__(self, config: Config, notifier: Notifier, exits: ExitPath) -> None:
        self.config = config
        self.notifier = notifier
        self.exits = exits

    # --- forfeits and disqualification (rules 5.6, 6.3-6.5) ------------------------------

    async def record_forfeit(
        self,
        uow: UnitOfWork,
        *,
        player: str,
        match_id: int,
        kind: ForfeitKind,
        reason: str,
        now: dt.datetime,
        actor: str,
        note: str | None = None,
    ) -> ForfeitRow:
        """Charge ``player`` with a forfeit in ``match_id``; alerts the TDs when rules 6.5
        applies."""
        row = await uow.weekly.add_forfeit(
            ForfeitRow(
                player_id=player,
                match_id=match_id,
                kind=kind.value,
                reason=reason,
                at=now,
                recorded_by=actor,
                waived=False,
                note=note,
            )
        )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="forfeit.record",
            player=player,
            match_id=match_id,
            reason=note,
            details={"kind": kind.value, "reason": reason},
        )
        await self._check_disqualification(uow, PlayerId(player), now=now)
        return row

    async def charge_game_forfeit(
        self,
        uow: UnitOfWork,
        results: GameResults,
        *,
        match_id: int,
        player: str,
        reason: str,
        now: dt.datetime,
        actor: str,
    ) -> int:
        """Rules 6.2: the TDs charge ``player`` a game forfeit (a rematch not offered or not
        accepted at once, again): the match's next game is recorded as the opponent's win and
        the forfeit goes on the player's record (two matches with one: rules 6.5). Returns the
        game's number. Refuses a decided match, a player not in it, and an empty reason."""
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        row = await uow.matches.get(match_id)
        if row is None or row.black_first is None:
            raise OperationError(f"there is no match {match_id} with two players")
        pid = normalise_username(player)
        if pid not in (row.white_first, row.black_first):
            raise OperationError(f"{player} does not play match {match_id}")
        if is_decided(row) or row.state != MatchState.SCHEDULED:
            raise OperationError(f"match {match_id} is not being played ({row.state})")
        number = len(await uow.games.for_match(row.id)) + 1
        if number > row.games:
            raise OperationError(f"match {match_id} has all its {row.games} games")
        white = to_match(row).white_in_game(number)
        await results.record(
            uow,
            match_id,
            game_number=number,
            result="0-1" if white == pid else "1-0",
            reason=f"rules 6.2: game forfeited by {pid}; {reason}",
            now=now,
            actor=actor,
        )
        await self.record_forfeit(
            uow,
            player=pid,
            match_id=match_id,
            kind=ForfeitKind.GAME,
            reason="rematch",
            now=now,
            actor=actor,
            note=f"rules 6.2: {reason}",
        )
        opponent = row.black_first if pid == row.white_first else row.white_first
        for to in (pid, opponent):
            words = await words_of(uow, to)
            await self.notifier.dm(
                uow,
                now=now,
                to=to,
                text=talk.game_forfeited(match_id, number, player=pid, reason=reason, words=words),
                key=notice.game_forfeit(match_id, number),
            )
        return number

    async def waive_forfeit(
        self, uow: UnitOfWork, forfeit_id: int, *, reason: str, now: dt.datetime, actor: str
    ) -> ForfeitRow:
        """Rules 5.10: the TDs waive a forfeit; it stays on record but no longer counts
        (rules 6.5)."""
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        row = await uow.weekly.forfeit(forfeit_id)
        if row is None:
            raise OperationError(f"there is no forfeit {forfeit_id}")
        if row.waived:
            raise OperationError(f"forfeit {forfeit_id} was waived already (by {row.waived_by})")
        row.waived, row.waived_by, row.note = True, actor, reason
        await uow.audit.record(
            at=now,
            actor=actor,
            action="forfeit.waive",
            reason=reason,
            player=row.player_id,
            match_id=row.match_id,
            details={"forfeit": row.id, "kind": row.kind},
        )
        await uow.flush()
        return row

    async def _check_disqualification(
        self, uow: UnitOfWork, player: PlayerId, *, now: dt.datetime
    ) -> None:
        proposals = disqualifications_due(
            await _forfeit_records(uow, player),
            ruleset=self.config.rules,
            already_disqualified=await _exited(uow),
        )
        for proposal in proposals:
            rows = await uow.weekly.forfeits(player=proposal.player)
            evidence = tuple(
                forfeit_line(r.match_id, r.kind, r.reason, r.at) for r in rows if not r.waived
            )
            alert = TDAlert(None, talk.disqualification_proposed(proposal.text), evidence, None)
            await self.notifier.td_alert(
                uow,
                now=now,
                text=alert.text,
                key=notice.disqualification_due(proposal.player, proposal.match_ids),
            )

    async def confirm_disqualification(
        self, uow: UnitOfWork, username: str, *, reason: str, now: dt.datetime, actor: str
    ) -> object:
        """A TD confirms the disqualification of rules 6.5; it goes through the one exit path
        (rules 8: the unfinished match goes to the opponent, or the Candidates' games are
        disregarded, or the knockout's next players move up; the deadlines are cancelled).
        Returns what the exit path returns (the tables before and after).

        Refuses (:class:`OperationError`) when the player has not forfeited in enough different
        matches or has already left.
        """
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        player = normalise_username(username)
        row = await uow.players.get(player)
        if row is None:
            raise OperationError(f"{username} is not registered")
        if player in await _exited(uow) or row.status is not PlayerStatus.ACTIVE:
            raise OperationError(f"{username} has already left the tournament")
        ruleset = self.config.rules
        proposals = disqualifications_due(await _forfeit_records(uow, player), ruleset=ruleset)
        if not proposals:
            records = [r for r in await _forfeit_records(uow, player) if not r.waived]
            matches = sorted({r.match_id for r in records})
            raise OperationError(
                f"{username} has forfeits in {len(matches)} match(es) "
                f"({', '.join(map(str, matches)) or 'none'}); rules 6.5 disqualifies after "
                f"{ruleset.conduct.forfeit_limit} in different matches"
            )
        proposal = proposals[0]
        ids = ", ".join(map(str, proposal.match_ids))
        result = await self.exits.exit_player(
            uow,
            player=player,
            kind="disqualification",
            reason=f"rules 6.5: forfeits in matches {ids}; {reason}",
            engine_mark=False,
            now=now,
            actor=actor,
        )
        await self.notifier.dm(
            uow,
            now=now,
            to=player,
            text=talk.disqualified(
                ruleset.conduct.forfeit_limit,
                proposal.match_ids,
                reason,
                await words_of(uow, player),
            ),
            key=notice.disqualified(player),
        )
        return result

    # --- a player's break and claim (rules 6.1, 6.3, 6.4) --------------------------------

    async def call_break(
        self, uow: UnitOfWork, loaded: Loaded, player: PlayerId, *, now: dt.datetime, via: str
    ) -> str:
        """Rules 6.1: ``player``'s one break of the match; the text they are told. Raises
        ``ConductError`` (a ``RulesError``) when they may not."""
        row = loaded.row
        games = await uow.games.for_match(row.id, counted_only=False)
        spans = game_spans(games)
        review = review_pauses(
            spans,
            break_calls(loaded.events),
            match_id=MatchId(row.id),
            players=loaded.negotiation.players,
            conduct=self.config.rules.conduct,
            now=now,
        )
        check_break_call(
            review,
            spans,
            player=player,
            players=loaded.negotiation.players,
            game_in_progress=any(g.status is GameStatus.STARTED for g in games),
        )
        if is_decided(row):
            raise ConductError(ConductErrorReason.NOT_STARTED, f"Match {row.id} is over.")
        event = await append(uow, row, at=now, actor=player, kind=LogKind.BREAK, via=via)
        until = now + self.config.rules.conduct.break_length
        await plan_pause_check(uow, self.config.rules, row, [*loaded.events, event], now=now)
        opponent = loaded.negotiation.opponent_of(player)
        tongues = await readers(uow, (player, opponent))
        mine, theirs = talk.break_started(
            player, until=until, words=tongues.of(player), opponent_words=tongues.of(opponent)
        )
        key = notice.step(NoticeKind.BREAK_CALLED, row.id, event.seq)
        await self.notifier.dm(uow, now=now, to=player, text=mine, key=key)
        await self.notifier.dm(uow, now=now, to=opponent, text=theirs, key=key)
        return mine

    async def claim_win(
        self, uow: UnitOfWork, loaded: Loaded, player: PlayerId, *, now: dt.datetime, via: str
    ) -> tuple[str, dict[str, str] | None]:
        """``claim win``: the claim goes to the TDs (rules 6.3, 6.4). Returns the text the player
        is told and, when the claim was recorded, its audit details (``None``: claimed before).
        Raises ``ConductError`` when the player has nothing to claim."""
        row = loaded.row
        rights, claimed = claim_rights(loaded.events)
        right = check_claim(
            rights, player, match_id=MatchId(row.id), conduct=self.config.rules.conduct
        )  # raises NO_CLAIM
        if player in claimed:
            return talk.claim_made_before(await words_of(uow, player)), None
        event = await append(
            uow,
            row,
            at=now,
            actor=player,
            kind=LogKind.CLAIM,
            data={"reason": right.reason.value},
            via=via,
        )
        evidence = tuple(entry.line for entry in await timeline(uow, row.id, audit=False))[-12:]
        await self.notifier.td_alert(
            uow,
            now=now,
            text=td_claim_alert(right, evidence=evidence, ruleset=self.config.rules).text,
            key=notice.claim(row.id, event.seq),
        )
        mine = talk.claim_sent(right.against, await words_of(uow, player))
        key = notice.step(NoticeKind.CLAIM_RECEIVED, row.id, event.seq)
        await self.notifier.dm(uow, now=now, to=player, text=mine, key=key)
        return mine, {"reason": right.reason.value, "against": right.against}
