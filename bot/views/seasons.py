"""The seasons a player entered (issue 28), for their page: each season's year, how their entry
ended (their status then) and their place in that season's final, when they reached it."""

from __future__ import annotations

from dataclasses import dataclass

from storage.models import SeasonState
from storage.uow import UnitOfWork

__all__ = ["SeasonEntry", "season_history"]


@dataclass(frozen=True, slots=True)
class SeasonEntry:
    year: int
    status: str
    final_place: int | None  # 1: champion, 2: second, 3 and 4: the third place playoff's
    in_play: bool


async def season_history(uow: UnitOfWork, player_id: str) -> list[SeasonEntry]:
    """Every season ``player_id`` entered, the newest first (a draft never)."""
    seasons = {s.id: s for s in await uow.seasons.all() if s.state != SeasonState.DRAFT}
    out: list[SeasonEntry] = []
    kept = await uow.seasons.of_player(player_id)
    for entry in kept:
        season = seasons.get(entry.tournament_id)
        if season is None or season.year is None:
            continue
        order = [name.lower() for name in season.final_order or ()]
        place = order.index(player_id) + 1 if player_id in order else None
        out.append(SeasonEntry(season.year, entry.status.value, place, season.is_open))
    person = await uow.players.person(player_id)
    open_season = next((s for s in seasons.values() if s.is_open), None)
    if (
        person is not None
        and open_season is not None
        and open_season.year is not None
        and person.tournament_id in (None, open_season.id)
        and open_season.id not in {e.tournament_id for e in kept}
    ):
        out.append(SeasonEntry(open_season.year, person.status.value, None, True))
    return sorted(out, key=lambda e: e.year, reverse=True)
