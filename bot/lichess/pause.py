"""The client's :class:`~bot.lichess.client.PauseBoard` on the database: the pause after a
Lichess 429 is the ``rate_limit`` row of ``lichess_holds``, so ``acwc run`` and a command line
(``acwc registration check``) on the same database wait out the same minute."""

from __future__ import annotations

import datetime as dt

from bot.runtime.clock import Clock
from storage.db import Database

__all__ = ["RATE_LIMIT_HOLD", "DatabasePause"]

RATE_LIMIT_HOLD = "rate_limit"


class DatabasePause:
    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    async def paused_until(self) -> dt.datetime | None:
        async with self.db.reads() as uow:
            return await uow.holds.until(RATE_LIMIT_HOLD, self.clock.now())

    async def pause(self, until: dt.datetime) -> None:
        async with self.db.uow() as uow:
            await uow.holds.put(
                RATE_LIMIT_HOLD, since=self.clock.now(), until=until, reason="Lichess answered 429"
            )
            await uow.commit()
