"""Open challenges for match games: ``POST /api/challenge/open`` with the fields berserk lacks.

berserk's ``challenges.create_open`` sends no ``users``, ``name`` or ``expiresAt``, so the bot
posts the form itself, on the client's one request queue (:meth:`LichessClient.post_form`). With
``users=WHITE,BLACK`` only those two may join, and the first gets White (the spec). Lichess makes
the game with the challenge's id and ``source: friend`` (lila's ``ChallengeJoiner``), which is
how intake knows a match game by its id first.

lila takes the call without a token, or with one that has ``challenge:write``: a token sent
without that scope is refused (403, lila's ``AnonOrScoped``). So the bot sends its token only
when the token is known to have the scope, and otherwise sends the call without it; a 401/403
with the token makes it go without the token from then on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.lichess.client import LichessClient
from bot.lichess.errors import AuthorizationError, LichessError
from bot.lichess.games import to_millis
from bot.service.challenges import ChallengeFailed, ChallengeSpec, MadeChallenge

__all__ = ["CHALLENGE_SCOPE", "LichessChallenges", "challenge_from_json", "open_challenge_form"]

CHALLENGE_SCOPE = "challenge:write"
PATH = "/api/challenge/open"


def open_challenge_form(request: ChallengeSpec) -> dict[str, str]:
    """The form body of ``POST /api/challenge/open``."""
    return {
        "rated": "true" if request.rated else "false",
        "clock.limit": str(request.clock_limit),
        "clock.increment": str(request.clock_increment),
        "variant": request.variant,
        "name": request.name,
        "users": f"{request.white},{request.black}",
        "expiresAt": str(to_millis(request.expires_at)),
    }


def challenge_from_json(data: Any) -> MadeChallenge:
    """``ChallengeOpenJson``, reduced to its id (the game's id) and link; raises
    :class:`ChallengeFailed` for an answer without them."""
    challenge_id = data.get("id") if isinstance(data, Mapping) else None
    url = data.get("url") if isinstance(data, Mapping) else None
    if not isinstance(challenge_id, str) or not challenge_id or not isinstance(url, str):
        raise ChallengeFailed(f"Lichess answered a challenge without id or url: {repr(data)[:120]}")
    return MadeChallenge(id=challenge_id, url=url)


class LichessChallenges:
    """The challenges service's :class:`~bot.service.challenges.ChallengeMaker`."""

    def __init__(self, client: LichessClient) -> None:
        self.client = client
        self.refused_token = False
        """Lichess refused the token for this call once: it goes without it since."""

    @property
    def anonymous(self) -> bool:
        """Whether the call goes without the token (it lacks ``challenge:write``)."""
        return self.refused_token or self.client.has_scope(CHALLENGE_SCOPE) is False

    async def __call__(self, spec: ChallengeSpec) -> MadeChallenge:
        form = open_challenge_form(spec)
        try:
            try:
                data = await self.client.post_form(
                    "create_open_challenge", PATH, form, anonymous=self.anonymous
                )
            except AuthorizationError:
                if self.anonymous:
                    raise
                self.refused_token = True
                data = await self.client.post_form(
                    "create_open_challenge", PATH, form, anonymous=True
                )
        except LichessError as e:
            raise ChallengeFailed(f"Lichess error: {e}") from e
        return challenge_from_json(data)
