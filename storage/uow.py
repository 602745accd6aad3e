"""The unit of work: one transaction, repositories on top of it, commit only when asked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from storage.changes import ORIGIN
from storage.fence import Claims, Fence
from storage.repo_games import LichessRepository
from storage.repo_notices import HoldRepository, NoticeRepository
from storage.repo_outbox import OutboxRepository
from storage.repo_players import PlayerRepository
from storage.repo_privacy import PrivacyRepository
from storage.repo_seasons import SeasonRepository
from storage.repo_stages import LaterStagesRepository
from storage.repo_tokens import PlayerTokenRepository
from storage.repo_web import WebRepository
from storage.repo_weekly import WeeklyRepository
from storage.repositories import (
    AuditRepository,
    DeadlineRepository,
    GameRepository,
    MatchRepository,
    SettingRepository,
    StageRepository,
    TournamentRepository,
)

Write = Callable[["UnitOfWork"], Awaitable[object]]
"""A change a service hands its caller to make in a unit of work the caller opens and commits
(the entry point owns the transaction: a web handler, a command, a deadline's firing)."""


def _no_writes(*_: Any) -> None:
    raise RuntimeError("a unit of work for reads (Database.reads) writes nothing")


class UnitOfWork:
    """``async with db.uow() as uow: ...; await uow.commit()``.

    Leaving the block without ``commit()`` rolls everything back, so a failure half way through
    a change stores nothing of it.
    """

    session: AsyncSession

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        read_only: bool = False,
        origin: str | None = None,
        fence: Fence | None = None,
    ) -> None:
        self._sessions = sessions
        self._fence = Fence() if fence is None else fence
        self.read_only = read_only
        self.origin = origin

    async def __aenter__(self) -> UnitOfWork:
        self.session = self._sessions()
        if self.origin is not None:
            self.session.info[ORIGIN] = self.origin
        if self.read_only:
            event.listen(self.session.sync_session, "before_flush", _no_writes)
        self.tournaments = TournamentRepository(self.session)
        self.seasons = SeasonRepository(self.session)
        self.players = PlayerRepository(self.session)
        self.matches = MatchRepository(self.session)
        self.games = GameRepository(self.session)
        self.audit = AuditRepository(self.session)
        self.outbox = OutboxRepository(self.session)
        self.deadlines = DeadlineRepository(self.session)
        self.stages = StageRepository(self.session)
        self.settings = SettingRepository(self.session)
        self.holds = HoldRepository(self.session)
        self.notices = NoticeRepository(self.session)
        self.weekly = WeeklyRepository(self.session)
        self.later_stages = LaterStagesRepository(self.session)
        self.lichess = LichessRepository(self.session)
        self.web = WebRepository(self.session)
        self.tokens = PlayerTokenRepository(self.session)
        self.privacy = PrivacyRepository(self.session)
        self.claims = Claims(self.session, self._fence)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # close() rolls back whatever was not committed and detaches the rows without expiring
        # them, so values read inside the block stay readable after it.
        await self.session.close()

    async def commit(self) -> None:
        if self.read_only:
            raise RuntimeError("a unit of work for reads (Database.reads) commits nothing")
        await self.session.commit()

    async def rollback(self) -> None:
        await self.session.rollback()

    async def flush(self) -> None:
        """Write what the repositories hold so far (ids, constraints), without committing."""
        await self.session.flush()
