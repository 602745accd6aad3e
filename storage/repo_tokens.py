"""Repository of the players' stored tokens and the bulk games (:mod:`storage.models_tokens`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models_tokens import BulkGameRow, PlayerTokenRow

__all__ = ["PlayerTokenRepository"]


class PlayerTokenRepository:
    """``PlayerTokenRepository(uow.session)``: each player's stored token row."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, player_id: str) -> PlayerTokenRow | None:
        return await self.session.get(PlayerTokenRow, player_id)

    async def get_many(self, player_ids: Iterable[str]) -> dict[str, PlayerTokenRow]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}
        result = await self.session.execute(
            select(PlayerTokenRow).where(PlayerTokenRow.player_id.in_(wanted))
        )
        return {row.player_id: row for row in result.scalars()}

    async def player_ids(self) -> list[str]:
        """The players who have a stored token."""
        result = await self.session.execute(select(PlayerTokenRow.player_id))
        return sorted(result.scalars())

    async def put(self, row: PlayerTokenRow) -> None:
        """Store ``row``, replacing the player's earlier one."""
        await self.delete(row.player_id)
        self.session.add(row)
        await self.session.flush()

    async def delete(self, player_id: str) -> bool:
        """Forget the player's token; whether there was one."""
        result = await self.session.execute(
            delete(PlayerTokenRow).where(PlayerTokenRow.player_id == player_id)
        )
        return bool(getattr(result, "rowcount", 0))

    async def bulk_game(self, game_id: str) -> BulkGameRow | None:
        return await self.session.get(BulkGameRow, game_id)

    async def add_bulk_game(self, row: BulkGameRow) -> None:
        self.session.add(row)
        await self.session.flush()

    async def bulk_game_ids(self, a: str, b: str) -> set[str]:
        """The ids of the games made by bulk pairing between ``a`` and ``b`` (not cancelled)."""
        result = await self.session.execute(
            select(BulkGameRow.game_id).where(
                BulkGameRow.white.in_([a, b]),
                BulkGameRow.black.in_([a, b]),
                BulkGameRow.cancelled_at.is_(None),
            )
        )
        return set(result.scalars())

    async def pending_bulk_games(
        self, white: str, black: str, *, now: dt.datetime
    ) -> Sequence[BulkGameRow]:
        """The two players' games (either colours) still to be created after ``now``."""
        result = await self.session.execute(
            select(BulkGameRow).where(
                BulkGameRow.white.in_([white, black]),
                BulkGameRow.black.in_([white, black]),
                BulkGameRow.pair_at > now,
                BulkGameRow.cancelled_at.is_(None),
            )
        )
        return result.scalars().all()
