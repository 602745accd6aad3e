"""Rules 7.3: every active player's Lichess account looked at once a day during the event.

A player marked on Lichess during the championship (``tosViolation``: an engine or booster
mark; Lichess does not say which) or whose account is closed is flagged for the TDs: an alert
naming the mark, and an audit entry (``account.marked``) that the desk lists with a one-click
disqualification through the one exit path (rules 8). The bot never disqualifies by itself: the
TDs decide (rules 1.3), and they say whether the mark is an engine mark (rules 8.1.2).

The job is a deadline row (:data:`RECHECK_DEADLINE`), planned when a round is published and
planned again a day later each time it runs while the championship lasts. It asks Lichess for
up to 300 accounts in one request (``POST /api/users``) inside its firing's transaction (on
SQLite the other writers wait for it: one short request a day).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Protocol

from bot.config import Config
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.runtime.deadlines import Firing, Handler
from rules.core.states import PlayerStatus, StageState
from rules.stages.seeding import AccountFacts
from rules.talk.conduct import account_marked
from rules.talk.notices import TDAlert
from storage.models import DeadlineRow
from storage.uow import UnitOfWork

__all__ = [
    "MARK_ACTION",
    "RECHECK_DEADLINE",
    "AccountMarks",
    "AccountRecheck",
    "schedule_account_recheck",
]

log = logging.getLogger(__name__)

RECHECK_DEADLINE = "account_recheck"
MARK_ACTION = "account.marked"
RECHECK_EVERY = dt.timedelta(days=1)


class AccountMarks(Protocol):
    async def marks(self, usernames: Sequence[str]) -> dict[str, AccountFacts | str] | str:
        """Each account's facts by username (``POST /api/users``, 300 a request), or a sentence
        saying why one (or all) could not be read."""
        ...


def _marks_of(facts: AccountFacts) -> list[str]:
    return [
        m
        for m, on in (("tos_violation", facts.tos_violation), ("account_closed", facts.disabled))
        if on
    ]


async def schedule_account_recheck(uow: UnitOfWork, *, now: dt.datetime) -> None:
    """Make sure the daily look at the accounts has its next run (one open row at a time)."""
    if await uow.deadlines.open_of_kind(RECHECK_DEADLINE) is None:
        await uow.deadlines.add(
            DeadlineRow(
                kind=RECHECK_DEADLINE,
                due_at=now + RECHECK_EVERY,
                subject="",
                payload={},
                created_at=now,
            )
        )


async def _event_lasts(uow: UnitOfWork) -> bool:
    """The championship has begun and has not ended: a stage in play, or one done and another
    still to come."""
    tournament = await uow.tournaments.current()
    if tournament is None:
        return False
    states = {s.state for s in await uow.tournaments.stages(tournament.id)}
    return StageState.ACTIVE in states or {StageState.COMPLETE, StageState.PENDING} <= states


class AccountRecheck:
    """The daily job's handler (rules 7.3)."""

    def __init__(self, config: Config, notifier: Notifier, accounts: AccountMarks | None) -> None:
        self.config = config
        self.notifier = notifier
        self.accounts = accounts

    def handlers(self) -> dict[str, Handler]:
        return {RECHECK_DEADLINE: self.on_recheck}

    async def on_recheck(self, uow: UnitOfWork, firing: Firing) -> None:
        now = firing.now
        if not await _event_lasts(uow):
            return  # not begun (the first publication plans it again) or over
        if self.accounts is None:  # no Lichess here: the next run may have it
            await schedule_account_recheck(uow, now=now)
            return
        players = [(p.id, p.username) for p in await uow.players.list(status=PlayerStatus.ACTIVE)]
        flagged: dict[str, list[str]] = {}
        for entry in await uow.audit.list():
            if entry.action == MARK_ACTION and entry.player is not None:
                flagged[entry.player] = list(entry.details.get("marks", []))
        await schedule_account_recheck(uow, now=now)
        # Lichess is asked inside the firing's transaction, one short request for up to 300
        # players once a day: a commit here would leave a claim without its end if the process
        # died meanwhile.
        found = await self.accounts.marks([username for _, username in players]) if players else {}
        if isinstance(found, str):
            log.warning("account re-check: %s", found)
            return
        for player, username in players:
            facts = found[username]
            if isinstance(facts, str):
                log.warning("account re-check of %s: %s", username, facts)
                continue
            marks = _marks_of(facts)
            if marks and marks != flagged.get(player):
                await self._flag(uow, player, username, marks, now=now)

    async def _flag(
        self, uow: UnitOfWork, player: str, username: str, marks: list[str], *, now: dt.datetime
    ) -> None:
        await uow.audit.record(
            at=now, actor="bot", action=MARK_ACTION, player=player, details={"marks": marks}
        )
        alert = TDAlert(
            None, account_marked(username, marks), (f"https://lichess.org/@/{username}",), None
        )
        await self.notifier.td_alert(
            uow, now=now, text=alert.text, key=notice.account_marked(player, ",".join(marks))
        )
