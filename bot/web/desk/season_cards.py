"""Next year's season on the desk (issue 28): once the final is decided, a card to make it from
this one; a drafted season's card with what it takes over (its dates, its seeded entrants, the
final its Candidates tiebreak reads) and the buttons to open it or throw it away. Both settle
through :class:`~bot.service.seasons.Seasons`, the operations of the command line."""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from bot.service.seasons import final_order
from bot.service.services import Services
from bot.web.desk.decisions import Choice, Decision, Ruling
from storage.models import TournamentRow
from storage.uow import UnitOfWork

__all__ = ["NextSeason", "settings_table"]

_LABELS = {
    ("calendar", "first_publication"): "first pairings",
    ("eligibility", "account_created_before"): "accounts created before",
    ("eligibility", "games_before"): "rated games before",
    ("eligibility", "peak_window_start"): "peak rating from",
    ("eligibility", "peak_window_end"): "peak rating until",
    ("seeding", "title_holder"): "title holder (rules 3.3)",
    ("seeding", "runner_up"): "runner-up (rules 3.4)",
    ("seeding", "previous_final_order"): "previous final, for the tiebreak (3.6.6.4)",
}


def settings_table(season: TournamentRow) -> tuple[tuple[str, ...], ...]:
    """A season's own settings as the desk's table: (setting, value), its registration window
    with them (moved with its first pairings by ``acwc season new``)."""
    rows: list[tuple[str, ...]] = [("setting", "value")]
    for section, values in (season.rules or {}).items():
        for key, value in values.items():
            shown = ", ".join(value) if isinstance(value, list) else str(value)
            rows.append((_LABELS.get((section, key), f"{section}.{key}"), shown))
    for label, when in (
        ("registration opens (UTC)", season.registration_opens),
        ("registration closes (UTC)", season.registration_closes),
    ):
        if when is not None:  # none: the config's [registration]
            rows.append((label, when.strftime("%a %d %b %Y %H:%M")))
    return tuple(rows)


class NextSeason:
    kind = "season"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        draft = await uow.seasons.draft()
        if draft is not None:
            return [self._review(draft)]
        current = await uow.tournaments.current()
        order = await final_order(uow) if current is not None else []
        if current is None or len(order) < 2:
            return []
        year = current.year or now.year
        return [
            Decision(
                kind=self.kind,
                key=f"new:{current.id}",
                title=f"Make the {year + 1} season?",
                summary=f"The {year} final is decided: {order[0]} is the champion, {order[1]} "
                f"second. The {year + 1} season takes this one's settings a year on, with "
                f"{order[0]} and {order[1]} as its title holder and runner-up and this final "
                "for its Candidates tiebreak. It stays a draft until a TD opens it.",
                at=None,
                choices=(Choice("draft", f"Draft the {year + 1} season"),),
                optional=True,
            )
        ]

    def _review(self, draft: TournamentRow) -> Decision:
        return Decision(
            kind=self.kind,
            key=f"draft:{draft.id}",
            title=f"Open the {draft.year} season?",
            summary=f"The {draft.year} season is drafted. Opening it archives the season in "
            "play (its pages stay, read only) and opens registration for this one; the service "
            "plays its rules at once, with no restart.",
            at=draft.created_at,
            table=settings_table(draft),
            choices=(
                Choice("confirm", f"Open the {draft.year} season"),
                Choice("discard", "Throw the draft away (say why)", needs_reason=True),
            ),
        )

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        seasons = services.tournament.seasons
        if ruling.choice == "draft":
            row = await seasons.draft_next(uow, now=ruling.now, actor=ruling.actor)
            return f"The {row.year} season is drafted: review it, then open it."
        if ruling.choice == "confirm":
            row = await seasons.confirm(uow, now=ruling.now, actor=ruling.actor)
            return f"The {row.year} season is open; the season before it is archived."
        if ruling.choice == "discard":
            year = await seasons.discard(
                uow, now=ruling.now, actor=ruling.actor, reason=ruling.reason
            )
            return f"The drafted {year} season is thrown away."
        raise OperationError("pick one of the buttons")
