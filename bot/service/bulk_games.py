"""Games the players do not have to click: bulk pairing when both allowed it (issue 25).

:class:`BulkOrOpen` is the challenges' maker (:class:`bot.service.challenges.ChallengeMaker`).
For a game whose two players both let the bot start their games (:mod:`player_tokens`), it asks
Lichess for a bulk pairing of that one game (``POST /api/bulk-pairing``: the bot's token with
``challenge:bulk``, both players' tokens, White's first): rated, the rules' variant and clock,
created by Lichess at ``pair_at`` (the agreed time for a match's first game, at once for a later
one) and announced to both players by Lichess itself. Lichess gives the game's id at once, so
it is stored as the challenge's id and the intake counts the game (``source: api``) because it
is one of the bot's; any other ``api`` game is refused, as any game not made from a challenge.

A newer time for the same two players cancels their pending bulk first. When Lichess refuses a
player's token (revoked there), that player's permission is forgotten (audited) and the game
falls back to the open challenge, as it does for any other failure of the bulk pairing and for
players who did not both allow it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from typing import Protocol

from bot.config import Config
from bot.runtime.clock import Clock
from bot.service.challenges import (
    ChallengeFailed,
    ChallengeMaker,
    ChallengeSpec,
    MadeChallenge,
)
from bot.service.player_tokens import PlayerTokens
from rules.core.model import normalise_username
from rules.talk.games import BULK_GAME_MESSAGE
from storage.db import Database
from storage.models_tokens import BulkGameRow
from storage.uow import UnitOfWork, Write

__all__ = ["BulkMade", "BulkOrOpen", "BulkPairer", "BulkRefused"]

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class BulkMade:
    """What Lichess answered: the bulk's id and its one game's id and link."""

    id: str
    game_id: str
    url: str


class BulkRefused(Exception):
    """Lichess refused the bulk because of these tokens (each player's, never the bot's)."""

    def __init__(self, tokens: Sequence[str], reason: str) -> None:
        super().__init__(reason)
        self.tokens = tuple(tokens)


class BulkPairer(Protocol):
    async def create(
        self,
        spec: ChallengeSpec,
        tokens: tuple[str, str],
        *,
        pair_at: dt.datetime | None,
        message: str,
    ) -> BulkMade:
        """One game of ``spec`` between the tokens' users (White's first); raises
        :class:`BulkRefused` for bad tokens, :class:`ChallengeFailed` otherwise."""
        ...

    async def cancel(self, bulk_id: str) -> bool:
        """Cancel a bulk not yet paired; whether Lichess had it."""
        ...


MESSAGE = BULK_GAME_MESSAGE
"""What Lichess writes each player when it creates the game (``{game}``: lila's link)."""


class BulkOrOpen:
    """The challenges' maker: bulk pairing when both players allowed it, else ``open``."""

    def __init__(
        self,
        config: Config,
        db: Database,
        clock: Clock,
        tokens: PlayerTokens,
        pairer: BulkPairer,
        open_maker: ChallengeMaker,
    ) -> None:
        self.config = config
        self.db = db
        self.clock = clock
        self.tokens = tokens
        self.pairer = pairer
        self.open_maker = open_maker

    async def __call__(self, spec: ChallengeSpec) -> MadeChallenge:
        """Asked outside any transaction (:class:`bot.runtime.deadlines.Ask`): it reads, and
        what it did on Lichess goes back as the reply's ``writes``, recorded with the answer."""
        white, black = normalise_username(spec.white), normalise_username(spec.black)
        writes: list[Write] = []
        if self.tokens.offered:
            async with self.db.reads() as uow:
                found = await self.tokens.tokens(uow, (white, black))
            if white in found and black in found:
                made = await self._bulk(spec, white, black, found, writes)
                if made is not None:
                    return made
        try:
            made = await self.open_maker(spec)
        except ChallengeFailed as e:
            raise ChallengeFailed(str(e), [*writes, *e.writes]) from e
        return dataclasses.replace(made, writes=(*writes, *made.writes))

    async def _bulk(
        self,
        spec: ChallengeSpec,
        white: str,
        black: str,
        found: Mapping[str, str],
        writes: list[Write],
    ) -> MadeChallenge | None:
        now = self.clock.now()
        writes.extend(await self._cancel_pending(white, black, now=now))
        pair_at = spec.starts_at if spec.starts_at is not None and spec.starts_at > now else None
        try:
            made = await self.pairer.create(
                spec,
                (found[white], found[black]),
                pair_at=pair_at,
                message=MESSAGE.format(name=spec.name),
            )
        except BulkRefused as e:
            refused = [p for p, token in found.items() if token in e.tokens]
            writes.append(self._forget(refused, str(e), now=now))
            log.warning("bulk pairing of %s refused (%s): the open challenge instead", spec.name, e)
            return None
        except ChallengeFailed as e:
            log.warning("bulk pairing of %s failed (%s): the open challenge instead", spec.name, e)
            return None

        async def record(uow: UnitOfWork) -> None:
            await uow.tokens.add_bulk_game(
                BulkGameRow(
                    game_id=made.game_id,
                    bulk_id=made.id,
                    white=white,
                    black=black,
                    pair_at=pair_at or now,
                    created_at=now,
                    cancelled_at=None,
                )
            )
            await uow.audit.record(
                at=now,
                actor="bot",
                action="bulk.created",
                details={"bulk": made.id, "game": made.game_id, "name": spec.name},
            )

        return MadeChallenge(id=made.game_id, url=made.url, writes=(*writes, record))

    async def _cancel_pending(self, white: str, black: str, *, now: dt.datetime) -> list[Write]:
        """A game of theirs still to come is for a time no longer agreed: cancelled on
        Lichess; the record of it to write."""
        async with self.db.reads() as uow:  # Lichess is asked outside a write transaction
            pending = [
                (row.game_id, row.bulk_id)
                for row in await uow.tokens.pending_bulk_games(white, black, now=now)
            ]
        cancelled = []
        for game_id, bulk_id in pending:
            try:
                await self.pairer.cancel(bulk_id)
            except ChallengeFailed as e:
                log.warning("could not cancel bulk %s: %s", bulk_id, e)
                continue
            cancelled.append(game_id)
        if not cancelled:
            return []

        async def record(uow: UnitOfWork) -> None:
            repo = uow.tokens
            for game_id in cancelled:
                row = await repo.bulk_game(game_id)
                if row is not None:
                    row.cancelled_at = now
                    await uow.audit.record(
                        at=now,
                        actor="bot",
                        action="bulk.cancelled",
                        details={"bulk": row.bulk_id, "game": row.game_id},
                    )

        return [record]

    def _forget(self, players: Sequence[str], reason: str, *, now: dt.datetime) -> Write:
        async def record(uow: UnitOfWork) -> None:
            for player in players:
                await self.tokens.withdraw(
                    uow, player, now=now, actor="bot", why=f"Lichess refused the token: {reason}"
                )

        return record
