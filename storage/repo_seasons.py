"""The seasons (``tournaments`` rows) and their entries (``season_entries``): which season is
open, the draft of the next, and what an archived season keeps of its players."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import ColumnElement, Select, delete, insert, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from storage.models import (
    PlayerRow,
    RoundRow,
    SeasonState,
    SettingRow,
    StageRow,
    TournamentRow,
)
from storage.models_seasons import ENTRY_COLUMNS, SeasonEntryRow

__all__ = [
    "OPEN_SEASON",
    "SeasonRepository",
    "current_season",
    "in_open_season",
    "of_open_season",
    "of_season",
    "viewed_season",
    "viewing",
]

_IS_OPEN = or_(TournamentRow.state.is_(None), TournamentRow.state == SeasonState.OPEN)
OPEN_SEASON = select(TournamentRow).where(_IS_OPEN).order_by(TournamentRow.id.desc()).limit(1)
"""The season in play (a row the version before seasons wrote has no state: open)."""

_VIEWED: ContextVar[int | None] = ContextVar("acwc_viewed_season", default=None)


@contextmanager
def viewing(season_id: int) -> Iterator[None]:
    """Reads inside answer for season ``season_id`` instead of the open one: an archived
    season's pages read it through the same read models (its players from its kept entries).
    Only a page that reads sets it; the service's own work always answers for the open season."""
    token = _VIEWED.set(season_id)
    try:
        yield
    finally:
        _VIEWED.reset(token)


def viewed_season() -> int | None:
    """The season :func:`viewing` set (None: the open one)."""
    return _VIEWED.get()


def current_season() -> Select[TournamentRow]:
    """The season the reads answer for: the one viewed, else the open one."""
    viewed = _VIEWED.get()
    if viewed is None:
        return OPEN_SEASON
    return select(TournamentRow).where(TournamentRow.id == viewed)


def _season_ids() -> Select[int]:
    viewed = _VIEWED.get()
    if viewed is None:
        return select(TournamentRow.id).where(_IS_OPEN)
    return select(TournamentRow.id).where(TournamentRow.id == viewed)


def of_open_season() -> ColumnElement[bool]:
    """A player whose entry is the season's (or written before seasons named it)."""
    if _VIEWED.get() is not None:
        return PlayerRow.tournament_id.in_(_season_ids())
    return or_(PlayerRow.tournament_id.is_(None), PlayerRow.tournament_id.in_(_season_ids()))


def of_season(tournament_id: Any) -> ColumnElement[bool]:
    """A row whose ``tournament_id`` column names the season (None: written for the open one)."""
    if _VIEWED.get() is not None:
        named: ColumnElement[bool] = tournament_id.in_(_season_ids())
        return named
    return or_(tournament_id.is_(None), tournament_id.in_(_season_ids()))


def in_open_season(round_id: Any) -> ColumnElement[bool]:
    """A row whose round (``round_id``: its column) is one of the season's."""
    rounds = (
        select(RoundRow.id)
        .join(StageRow, StageRow.id == RoundRow.stage_id)
        .where(StageRow.tournament_id.in_(_season_ids()))
    )
    found: ColumnElement[bool] = round_id.in_(rounds)
    return found


class SeasonRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def all(self) -> Sequence[TournamentRow]:
        """Every season, the newest first (a draft included)."""
        result = await self.session.execute(
            select(TournamentRow).order_by(TournamentRow.year.desc(), TournamentRow.id.desc())
        )
        return result.scalars().all()

    async def get(self, season_id: int) -> TournamentRow | None:
        return await self.session.get(TournamentRow, season_id)

    async def by_year(self, year: int) -> TournamentRow | None:
        """The season of ``year`` that is not a draft."""
        result = await self.session.execute(
            select(TournamentRow)
            .where(TournamentRow.year == year, TournamentRow.state != SeasonState.DRAFT)
            .order_by(TournamentRow.id.desc())
        )
        return result.scalars().first()

    async def draft(self) -> TournamentRow | None:
        result = await self.session.execute(
            select(TournamentRow).where(TournamentRow.state == SeasonState.DRAFT)
        )
        return result.scalars().first()

    async def keep_entries(self, season_id: int) -> int:
        """The season's players' entries copied into ``season_entries`` (those kept before
        replaced), their rows named as the season's; how many."""
        await self.session.execute(
            update(PlayerRow)
            .where(PlayerRow.tournament_id.is_(None))
            .values(tournament_id=season_id)
            .execution_options(synchronize_session=False)
        )
        await self.session.execute(
            delete(SeasonEntryRow).where(SeasonEntryRow.tournament_id == season_id)
        )
        columns = ENTRY_COLUMNS
        source = select(
            PlayerRow.tournament_id, PlayerRow.id, *(getattr(PlayerRow, c) for c in columns)
        ).where(PlayerRow.tournament_id == season_id)
        result = await self.session.execute(
            insert(SeasonEntryRow).from_select(["tournament_id", "player_id", *columns], source)
        )
        await self.session.flush()
        return int(getattr(result, "rowcount", 0) or 0)

    async def entries(self, season_id: int) -> Sequence[SeasonEntryRow]:
        """An archived season's entries, the highest seed first."""
        result = await self.session.execute(
            select(SeasonEntryRow)
            .where(SeasonEntryRow.tournament_id == season_id)
            .order_by(SeasonEntryRow.seed_rating.desc().nulls_last(), SeasonEntryRow.player_id)
        )
        return result.scalars().all()

    async def of_player(self, player_id: str) -> Sequence[SeasonEntryRow]:
        """Every archived season's entry of one player."""
        result = await self.session.execute(
            select(SeasonEntryRow).where(SeasonEntryRow.player_id == player_id)
        )
        return result.scalars().all()

    async def keep_settings(self, season_id: int, keys: Sequence[str]) -> None:
        """A season's own settings (``keys``) kept under ``season.<id>.<key>``: archived with
        it, and out of the way of the next season, which starts without them."""
        await self.session.execute(
            update(SettingRow)
            .where(SettingRow.key.in_(list(keys)))
            .values(key=literal(f"season.{season_id}.") + SettingRow.key)
            .execution_options(synchronize_session=False)
        )

    async def remove(self, draft: TournamentRow) -> None:
        """A draft season thrown away (it has no stage or entry yet)."""
        await self.session.delete(draft)
        await self.session.flush()
