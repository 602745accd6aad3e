"""Eligibility and seeding (rules 2.i, 2.ii.5, 3.v.3) from the players' Lichess accounts.

For each registered player the account facts and rated games (read by an :class:`AccountSource`,
the Lichess adapter's :class:`bot.lichess.accounts.LichessAccounts`) are assessed by
:func:`rules.stages.seeding.assess`. The seeding rating is stored on the player; refusals and
review flags are reported, never acted on: excluding a player stays a TD decision.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config
from rules.stages.seeding import AccountFacts, EligibilityVerdict, RatedGame, SeedingError, assess
from storage.db import Database

__all__ = ["AccountRecord", "AccountSource", "Registration", "RegistrationCheck"]


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """What Lichess says of one account: its facts and its rated games, oldest first."""

    facts: AccountFacts
    games: tuple[RatedGame, ...]


class AccountSource(Protocol):
    async def account(self, username: str) -> AccountRecord | str:
        """The account's record, or a sentence saying why it could not be read."""
        ...


@dataclass(frozen=True, slots=True)
class RegistrationCheck:
    username: str
    verdict: EligibilityVerdict | None
    problem: str | None  # the account could not be checked (not found, API error, bad data)

    @property
    def is_eligible(self) -> bool:
        return self.verdict is not None and not self.verdict.refusals

    @property
    def reasons(self) -> list[str]:
        if self.problem is not None:
            return [self.problem]
        assert self.verdict is not None
        texts = [r.value.replace("_", " ") for r in self.verdict.refusals]
        texts += [f"review: {f.value.replace('_', ' ')}" for f in self.verdict.flags]
        return texts


class Registration:
    def __init__(self, config: Config, db: Database, accounts: AccountSource) -> None:
        self.config = config
        self.db = db
        self.accounts = accounts

    async def check_player(self, username: str) -> RegistrationCheck:
        record = await self.accounts.account(username)
        if isinstance(record, str):
            return RegistrationCheck(username, None, record)
        try:
            verdict = assess(
                record.facts, list(record.games), eligibility=self.config.rules.eligibility
            )
        except SeedingError as e:
            return RegistrationCheck(username, None, f"cannot assess: {e}")
        return RegistrationCheck(username, verdict, None)

    async def check_all(self, *, now: dt.datetime, actor: str) -> list[RegistrationCheck]:
        """Check every registered player and store the seeding ratings found (audited)."""
        async with self.db.uow() as uow:
            players = [(p.id, p.username) for p in await uow.players.list()]
        checks = [await self.check_player(username) for _, username in players]
        async with self.db.uow() as uow:
            for (player_id, _), check in zip(players, checks, strict=True):
                row = await uow.players.get(player_id)
                if row is None:
                    continue
                seed = None if check.verdict is None else check.verdict.seed_rating
                if seed is not None and seed != row.seed_rating:
                    row.seed_rating = seed
                verdict = check.verdict
                await uow.audit.record(
                    at=now,
                    actor=actor,
                    action="registration.check",
                    player=player_id,
                    details={
                        "eligible": check.is_eligible,
                        "reasons": check.reasons,
                        "seed_rating": seed,
                        "rating_at_cutoff": None if verdict is None else verdict.rating_at_cutoff,
                        "peak_rating": None if verdict is None else verdict.peak_rating,
                        "rated_games": None if verdict is None else verdict.rated_games_counted,
                    },
                )
            await uow.commit()
        return checks
