"""The scopes the bot's token needs, the start-up check that names a missing one, and Lichess
as ``acwc doctor`` asks it.

``acwc run`` asks ``POST /api/token/test`` first and refuses to start with a token that lacks a
scope the config's features need (:func:`bot.service.doctor.feature_scopes`), or a config that
plays on a real Lichess without a team. :class:`LichessDoctorSource` is the doctor's view of
Lichess: a request that gets no answer (or a 5xx) raises
:class:`~bot.errors.LichessUnreachable`, so the doctor never reads a failure as an answer.
"""

from __future__ import annotations

import logging

from bot.errors import LichessUnreachable
from bot.lichess.client import LichessClient, TokenInfo
from bot.lichess.errors import (
    AuthorizationError,
    LichessError,
    LichessHTTPError,
    LichessTransportError,
    NotFoundError,
)
from bot.service.doctor import AccountState
from bot.service.registration import run_scopes

__all__ = ["LichessDoctorSource", "check_token", "run_scopes"]

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


def _unreachable(e: LichessError) -> bool:
    return isinstance(e, LichessTransportError) or (
        isinstance(e, LichessHTTPError) and e.is_server_error
    )


class LichessDoctorSource:
    """:class:`bot.service.doctor.DoctorSource` over the bot's client (give it one that tries
    once, with a short timeout: the doctor must say "cannot reach" quickly)."""

    def __init__(self, client: LichessClient) -> None:
        self.client = client

    @property
    def url(self) -> str:
        return self.client.base_url

    async def token(self) -> tuple[str | None, frozenset[str]]:
        try:
            info = await self.client.test_token()
        except LichessError as e:
            if _unreachable(e):
                raise LichessUnreachable(str(e)) from None
            if isinstance(e, AuthorizationError):
                return None, frozenset()
            if isinstance(e, LichessHTTPError):
                raise LichessUnreachable(
                    f"the token test was answered {e.status}, which Lichess never answers "
                    "(is this Lichess's address?)"
                ) from None
            raise LichessUnreachable(f"the token test's answer could not be read: {e}") from None
        return info.user, info.scopes

    async def account(self, username: str) -> AccountState | None:
        try:
            user = await self.client.get_user(username)
        except NotFoundError:
            return None
        except LichessError as e:
            raise LichessUnreachable(str(e)) from None
        return AccountState(
            title=user.title, disabled=user.disabled, tos_violation=user.tos_violation
        )

    async def team_leaders(self, team: str) -> set[str] | None:
        try:
            return set(await self.client.team_leaders(team))
        except NotFoundError:
            return None
        except LichessError as e:
            raise LichessUnreachable(str(e)) from None

    async def updates_permission(self, team: str) -> bool | str:
        """An empty team update: lila checks the leader's "Updates" permission first (a 303 to
        the team page without it) and then refuses the empty text (a 400), sending nothing."""
        try:
            status = await self.client.post_status(
                "team_update_probe", f"/team/{team}/pm-all", {"message": ""}
            )
        except LichessError as e:
            if _unreachable(e):
                raise LichessUnreachable(str(e)) from None
            return f"Lichess answered {e}"
        if status in (301, 302, 303):
            return False
        if status == 400:
            return True
        return f"Lichess answered {status} to an empty team update"

    async def team_members(self, team: str) -> set[str] | str:
        try:
            return set(await self.client.team_members(team))
        except LichessError as e:
            if _unreachable(e):
                raise LichessUnreachable(str(e)) from None
            return f"Lichess refused the member list of {team}: {e}"
