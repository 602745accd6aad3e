"""Forum posts: at most two a round for the TDs to paste (Lichess has no API for the forum,
DESIGN.md), kept current until they are pasted, and marked posted once they are.

A round has its pairings post, drafted when the round is published and rewritten as its matches
agree times and finish, and its closing post (results and standings) drafted when its last
match ends. A draft that changes before a TD pasted it is rewritten in place; once pasted, the
new text waits in ``revised_body`` and the desk offers it to paste over the post (Lichess lets an
author edit a post). Agreed times and results otherwise live on the public pages.

``tournament.forum_posts_per_round`` says how many posts a round gets. 1 (the default): one post
a round, as the TDs posted by hand (rules 3.v.6: pairings posted weekly): a round's results and
the standings after it close the next round's pairings post of the same stage, and only the
stage's last round gets a closing post of its own (nothing follows it in that stage). A round
that ends after the next one was published is added to the next one's post, which is rewritten
(or, if pasted already, offered as an edit). 2: every round its pairings and its closing post.
0: no forum posts.
"""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.views.candidates import candidates_view
from bot.views.qualification import entrants
from bot.views.qualification import standings as qualification_standings
from bot.views.scores import match_state
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState, RoundState
from rules.stages.formats import STAGE_FORMATS, stage_name
from rules.week.calendar import label_time
from storage.models import Channel, MatchRow, OutboxRow, OutboxStatus, RoundRow
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
    return stage_name(stage).lower()


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
        body = await self.notifier.as_stored(uow, body)
        if row.status is OutboxStatus.POSTED:
            row.revised_body = None if body == row.body else body
        else:
            row.subject, row.body = subject, body

    async def _post_rounds(self, uow: UnitOfWork, round_row: RoundRow) -> list[RoundRow]:
        """The published rounds one post covers, its owner first: the round itself, or for the
        final matches the final's and the third place playoff's round of that number (one
        stage in the rules, 3.ii and 3.viii: one post)."""
        stage = await uow.tournaments.stage_by_id(round_row.stage_id)
        if stage is None:
            return [round_row]
        kinds = STAGE_FORMATS[StageKind(stage.kind)].members
        if len(kinds) < 2:
            return [round_row]
        out = []
        for kind in kinds:
            member = await uow.tournaments.stage(stage.tournament_id, kind.value)
            if member is None:
                continue
            for other in await uow.tournaments.rounds(member.id):
                if other.number == round_row.number and other.week_end is not None:
                    out.append(other)
        return out if round_row in out else [round_row]

    async def _match_lines(self, uow: UnitOfWork, rounds: list[RoundRow]) -> list[str]:
        """Each match of ``rounds``: its room link, its agreed time, its result so far."""
        lines = []
        by_round = [await uow.matches.for_round(r.id) for r in rounds]
        await uow.games.preload(m.id for matches in by_round for m in matches)  # one query
        for matches in by_round:
            for m in sorted(matches, key=lambda m: (m.board, m.week)):
                head = f"{_stage_name(m.stage)} " if len(rounds) > 1 else ""
                if m.black_first is None:
                    lines.append(f"{head}{m.board}. {m.white_first}: bye")
                    continue
                week = f" (week {m.week})" if m.week > 1 else ""
                line = f"{head}{m.board}. {m.white_first} - {m.black_first}{week}  "
                line += self.config.room_url(m.id)
                if m.agreed_time is not None and m.outcome is None:
                    line += f"  agreed: {label_time(m.agreed_time)}"
                result = await _result_text(uow, m)
                if result:
                    line += f"  result: {result}"
                lines.append(line)
        return lines

    async def pairings_post(
        self,
        uow: UnitOfWork,
        round_row: RoundRow,
        *,
        now: dt.datetime,
        reuse_carried: bool = False,
    ) -> None:
        """Draft or bring up to date the round's pairings post: its matches, each room link,
        the agreed times and the results so far (rules 4.3, 5.2, 6.6).

        ``reuse_carried``: nothing of the previous round changed (a match of this round did),
        so the previous round's results and standings the draft already carries are kept, not
        computed again: the standings are the costly part, and this runs on every game."""
        if self.posts_per_round < 1 or round_row.week_end is None:
            return
        rounds = await self._post_rounds(uow, round_row)
        owner = rounds[0]
        if owner.week_end is None:
            return
        stages = []
        for r in rounds:
            for m in await uow.matches.for_round(r.id):
                if m.stage not in stages:
                    stages.append(m.stage)
        names = " and ".join(_stage_name(s) for s in stages) or "?"
        title = f"ACWC {names} round {owner.number} pairings"
        lines = [
            title,
            f"Play by {label_time(owner.week_end)} (rules 4.5); all times UTC.",
            f"Agreed times and results are also on {self.config.service.public_url.rstrip('/')}/",
        ]
        live = await uow.lichess.broadcast_round(owner.id)
        if live is not None:  # this round's live broadcast (bot/service/broadcasts.py)
            lines.append(f"Follow every game live on Lichess: {live.url}")
        elif self.config.tournament.broadcast_url:
            lines.append(f"Lichess broadcast: {self.config.tournament.broadcast_url}")
        lines += ["", *await self._match_lines(uow, rounds)]
        previous = await self._carried(uow, owner)
        key = notice.round_pairings(owner.id)
        if previous is not None:
            kept = await self._drafted_closing(uow, key, previous) if reuse_carried else None
            lines += ["", *(kept or await self._closing_lines(uow, [previous]))]
        await self._draft(
            uow,
            key,
            subject=title,
            body="\n".join(lines).rstrip(),
            now=now,
        )

    async def _drafted_closing(
        self, uow: UnitOfWork, key: notice.NoticeKey, previous: RoundRow
    ) -> list[str] | None:
        """The closing lines of ``previous`` (from "Round N results:" on) that the pairings
        post's draft already carries, else None."""
        row = await uow.outbox.forum_post(key.event)
        if row is None:
            return None
        text = row.revised_body if row.revised_body is not None else row.body
        start = text.find(f"\n\nRound {previous.number} results:\n")
        return None if start < 0 else text[start + 2 :].split("\n")

    async def _neighbour(self, uow: UnitOfWork, round_row: RoundRow, step: int) -> RoundRow | None:
        """The round ``step`` after (or before) ``round_row`` in its stage, if stored."""
        for other in await uow.tournaments.rounds(round_row.stage_id):
            if other.number == round_row.number + step:
                return other
        return None

    async def _is_last_of_stage(self, uow: UnitOfWork, round_row: RoundRow) -> bool:
        """No later round of the stage is stored, and the stage has no more rounds to come
        (the qualification's count, rules 3.v.2; the later stages' rounds are all stored when
        the stage starts). Without a known field every round counts as the last."""
        if await self._neighbour(uow, round_row, 1) is not None:
            return False
        stage = await uow.tournaments.stage_by_id(round_row.stage_id)
        if stage is None or StageKind(stage.kind) is not StageKind.QUALIFICATION:
            return True
        field = len(await entrants(uow, stage))
        fmt = STAGE_FORMATS[StageKind.QUALIFICATION]
        return field < 2 or round_row.number >= fmt.round_count(
            entrants=field, ruleset=self.config.rules
        )

    async def _ended(self, uow: UnitOfWork, round_row: RoundRow) -> list[MatchRow] | None:
        """The round's matches if every one of them is decided, else ``None``."""
        if round_row.state is not RoundState.PUBLISHED:
            return None
        matches = list(await uow.matches.for_round(round_row.id))
        if not matches or any(m.state not in DONE for m in matches):
            return None
        return matches

    async def _carried(self, uow: UnitOfWork, round_row: RoundRow) -> RoundRow | None:
        """The previous round whose results and standings close this round's pairings post
        (one post a round): ended, and without a closing post of its own."""
        if self.posts_per_round != 1:
            return None
        previous = await self._neighbour(uow, round_row, -1)
        if previous is None or await self._ended(uow, previous) is None:
            return None
        if await uow.outbox.forum_post(notice.round_closing(previous.id).event) is not None:
            return None
        return previous

    async def closing_post(
        self,
        uow: UnitOfWork,
        round_row: RoundRow,
        *,
        now: dt.datetime,
        reuse_carried: bool = False,
    ) -> bool:
        """Once every match of the round (and of the rounds its post covers) is decided: its
        closing post (results and standings), or with one post a round, unless it is its
        stage's last round, the next round's pairings post brought up to date (it carries
        them; ``reuse_carried``: as :meth:`pairings_post`, when nothing changed); True if done
        (now or before)."""
        if self.posts_per_round < 1 or await self._ended(uow, round_row) is None:
            return False
        rounds = await self._post_rounds(uow, round_row)
        for other in rounds:
            if await self._ended(uow, other) is None:
                return False
        owner = rounds[0]
        key = notice.round_closing(owner.id)
        if await uow.outbox.forum_post(key.event) is not None:
            return True
        if self.posts_per_round == 1 and not await self._is_last_of_stage(uow, owner):
            following = await self._neighbour(uow, owner, 1)
            if following is not None and following.state is RoundState.PUBLISHED:
                key = notice.round_pairings(following.id)
                if not reuse_carried or await self._drafted_closing(uow, key, owner) is None:
                    await self.pairings_post(uow, following, now=now, reuse_carried=reuse_carried)
            return True  # the next round's pairings post carries it when it is published
        stages = []
        for r in rounds:
            for m in await uow.matches.for_round(r.id):
                if m.stage not in stages:
                    stages.append(m.stage)
        names = " and ".join(_stage_name(s) for s in stages)
        title = f"ACWC {names} round {owner.number}: results"
        body = "\n".join([title, "", *await self._closing_lines(uow, rounds)])
        await self._draft(uow, key, subject=title, body=body.rstrip(), now=now)
        return True

    async def _closing_lines(self, uow: UnitOfWork, rounds: list[RoundRow]) -> list[str]:
        """The rounds' results and the standings after them (a closing post's body)."""
        multi = len(rounds) > 1
        lines = [f"Round {rounds[0].number} results:"]
        stage = "?"
        for r in rounds:
            matches = list(await uow.matches.for_round(r.id))
            for m in sorted(matches, key=lambda m: (m.board, m.week)):
                stage = m.stage
                head = f"{_stage_name(m.stage)} " if multi else ""
                pair = (
                    m.white_first if m.black_first is None else f"{m.white_first} - {m.black_first}"
                )
                week = f" (week {m.week})" if m.week > 1 else ""
                lines.append(f"{head}{m.board}. {pair}{week}: {await _result_text(uow, m)}")
        if multi:
            return lines
        standings = await self._standings(uow, stage, through=rounds[0].number)
        return [*lines, "", *standings] if standings else lines

    async def _standings(self, uow: UnitOfWork, stage: str, *, through: int) -> list[str]:
        """The stage's standings after round ``through`` (later rounds' results left out)."""
        if stage == StageKind.QUALIFICATION:
            try:
                table = await qualification_standings(uow, self.config.rules, through=through)
            except OperationError:  # matches added by hand, without a fixed field
                return []
            lines = [f"Standings after round {through} (match points, Median-Buchholz):"]
            lines += [
                f"{r.rank}. {r.username} {float(r.match_points):g} {float(r.buchholz_median):g}"
                for r in table.rows
            ]
            return lines
        if stage == StageKind.CANDIDATES:
            lines = [f"Standings after round {through}:"]
            for pool in await candidates_view(uow, self.config, through=through):
                order = [str(r["player"]) for r in pool.get("standings", [])]
                lines.append(f"{pool.get('pool', 'pool')} pool: " + ", ".join(order))
            return lines
        return []

    async def match_changed(self, uow: UnitOfWork, row: MatchRow, *, now: dt.datetime) -> None:
        """A time was agreed or a result came in: the round's posts follow."""
        round_row = await uow.tournaments.round(row.round_id)
        if round_row is None or round_row.state is not RoundState.PUBLISHED:
            return
        # (the change is in this round: the previous round this post carries is as it was)
        await self.pairings_post(uow, round_row, now=now, reuse_carried=True)
        await self.closing_post(uow, round_row, now=now)

    async def sweep(self, uow: UnitOfWork, *, now: dt.datetime, fresh: bool = False) -> int:
        """Draft the closing post of every ended round that lacks one (a knockout decided by
        its armageddon, a match voided by a withdrawal); returns how many rounds are open.
        ``fresh``: also compute again the results and standings each pairings post carries
        (a withdrawal or a disqualification, rules 8.i.2, changes them without a match
        event); otherwise a post that carries them keeps them."""
        open_rounds = 0
        for round_row in await uow.tournaments.all_rounds():
            if round_row.state is not RoundState.PUBLISHED:
                continue
            if not await self.closing_post(uow, round_row, now=now, reuse_carried=not fresh):
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
