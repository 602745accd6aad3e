"""What the fake Lichess makes of ``POST /inbox/{username}``: lila's ``MsgSecurity``, in small.

lila checks a private message in this order: a recipient who blocks the sender, or whose
message preference refuses people they do not follow, rejects it (HTTP 400, ``{"error": "The
message was rejected"}``); then the sender's rate limit: a message that opens a new conversation
costs against a per-day budget (about 20 for an ordinary account), unless the sender leads a
team the recipient is a member of; a reply in an existing conversation costs against a
per-minute budget instead. Over budget is HTTP 429. These limits are off until the knob
``dm_limits`` turns them on (``new_conversations_per_day``, ``replies_per_minute``).
"""

from __future__ import annotations

import datetime as dt
import enum
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["DAY", "MINUTE", "Messaging", "Verdict"]

DAY = dt.timedelta(hours=24)
MINUTE = dt.timedelta(minutes=1)


class Verdict(enum.Enum):
    OK = "ok"
    REJECTED = "rejected"  # 400: blocked, or the recipient's preferences refuse the sender
    LIMITED = "limited"  # 429: over the sender's budget


@dataclass
class Messaging:
    """Who refuses whom, the conversations that exist, and each sender's spent budget."""

    refuse_strangers: set[str] = field(default_factory=set)
    """Recipients whose preference is "only from people I follow"."""
    follows: dict[str, set[str]] = field(default_factory=dict)
    """``follows[a]``: the users ``a`` follows."""
    blocks: dict[str, set[str]] = field(default_factory=dict)
    """``blocks[a]``: the users ``a`` blocks."""
    conversations: set[frozenset[str]] = field(default_factory=set)
    created: dict[str, deque[dt.datetime]] = field(default_factory=dict)
    replied: dict[str, deque[dt.datetime]] = field(default_factory=dict)
    limited: int = 0
    """How many messages were answered 429 (for the benchmark and the tests)."""
    rejected: int = 0

    def verdict(
        self,
        sender: str,
        to: str,
        now: dt.datetime,
        *,
        limits: tuple[int, int] | None,
        leads_team_of: Callable[[str, str], bool],
    ) -> Verdict:
        """Check one message and, when it may go, spend its cost. ``limits``: the budget per
        day of new conversations and per minute of replies (``None``: no limits)."""
        if sender in self.blocks.get(to, set()) or (
            to in self.refuse_strangers and sender not in self.follows.get(to, set())
        ):
            self.rejected += 1
            return Verdict.REJECTED
        pair = frozenset((sender, to))
        new = pair not in self.conversations
        if limits is not None:
            per_day, per_minute = limits
            if new and not leads_team_of(sender, to):
                if not _spend(self.created.setdefault(sender, deque()), now, DAY, per_day):
                    self.limited += 1
                    return Verdict.LIMITED
            elif not new and not _spend(
                self.replied.setdefault(sender, deque()), now, MINUTE, per_minute
            ):
                self.limited += 1
                return Verdict.LIMITED
        self.conversations.add(pair)
        return Verdict.OK


def _spend(times: deque[dt.datetime], now: dt.datetime, window: dt.timedelta, budget: int) -> bool:
    """Record one use at ``now`` unless ``budget`` uses already fall in the last ``window``."""
    while times and times[0] <= now - window:
        times.popleft()
    if len(times) >= budget:
        return False
    times.append(now)
    return True
