"""The daily job: the TDs' digest of everything that needs no decision, the closing posts the
result path missed, and the later stages' rounds whose pairings the rules fix.

A TD alert is for a decision (:data:`bot.notify.kinds.NEEDS_DECISION`); any other notice for the
TDs (an offers verdict, a no-show, a refused game...) is kept as a note (``Channel.TD_NOTE``) and
the daily job (a deadline row, :data:`bot.notify.notifier.DIGEST_DEADLINE`, due at
``tournament.digest_time``) sends the notes written since the last digest (a message Lichess
would not take is one, written by the outbox dispatcher) as one DM to each TD, unless a
decision's alert has carried them already (:meth:`bot.notify.Notifier.td_alert`: the TDs read
that message anyway), so a day whose notes all went with an alert has no digest. The desk lists
the notes as its "recent" list. The job also drafts the closing post of a round that ended without a
result notice (an armageddon, a withdrawal: :meth:`bot.service.forum.Forum.sweep`), opens again a
match's follow-up that a previous release fired without knowing it
(:func:`bot.service.intake.reopen_unhandled_followups`) and, on the
publication weekday, publishes the next round of a later stage when it may go out (rules 4.4:
the Candidates' rounds and the knockout are fixed when the TDs advance the stage, so their rounds,
the first one too, need no approval each week; ``tournament.publish_fixed_rounds``; the stage
advance runs the job at once, for a first round due that same day). It runs again the next day
while a round is in play or waits to be published.
"""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.notes import digest_text
from bot.notify.notifier import DIGEST_DEADLINE
from bot.runtime.deadlines import Firing, Handler
from bot.service.forum import Forum
from bot.service.intake import reopen_unhandled_followups
from bot.service.stages.rounds import StageRounds
from rules.core.states import RoundState
from rules.stages.formats import fixed_stages
from storage.models import OutboxStatus
from storage.uow import UnitOfWork

__all__ = ["Digest", "digest_text"]  # digest_text: bot.notify.notes

ACTOR = "bot"


class Digest:
    def __init__(
        self, config: Config, notifier: Notifier, forum: Forum, stage_rounds: StageRounds
    ) -> None:
        self.config = config
        self.notifier = notifier
        self.forum = forum
        self.stage_rounds = stage_rounds

    def handlers(self) -> dict[str, Handler]:
        return {DIGEST_DEADLINE: self.on_digest}

    async def send(self, uow: UnitOfWork, *, now: dt.datetime) -> int:
        """Send the notes that wait (those a decision's alert has not carried already) as one
        digest; returns how many (0: nothing sent). Notes beyond one message's length wait for
        the next digest."""
        notes = list(await uow.outbox.notes_pending())
        if not notes:
            return 0
        text, carried = digest_text(now.date(), notes)
        key = notice.td_digest(now.date().isoformat())
        for td in self.config.tournament.tds:  # a DM, not an alert: nothing here to settle
            await self.notifier.dm(uow, now=now, to=td, text=text, key=key)
        for row in carried:
            row.status, row.sent_at = OutboxStatus.SENT, now
        return len(carried)

    async def publish_fixed_rounds(self, uow: UnitOfWork, *, now: dt.datetime) -> int:
        """On the publication weekday, put into play each later stage's next round that may go
        out now (audited as the bot's); returns how many."""
        if (
            not self.config.tournament.publish_fixed_rounds
            or now.weekday() != self.config.rules.calendar.publish_weekday
        ):
            return 0
        published = 0
        for stage in fixed_stages(self.config.rules):
            try:
                await self.stage_rounds.approve_round(uow, stage=stage, now=now, actor=ACTOR)
            except OperationError:
                continue  # not started, nothing proposed, or not before its date
            published += 1
        return published

    async def _waiting(self, uow: UnitOfWork) -> bool:
        """A later stage's round waits to be published by this job."""
        if not self.config.tournament.publish_fixed_rounds:
            return False
        rounds = await uow.tournaments.all_rounds()
        return any(r.state is RoundState.PROPOSED and r.approved_at is None for r in rounds)

    async def on_digest(self, uow: UnitOfWork, firing: Firing) -> None:
        now = firing.now
        await self.send(uow, now=now)
        await self.publish_fixed_rounds(uow, now=now)
        open_rounds = await self.forum.sweep(uow, now=now)
        # (a match's follow-up the previous release fired without a handler, while an
        # upgrade's two versions ran side by side, fires again)
        await reopen_unhandled_followups(uow)
        await uow.flush()
        if open_rounds or await self._waiting(uow):
            await self.notifier.schedule_digest(uow, now=now)
