"""From one season to the next (issue 28): the TDs make next year's season from this one's
settings and final, review the draft, and confirm it, which archives this one.

A season's settings are what it sets over the config's ``[rules]`` (``tournaments.rules``):
its dates and its seeded entrants. The draft takes the open season's settings a year on (the
first pairings on the same Tuesday of the same month, rules 4; the eligibility dates a year
later), its champion and runner-up as the title holder and runner-up (rules 3.3, 3.4) and its
final placement for the Candidates tiebreak (rules 3.6.6.4), and its registration window moved
by as many days as the first pairings moved. Confirming archives the open
season (its final placement and its players' entries kept) and opens the draft with its stages.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from bot.config import Config, rules_over, season_table
from bot.errors import OperationError
from bot.service.registration import window_of
from bot.service.registration_queue import name_checks
from bot.service.stages.candidates import SMALL_FIELD
from bot.views.bracket import load_bracket, with_results
from bot.views.tournament import require_tournament
from rules.core.ruleset import Ruleset
from rules.core.seasons import moved_with_calendar, next_season_rules
from rules.core.states import StageState
from rules.stages.formats import stage_kinds
from storage.db import Database
from storage.models import SeasonState, StageRow, TournamentRow
from storage.uow import UnitOfWork

__all__ = ["SEASON_SETTINGS", "Seasons", "final_order", "season_config", "season_rules"]

SEASON_SETTINGS = (SMALL_FIELD,)
"""The settings that are one season's choices (the TDs' small-field choice, rules 1.3, 5.10):
archived with it when the next opens, which starts without them."""


def season_rules(base: Ruleset, season: TournamentRow | None) -> Ruleset:
    """The rules ``season`` plays by: the config's with the season's own settings over them."""
    if season is None or not season.rules:
        return base
    return rules_over(base, season.rules)


async def season_config(db: Database, config: Config) -> Config:
    """``config`` with the open season's rules, for the services that play it."""
    async with db.reads() as uow:
        season = await uow.tournaments.current()
    return dataclasses.replace(config, rules=season_rules(config.rules, season))


async def final_order(uow: UnitOfWork) -> list[str]:
    """The open season's final placement as Lichess spells the names, champion first, as far
    as it is decided (empty: no champion yet)."""
    bracket = await load_bracket(uow)
    if bracket is None:
        return []
    ids: list[str] = []
    for pid in (await with_results(uow, bracket)).placement():
        if pid is None:
            break
        ids.append(pid)
    rows = await uow.players.get_many(ids)
    return [rows[i].username if i in rows else i for i in ids]


def _window_text(season: TournamentRow) -> list[str | None]:
    ends = (season.registration_opens, season.registration_closes)
    return [None if t is None else t.isoformat() for t in ends]


class Seasons:
    """``acwc season new/confirm/discard`` and the desk's season card."""

    def __init__(self, config: Config) -> None:
        self.config = config

    async def draft_next(self, uow: UnitOfWork, *, now: dt.datetime, actor: str) -> TournamentRow:
        """Next year's season as a draft, from the open one's settings and final."""
        draft = await uow.seasons.draft()
        if draft is not None:
            raise OperationError(
                f"the {draft.year} season is drafted already: confirm it or discard it first"
            )
        last = await require_tournament(uow)
        rules = season_rules(self.config.rules, last)
        year = last.year or rules.calendar.first_publication.year
        order = await final_order(uow)
        if len(order) < 2:
            raise OperationError(
                f"the {year} final is not decided yet: its champion and runner-up are the next "
                "season's title holder and runner-up (rules 3.3, 3.4)"
            )
        following = next_season_rules(rules, order)
        window = window_of(self.config, last)  # moved as the first pairings move
        row = await uow.tournaments.add(
            TournamentRow(
                name=last.name,
                created_at=now,
                current_stage=stage_kinds(following)[0],  # the first of the registry
                year=year + 1,
                state=SeasonState.DRAFT,
                rules=season_table(following),
                title_holder=following.seeding.title_holder,
                runner_up=following.seeding.runner_up,
                previous_id=last.id,
                registration_opens=moved_with_calendar(window.opens, rules, following),
                registration_closes=moved_with_calendar(window.closes, rules, following),
            )
        )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="season.draft",
            details={
                "year": row.year,
                "from": year,
                "rules": row.rules,
                "registration": _window_text(row),
            },
        )
        return row

    async def confirm(self, uow: UnitOfWork, *, now: dt.datetime, actor: str) -> TournamentRow:
        """The draft opened for play; the open season archived with its final and entries."""
        draft = await self._draft(uow)
        last = await uow.tournaments.current()
        kept = 0
        if last is not None:
            last.final_order = await final_order(uow)
            # its own settings kept whole: its pages read them, not the config's of a later year
            last.rules = season_table(season_rules(self.config.rules, last))
            window = window_of(self.config, last)  # its own kept too, as its pages read it
            last.registration_opens, last.registration_closes = window.opens, window.closes
            last.state = SeasonState.ARCHIVED
            kept = await uow.seasons.keep_entries(last.id)
            await name_checks(uow, last.id)  # its players' checks are its own, not the next's
            await uow.seasons.keep_settings(last.id, SEASON_SETTINGS)
        draft.state = SeasonState.OPEN
        draft.confirmed_by = actor
        draft.confirmed_at = now
        for kind in stage_kinds(season_rules(self.config.rules, draft)):
            await uow.tournaments.add_stage(
                StageRow(tournament_id=draft.id, kind=kind, state=StageState.PENDING)
            )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="season.confirm",
            details={
                "year": draft.year,
                "archived": None if last is None else last.year,
                "entries_kept": kept,
            },
        )
        return draft

    async def discard(
        self, uow: UnitOfWork, *, now: dt.datetime, actor: str, reason: str | None = None
    ) -> int | None:
        """The draft thrown away (the open season goes on); its year."""
        draft = await self._draft(uow)
        year = draft.year
        await uow.seasons.remove(draft)
        await uow.audit.record(
            at=now, actor=actor, action="season.discard", reason=reason, details={"year": year}
        )
        return year

    async def _draft(self, uow: UnitOfWork) -> TournamentRow:
        draft = await uow.seasons.draft()
        if draft is None:
            raise OperationError("no season is drafted: make next year's season first")
        return draft
