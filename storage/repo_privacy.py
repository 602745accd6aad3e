"""Repository of a player's own data (issue 28): every row about one player, for their download,
and the removal of what the record of the championship does not need.

What a row "about" a player is, table by table, is :data:`ABOUT`: the rows that name them (their
player row, their matches and games, the offers and texts they made, the messages sent to them,
their sessions, their stored permission, the audit lines about them, or by them about no one
else). A row of another player's match, a message to someone else, or another player's session
is never one of them.

Secrets are left out of the download: a session's cookie hash and form token, a stored token's
sealed value (:data:`SECRET_COLUMNS`).
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, delete, func, inspect, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from storage.base import Base
from storage.models import (
    AuditRow,
    Channel,
    ForbiddenPairRow,
    GameRow,
    MatchRow,
    OutboxRow,
    PlayerExitRow,
    PlayerRow,
    SettingRow,
    StageEntrantRow,
)
from storage.models_games import ChallengeRow
from storage.models_notices import HoldRow
from storage.models_seasons import SeasonEntryRow
from storage.models_stages import ArmageddonStepRow
from storage.models_tokens import BulkGameRow, PlayerTokenRow
from storage.models_web import WebSessionRow
from storage.models_weekly import CheatReportRow, ForfeitRow, MatchEventRow

__all__ = ["ABOUT", "NOT_ABOUT_A_PLAYER", "SECRET_COLUMNS", "PrivacyRepository"]

MESSAGES_TO_PLAYERS = (Channel.DM, Channel.ROOM)
"""The outbox's channels that carry a message to one player (not the TDs' alerts and notes,
nor the team's and the forum's posts, which are the championship's own)."""


def _lower(column: Any, pid: str) -> ColumnElement[bool]:
    return func.lower(column) == pid


Where = Callable[[str, Sequence[str], Sequence[str]], ColumnElement[bool]]
"""A table's rows about player ``pid`` (with the setting keys and hold names that are theirs)."""

ABOUT: tuple[tuple[type[Base], Where], ...] = (
    (PlayerRow, lambda pid, _s, _h: PlayerRow.id == pid),
    (SeasonEntryRow, lambda pid, _s, _h: SeasonEntryRow.player_id == pid),
    (StageEntrantRow, lambda pid, _s, _h: StageEntrantRow.player_id == pid),
    (
        MatchRow,
        lambda pid, _s, _h: or_(MatchRow.white_first == pid, MatchRow.black_first == pid),
    ),
    (GameRow, lambda pid, _s, _h: or_(_lower(GameRow.white, pid), _lower(GameRow.black, pid))),
    (
        ChallengeRow,
        lambda pid, _s, _h: or_(_lower(ChallengeRow.white, pid), _lower(ChallengeRow.black, pid)),
    ),
    (
        BulkGameRow,
        lambda pid, _s, _h: or_(_lower(BulkGameRow.white, pid), _lower(BulkGameRow.black, pid)),
    ),
    (MatchEventRow, lambda pid, _s, _h: _lower(MatchEventRow.actor, pid)),
    (ArmageddonStepRow, lambda pid, _s, _h: _lower(ArmageddonStepRow.player, pid)),
    (ForfeitRow, lambda pid, _s, _h: ForfeitRow.player_id == pid),
    (PlayerExitRow, lambda pid, _s, _h: PlayerExitRow.player_id == pid),
    (
        ForbiddenPairRow,
        lambda pid, _s, _h: or_(ForbiddenPairRow.first == pid, ForbiddenPairRow.second == pid),
    ),
    (CheatReportRow, lambda pid, _s, _h: _lower(CheatReportRow.reporter, pid)),
    (
        OutboxRow,
        lambda pid, _s, _h: (
            OutboxRow.kind.in_([c.value for c in MESSAGES_TO_PLAYERS])
            & _lower(OutboxRow.recipient, pid)
        ),
    ),
    (  # about them, or by them and about no other player (a TD's rulings are about others)
        AuditRow,
        lambda pid, _s, _h: or_(
            AuditRow.player == pid, _lower(AuditRow.actor, pid) & AuditRow.player.is_(None)
        ),
    ),
    (WebSessionRow, lambda pid, _s, _h: WebSessionRow.user_id == pid),
    (PlayerTokenRow, lambda pid, _s, _h: PlayerTokenRow.player_id == pid),
    (HoldRow, lambda _p, _s, holds: HoldRow.name.in_(list(holds))),
    (SettingRow, lambda _p, settings, _h: SettingRow.key.in_(list(settings))),
)
"""Each table with the rows of it that are about one player, in the download's order."""

