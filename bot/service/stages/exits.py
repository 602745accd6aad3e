"""Withdrawals and disqualifications (rules 8, 6.5, 7.2-3): what leaving changes in the stage
the player is in, with the tables before and after it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.languages import words_of
from bot.service.forum import Forum
from bot.service.player_tokens import plan_forget
from bot.service.stages.knockout import save_bracket
from bot.service.stages.rounds import new_match
from bot.service.weekly.publication import Publication
from bot.views.bracket import KNOCKOUT, SLOT_PLACE, load_bracket, slot_rows, with_results
from bot.views.candidates import pool_tables
from bot.views.qualification import COUNTED_ROUND_STATES, standings
from bot.views.qualification import results as qual_results
from bot.views.qualification import rounds as qual_rounds
from bot.views.tables import Table
from bot.views.tournament import require_tournament, stage_rounds, stage_row
from rules.core.model import PlayerId, normalise_username
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome, format_points
from rules.core.states import DecidedBy, MatchState, PlayerStatus, RoundState
from rules.stages.candidates import Pool
from rules.stages.formats import PlacementStage, stage_format, stage_title
from rules.stages.knockout import (
    Bracket,
    KnockoutError,
    KnockoutErrorReason,
    rebuild_after_withdrawal,
)
from rules.stages.pool_standings import StandingRow
from rules.stages.qualification import Adjudication, Exit, ExitKind, ResultKind, exit_report
from rules.swiss.tiebreaks import Standings
from rules.talk import conduct as talk
from storage.convert import to_match
from storage.models import MatchRow, PlayerExitRow, PlayerRow
from storage.uow import UnitOfWork

__all__ = ["ExitPreview", "Exits"]


@dataclass(frozen=True, slots=True)
class ExitPreview:
    """What a withdrawal or disqualification changes: the tables before and after it.

    :func:`exit_player` has already made the change in the unit of work; commit it to keep it,
    leave the unit of work without committing to drop it.
    """

    player: PlayerId
    username: str
    kind: str
    stage: str
    last_round: int
    reason: str
    before: tuple[Table, ...]
    after: tuple[Table, ...]
    changes: tuple[str, ...] = field(default=())

    def text(self) -> str:
        parts = [
            f"{self.username}: {self.kind.replace('_', ' ')} in the {self.stage} stage"
            f" (after round {self.last_round}); reason: {self.reason}",
            "",
            "BEFORE",
            *(t.text() for t in self.before),
            "",
            "AFTER",
            *(t.text() for t in self.after),
        ]
        if self.changes:
            parts += ["", "CHANGES", *(f"  - {c}" for c in self.changes)]
        return "\n".join(parts)

    def data(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "username": self.username,
            "kind": self.kind,
            "stage": self.stage,
            "last_round": self.last_round,
            "reason": self.reason,
            "before": [t.data() for t in self.before],
            "after": [t.data() for t in self.after],
            "changes": list(self.changes),
        }


def _qual_table(standings: Standings | None, title: str) -> Table:
    rows: tuple[tuple[str, ...], ...] = ()
    if standings is not None:
        rows = tuple(
            (
                str(r.rank),
                r.username,
                format_points(r.match_points),
                format_points(r.buchholz_median),
                format_points(r.progressive),
                r.status.value,
            )
            for r in standings.rows
        )
    return Table(title, ("#", "player", "pts", "median-buchholz", "cumulative", "status"), rows)


def _pool_table(pool: Pool, rows: Sequence[StandingRow]) -> Table:
    return Table(
        f"{pool.value} pool",
        ("#", "player", "match pts", "game pts", "played", "tiebreak"),
        tuple(
            (
                str(r.rank),
                r.player,
                format_points(r.match_points),
                format_points(r.game_points),
                str(r.matches_played),
                "" if r.separated_by is None else r.separated_by.value,
            )
            for r in rows
        ),
    )


def _bracket_table(bracket: Bracket) -> Table:
    rows = []
    for pairing in bracket.pairings():
        winner = bracket.winner_of(pairing.slot)
        rows.append(
            (
                pairing.slot.value,
                f"{pairing.white_first} ({pairing.white_source})",
                f"{pairing.black_first} ({pairing.black_source})",
                winner or "",
            )
        )
    return Table("knockout", ("match", "white in game 1", "black in game 1", "winner"), tuple(rows))


async def _void(uow: UnitOfWork, row: MatchRow, *, now: dt.datetime) -> None:
    row.state = MatchState.VOID
    await uow.deadlines.cancel_open(row.id, now=now)


async def _award(
    uow: UnitOfWork, row: MatchRow, winner: str, *, now: dt.datetime, why: str, actor: str
) -> str:
    row.outcome = Outcome.FIRST_WINS if winner == row.white_first else Outcome.SECOND_WINS
    row.decided_by, row.state = DecidedBy.FORFEIT, MatchState.COMPLETE
    row.completed_at = now
    await uow.deadlines.cancel_open(row.id, now=now)
    await uow.audit.record(
        at=now, actor=actor, action="match.forfeit", match_id=row.id, player=winner, reason=why
    )
    return f"match {row.id} goes to {winner} ({why})"


async def _stages_entered(uow: UnitOfWork, pid: PlayerId) -> set[StageKind]:
    """The stages with entrants (the qualification, the Candidates) that ``pid`` entered."""
    entered = set()
    for kind in (StageKind.QUALIFICATION, StageKind.CANDIDATES):
        stage = await stage_row(uow, kind)
        if any(e.player_id == pid for e in await uow.stages.entrants(stage.id)):
            entered.add(kind)
    return entered


@dataclass(slots=True)
class _StageExit:
    """What an exit changed in the current stage (``stage``: its name in the exit row)."""

    stage: str
    last_round: int = 0
    before: tuple[Table, ...] = ()
    after: tuple[Table, ...] = ()
    changes: list[str] = field(default_factory=list)


class Exits:
    """The one exit path (rules 8): every way a player leaves comes here."""

    def __init__(
        self,
        config: Config,
        notifier: Notifier,
        forum: Forum | None = None,
        publication: Publication | None = None,
    ) -> None:
        self.config = config
        self.notifier = notifier
        self.forum = forum
        self.publication = publication

    async def _qualification_exit(
        self,
        uow: UnitOfWork,
        pid: PlayerId,
        kind: ExitKind,
        *,
        now: dt.datetime,
        actor: str,
    ) -> tuple[int, tuple[Table, ...], tuple[Table, ...], list[str]]:
        config = self.config
        stage = await stage_row(uow, StageKind.QUALIFICATION)
        field_, res, gone, _ = await qual_results(uow, stage, config.rules, finished_only=False)
        last_round = 0
        unfinished: MatchRow | None = None
        by_round: dict[int, MatchRow] = {}
        changes: list[str] = []
        for stored in await qual_rounds(uow, stage):
            mine = [m for m in stored.matches if pid in (m.white_first, m.black_first)]
            if stored.row.state not in COUNTED_ROUND_STATES:
                if mine:
                    changes.append(
                        f"round {stored.row.number} is only proposed and pairs {pid}: pair it again"
                    )
                continue
            if mine:
                last_round = stored.row.number
                by_round[stored.row.number] = mine[0]
                unfinished = mine[0] if mine[0].state != MatchState.COMPLETE else None
        if unfinished is not None and unfinished.black_first is None:
            unfinished = None
        report = exit_report(
            field_,
            res,
            Exit(pid, kind, last_round),
            unfinished=None if unfinished is None else to_match(unfinished, round=last_round),
            earlier_exits=gone,
        )
        for _old, new in report.changed:
            if new.kind is not ResultKind.FORFEIT_WIN or new.adjudication is Adjudication.NONE:
                continue
            row = by_round[new.round]
            why = (
                talk.UNFINISHED_AT_EXIT
                if new.adjudication is Adjudication.UNFINISHED_AT_EXIT
                else talk.ENGINE_MARK_AT_EXIT
            )
            changes.append(await _award(uow, row, new.player, now=now, why=why, actor=actor))
            await self.notifier.dm_player(
                uow,
                now=now,
                player=new.player,
                text=talk.awarded_after_exit(
                    row.id, new.round, left=pid, why=why, words=await words_of(uow, new.player)
                ),
                key=notice.exit_award(row.id),
            )
        before = (_qual_table(report.before, "qualification standings"),)
        after = (_qual_table(report.after, "qualification standings"),)
        return last_round, before, after, changes

    async def _candidates_exit(
        self, uow: UnitOfWork, pid: PlayerId, *, now: dt.datetime
    ) -> tuple[int, tuple[Table, ...], tuple[Table, ...], list[str]]:
        config = self.config
        before_tables = await pool_tables(uow, config)
        before = tuple(_pool_table(p, t[1]) for p, t in before_tables.items())
        stage = await stage_row(uow, StageKind.CANDIDATES)
        last_round = 0
        changes = ["rules 8.2: all their Candidates games are disregarded"]
        for rnd, rows in await stage_rounds(uow, stage):
            for row in rows:
                if pid not in (row.white_first, row.black_first):
                    continue
                if rnd.state in (RoundState.APPROVED, RoundState.PUBLISHED):
                    last_round = max(last_round, rnd.number)
                if row.state != MatchState.COMPLETE:
                    await _void(uow, row, now=now)
                    changes.append(f"match {row.id} (round {rnd.number}) is void")
                    other = row.black_first if row.white_first == pid else row.white_first
                    if other is not None:
                        await self.notifier.dm_player(
                            uow,
                            now=now,
                            player=other,
                            text=talk.disregarded_after_exit(
                                row.id, rnd.number, left=pid, words=await words_of(uow, other)
                            ),
                            key=notice.exit_award(row.id),
                        )
        return last_round, before, (), changes

    async def _open_matches_exit(
        self, uow: UnitOfWork, pid: PlayerId, stage: StageKind, *, now: dt.datetime, actor: str
    ) -> list[str]:
        """A player who left with a match in play but outside the stage's fixed field: each
        unfinished match of the stage goes to the opponent (rules 8.1.1)."""
        changes = []
        for row in await uow.matches.for_player(pid):
            if row.stage != stage.value or row.black_first is None:
                continue
            if row.state not in (MatchState.SCHEDULED, MatchState.REPEAT):
                continue
            winner = row.black_first if row.white_first == pid else row.white_first
            why = talk.UNFINISHED_AT_EXIT
            changes.append(await _award(uow, row, winner, now=now, why=why, actor=actor))
            await self._tell_award(uow, row, winner, pid, why, now=now)
        return changes

    async def _tell_award(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        winner: str,
        leaver: str,
        why: str,
        *,
        now: dt.datetime,
    ) -> None:
        await self.notifier.dm_player(
            uow,
            now=now,
            player=winner,
            text=talk.open_match_awarded(
                row.stage, row.id, left=leaver, why=why, words=await words_of(uow, winner)
            ),
            key=notice.exit_award(row.id),
        )

    async def _knockout_exit(
        self, uow: UnitOfWork, pid: PlayerId, *, now: dt.datetime, actor: str
    ) -> tuple[tuple[Table, ...], tuple[Table, ...], list[str]]:
        config = self.config
        bracket = await load_bracket(uow)
        if bracket is None:  # pragma: no cover - the semifinals start with a bracket
            raise OperationError("there is no knockout bracket")
        bracket = await with_results(uow, bracket)
        before = (_bracket_table(bracket),)
        try:
            rebuild = rebuild_after_withdrawal(bracket, pid)
        except KnockoutError as e:
            if e.reason is not KnockoutErrorReason.NOT_IN_MATCH:
                raise
            return before, before, [f"{pid} did not play the Candidates pools: nothing moves"]
        new = rebuild.bracket
        changes = [f"rules 8.3-8.4: {p} moves up" for p in rebuild.moved_up]
        pairings = {p.slot: p for p in new.pairings()}
        for slot in rebuild.changed:
            stage, board = SLOT_PLACE[slot]
            rows = await slot_rows(uow, slot)
            rounds = await uow.tournaments.rounds((await stage_row(uow, stage)).id)
            round_row = rounds[0]
            for row in rows:
                await _void(uow, row, now=now)
                changes.append(f"match {row.id} ({slot.value}, week {row.week}) is void")
            pairing = pairings[slot]
            added = await uow.matches.add(
                new_match(
                    round_row, stage, board, pairing.white_first, pairing.black_first, config.rules
                )
            )
            changes.append(
                f"{slot.value} is now match {added.id}: {added.white_first} v {added.black_first}"
            )
            if self.publication is not None and added.state == MatchState.SCHEDULED:
                # in play at once: its negotiation, the pairing DMs and the week's deadlines
                await self.publication.start_match_week(uow, added, now=now, actor=actor)
            for player in (added.white_first, added.black_first):
                if player is not None:
                    await self.notifier.dm_player(
                        uow,
                        now=now,
                        player=player,
                        text=talk.paired_again_after_exit(
                            slot.value,
                            left=pid,
                            match_id=added.id,
                            white=added.white_first,
                            black=added.black_first,
                            words=await words_of(uow, player),
                        ),
                        key=notice.knockout_repaired(added.id),
                    )
        await save_bracket(uow, new, now=now)
        return before, (_bracket_table(new),), changes

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
    ) -> ExitPreview:
        """Withdraw or disqualify ``player`` in the current stage (rules 8, 6.5, 7.2-3).

        ``kind`` is ``withdrawal`` or ``disqualification``; ``engine_mark`` makes it an engine
        disqualification (rules 8.i.2). Qualification (8.i): their unfinished match goes to the
        opponent, an engine mark turns their finished matches into the opponents' wins, and they
        are not paired again. Candidates (8.ii): all their games are disregarded and their open
        matches void. Semifinal and final (8.iii-iv): the players below them move up and the changed
        knockout matches are voided and paired again. A :class:`PlacementStage` (the play-in):
        their unfinished match goes to the opponent (8.i.1), who takes the better place.

        The change is made in ``uow`` and the returned preview shows the tables before and after;
        the caller commits to confirm. Raises :class:`OperationError` (unknown player, already out,
        bad kind, no reason) and ``RulesError`` from the rules (e.g. a decided final).
        """
        row, exit_kind = await self._checked(
            uow, player, kind=kind, reason=reason, engine_mark=engine_mark
        )
        pid = normalise_username(player)
        tournament = await require_tournament(uow)
        current = StageKind(tournament.current_stage)
        in_stage = await _stages_entered(uow, pid)
        done = await self._stage_exit(uow, pid, exit_kind, current, in_stage, now=now, actor=actor)
        stage_name, last_round, changes = done.stage, done.last_round, done.changes
        await uow.stages.add_exit(
            PlayerExitRow(
                player_id=pid,
                stage=stage_name,
                kind=exit_kind.value,
                last_round=last_round,
                reason=reason,
                decided_by=actor,
                at=now,
            )
        )
        row.status = PlayerStatus.WITHDRAWN if kind == "withdrawal" else PlayerStatus.DISQUALIFIED
        row.status_reason = reason
        row.engine_mark = row.engine_mark or engine_mark
        await uow.flush()
        after = done.after
        if current in in_stage:  # recomputed from storage, the exit included
            after = await self._tables_after(uow, current)
        await uow.audit.record(
            at=now,
            actor=actor,
            action=f"player.{'withdraw' if kind == 'withdrawal' else 'disqualify'}",
            reason=reason,
            player=pid,
            details={
                "kind": exit_kind.value,
                "stage": stage_name,
                "last_round": last_round,
                "changes": changes,
            },
        )
        if self.forum is not None:  # the forum drafts' standings change without a match event
            await self.forum.sweep(uow, now=now, fresh=True)
        if await uow.tokens.get(pid) is not None:  # no more games to start for them
            await plan_forget(uow, subject=pid, why=row.status.value, now=now)
        return ExitPreview(
            player=pid,
            username=row.username,
            kind=exit_kind.value,
            stage=stage_name,
            last_round=last_round,
            reason=reason,
            before=done.before,
            after=after,
            changes=tuple(changes),
        )

    async def _checked(
        self, uow: UnitOfWork, player: str, *, kind: str, reason: str, engine_mark: bool
    ) -> tuple[PlayerRow, ExitKind]:
        """The registered, active ``player`` and the kind of their exit; OperationError else."""
        if kind not in ("withdrawal", "disqualification"):
            raise OperationError(f"{kind!r}: an exit is a withdrawal or a disqualification")
        if engine_mark and kind != "disqualification":
            raise OperationError("an engine mark leads to a disqualification, not a withdrawal")
        if not reason.strip():
            raise OperationError("a reason is required: it goes into the audit log")
        pid = normalise_username(player)
        row = await uow.players.get(pid)
        if row is None:
            raise OperationError(f"{player} is not registered")
        if row.status is not PlayerStatus.ACTIVE or any(
            e.player_id == pid for e in await uow.stages.exits()
        ):
            raise OperationError(f"{row.username} has already left the championship ({row.status})")
        return row, ExitKind.ENGINE_DISQUALIFICATION if engine_mark else ExitKind(kind)

    async def _stage_exit(
        self,
        uow: UnitOfWork,
        pid: PlayerId,
        exit_kind: ExitKind,
        current: StageKind,
        in_stage: set[StageKind],
        *,
        now: dt.datetime,
        actor: str,
    ) -> _StageExit:
        """The current stage's consequence of the exit (rules 8.i-iv)."""
        if current is StageKind.QUALIFICATION:
            if StageKind.QUALIFICATION in in_stage:
                last_round, before, after, changes = await self._qualification_exit(
                    uow, pid, exit_kind, now=now, actor=actor
                )
                return _StageExit(current.value, last_round, before, after, changes)
            changes = await self._open_matches_exit(uow, pid, current, now=now, actor=actor)
            return _StageExit(
                "registration",
                changes=changes or ["not in a stage yet: left out of every pairing from now on"],
            )
        if current is StageKind.CANDIDATES and StageKind.CANDIDATES in in_stage:
            last_round, before, after, changes = await self._candidates_exit(uow, pid, now=now)
            return _StageExit(current.value, last_round, before, after, changes)
        if current in KNOCKOUT:
            before, after, changes = await self._knockout_exit(uow, pid, now=now, actor=actor)
            return _StageExit(current.value, 0, before, after, changes)
        if isinstance(stage_format(current), PlacementStage):  # the play-in, any such stage
            changes = await self._open_matches_exit(uow, pid, current, now=now, actor=actor)
            return _StageExit(
                current.value,
                changes=changes or [f"no open match in the {stage_title(current)}: none to settle"],
            )
        return _StageExit(
            current.value, changes=[f"not in the {current.value} stage: nothing else changes"]
        )

    async def _tables_after(self, uow: UnitOfWork, stage: StageKind) -> tuple[Table, ...]:
        """The standings of ``stage`` (the qualification or the Candidates) as they are now: the
        rules' report ranks only rounds it was given whole."""
        if stage is StageKind.QUALIFICATION:
            return (
                _qual_table(await standings(uow, self.config.rules), "qualification standings"),
            )
        tables = await pool_tables(uow, self.config)
        return tuple(_pool_table(p, t[1]) for p, t in tables.items())
