"""The scopes the bot's token needs, and the start-up check that names a missing one.

``acwc run`` sends DMs (``msg:write``) and team messages (``team:lead``, when a team is set): it
asks ``POST /api/token/test`` first and refuses to start with a token that lacks one. (``acwc
registration check`` makes the same check for ``team:read`` in the registration service.)
"""

from __future__ import annotations

import logging

from bot.lichess.client import LichessClient, TokenInfo
from bot.lichess.errors import LichessHTTPError, LichessTransportError
from bot.service.registration import run_scopes

__all__ = ["check_token", "run_scopes"]

log = logging.getLogger(__name__)


async def check_token(client: LichessClient, needed: list[str]) -> TokenInfo | None:
    """The token's user and scopes; raises :class:`~bot.lichess.errors.MissingScopeError`
    naming what it lacks. ``None`` when Lichess could not be asked (down: the service starts,
    and a refused call says so later)."""
    if not needed:
        return None
    try:
        return await client.require_scopes(needed)
    except (LichessTransportError, LichessHTTPError) as e:
        if isinstance(e, LichessHTTPError) and not e.is_server_error:
            raise
        log.warning("could not check the Lichess token's scopes: %s", e)
        return None
