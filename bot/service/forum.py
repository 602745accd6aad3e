"""Forum posts: at most two a round for the TDs to paste (Lichess has no API for the forum,
DESIGN.md), kept current until they are pasted, and marked posted once they are.

A round has its pairings post, drafted when the round is published and rewritten as its matches
agree times and finish, and its closing post (results and standings) drafted when its last
match ends. A draft that changes before a TD pasted it is rewritten in place; once pasted, the
new text waits in ``revised_body`` and the desk offers it to paste over the post (Lichess lets an
author edit a post). Agreed times and results otherwise live on the public pages. How many of
the two a round gets is ``tournament.forum_posts_per_round`` (2, 1: the pairings post only, 0).
"""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.views.candidates import candidates_view
from bot.views.qualification import standings as qualification_standings
from bot.views.scores import match_state
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState, RoundState
from rules.week.calendar import label_time
from storage.models import Channel, MatchRow, OutboxRow, OutboxStatus, RoundRow
from storage.repo_games import GamesRepository
from storage.uow import UnitOfWork

__all__ = ["AlreadyPostedError", "Forum", "NotADraftError"]

DONE = (MatchState.COMPLETE, MatchState.VOID, MatchState.REPEAT)
"""A round ends when every match in it is in one of these states (a repeated knockout week
is followed by its next week's match in the same round)."""


class NotADraftError(OperationError):
    """There is no forum draft of that number."""


class AlreadyPostedError(OperationError):
    """The draft was marked posted before."""


_HOW = {
    DecidedBy.FORFEIT: " by forfeit",
    DecidedBy.TD: " by TD decision",
    DecidedBy.ARMAGEDDON: " after the armageddon",
}


def _stage_name(stage: str) -> str:
    return stage.replace("_", " ")


async def _result_text(uow: UnitOfWork, row: MatchRow) -> str:
    """``6 - 2, alice wins`` (or by forfeit, by TD decision, by armageddon)."""
    if row.black_first is None:
        return "bye"
    if row.state is MatchState.VOID:
        return "void (rules 8)"
    if row.outcome is None and row.state is not MatchState.REPEAT:
        return ""
    state = await match_state(uow, row.id)
    score = f"{state.score}, " if state.games and state.score is not None else ""
    if row.state is MatchState.REPEAT:
        return f"{score}tied, played again the next week"
    winner = {Outcome.FIRST_WINS: row.white_first, Outcome.SECOND_WINS: row.black_first}
    how = _HOW.get(row.decided_by, "") if row.decided_by is not None else ""
    name = winner.get(row.outcome) if row.outcome is not None else None
    return f"{score}{name} wins{how}" if name else f"{score}tied{how}"


