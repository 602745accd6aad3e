"""The players: people (Lichess accounts), each row with the entry of their last season.

The repository answers for the open season: a person whose row holds an archived season's
entry is not one of its players until they enter it, which re-enters the same row (the
archived entry is kept in ``season_entries``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import PlayerRow, SeasonState, TournamentRow
from storage.models_seasons import ENTRY_COLUMNS as _ENTRY
from storage.models_seasons import SeasonEntryRow
from storage.repo_seasons import current_season, of_open_season, viewed_season

__all__ = ["PlayerRepository"]


class PlayerRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self._open: tuple[int | None] | None = None

    async def _open_id(self) -> int | None:
        if self._open is None:
            season = (await self.session.execute(current_season())).scalars().first()
            self._open = (None if season is None else season.id,)
        return self._open[0]

    async def _archived(self) -> int | None:
        """The viewed season when it is archived: its players are its kept entries."""
        viewed = viewed_season()
        if viewed is None:
            return None
        season = await self.session.get(TournamentRow, viewed)
        return viewed if season is not None and season.state == SeasonState.ARCHIVED else None

    async def _kept(self, season_id: int, *where: Any) -> list[PlayerRow]:
        """An archived season's entries as player rows (never added to the session)."""
        result = await self.session.execute(
            select(SeasonEntryRow)
            .where(SeasonEntryRow.tournament_id == season_id, *where)
            .order_by(SeasonEntryRow.seed_rating.desc().nulls_last(), SeasonEntryRow.player_id)
        )
        return [
            PlayerRow(
                id=e.player_id,
                tournament_id=season_id,
                game_links_by_dm=False,
                **{c: getattr(e, c) for c in _ENTRY},
            )
            for e in result.scalars()
        ]

    async def _entered(self, row: PlayerRow) -> bool:
        return row.tournament_id is None or row.tournament_id == await self._open_id()

    async def get(self, player_id: str) -> PlayerRow | None:
        """The open season's player of that id (None: not entered in it)."""
        archived = await self._archived()
        if archived is not None:
            found = await self._kept(archived, SeasonEntryRow.player_id == player_id)
            return found[0] if found else None
        row = await self.session.get(PlayerRow, player_id)
        return row if row is not None and await self._entered(row) else None

    async def person(self, player_id: str) -> PlayerRow | None:
        """The person of that id, whichever season they last entered."""
        return await self.session.get(PlayerRow, player_id)

    async def get_many(self, player_ids: Iterable[str]) -> dict[str, PlayerRow]:
        """The open season's players of ``player_ids``, by id, in one query."""
        archived = await self._archived()
        if archived is not None:
            wanted = SeasonEntryRow.player_id.in_(list(player_ids))
            return {row.id: row for row in await self._kept(archived, wanted)}
        result = await self.session.execute(
            select(PlayerRow).where(PlayerRow.id.in_(list(player_ids)), of_open_season())
        )
        return {row.id: row for row in result.scalars()}

    async def add(self, row: PlayerRow) -> PlayerRow:
        """``row`` entered in the open season: a person who entered an earlier season enters
        again on their own row (their earlier entry is in ``season_entries``)."""
        if row.tournament_id is None:
            row.tournament_id = await self._open_id()
        known = await self.session.get(PlayerRow, row.id)
        if known is not None:
            for column in (*_ENTRY, "tournament_id"):
                setattr(known, column, getattr(row, column))
            row = known
        self.session.add(row)
        await self.session.flush()
        return row

    async def list(self, *, status: str | None = None) -> Sequence[PlayerRow]:
        """The open season's entrants, the highest seed first."""
        archived = await self._archived()
        if archived is not None:
            rows = await self._kept(archived)
            return [r for r in rows if status is None or r.status == status]
        query = (
            select(PlayerRow)
            .where(of_open_season())
            .order_by(PlayerRow.seed_rating.desc().nulls_last(), PlayerRow.id)
        )
        if status is not None:
            query = query.where(PlayerRow.status == status)
        result = await self.session.execute(query)
        return result.scalars().all()

    async def remove(self, row: PlayerRow) -> None:
        """An entry made in error taken back: a person with an earlier season's entry gets it
        back on their row; anyone else's row goes."""
        result = await self.session.execute(
            select(SeasonEntryRow)
            .where(
                SeasonEntryRow.player_id == row.id,
                SeasonEntryRow.tournament_id != row.tournament_id,
            )
            .order_by(SeasonEntryRow.tournament_id.desc())
            .limit(1)
        )
        earlier = result.scalars().first()
        if earlier is None:
            await self.session.delete(row)
        else:
            for column in _ENTRY:
                setattr(row, column, getattr(earlier, column))
            row.tournament_id = earlier.tournament_id
        await self.session.flush()
