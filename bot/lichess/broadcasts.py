"""Live broadcasts of a stage: ``POST /broadcast/new`` and ``POST /broadcast/{id}/new``.

berserk has no form for a round synced from Lichess users, so the bot posts the forms itself on
the client's request queue. A round with ``syncSource=users`` and ``syncUsers`` (up to 100 names,
separated by spaces) follows every game those players play on Lichess, so the community sees the
week's games and results on Lichess's own broadcast page. Scope ``study:write``.

lila syncs a round only once it is started by its own scheduler: a round created without
``status=new`` counts as started at once and never syncs (``RelayRoundForm.Data.make``), so
every round is made with ``status=new`` and a ``startsAt``; lila starts it when that time is
less than an hour away. A syncing round stops after an hour without a move, and one that does
not sync is finished three hours after it started: :meth:`LichessBroadcasts.wake` posts the
round's form again with ``status=new`` and a new ``startsAt``, which makes lila start it again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError
from bot.lichess.games import to_millis
from bot.service.broadcasts import BroadcastFailed, MadeBroadcast

__all__ = ["SYNC_USERS_LIMIT", "LichessBroadcasts"]

SYNC_USERS_LIMIT = 100


def _round_form(name: str, players: Sequence[str], starts_at: dt.datetime) -> dict[str, str]:
    names = sorted(set(players))
    if len(names) > SYNC_USERS_LIMIT:
        raise BroadcastFailed(f"a broadcast round follows at most {SYNC_USERS_LIMIT} players")
    return {
        "name": name,
        "syncSource": "users",
        "syncUsers": " ".join(names),
        "status": "new",
        "startsAt": str(to_millis(starts_at)),
    }


def _read(data: Any, key: str) -> MadeBroadcast:
    part = data.get(key) if isinstance(data, Mapping) else None
    bid = part.get("id") if isinstance(part, Mapping) else None
    url = part.get("url") if isinstance(part, Mapping) else None
    if not isinstance(bid, str) or not bid or not isinstance(url, str):
        raise BroadcastFailed(f"Lichess answered no {key} id or url: {repr(data)[:120]}")
    return MadeBroadcast(id=bid, url=url)


class LichessBroadcasts:
    """The broadcasts service's :class:`~bot.service.broadcasts.BroadcastMaker`."""

    def __init__(self, client: LichessClient) -> None:
        self.client = client

    async def tour(self, *, name: str, markdown: str) -> MadeBroadcast:
        """A public broadcast tournament that shows the players' scores."""
        form = {"name": name, "markdown": markdown, "showScores": "true", "visibility": "public"}
        return _read(await self._post("create_broadcast", "/broadcast/new", form), "tour")

    async def round(
        self, tour_id: str, *, name: str, players: Sequence[str], starts_at: dt.datetime
    ) -> MadeBroadcast:
        """A round of ``tour_id`` following the games of ``players`` (at most
        :data:`SYNC_USERS_LIMIT`), syncing from ``starts_at``."""
        form = _round_form(name, players, starts_at)
        data = await self._post("create_broadcast_round", f"/broadcast/{tour_id}/new", form)
        return _read(data, "round")

    async def wake(
        self, round_id: str, *, name: str, players: Sequence[str], starts_at: dt.datetime
    ) -> None:
        """Start the round's sync again (after an idle hour, or finished after three)."""
        form = _round_form(name, players, starts_at)
        await self._post("wake_broadcast_round", f"/broadcast/round/{round_id}/edit", form)

    async def _post(self, name: str, path: str, form: dict[str, str]) -> Any:
        try:
            return await self.client.post_form(name, path, form)
        except LichessError as e:
            raise BroadcastFailed(f"Lichess error: {e}") from e
