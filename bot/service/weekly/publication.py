"""Approved pairings put into play (rules 4.3-4.4, 5.2): the match week, each match's
negotiation with its deadlines, and the pairing notices. Every stage publishes through here."""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.languages import words_of
from bot.service.forum import Forum
from bot.service.recheck import schedule_account_recheck
from bot.service.weekly.planning import replan_deadlines
from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import Ruleset
from rules.core.states import MatchState, RoundState
from rules.talk.notices import TeamBoard, pairing_published, round_pairings
from rules.week.calendar import MatchWeek, match_week
from rules.week.negotiation import Negotiation, start_negotiation
from storage.match_log import WEEK_STARTED, replay
from storage.models import MatchRow, RoundRow
from storage.uow import UnitOfWork

__all__ = ["Publication", "publication_date"]


def publication_date(now: dt.datetime, ruleset: Ruleset) -> dt.date:
    """The publication weekday (Tuesday) on or after ``now``, never before the first one."""
    day = max(now.date(), ruleset.calendar.first_publication)
    while day.weekday() != ruleset.calendar.publish_weekday:
        day += dt.timedelta(days=1)
    return day


def _week_of(row: MatchRow, round_row: RoundRow, ruleset: Ruleset) -> MatchWeek:
    if round_row.week_start is None:
        raise OperationError(f"match {row.id}: its round is not published yet")
    # A repeat week of a final moves the window on by a week per repeat (rules 3.viii).
    start = round_row.week_start.date() + dt.timedelta(weeks=row.week - 1)
    return match_week(start, ruleset)


class Publication:
    def __init__(self, config: Config, notifier: Notifier, forum: Forum) -> None:
        self.config = config
        self.notifier = notifier
        self.forum = forum

    async def publish_round(
        self, uow: UnitOfWork, round_row: RoundRow, *, now: dt.datetime, actor: str
    ) -> MatchWeek:
        """Put an approved round into play (rules 4.3-4.4, 5.2).

        Sets the round's match week, schedules its matches, starts each match's negotiation with
        its deadlines, and queues the notices: a DM to each player (opponent, deadlines, match
        room link), one team update of the pairings if ``tournament.team`` is set, and the
        round's pairings post for the forum (kept current by :class:`Forum`). Everything is
        written on ``uow``; the caller commits.
        """
        config = self.config
        week = match_week(publication_date(now, config.rules), config.rules)
        round_row.state = RoundState.PUBLISHED
        round_row.published_at = now
        round_row.week_start, round_row.week_end = week.start, week.end
        matches = list(await uow.matches.for_round(round_row.id))
        for match in matches:
            if match.black_first is not None and match.state == MatchState.PROPOSED:
                match.state = MatchState.SCHEDULED
        await uow.audit.record(
            at=now,
            actor=actor,
            action="round.publish",
            details={
                "round": round_row.id,
                "number": round_row.number,
                "week_start": week.start.isoformat(),
                "week_end": week.end.isoformat(),
            },
        )
        await uow.flush()
        for match in matches:
            if match.black_first is not None:
                await self.start_match_week(uow, match, now=now, actor=actor, week=week)
        title, body = round_pairings(
            matches[0].stage if matches else "?",
            round_row.number,
            week,
            [
                TeamBoard(m.board, m.white_first, m.black_first, config.room_url(m.id))
                for m in matches
            ],
        )
        key = notice.round_pairings(round_row.id)
        await self.notifier.team_update(uow, now=now, subject=title, body=body, key=key)
        await self.forum.pairings_post(uow, round_row, now=now)
        await self.notifier.schedule_digest(uow, now=now)
        await schedule_account_recheck(uow, now=now)  # rules 7.3, daily during the event
        return week

    async def start_match_week(
        self,
        uow: UnitOfWork,
        row: MatchRow,
        *,
        now: dt.datetime,
        actor: str,
        week: MatchWeek | None = None,
    ) -> Negotiation:
        """Start the negotiation of ``row``'s current week (``row.week``); idempotent.

        :meth:`publish_round` calls it for every match; the later stages call it when a tied
        final is repeated the next week (after raising ``row.week``). Queues the pairing DMs and
        plans the deadlines.
        """
        config = self.config
        if row.black_first is None:
            raise OperationError(f"match {row.id} is a bye; it has nothing to schedule")
        repo = uow.weekly
        existing = [e for e in await repo.events(row.id, week=row.week) if e.kind == WEEK_STARTED]
        if existing:
            return replay(await repo.events(row.id, week=row.week), config.rules)
        if week is None:
            round_row = await uow.tournaments.round(row.round_id)
            assert round_row is not None
            week = _week_of(row, round_row, config.rules)
        players = (PlayerId(row.white_first), PlayerId(row.black_first))
        negotiation = start_negotiation(MatchId(row.id), players, week)
        await repo.append(
            row.id,
            week=row.week,
            at=now,
            actor=actor,
            kind=WEEK_STARTED,
            via="publish",
            data={
                "players": list(players),
                "start": week.start.isoformat(),
                "end": week.end.isoformat(),
                "offer_deadline": week.offer_deadline.isoformat(),
            },
        )
        key = notice.pairing(row.id, row.week)
        for player in players:
            note = pairing_published(
                match_id=MatchId(row.id),
                player=player,
                opponent=negotiation.opponent_of(player),
                week=week,
                room_url=config.room_url(row.id),
                now=now,
                ruleset=config.rules,
                words=await words_of(uow, player),
            )
            await self.notifier.dm(uow, now=now, to=player, text=note.text, key=key)
        await uow.audit.record(
            at=now,
            actor=actor,
            action="match.week_start",
            match_id=row.id,
            details={
                "week": row.week,
                "start": week.start.isoformat(),
                "end": week.end.isoformat(),
            },
        )
        await replan_deadlines(uow, config.rules, row, negotiation, now=now)
        return negotiation
