"""Every message the bot writes: what kind it is, about which match and player, and the outbox.

A DM, a TD alert, a forum draft or a team update is written only through :class:`Notifier`, with
a :class:`~bot.notify.keys.NoticeKey` that names its :class:`~bot.notify.kinds.NoticeKind`, the
match and the player it is about, and the event it reports. Those are stored as columns of the
outbox row, so the TD desk lists alerts by kind and match without reading any text.
"""

from bot.notify.keys import NoticeKey
from bot.notify.kinds import Channel, NoticeKind
from bot.notify.notifier import FORUM, Notifier

__all__ = ["FORUM", "Channel", "NoticeKey", "NoticeKind", "Notifier"]