NOT_ABOUT_A_PLAYER = {
    "tournaments": "the championship itself",
    "stages": "the championship's stages",
    "rounds": "the stages' rounds",
    "stage_plans": "when a stage may be published",
    "knockout_brackets": "the bracket (its players are in their matches)",
    "armageddons": "a match's armageddon (its inputs by a player are armageddon_steps)",
    "broadcasts": "the stages' Lichess broadcasts",
    "broadcast_rounds": "the broadcasts' rounds (the players they follow are in matches)",
    "deadlines": "the service's planned work",
    "leadership": "which process leads",
    "alembic_version": "the schema's version",
}
"""The tables with no row about one player, and why (a test fails on a table in neither)."""

SECRET_COLUMNS = {
    "web_sessions": frozenset({"id", "csrf"}),
    "player_tokens": frozenset({"secret"}),
}
"""Columns never handed out, not even to the player: a session's cookie hash and form token
would let a copy of the file act as them, a token's sealed value is the bot's to open."""


def _plain(value: object) -> object:
    """A column's value as JSON holds it."""
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _as_dict(row: Base, table: str) -> dict[str, object]:
    hidden = SECRET_COLUMNS.get(table, frozenset())
    return {
        attr.key: _plain(getattr(row, attr.key))
        for attr in inspect(type(row)).column_attrs
        if attr.key not in hidden
    }


class PrivacyRepository:
    """``PrivacyRepository(uow.session)``: a player's rows, and the removal of the others."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def about(
        self, pid: str, *, settings: Sequence[str] = (), holds: Sequence[str] = ()
    ) -> dict[str, list[dict[str, object]]]:
        """Every row about player ``pid`` (a Lichess id, lower case), by table, secrets left
        out; ``settings`` and ``holds`` name the rows of those tables that are theirs."""
        out: dict[str, list[dict[str, object]]] = {}
        for model, where in ABOUT:
            table = str(model.__tablename__)
            mapper = inspect(model)
            order = [c for c in mapper.primary_key]
            result = await self.session.execute(
                select(model).where(where(pid, settings, holds)).order_by(*order)
            )
            out[table] = [_as_dict(row, table) for row in result.scalars()]
        return out

    async def forget(
        self, pid: str, *, settings: Sequence[str] = (), holds: Sequence[str] = ()
    ) -> dict[str, int]:
        """Remove what is player ``pid``'s and not the championship's record: their browser
        sessions, the messages sent to them, their choice of game links by DM, the holds and
        settings named; how many rows
        of each table went (the stored token goes through its own path, revoked first)."""
        counts = {
            "web_sessions": await self._delete(WebSessionRow, WebSessionRow.user_id == pid),
            "outbox": await self._delete(
                OutboxRow,
                OutboxRow.kind.in_([c.value for c in MESSAGES_TO_PLAYERS])
                & _lower(OutboxRow.recipient, pid),
            ),
            "lichess_holds": await self._delete(HoldRow, HoldRow.name.in_(list(holds))),
            "settings": await self._delete(SettingRow, SettingRow.key.in_(list(settings))),
        }
        result = await self.session.execute(
            update(PlayerRow)
            .where(PlayerRow.id == pid)
            .values(game_links_by_dm=False, language=None)
        )
        counts["players"] = int(getattr(result, "rowcount", 0) or 0)
        return counts

    async def _delete(self, model: type[Base], where: ColumnElement[bool]) -> int:
        result = await self.session.execute(delete(model).where(where))
        return int(getattr(result, "rowcount", 0) or 0)
