"""Bulk pairing: ``POST /api/bulk-pairing`` and ``DELETE /api/bulk-pairing/{id}`` (lila's
``app/controllers/BulkPairing.scala`` and ``modules/challenge/.../ChallengeBulkSetup.scala``).

The bot's token needs ``challenge:bulk``; ``players`` is ``whiteToken:blackToken``, each a
player's token with ``challenge:write``. lila refuses the whole bulk for one bad token with 400
``{"tokens": {token: error}}``, answers at once with the bulk's id and its games' ids, and
creates the games at ``pairAt`` (milliseconds), White the first token's user, ``source: api``.
The players' tokens are secrets: no error raised here carries one (the refused ones go back in
:class:`~bot.service.bulk_games.BulkRefused`'s ``tokens`` only, never in its text).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError, LichessHTTPError, NotFoundError
from bot.lichess.games import to_millis
from bot.service.bulk_games import BulkMade, BulkRefused
from bot.service.challenges import ChallengeFailed, ChallengeSpec

__all__ = ["LichessBulkPairing", "bulk_form"]


def bulk_form(
    spec: ChallengeSpec, tokens: tuple[str, str], *, pair_at: dt.datetime | None, message: str
) -> dict[str, str]:
    """The form body of ``POST /api/bulk-pairing`` for one game."""
    form = {
        "players": f"{tokens[0]}:{tokens[1]}",
        "clock.limit": str(spec.clock_limit),
        "clock.increment": str(spec.clock_increment),
        "rated": "true" if spec.rated else "false",
        "variant": spec.variant,
        "message": message,
    }
    if pair_at is not None:
        form["pairAt"] = str(to_millis(pair_at))
    return form


def _refused(e: LichessHTTPError) -> BulkRefused | None:
    """lila's ``BadTokens`` answer, as the tokens it names and no secret in the text."""
    try:
        body = json.loads(e.body)
    except ValueError:
        return None
    bad = body.get("tokens") if isinstance(body, Mapping) else None
    if not isinstance(bad, Mapping) or not bad:
        return None
    reasons = sorted({str(v) for v in bad.values()})
    return BulkRefused([str(t) for t in bad], f"{len(bad)} token(s) refused: {', '.join(reasons)}")


def _made(data: Any, base_url: str) -> BulkMade:
    games = data.get("games") if isinstance(data, Mapping) else None
    bulk_id = data.get("id") if isinstance(data, Mapping) else None
    if not isinstance(bulk_id, str) or not isinstance(games, list) or len(games) != 1:
        raise ChallengeFailed("Lichess answered a bulk pairing without its id or its game")
    game = games[0]
    game_id = game.get("id") if isinstance(game, Mapping) else None
    if not isinstance(game_id, str) or not game_id:
        raise ChallengeFailed("Lichess answered a bulk pairing game without an id")
    return BulkMade(id=bulk_id, game_id=game_id, url=f"{base_url}/{game_id}")


class LichessBulkPairing:
    """The bulk games' :class:`~bot.service.bulk_games.BulkPairer`, on the bot's client."""

    def __init__(self, client: LichessClient) -> None:
        self.client = client

    async def create(
        self,
        spec: ChallengeSpec,
        tokens: tuple[str, str],
        *,
        pair_at: dt.datetime | None,
        message: str,
    ) -> BulkMade:
        form = bulk_form(spec, tokens, pair_at=pair_at, message=message)
        try:
            data = await self.client.request_json("bulk_pairing", "POST", "/api/bulk-pairing", form)
        except LichessHTTPError as e:
            refused = _refused(e) if e.status == 400 else None
            if refused is not None:
                raise refused from None
            raise ChallengeFailed(f"Lichess answered {e.status} to the bulk pairing") from None
        except LichessError as e:
            raise ChallengeFailed(f"Lichess error: {e.__class__.__name__}") from None
        return _made(data, self.client.base_url)

    async def cancel(self, bulk_id: str) -> bool:
        try:
            await self.client.request_json(
                "cancel_bulk_pairing", "DELETE", f"/api/bulk-pairing/{bulk_id}"
            )
        except NotFoundError:
            return False
        except LichessError as e:
            raise ChallengeFailed(f"Lichess error: {e}") from None
        return True
