"""A TD's decision tried before it is made: the operation runs in the caller's unit of work
between two readings of the standings, and the caller leaves the unit of work without
committing, so nothing of it stays (no row, no notice in the outbox, no audit line).

The desk shows what would change (rank, player, points before -> after) and a button that
makes the same decision for real.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.config import Config
from bot.views.standings_change import LineChange, changed_lines, standings_lines
from storage.uow import UnitOfWork

__all__ = ["Preview", "preview"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Preview(Generic[T]):
    outcome: T
    changes: tuple[LineChange, ...]


async def preview(
    uow: UnitOfWork, config: Config, change: Callable[[], Awaitable[T]]
) -> Preview[T]:
    """Run ``change`` in ``uow`` and read which standings lines it changes.

    The change stays in ``uow``: roll it back (leave without committing) for a preview, commit
    it to keep it. Errors of ``change`` propagate unchanged.
    """
    before = await standings_lines(uow, config)
    outcome = await change()
    await uow.flush()
    after = await standings_lines(uow, config)
    return Preview(outcome, changed_lines(before, after))
