"""A player's request that their data be removed (issue 28), on the desk: what goes and what
stays, with a button to remove it and one to keep it (with the reason). The removal is the
service's (:class:`~bot.service.privacy.PlayerData`): the record of the championship stays under
the Lichess name, the player's sessions, messages, choices and stored token go.

A stored token no longer needed that Lichess could not revoke (Lichess down) stays, sealed, and
is tried again every hour: the desk lists it among the bot's rulings a TD may overrule, with a
button to drop it anyway (confirmed on a second page, with a reason; the service's
:meth:`~bot.service.player_tokens.PlayerTokens.drop`)."""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from bot.service.player_tokens import Unrevoked
from bot.service.services import Services
from bot.web.desk.decisions import Choice, Decision, Evidence, Ruling, player_names
from storage.uow import UnitOfWork

__all__ = ["RemovalRequests", "UnrevokedTokens"]

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


NOT_NEEDED = {
    "removal": "a TD confirmed the removal of their data",
    "stage": "the stage in play goes on without them, or the championship is over",
    "withdrawn": "they withdrew",
    "disqualified": "they were disqualified",
}
"""Why a token is no longer needed, by its deadline's ``why``."""


class UnrevokedTokens:
    """Stored tokens Lichess could not revoke: kept and tried again, or dropped by a TD."""

    kind = "token"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        tokens = services.player_tokens
        if tokens is None:
            return []
        names = await player_names(uow)
        return [
            self._card(u, names.get(u.player_id, u.player_id)) for u in await tokens.unrevoked(uow)
        ]

    def _card(self, token: Unrevoked, name: str) -> Decision:
        why = NOT_NEEDED.get(token.why, token.why or "no longer needed")
        return Decision(
            kind=self.kind,
            key=f"{token.player_id}:{int(token.since.timestamp())}",
            title=f"{name}'s Lichess token could not be revoked",
            summary=f"{name}'s stored Lichess token is no longer needed ({why}), but Lichess "
            "could not be reached to revoke it. The bot keeps it encrypted and tries again "
            "every hour until Lichess takes it. Dropping it anyway deletes it here without "
            f"revoking it: it stays valid on Lichess until {name} revokes it in their Lichess "
            "settings, which their account page asks them to do.",
            at=token.since,
            evidence=(
                Evidence(token.since, "Lichess could not be reached to revoke it"),
                Evidence(token.next_try, "the next try"),
            ),
            choices=(
                Choice(
                    "drop", "Drop this token anyway (say why)", needs_reason=True, previewed=True
                ),
            ),
            optional=True,
        )

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        tokens = services.player_tokens
        if tokens is None or ruling.choice != "drop":
            raise OperationError("pick one of the buttons")
        player = ruling.key.split(":", 1)[0]
        name = (await player_names(uow)).get(player, player)
        await tokens.drop(uow, player, actor=ruling.actor, reason=ruling.reason, now=ruling.now)
        return (
            f"{name}'s token is dropped here, not revoked on Lichess: {name}'s account page asks "
            "them to revoke it there."
        )