class Forum:
    def __init__(self, config: Config, notifier: Notifier) -> None:
        self.config = config
        self.notifier = notifier

    @property
    def posts_per_round(self) -> int:
        return self.config.tournament.forum_posts_per_round

    # --- the drafts ------------------------------------------------------------------------

    async def _draft(
        self,
        uow: UnitOfWork,
        key: notice.NoticeKey,
        *,
        subject: str,
        body: str,
        now: dt.datetime,
    ) -> None:
        """Draft ``key``'s post; rewrite it if unposted, or offer the change if posted."""
        row = await uow.outbox.forum_post(key.event)
        if row is None:
            await self.notifier.forum(uow, now=now, subject=subject, body=body, key=key)
            return
        body = self.notifier.fitted(body)
        if row.status is OutboxStatus.POSTED:
            row.revised_body = None if body == row.body else body
        else:
            row.subject, row.body = subject, body

    async def pairings_post(
        self, uow: UnitOfWork, round_row: RoundRow, *, now: dt.datetime
    ) -> None:
        """Draft or bring up to date the round's pairings post: its matches, each room link,
        the agreed times and the results so far (rules 4.3, 5.2, 6.6)."""
        if self.posts_per_round < 1 or round_row.week_end is None:
            return
        matches = list(await uow.matches.for_round(round_row.id))
        stage = matches[0].stage if matches else "?"
        title = f"ACWC {_stage_name(stage)} round {round_row.number} pairings"
        lines = [
            title,
            f"Play by {label_time(round_row.week_end)} (rules 4.5); all times UTC.",
            f"Agreed times and results are also on {self.config.service.public_url.rstrip('/')}/",
        ]
        live = await GamesRepository(uow.session).broadcast_round(round_row.id)
        if live is not None:  # this round's live broadcast (bot/service/broadcasts.py)
            lines.append(f"Follow every game live on Lichess: {live.url}")
        elif self.config.tournament.broadcast_url:
            lines.append(f"Lichess broadcast: {self.config.tournament.broadcast_url}")
        lines.append("")
        for m in sorted(matches, key=lambda m: m.board):
            if m.black_first is None:
                lines.append(f"{m.board}. {m.white_first}: bye")
                continue
            week = f" (week {m.week})" if m.week > 1 else ""
            line = (
                f"{m.board}. {m.white_first} - {m.black_first}{week}  {self.config.room_url(m.id)}"
            )
            if m.agreed_time is not None and m.outcome is None:
                line += f"  agreed: {label_time(m.agreed_time)}"
            result = await _result_text(uow, m)
            if result:
                line += f"  result: {result}"
            lines.append(line)
        await self._draft(
            uow, notice.round_pairings(round_row.id), subject=title, body="\n".join(lines), now=now
        )

    async def closing_post(self, uow: UnitOfWork, round_row: RoundRow, *, now: dt.datetime) -> bool:
        """Draft the round's closing post (results and standings) once every match in it is
        decided; True if it is drafted (now or before)."""
        if self.posts_per_round < 2 or round_row.state is not RoundState.PUBLISHED:
            return False
        matches = list(await uow.matches.for_round(round_row.id))
        if not matches or any(m.state not in DONE for m in matches):
            return False
        key = notice.round_closing(round_row.id)
        if await uow.outbox.forum_post(key.event) is not None:
            return True
        stage = matches[0].stage
        title = f"ACWC {_stage_name(stage)} round {round_row.number}: results"
        lines = [title, ""]
        for m in sorted(matches, key=lambda m: m.board):
            pair = m.white_first if m.black_first is None else f"{m.white_first} - {m.black_first}"
            week = f" (week {m.week})" if m.week > 1 else ""
            lines.append(f"{m.board}. {pair}{week}: {await _result_text(uow, m)}")
        lines += ["", *await self._standings(uow, stage)]
        await self._draft(uow, key, subject=title, body="\n".join(lines).rstrip(), now=now)
        return True

    async def _standings(self, uow: UnitOfWork, stage: str) -> list[str]:
        if stage == StageKind.QUALIFICATION:
            try:
                table = await qualification_standings(uow, self.config.rules)
            except OperationError:  # matches added by hand, without a fixed field
                return []
            lines = ["Standings (match points, Median-Buchholz):"]
            lines += [
                f"{r.rank}. {r.username} {float(r.match_points):g} {float(r.buchholz_median):g}"
                for r in table.rows
            ]
            return lines
        if stage == StageKind.CANDIDATES:
            lines = []
            for pool in await candidates_view(uow, self.config):
                order = [str(r["player"]) for r in pool.get("standings", [])]
                lines.append(f"{pool.get('pool', 'pool')} pool: " + ", ".join(order))
            return lines
        return []

    async def match_changed(self, uow: UnitOfWork, row: MatchRow, *, now: dt.datetime) -> None:
        """A time was agreed or a result came in: the round's posts follow."""
        round_row = await uow.tournaments.round(row.round_id)
        if round_row is None or round_row.state is not RoundState.PUBLISHED:
            return
        await self.pairings_post(uow, round_row, now=now)
        await self.closing_post(uow, round_row, now=now)

    async def sweep(self, uow: UnitOfWork, *, now: dt.datetime) -> int:
        """Draft the closing post of every ended round that lacks one (a knockout decided by
        its armageddon, a match voided by a withdrawal); returns how many rounds are open."""
        open_rounds = 0
        for round_row in await uow.tournaments.all_rounds():
            if round_row.state is not RoundState.PUBLISHED:
                continue
            if not await self.closing_post(uow, round_row, now=now):
                matches = await uow.matches.for_round(round_row.id)
                if any(m.state not in DONE for m in matches):
                    open_rounds += 1
        return open_rounds

    # --- the TDs' side ---------------------------------------------------------------------

    async def mark_posted(
        self, uow: UnitOfWork, draft_id: int, *, now: dt.datetime, actor: str
    ) -> OutboxRow:
        """A TD pasted forum draft ``draft_id`` (or its revised text over the post it was):
        never list it again until it changes (audited by name)."""
        row = await uow.outbox.get(draft_id)
        if row is None:
            raise NotADraftError(f"there is no outbox message {draft_id}")
        if row.kind is not Channel.FORUM_DRAFT:
            raise NotADraftError(f"outbox message {row.id} is a {row.kind}, not a forum draft")
        if row.status is OutboxStatus.POSTED:
            if row.revised_body is None:
                raise AlreadyPostedError(f"forum draft {row.id} was already marked posted")
            action = "forum.edited"
            row.body, row.revised_body = row.revised_body, None
        else:
            action = "forum.posted"
            row.status = OutboxStatus.POSTED
        row.sent_at = now
        await uow.audit.record(
            at=now, actor=actor, action=action, details={"outbox": row.id, "subject": row.subject}
        )
        return row
