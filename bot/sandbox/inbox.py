"""What the fake Lichess makes of ``POST /inbox/{username}``: lila's ``MsgSecurity`` in small
(``modules/msg/src/main/MsgSecurity.scala``; the answers are ``app/controllers/Msg.scala``'s).

A message is first checked for who may write to whom: a recipient who blocks the sender, whose
preference refuses people they do not follow, or a BOT account on either side rejects it (HTTP
400, ``{"error": "The message was rejected"}``), as does a text that pretends to be a team
message. Then the sender's budget: lila gives 500 credits a day for opening conversations and
500 a minute for replies in existing ones, and a message costs 25 credits for an account over 30
days old (50 over 7 days, 75 over 3 days, 100 over 12 hours, 125 younger), twice that when the
text holds a link. So an old account opens 20 conversations a day (10 with a link) and writes 20
replies a minute (10 with a link). A new conversation is free when the sender leads a team the
recipient is a member of; replies have no such exemption. Over budget is HTTP 429.

The budgets are on by default, as on lichess.org; the knob ``dm_limits`` turns them off for a
unit test, and ``new_conversations_per_day`` / ``replies_per_minute`` set the number an old
account gets (lila's 20 and 20).
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["DAY", "MINUTE", "Messaging", "Sender", "Verdict", "has_link", "message_cost"]

DAY = dt.timedelta(hours=24)
MINUTE = dt.timedelta(minutes=1)
NORMAL_COST = 25
"""lila's ``limitCost.normal``: what one message costs an account over 30 days old."""
FAKE_TEAM_MESSAGE = "You received this because you are subscribed to messages of the team"
"""lila rejects a DM that carries the footer of its team messages (``isFakeTeamMessage``)."""
_LINK = re.compile(r"(https?://|www\.)\S|\b[a-z0-9-]+\.(org|com|net|io|tv)/", re.IGNORECASE)


class Verdict(enum.Enum):
    OK = "ok"
    REJECTED = "rejected"  # 400: blocked, preferences, a BOT account, a fake team message
    LIMITED = "limited"  # 429: over the sender's budget


@dataclass(frozen=True)
class Sender:
    """What the budget needs of the two accounts."""

    id: str
    created_at: dt.datetime
    bot: bool = False


def has_link(text: str) -> bool:
    """Whether lila's text analyser would see a link in ``text`` (an address with a scheme,
    ``www.`` or a domain followed by a path)."""
    return _LINK.search(text) is not None


def message_cost(created_at: dt.datetime, now: dt.datetime, text: str) -> int:
    """The credits one message costs (``MsgSecurity.limitCost``, doubled with a link)."""
    age = now - created_at
    if age >= dt.timedelta(days=30):
        cost = NORMAL_COST
    elif age >= dt.timedelta(days=7):
        cost = NORMAL_COST * 2
    elif age >= dt.timedelta(days=3):
        cost = NORMAL_COST * 3
    elif age >= dt.timedelta(hours=12):
        cost = NORMAL_COST * 4
    else:
        cost = NORMAL_COST * 5
    return cost * 2 if has_link(text) else cost


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
    created: dict[str, deque[tuple[dt.datetime, int]]] = field(default_factory=dict)
    replied: dict[str, deque[tuple[dt.datetime, int]]] = field(default_factory=dict)
    limited: int = 0
    """How many messages were answered 429 (for the demo, the benchmark and the tests)."""
    rejected: int = 0

    def verdict(
        self,
        sender: Sender,
        to: Sender,
        text: str,
        now: dt.datetime,
        *,
        limits: tuple[int, int] | None,
        leads_team_of: Callable[[str, str], bool],
    ) -> Verdict:
        """Check one message and, when it may go, spend its cost. ``limits``: how many new
        conversations a day and replies a minute an old account has (``None``: no limits)."""
        if (
            sender.bot
            or to.bot
            or sender.id in self.blocks.get(to.id, set())
            or (to.id in self.refuse_strangers and sender.id not in self.follows.get(to.id, set()))
            or FAKE_TEAM_MESSAGE in text
        ):
            self.rejected += 1
            return Verdict.REJECTED
        pair = frozenset((sender.id, to.id))
        new = pair not in self.conversations
        if limits is not None:
            per_day, per_minute = limits
            cost = message_cost(sender.created_at, now, text)
            if new and not leads_team_of(sender.id, to.id):
                spent = self.created.setdefault(sender.id, deque())
                if not _spend(spent, now, DAY, per_day * NORMAL_COST, cost):
                    self.limited += 1
                    return Verdict.LIMITED
            elif not new:
                spent = self.replied.setdefault(sender.id, deque())
                if not _spend(spent, now, MINUTE, per_minute * NORMAL_COST, cost):
                    self.limited += 1
                    return Verdict.LIMITED
        self.conversations.add(pair)
        return Verdict.OK


def _spend(
    spent: deque[tuple[dt.datetime, int]],
    now: dt.datetime,
    window: dt.timedelta,
    credits: int,
    cost: int,
) -> bool:
    """Spend ``cost`` at ``now`` unless the last ``window``'s spending leaves less than it."""
    while spent and spent[0][0] <= now - window:
        spent.popleft()
    if sum(c for _, c in spent) + cost > credits:
        return False
    spent.append((now, cost))
    return True
