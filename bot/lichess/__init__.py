"""The Lichess adapter: typed REST calls (berserk, serialised), the games stream, the web login.

Nothing from berserk, requests or aiohttp leaves this package: callers get
:class:`rules.core.model.Game`, :class:`LichessUser`, :class:`UserStatus` and the errors of
:mod:`bot.lichess.errors`.
"""

from bot.lichess.client import DEFAULT_BASE_URL, LichessClient
from bot.lichess.errors import (
    AuthorizationError,
    InboxLimitedError,
    LichessError,
    LichessHTTPError,
    LichessPayloadError,
    LichessTransportError,
    MessageRefusedError,
    MissingScopeError,
    NotFoundError,
    OAuthError,
    RateLimitedError,
)
from bot.lichess.stream import GameWatcher, chunk_players
from bot.lichess.types import LichessUser, UserStatus

__all__ = [
    "DEFAULT_BASE_URL",
    "AuthorizationError",
    "GameWatcher",
    "InboxLimitedError",
    "LichessClient",
    "LichessError",
    "LichessHTTPError",
    "LichessPayloadError",
    "LichessTransportError",
    "LichessUser",
    "MessageRefusedError",
    "MissingScopeError",
    "NotFoundError",
    "OAuthError",
    "RateLimitedError",
    "UserStatus",
    "chunk_players",
]
