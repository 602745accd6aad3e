"""Eligibility and seeding (rules 2.i, 2.ii.5, 3.v.3) from the players' Lichess accounts.

For each registered player the account facts and rated games (read by an :class:`AccountSource`,
the Lichess adapter's :class:`bot.lichess.accounts.LichessAccounts`) are assessed by
:func:`rules.stages.seeding.assess`. The seeding rating is stored on the player; refusals and
review flags are reported, never acted on: excluding a player stays a TD decision.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config
from bot.errors import OperationError
from rules.stages.seeding import AccountFacts, EligibilityVerdict, RatedGame, SeedingError, assess
from storage.db import Database

__all__ = [
    "AccountRecord",
    "AccountSource",
    "Doctor",
    "Registration",
    "RegistrationCheck",
    "registration_scopes",
    "run_scopes",
]


def run_scopes(config: Config) -> list[str]:
    """What ``acwc run`` needs of the bot's token: DMs, and team messages when a team is set."""
    return ["msg:write", *(["team:lead"] if config.tournament.team else [])]


def registration_scopes(config: Config) -> list[str]:
    """What ``acwc registration check`` needs: the team's member list, when a team is set."""
    return ["team:read"] if config.tournament.team else []


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """What Lichess says of one account: its facts and its rated games, oldest first."""

    facts: AccountFacts
    games: tuple[RatedGame, ...]


class AccountSource(Protocol):
    async def account(self, username: str) -> AccountRecord | str:
        """The account's record, or a sentence saying why it could not be read."""
        ...

    async def team_members(self, team: str) -> set[str] | str:
        """The ids of the team's members, or a sentence saying why they could not be read."""
        ...

    async def token(self) -> tuple[str | None, frozenset[str]] | str:
        """The bot token's user (``None``: not valid) and scopes, or a sentence saying why
        Lichess could not be asked."""
        ...

    async def team_leaders(self, team: str) -> set[str]: ...


@dataclass(frozen=True, slots=True)
class Doctor:
    """What ``acwc doctor`` reports: the bot's account, token and team, and who is not in it."""

    bot: str | None
    scopes: frozenset[str]
    missing: list[str]
    team: str | None
    leads_team: bool
    not_members: list[str]
    members_problem: str | None
    outbox_stopped: str | None
    refusing_dms: list[str]
    token_problem: str | None = None


@dataclass(frozen=True, slots=True)
class RegistrationCheck:
    username: str
    verdict: EligibilityVerdict | None
    problem: str | None  # the account could not be checked (not found, API error, bad data)
    team_member: bool | None = None  # None: no team configured, or its members unread

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
        if self.team_member is False:
            texts.append("not a team member (DMs to them count against the bot's daily limit)")
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
        """Check every registered player and store the seeding ratings found (audited).

        Refuses first, naming it, when the token lacks a scope the check needs."""
        needed = registration_scopes(self.config)
        token = await self.accounts.token() if needed else None
        if isinstance(token, tuple):
            user, scopes = token
            missing = sorted(set(needed) - scopes) if user is not None else needed
            if missing:
                who = "an unknown or revoked token" if user is None else f"the token of {user}"
                raise OperationError(
                    f"{who} lacks the scope {', '.join(missing)}: give the bot a token with it"
                )
        async with self.db.uow() as uow:
            players = [(p.id, p.username) for p in await uow.players.list()]
        checks = [await self.check_player(username) for _, username in players]
        team = self.config.tournament.team
        members = await self.accounts.team_members(team) if team else None
        if isinstance(members, set):
            checks = [
                dataclasses.replace(c, team_member=pid in members)
                for (pid, _), c in zip(players, checks, strict=True)
            ]
        async with self.db.uow() as uow:
            for (player_id, _), check in zip(players, checks, strict=True):
                row = await uow.players.get(player_id)
                if row is None:
                    continue
                if check.team_member is not None:
                    row.team_member = check.team_member
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
                        "team_member": check.team_member,
                    },
                )
            await uow.commit()
        return checks

    async def doctor(self) -> Doctor:
        """The bot's token, scopes and team, and the registered players not in the team."""
        needed = sorted({*run_scopes(self.config), *registration_scopes(self.config)})
        async with self.db.uow() as uow:
            holds = [(h.name, h.reason) for h in await uow.holds.named("")]
        token = await self.accounts.token()
        problem_token = token if isinstance(token, str) else None
        bot, scopes = (None, frozenset[str]()) if isinstance(token, str) else token
        team = self.config.tournament.team or None
        leads, not_members, problem = False, [], None
        if team:
            leaders = await self.accounts.team_leaders(team)
            leads = bot is not None and bot in leaders
            members = await self.accounts.team_members(team)
            if isinstance(members, str):
                problem = members
            else:
                async with self.db.uow() as uow:
                    players = await uow.players.list()
                not_members = [p.username for p in players if p.id not in members]
        stopped = next((reason for name, reason in holds if name == "outbox"), None)
        refusing = [name.split(":", 1)[1] for name, _ in holds if name.startswith("dm-refused:")]
        return Doctor(
            bot=bot,
            scopes=scopes,
            missing=sorted(set(needed) - scopes) if bot is not None else sorted(needed),
            team=team,
            leads_team=leads,
            not_members=not_members,
            members_problem=problem,
            outbox_stopped=stopped,
            refusing_dms=refusing,
            token_problem=problem_token,
        )
