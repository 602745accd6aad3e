"""A player's own data (issue 28): its download, and its removal once a TD confirms it.

The download is every row about the player (:mod:`storage.repo_privacy` says which, table by
table), secrets left out. A removal is asked by the player (``privacy.removal_asked`` in the audit
log, which puts a card on the TDs' desk) and made by a TD's button: what the regulations need for
the record stays under the Lichess name (the player row with their seed and status, their
matches, games, offers, forfeits, exits, the pairings, the audit log), and the rest goes: their
browser sessions, the messages the bot sent them (DM texts and room notices), their choices (game
links by DM, language), the hold kept while they refused DMs,
their eligibility check's notes, and their stored Lichess token, revoked on Lichess first
(:data:`~bot.service.player_tokens.FORGET`). The removal is audited with how many rows of each
table went, nothing of what they held.
"""

from __future__ import annotations

import datetime as dt

from bot.config import Config
from bot.errors import OperationError
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.runtime.outbox import REFUSED_HOLD
from bot.service.player_tokens import plan_forget
from bot.service.registration_queue import CHECK_PREFIX
from rules.core.model import normalise_username
from rules.core.words import N_
from rules.talk.alerts import data_removal_asked
from storage.models import AuditRow
from storage.uow import UnitOfWork

__all__ = ["ASKED", "DECLINED", "REMOVED", "PlayerData"]

ASKED = "privacy.removal_asked"
REMOVED = "privacy.removed"
DECLINED = "privacy.removal_declined"
FORMAT = 1
"""The download's format version (its ``format`` field)."""


def _theirs(pid: str) -> dict[str, list[str]]:
    """The rows of the shared tables that are the player's: their eligibility check, their
    DM refusal hold."""
    return {"settings": [CHECK_PREFIX + pid], "holds": [REFUSED_HOLD + pid]}


class PlayerData:
    """A player's data: the download and the removal."""

    def __init__(self, config: Config, notifier: Notifier) -> None:
        self.config = config
        self.notifier = notifier

    async def download(
        self, uow: UnitOfWork, player_id: str, *, now: dt.datetime
    ) -> dict[str, object]:
        """Every row about the player, by table (JSON-ready)."""
        pid = normalise_username(player_id)
        tables = await uow.privacy.about(pid, **_theirs(pid))
        return {
            "format": FORMAT,
            "championship": self.config.tournament.name,
            "player": pid,
            "made_at": now.isoformat(),
            "tables": tables,
        }

    async def pending(self, uow: UnitOfWork) -> list[AuditRow]:
        """The removals asked and not yet settled by a TD, oldest first."""
        latest: dict[str, AuditRow] = {}
        for row in await uow.audit.list(actions=(ASKED, REMOVED, DECLINED)):
            if row.player is not None:
                latest[row.player] = row
        return sorted((r for r in latest.values() if r.action == ASKED), key=lambda r: r.id)

    async def ask_removal(
        self, uow: UnitOfWork, player_id: str, *, actor: str, now: dt.datetime
    ) -> None:
        """The player's request, for the TDs to confirm (refused when one waits already): an
        alert to the TDs, and a card on their desk."""
        pid = normalise_username(player_id)
        if any(r.player == pid for r in await self.pending(uow)):
            raise OperationError(N_("You asked already: the TDs will confirm it."))
        asked = await uow.audit.record(at=now, actor=actor, action=ASKED, player=pid)
        await uow.flush()  # the request's id names its alert
        await self.notifier.td_alert(
            uow, now=now, text=data_removal_asked(actor), key=notice.data_removal(pid, asked.id)
        )

    async def _asked(self, uow: UnitOfWork, player_id: str) -> str:
        pid = normalise_username(player_id)
        if not any(r.player == pid for r in await self.pending(uow)):
            raise OperationError(f"{player_id} has no removal waiting.")
        return pid

    async def remove(
        self, uow: UnitOfWork, player_id: str, *, actor: str, reason: str, now: dt.datetime
    ) -> dict[str, int]:
        """Remove what the record does not need (see the module); how many rows each table
        lost. The stored token goes by its own deadline, revoked on Lichess first."""
        pid = await self._asked(uow, player_id)
        counts = await uow.privacy.forget(pid, **_theirs(pid))
        token = await uow.tokens.get(pid) is not None
        if token:
            await plan_forget(uow, subject=pid, why="removal", now=now)
        await uow.audit.record(
            at=now,
            actor=actor,
            action=REMOVED,
            player=pid,
            reason=reason or None,
            details={"rows": counts, "token": token},
        )
        return counts

    async def decline(
        self, uow: UnitOfWork, player_id: str, *, actor: str, reason: str, now: dt.datetime
    ) -> None:
        """A TD keeps the data (the request was not the player's, say): the reason is audited."""
        pid = await self._asked(uow, player_id)
        if not reason:
            raise OperationError("Give a reason: it goes into the audit log.")
        await uow.audit.record(at=now, actor=actor, action=DECLINED, player=pid, reason=reason)
