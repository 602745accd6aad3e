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

A round's last result does not draft its closing (nor bring the next round's post up to date)
in that game's transaction: the results and standings of a whole round are the costliest part
of a game's intake, and every game that ended with it waited behind them. The game's
transaction adds a deadline row (kind ``round_close``, due at once, one open a round) and the
deadline runner drafts the closing in a transaction of its own, right after. It is idempotent
(a drafted closing is left as it is), a crash between the two leaves the row due, and the
daily digest's sweep drafts any closing still missing.

Nor does a result or an agreed time redraw the round's pairings post in its transaction (a
round's results shown, read again on every decided match: the next costliest part). The
transaction adds a deadline row (kind ``pairings_redraw``, due at once, one open a round) and
the runner redraws the post once for every change committed before it fires: a burst of games
that ended together redraws it once, and none of them waits for it. The redraw reads the
round as it is (idempotent); a crash between the two leaves the row due, and a row a previous
release fired without a handler (an upgrade's two versions side by side) is made good by the
daily digest's sweep, which brings every open round's pairings post up to date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.runtime.deadlines import Firing, Handler
from bot.views.candidates import candidates_view
from bot.views.qualification import entrants
from bot.views.qualification import standings as qualification_standings
from bot.views.scores import match_state
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import MatchState, RoundState
from rules.stages.formats import STAGE_FORMATS
from rules.talk import forum as talk
from rules.talk.notices import DM_LIMIT
from storage.models import Channel, DeadlineRow, MatchRow, OutboxRow, OutboxStatus, RoundRow
from storage.uow import UnitOfWork

__all__ = [
    "PAIRINGS_REDRAW_DEADLINE",
    "ROUND_CLOSE_DEADLINE",
    "AlreadyPostedError",
    "Forum",
    "NotADraftError",
]

ROUND_CLOSE_DEADLINE = "round_close"
"""The deadline row a round's last result adds (its subject: the round's id): the runner drafts
the round's closing in a transaction of its own (:meth:`Forum.on_round_close`)."""
PAIRINGS_REDRAW_DEADLINE = "pairings_redraw"
"""The deadline row a match's change adds (its subject: the round's id): the runner redraws the
round's pairings post in a transaction of its own (:meth:`Forum.on_pairings_redraw`)."""

DONE = (MatchState.COMPLETE, MatchState.VOID, MatchState.REPEAT)
"""A round ends when every match in it is in one of these states (a repeated knockout week
is followed by its next week's match in the same round)."""


class NotADraftError(OperationError):
    """There is no forum draft of that number."""


class AlreadyPostedError(OperationError):
    """The draft was marked posted before."""


def _forum_match(row: MatchRow, room_url: str, result: talk.MatchResult) -> talk.ForumMatch:
    """``row`` as a forum post shows it: its players, room, agreed time and ``result``."""
    return talk.ForumMatch(
        stage=row.stage,
        board=row.board,
        white=row.white_first,
        black=row.black_first,
        week=row.week,
        room_url=room_url,
        agreed=row.agreed_time,
        result=result,
    )


async def _result(uow: UnitOfWork, row: MatchRow) -> talk.MatchResult:
    if row.black_first is None:
        return talk.MatchResult(bye=True)
    if row.state is MatchState.VOID:
        return talk.MatchResult(void=True)
    repeat = row.state is MatchState.REPEAT
    if row.outcome is None and not repeat:
        return talk.MatchResult()
    state = await match_state(uow, row.id)
    winner = {Outcome.FIRST_WINS: row.white_first, Outcome.SECOND_WINS: row.black_first}
    return talk.MatchResult(
        repeat=repeat,
        decided=row.outcome is not None,
        score=str(state.score) if state.games and state.score is not None else None,
        winner=winner.get(row.outcome) if row.outcome is not None else None,
        decided_by=row.decided_by,
    )


async def _stage_names(uow: UnitOfWork, rounds: list[RoundRow]) -> str:
    """The stages of the rounds' matches, in words (a post may cover two)."""
    stages: list[str] = []
    for r in rounds:
        for m in await uow.matches.for_round(r.id):
            if m.stage not in stages:
                stages.append(m.stage)
    return talk.stage_names(stages)


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

    async def _match_lines(
        self,
        uow: UnitOfWork,
        rounds: list[RoundRow],
        *,
        room: int | None = None,
        changed: Collection[int] | None = None,
    ) -> list[str] | None:
        """Each match of ``rounds``: its room link, its agreed time, its result so far.

        ``room``: the characters the post has left for them before it is cut (``fit``: past
        its length only the fact that it is longer counts). The lines past
        that are never seen, so they are not computed: a round of 256 matches made every
        result and agreed time read the round's 2,000 games for a post cut after 90 lines.
        ``changed``: the matches whose lines changed; ``None`` when every one of their lines
        is past the cut (the post's text is the same)."""
        multi = len(rounds) > 1
        ordered = [
            m
            for r in rounds
            for m in sorted(await uow.matches.for_round(r.id), key=lambda m: (m.board, m.week))
        ]
        shown: list[MatchRow] = []
        length = 0
        for m in ordered:  # the lines the post can show (a result only lengthens a line)
            if room is not None and length > room + 1:
                break
            shown.append(m)
            undecided = talk.MatchResult(decided=m.outcome is not None)  # its line but the result
            head = _forum_match(m, self.config.room_url(m.id), undecided)
            length += len(talk.room_line(head, named=multi)) + 1
        if changed is not None and all(m.id not in changed for m in shown):
            return None
        await uow.games.preload(  # one query, for the results shown
            m.id for m in shown if m.outcome is not None or m.state is MatchState.REPEAT
        )
        lines = []
        length = 0
        for m in shown:
            if room is not None and length > room + 1:
                break  # the text is longer than the post already: it is cut here (fit)
            match = _forum_match(m, self.config.room_url(m.id), await _result(uow, m))
            lines.append(talk.room_line(match, named=multi))
            length += len(lines[-1]) + 1
        return lines

    async def pairings_post(
        self,
        uow: UnitOfWork,
        round_row: RoundRow,
        *,
        now: dt.datetime,
        reuse_carried: bool = False,
        changed: Collection[int] | None = None,
    ) -> None:
        """Draft or bring up to date the round's pairings post: its matches, each room link,
        the agreed times and the results so far (rules 4.3, 5.2, 6.6).

        ``reuse_carried``: nothing of the previous round changed (a match of this round did),
        so the previous round's results and standings the draft already carries are kept, not
        computed again: the standings are the costly part, and this runs on every game.
        ``changed``: those matches; a drafted post whose text is cut before their lines is
        left as it is (from about 180 players, most of a round's results and agreed times)."""
        if self.posts_per_round < 1 or round_row.week_end is None:
            return
        rounds = await self._post_rounds(uow, round_row)
        owner = rounds[0]
        if owner.week_end is None:
            return
        title = talk.pairings_title(await _stage_names(uow, rounds), owner.number)
        live = await uow.lichess.broadcast_round(owner.id)  # (bot/service/broadcasts.py)
        lines = talk.pairings_header(
            title,
            week_end=owner.week_end,
            public_url=self.config.service.public_url,
            live_url=None if live is None else live.url,
            broadcast_url=self.config.tournament.broadcast_url,
        )
        room = DM_LIMIT - len("\n".join(lines)) - 2  # past the blank line
        key = notice.round_pairings(owner.id)
        if changed is not None and await uow.outbox.forum_post(key.event) is None:
            changed = None  # not drafted yet: it is drafted whole
        shown = await self._match_lines(uow, rounds, room=room, changed=changed)
        if shown is None:
            return  # the line that changed is past the cut: the post reads the same
        lines += ["", *shown]
        # Past a message's length the post is cut before the previous round's results and
        # standings (fit): a 256-player round's post computed the standings on every result.
        cut = len("\n".join(lines)) > DM_LIMIT
        previous = None if cut else await self._carried(uow, owner)
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
        start = text.find(f"\n\n{talk.results_heading(previous.number)}\n")
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
        if stage is None:
            return True
        fmt = STAGE_FORMATS[StageKind(stage.kind)]
        if fmt.fixed_rounds:  # all stored when the stage starts
            return True
        field = len(await entrants(uow, stage))
        return field < 2 or round_row.number >= fmt.round_count(
            entrants=field, ruleset=self.config.rules
        )

    async def _ended(self, uow: UnitOfWork, round_row: RoundRow) -> list[MatchRow] | None:
        """The round's matches if every one of them is decided, else ``None``."""
        if round_row.state is not RoundState.PUBLISHED:
            return None
        if await uow.matches.round_has_other(round_row.id, DONE):
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
        title = talk.closing_title(await _stage_names(uow, rounds), owner.number)
        body = "\n".join([title, "", *await self._closing_lines(uow, rounds)])
        await self._draft(uow, key, subject=title, body=body.rstrip(), now=now)
        return True

    async def _closing_lines(self, uow: UnitOfWork, rounds: list[RoundRow]) -> list[str]:
        """The rounds' results and the standings after them (a closing post's body)."""
        multi = len(rounds) > 1
        lines = [talk.results_heading(rounds[0].number)]
        stage = "?"
        for r in rounds:
            matches = list(await uow.matches.for_round(r.id))
            for m in sorted(matches, key=lambda m: (m.board, m.week)):
                stage = m.stage
                match = _forum_match(m, self.config.room_url(m.id), await _result(uow, m))
                lines.append(talk.result_line(match, named=multi))
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
            return talk.qualification_standings_lines(
                through,
                (
                    talk.StandingLine(
                        r.rank, r.username, float(r.match_points), float(r.buchholz_median)
                    )
                    for r in table.rows
                ),
            )
        if stage == StageKind.CANDIDATES:
            pools = await candidates_view(uow, self.config, through=through)
            return talk.pool_standings_lines(
                through,
                (
                    (str(p.get("pool", "pool")), [str(r["player"]) for r in p.get("standings", [])])
                    for p in pools
                ),
            )
        return []

    async def match_changed(self, uow: UnitOfWork, row: MatchRow, *, now: dt.datetime) -> None:
        """A time was agreed or a result came in: the round's posts follow, each drafted by the
        deadline runner right after this transaction commits (one open row a round each)."""
        if self.posts_per_round < 1:
            return
        round_row = await uow.tournaments.round(row.round_id)
        if round_row is None or round_row.state is not RoundState.PUBLISHED:
            return
        if round_row.week_end is not None:
            await self._soon(uow, PAIRINGS_REDRAW_DEADLINE, round_row, now=now, match=row.id)
        if await self._ended(uow, round_row) is not None:
            await self._soon(uow, ROUND_CLOSE_DEADLINE, round_row, now=now)

    async def _soon(
        self,
        uow: UnitOfWork,
        kind: str,
        round_row: RoundRow,
        *,
        now: dt.datetime,
        match: int | None = None,
    ) -> None:
        """A deadline row of ``kind`` for the round, due at once, unless one is open; ``match``
        is added to the ``matches`` that changed in its payload."""
        subject = str(round_row.id)
        for open_row in await uow.deadlines.all_open_of_kind(kind):
            if open_row.subject != subject:
                continue
            payload = dict(open_row.payload)
            if match is not None:
                payload["matches"] = sorted({*payload.get("matches", []), match})
            # Written even when the same, and only while the row is still open: a runner that
            # claimed it meanwhile (PostgreSQL) redraws without this change, so a new row follows.
            if await uow.deadlines.extend_open(open_row, payload):
                return
            break
        await uow.deadlines.add(
            DeadlineRow(
                kind=kind,
                due_at=now,
                subject=subject,
                payload={} if match is None else {"matches": [match]},
                created_at=now,
            )
        )

    def handlers(self) -> dict[str, Handler]:
        return {
            ROUND_CLOSE_DEADLINE: self.on_round_close,
            PAIRINGS_REDRAW_DEADLINE: self.on_pairings_redraw,
        }

    async def on_pairings_redraw(self, uow: UnitOfWork, firing: Firing) -> None:
        """Matches of the round changed (``matches`` in the payload): its pairings post as the
        round is now, unless their lines are all past the post's cut (the previous round's
        results and standings it carries are kept: a change there redraws them)."""
        round_row = await uow.tournaments.round(int(firing.deadline.subject))
        if round_row is not None and round_row.state is RoundState.PUBLISHED:
            changed = firing.deadline.payload.get("matches")
            await self.pairings_post(
                uow,
                round_row,
                now=firing.now,
                reuse_carried=True,
                changed=None if changed is None else {int(m) for m in changed},
            )

    async def on_round_close(self, uow: UnitOfWork, firing: Firing) -> None:
        """A round's last result came in: its closing post, or the next round's pairings post
        that carries it (:meth:`closing_post`, which looks again whether the round ended)."""
        round_row = await uow.tournaments.round(int(firing.deadline.subject))
        if round_row is not None and round_row.state is RoundState.PUBLISHED:
            await self.closing_post(uow, round_row, now=firing.now)

    async def sweep(self, uow: UnitOfWork, *, now: dt.datetime, fresh: bool = False) -> int:
        """Draft the closing post of every ended round that lacks one (a knockout decided by
        its armageddon, a match voided by a withdrawal) and bring every open round's pairings
        post up to date; returns how many rounds are open.
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
                    # (a redraw's row fired by a release that has no handler for it, while
                    # an upgrade's two versions run side by side, is made good here)
                    await self.pairings_post(uow, round_row, now=now, reuse_carried=not fresh)
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
