"""Conduct (rules 5.6, 6.1-6.5): forfeits and the disqualification they lead to, a player's one
break and a claim of the match win."""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import NoticeKind, Notifier
from bot.notify import keys as notice
from bot.service.weekly.log import Loaded, append, is_decided
from bot.views.timeline import timeline
from rules.core.model import GameStatus, MatchId, PlayerId, normalise_username
from rules.core.states import PlayerStatus, RoundState
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
from storage.match_log import LogKind, break_calls, claim_rights, game_spans
from storage.models import PlayerExitRow
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


class Conduct:
    def __init__(self, config: Config, notifier: Notifier) -> None:
        self.config = config
        self.notifier = notifier

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
            alert = TDAlert(
                None, proposal.text, evidence, f"acwc dq confirm {proposal.player} --reason ..."
            )
            await self.notifier.td_alert(
                uow,
                now=now,
                text=alert.text,
                key=notice.disqualification_due(proposal.player, proposal.match_ids),
            )

    async def confirm_disqualification(
        self, uow: UnitOfWork, username: str, *, reason: str, now: dt.datetime, actor: str
    ) -> PlayerExitRow:
        """A TD confirms the disqualification of rules 6.5: the exit is recorded and the player
        marked disqualified.

        Refuses (:class:`OperationError`) when the player has not forfeited in enough different
        matches or has already left.
        """
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        player = normalise_username(username)
        row = await uow.players.get(player)
        if row is None:
            raise OperationError(f"{username} is not registered")
        if player in await _exited(uow):
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
        tournament = await uow.tournaments.current()
        stage = tournament.current_stage if tournament is not None else "qualification"
        last_round = 0
        for m in await uow.matches.for_player(player):
            if m.stage == stage:
                rnd = await uow.tournaments.round(m.round_id)
                if rnd is not None and rnd.state in (RoundState.PUBLISHED, RoundState.COMPLETE):
                    last_round = max(last_round, rnd.number)
        ids = ", ".join(map(str, proposal.match_ids))
        exit_row = await uow.stages.add_exit(
            PlayerExitRow(
                player_id=player,
                stage=stage,
                kind="disqualification",
                last_round=last_round,
                reason=f"rules 6.5: forfeits in matches {ids}; " + reason,
                decided_by=actor,
                at=now,
            )
        )
        row.status, row.status_reason = PlayerStatus.DISQUALIFIED, reason
        await uow.audit.record(
            at=now,
            actor=actor,
            action="player.disqualify",
            player=player,
            reason=reason,
            details={"rule": "6.5", "matches": list(proposal.match_ids)},
        )
        await self.notifier.dm(
            uow,
            now=now,
            to=player,
            text=talk.disqualified(ruleset.conduct.forfeit_limit, proposal.match_ids, reason),
            key=notice.disqualified(player),
        )
        return exit_row

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
        opponent = loaded.negotiation.opponent_of(player)
        mine, theirs = talk.break_started(player, until=until)
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
            return talk.CLAIM_MADE_BEFORE, None
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
        mine = talk.claim_sent(right.against)
        key = notice.step(NoticeKind.CLAIM_RECEIVED, row.id, event.seq)
        await self.notifier.dm(uow, now=now, to=player, text=mine, key=key)
        return mine, {"reason": right.reason.value, "against": right.against}
