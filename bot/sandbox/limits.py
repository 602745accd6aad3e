"""lila's rate limits on the calls the bot makes, beyond the message budgets
(:mod:`bot.sandbox.inbox`), on the sandbox's clock.

lila's ``RateLimit`` gives a key (an IP, a user, a team) so many credits over a window and charges
each call a cost; a call over the credits is refused. The ones the bot meets (lila's
``modules/web/src/main/Limiters.scala``, ``modules/team/src/main/TeamMsgApi.scala``):

* ``POST /api/challenge/open``: ``challenge`` per IP, 500 in 10 minutes (no limit per account).
* ``POST /broadcast/new``: ``relayTour`` per user and IP, 100 credits a day, an ordinary account
  paying 10 a tour (a titled or verified one 5): 10 tours a day.
* ``POST /broadcast/{id}/new``: ``relay`` per user and IP, 1,000 credits a day at the same cost:
  100 rounds a day.
* ``POST /team/{id}/pm-all``: ``team.pm.all`` per team, 40 credits in 7 days at 5 a message (1
  for a verified sender): 8 team updates a week; the same text again within 10 minutes is refused
  (``dedup``).

Over a limit is HTTP 429 (lila's ``rateLimited``). The sandbox is one IP.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass, field

__all__ = ["LIMITS", "Limit", "RateLimits"]


@dataclass(frozen=True, slots=True)
class Limit:
    credits: int
    window: dt.timedelta


LIMITS = {
    "challenge.create.ip": Limit(500, dt.timedelta(minutes=10)),
    "broadcast.tournament.user": Limit(10 * 10, dt.timedelta(days=1)),
    "broadcast.round.user": Limit(100 * 10, dt.timedelta(days=1)),
    "team.pm.all": Limit(8 * 5, dt.timedelta(days=7)),
}
"""lila's limits by its key name."""
ORDINARY_COST = {"broadcast.tournament.user": 10, "broadcast.round.user": 10, "team.pm.all": 5}
"""What one call costs an ordinary account (a titled or verified one pays less)."""
TEAM_DEDUP = dt.timedelta(minutes=10)


@dataclass
class RateLimits:
    """Credits spent per (limit, key), oldest first, and the team updates' recent texts."""

    spent: dict[tuple[str, str], deque[tuple[dt.datetime, int]]] = field(default_factory=dict)
    recent_texts: dict[tuple[str, str], dt.datetime] = field(default_factory=dict)
    limited: int = 0
    """Calls refused over a limit."""

    def allow(self, name: str, key: str, now: dt.datetime, *, cost: int = 1) -> bool:
        """Spend ``cost`` of limit ``name`` for ``key`` at ``now``, or refuse (False) when the
        window's spending leaves less than that."""
        limit = LIMITS[name]
        spent = self.spent.setdefault((name, key), deque())
        while spent and spent[0][0] <= now - limit.window:
            spent.popleft()
        if sum(c for _, c in spent) + cost > limit.credits:
            self.limited += 1
            return False
        spent.append((now, cost))
        return True

    def fresh_text(self, team: str, text: str, now: dt.datetime) -> bool:
        """lila's ``dedup``: False when ``team`` was sent the same text less than 10 minutes
        ago (and note this one)."""
        normalized = text.replace("\r\n", "\n").replace("\r", "\n")
        last = self.recent_texts.get((team, normalized))
        if last is not None and now - last < TEAM_DEDUP:
            return False
        self.recent_texts[(team, normalized)] = now
        return True
