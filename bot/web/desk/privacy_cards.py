"""A player's request that their data be removed (issue 28), on the desk: what goes and what
stays, with a button to remove it and one to keep it (with the reason). The removal is the
service's (:class:`~bot.service.privacy.PlayerData`): the record of the championship stays under
the Lichess name, the player's sessions, messages, choices and stored token go."""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from bot.service.services import Services
from bot.web.desk.decisions import Choice, Decision, Evidence, Ruling, player_names
from storage.uow import UnitOfWork

__all__ = ["RemovalRequests"]

GOES = (
    "their browser sessions on this site, the messages the bot sent them (DMs and room notices), "
    "their choice of game links by DM, their eligibility check's notes, and their stored "
    "Lichess token (revoked on Lichess)"
)
STAYS = (
    "what the regulations need for the record, under their Lichess name: their registration "
    "(seed, status), matches, games, offers, forfeits, withdrawal or disqualification, the "
    "standings and the audit log"
)


class RemovalRequests:
    kind = "privacy"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        data = services.player_data
        if data is None:
            return []
        names = await player_names(uow)
        out = []
        for row in await data.pending(uow):
            pid = row.player or ""
            name = names.get(pid, row.actor)
            out.append(
                Decision(
                    kind=self.kind,
                    key=f"{pid}:{row.id}",
                    title=f"Remove {name}'s data?",
                    summary=f"{name} asked that their data be removed. Removing it deletes "
                    f"{GOES}. What stays: {STAYS}. The standings do not change.",
                    at=row.at,
                    evidence=(Evidence(row.at, f"{row.actor} asked on their account page"),),
                    choices=(
                        Choice("remove", f"Remove {name}'s data"),
                        Choice("keep", "Keep it (say why)", needs_reason=True),
                    ),
                    link=f"/players/{pid}" if pid in names else None,
                )
            )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        data = services.player_data
        if data is None:
            raise OperationError("this service keeps no players' data to remove")
        player = ruling.key.split(":", 1)[0]
        name = (await player_names(uow)).get(player, player)
        if ruling.choice == "remove":
            await data.remove(uow, player, actor=ruling.actor, reason=ruling.reason, now=ruling.now)
            return f"{name}'s data is removed; the record stays."
        if ruling.choice == "keep":
            await data.decline(
                uow, player, actor=ruling.actor, reason=ruling.reason, now=ruling.now
            )
            return f"{name}'s data is kept."
        raise OperationError("pick one of the buttons")
