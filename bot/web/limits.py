"""A per-player limit on match-room actions, so one player cannot flood the other's inbox.

Kept in memory: it guards a running process against bursts; a restart forgets it, which loses
nothing (the limit is a courtesy to the opponent, not a rule of the tournament).
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from dataclasses import dataclass, field

__all__ = ["ActionLimiter"]


@dataclass
class ActionLimiter:
    """At most ``limit`` actions per key in any ``window``."""

    limit: int
    window: dt.timedelta
    _recent: dict[str, deque[dt.datetime]] = field(default_factory=dict)

    def try_act(self, key: str, now: dt.datetime) -> dt.datetime | None:
        """Count one action of ``key`` at ``now`` and return None, or refuse it (counting
        nothing) and return when the next action will be allowed."""
        recent = self._recent.setdefault(key, deque())
        while recent and recent[0] <= now - self.window:
            recent.popleft()
        if len(recent) >= self.limit:
            return recent[0] + self.window
        recent.append(now)
        return None
