"""Registrations: add a player, remove one registered in error (rules 2, 3.iii-iv)."""

from __future__ import annotations

import datetime as dt

from bot.config import USERNAME, Config
from bot.errors import OperationError
from bot.notify.languages import LANGUAGES
from bot.views.tournament import require_tournament
from rules.core.model import normalise_username
from rules.core.ruleset import Ruleset
from rules.core.states import PlayerStatus
from storage.models import PlayerRow
from storage.uow import UnitOfWork

__all__ = ["Players", "seeded_role"]


def seeded_role(username: str, ruleset: Ruleset) -> str | None:
    """``title_holder`` / ``runner_up`` for the seeded entrants of rules 3.iii-iv, else None."""
    name = username.lower()
    if ruleset.seeding.title_holder and ruleset.seeding.title_holder.lower() == name:
        return "title_holder"
    if ruleset.seeding.runner_up and ruleset.seeding.runner_up.lower() == name:
        return "runner_up"
    return None


class Players:
    def __init__(self, config: Config) -> None:
        self.config = config

    async def add(
        self,
        uow: UnitOfWork,
        username: str,
        *,
        seed_rating: int | None,
        now: dt.datetime,
        actor: str,
    ) -> PlayerRow:
        if not USERNAME.match(username):
            raise OperationError(
                f"{username!r} is not a Lichess username (2 to 30 letters, digits, _ and -, "
                "starting and ending with a letter or digit)"
            )
        if seed_rating is not None and not 0 < seed_rating < 5000:
            raise OperationError(f"seed rating {seed_rating} is not a Lichess rating")
        await require_tournament(uow)
        player_id = normalise_username(username)
        if await uow.players.get(player_id) is not None:
            raise OperationError(f"{username} is already registered")
        row = await uow.players.add(
            PlayerRow(
                id=player_id,
                username=username,
                seed_rating=seed_rating,
                seeded_as=seeded_role(username, self.config.rules),
                status=PlayerStatus.ACTIVE,
                engine_mark=False,
                registered_at=now,
            )
        )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="player.add",
            player=player_id,
            details={"username": username, "seed_rating": seed_rating, "seeded_as": row.seeded_as},
        )
        return row

    async def remove(
        self, uow: UnitOfWork, username: str, *, reason: str, now: dt.datetime, actor: str
    ) -> None:
        """Remove a registration made in error. A player who has been paired is withdrawn
        instead."""
        player = await uow.players.get(normalise_username(username))
        if player is None:
            raise OperationError(f"{username} is not registered")
        if await uow.matches.count_for_player(player.id):
            raise OperationError(
                f"{player.username} has been paired already; withdraw them instead (the TD "
                "desk's withdrawals and disqualifications), so their results stay on record"
            )
        await uow.audit.record(
            at=now,
            actor=actor,
            action="player.remove",
            reason=reason,
            player=player.id,
            details={"username": player.username, "seed_rating": player.seed_rating},
        )
        await uow.players.remove(player)

    async def set_language(
        self, uow: UnitOfWork, player_id: str, *, language: str, now: dt.datetime
    ) -> PlayerRow:
        """The player's choice of the language of their notices and their pages (issue 28)."""
        if language not in LANGUAGES:
            raise OperationError(
                f"There is no language {language!r}: choose one of {', '.join(LANGUAGES)}."
            )
        # stored as chosen, English too: a player who chose it reads it whatever their browser
        return await _choose(uow, player_id, "language", language, now=now, audited=language)

    async def set_game_links_by_dm(
        self, uow: UnitOfWork, player_id: str, *, wanted: bool, now: dt.datetime
    ) -> PlayerRow:
        """The player's choice (issue 14): each later game's fresh challenge link by DM too
        (game 1's and the armageddon's always come by DM; every game's is in the room)."""
        return await _choose(uow, player_id, "game_links_by_dm", wanted, now=now, audited=wanted)


async def _choose(
    uow: UnitOfWork,
    player_id: str,
    choice: str,
    value: object,
    *,
    now: dt.datetime,
    audited: object,
) -> PlayerRow:
    """One of a registered player's choices (``choice``: the column) set to ``value``, audited
    as ``audited`` when it changed."""
    player = await uow.players.get(normalise_username(player_id))
    if player is None:
        raise OperationError("Only a registered player has this choice.")
    if getattr(player, choice) != value:
        setattr(player, choice, value)
        await uow.audit.record(
            at=now,
            actor=player.id,
            action="player.preferences",
            player=player.id,
            details={choice: audited},
        )
    return player
