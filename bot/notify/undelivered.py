"""The TDs' alert for a notice that could not be delivered by DM.

The outbox dispatcher calls :meth:`UndeliveredAlerts.late` when Lichess has been unreachable for
a while (the notices wait; they are late, not lost), and
:meth:`UndeliveredAlerts.undelivered` when Lichess refused a
player's DM (their preferences refuse the bot: HTTP 400), when the bot's message budget kept it
from going out for longer than a day (429), or when a team message was refused. The notice
itself stays in the player's match room ("your notices"), marked as not delivered.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.notify import keys
from bot.notify.kinds import NoticeKind, notice_label
from bot.notify.notifier import Notifier
from rules.talk import alerts
from storage.models import OutboxRow
from storage.uow import UnitOfWork

__all__ = ["UndeliveredAlerts", "missed_label"]


def missed_label(row: OutboxRow) -> str:
    """What one undelivered notice was, in a few words: its kind and match."""
    try:
        label = notice_label(NoticeKind(row.notice)) if row.notice else "a message"
    except ValueError:
        label = row.notice or "a message"
    return alerts.missed_notice(label, row.match_id)


class UndeliveredAlerts:
    """The TDs' word on notices that did not go out: lost (:meth:`undelivered`) or late
    (:meth:`late`)."""

    def __init__(self, notifier: Notifier) -> None:
        self.notifier = notifier

    async def undelivered(
        self, uow: UnitOfWork, *, now: dt.datetime, rows: Sequence[OutboxRow], why: str
    ) -> None:
        """Tell the TDs (one alert a player a day) that ``rows`` to one player did not go out."""
        if not rows:
            return
        player = rows[0].player or rows[0].recipient
        missed = list(dict.fromkeys(missed_label(r) for r in rows))
        text = alerts.undelivered(rows[0].recipient, why=why, missed=missed)
        key = keys.undelivered(player, now.date().isoformat())
        await self.notifier.td_alert(uow, now=now, text=text, key=key)

    async def late(
        self, uow: UnitOfWork, *, now: dt.datetime, since: dt.datetime, waiting: int
    ) -> None:
        """Tell the TDs (a note, once an outage) that Lichess has not been reachable since
        ``since`` and ``waiting`` messages wait: they go out when it is back, late, not lost."""
        text = alerts.lichess_unreachable(since, waiting)
        await self.notifier.td_note(uow, now=now, text=text, key=keys.late(since.isoformat()))
