"""Repository of the games tables (:mod:`storage.models_games`), on the unit of work's session."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from rules.core.ruleset import StageKind
from storage.models_games import BroadcastRoundRow, BroadcastRow, ChallengeRow

__all__ = ["LichessRepository"]


class LichessRepository:
    """``GamesRepository(uow.session)``: the bot's challenges and broadcasts."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, row: ChallengeRow | BroadcastRow | BroadcastRoundRow) -> None:
        self.session.add(row)
        await self.session.flush()

    async def challenge(self, challenge_id: str) -> ChallengeRow | None:
        return await self.session.get(ChallengeRow, challenge_id)

    async def challenges(self, match_id: int) -> Sequence[ChallengeRow]:
        """The match's challenges, oldest first."""
        result = await self.session.execute(
            select(ChallengeRow)
            .where(ChallengeRow.match_id == match_id)
            .order_by(ChallengeRow.created_at, ChallengeRow.game_number, ChallengeRow.id)
        )
        return result.scalars().all()

    async def challenges_of(self, match_ids: Iterable[int]) -> dict[int, list[ChallengeRow]]:
        """The challenges of each of ``match_ids`` (oldest first), in one query."""
        ids = list(match_ids)
        out: dict[int, list[ChallengeRow]] = {m: [] for m in ids}
        if not ids:
            return out
        result = await self.session.execute(
            select(ChallengeRow)
            .where(ChallengeRow.match_id.in_(ids))
            .order_by(ChallengeRow.created_at, ChallengeRow.game_number, ChallengeRow.id)
        )
        for row in result.scalars():
            out[row.match_id].append(row)
        return out

    async def broadcast(self, stage: StageKind) -> BroadcastRow | None:
        result = await self.session.execute(select(BroadcastRow).where(BroadcastRow.stage == stage))
        return result.scalar_one_or_none()

    async def broadcasts(self) -> Sequence[BroadcastRow]:
        result = await self.session.execute(select(BroadcastRow).order_by(BroadcastRow.created_at))
        return result.scalars().all()

    async def broadcast_round(self, round_id: int) -> BroadcastRoundRow | None:
        result = await self.session.execute(
            select(BroadcastRoundRow).where(BroadcastRoundRow.round_id == round_id)
        )
        return result.scalar_one_or_none()

    async def all_broadcast_rounds(self) -> Sequence[BroadcastRoundRow]:
        """Every broadcast round made, oldest first (the broadcasts wake a round's sync when
        a game of its players starts)."""
        result = await self.session.execute(
            select(BroadcastRoundRow).order_by(BroadcastRoundRow.created_at)
        )
        return result.scalars().all()
