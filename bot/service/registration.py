"""Eligibility and seeding (rules 2.i, 2.ii.5, 3.v.3) from the players' Lichess accounts.

For each registered player the account facts and rated games (read by an :class:`AccountSource`,
the Lichess adapter's :class:`bot.lichess.accounts.LichessAccounts`) are assessed by
:func:`rules.stages.seeding.assess`. The seeding rating is stored on the player; refusals and
review flags are reported, never acted on: excluding a player stays a TD decision.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config, RegistrationConfig
from bot.errors import LichessUnreachable, OperationError
from bot.notify.languages import words_of
from bot.service.doctor import feature_scopes
from bot.service.players import Players
from rules.core.model import normalise_username
from rules.core.states import PlayerStatus
from rules.core.words import N_, Words
from rules.stages.seeding import AccountFacts, EligibilityVerdict, RatedGame, SeedingError, assess
from rules.talk import registration as talk
from storage.db import Database
from storage.models import AuditRow, TournamentRow
from storage.uow import UnitOfWork

__all__ = [
    "REASONS",
    "AccountRecord",
    "AccountSource",
    "Registration",
    "RegistrationCheck",
    "SelfRegistration",
    "StandingRefusal",
    "refused_or_gone",
    "registration_scopes",
    "run_scopes",
    "season_window",
    "standing_refusals",
    "td_hand",
    "window_of",
]


def run_scopes(config: Config) -> list[str]:
    """What ``acwc run`` needs of the bot's token: every scope of the config's features
    (:func:`bot.service.doctor.feature_scopes`: DMs, team updates and the member list when a
    team is set, the challenges, the broadcasts)."""
    return sorted(feature_scopes(config))


def registration_scopes(config: Config) -> list[str]:
    """What ``acwc registration check`` needs: the team's member list, when a team is set."""
    return ["team:read"] if config.tournament.team else []


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """What Lichess says of one account: its facts and its rated games, oldest first."""

    facts: AccountFacts
    games: tuple[RatedGame, ...]
    cheat_detected: tuple[dt.datetime, ...] = ()
    """When each game Lichess ended as "cheat detected" was created (rules 2.2.3)."""


class AccountSource(Protocol):
    async def account(
        self, username: str, on_game: Callable[[], None] | None = None
    ) -> AccountRecord | str:
        """The account's record, or a sentence saying why it could not be read; ``on_game`` is
        told of each game read (from any thread)."""
        ...

    async def team_members(self, team: str) -> set[str] | str:
        """The ids of the team's members, or a sentence saying why they could not be read."""
        ...

    async def token(self) -> tuple[str | None, frozenset[str]] | str:
        """The bot token's user (``None``: not valid) and scopes, or a sentence saying why
        Lichess could not be asked."""
        ...

    async def team_leaders(self, team: str) -> set[str]: ...

    async def in_team(self, username: str, team: str) -> bool | str:
        """Whether the player is a member of ``team``, or why it could not be read."""
        ...


def window_of(config: Config, season: TournamentRow | None) -> RegistrationConfig:
    """The registration window of ``season``: its own once set (``acwc season new`` sets the
    next season's), else the config's ``[registration]`` (the first season's)."""
    if season is None or season.registration_opens is None or season.registration_closes is None:
        return config.registration
    return RegistrationConfig(opens=season.registration_opens, closes=season.registration_closes)


async def season_window(uow: UnitOfWork, config: Config) -> RegistrationConfig:
    """The open season's registration window (what the pages and a player's registration read)."""
    return window_of(config, await uow.tournaments.current())


REASONS = talk.REASONS
"""Each refusal and review flag in words a player reads (:mod:`rules.talk.registration`)."""


TD_REFUSAL, TD_ADDITION = "registration.refuse", "registration.add"
"""The audit log's record of the TDs' hand on ``/register/list``: a refusal stands until a TD
adds the player by hand (rules 2.2.4)."""


@dataclass(frozen=True, slots=True)
class StandingRefusal:
    """An account the TDs refused by hand, registered or not, and not added since (2.2.4)."""

    player: str
    username: str
    reason: str
    by: str
    at: dt.datetime


async def standing_refusals(uow: UnitOfWork, player: str | None = None) -> list[StandingRefusal]:
    """The TDs' refusals that still stand (of ``player`` only, when given): the last hand of
    the TDs on the account refused it, and it is not registered."""
    last: dict[str, AuditRow] = {}
    for entry in await uow.audit.list(player=player):  # oldest first: the last hand wins
        if entry.action in (TD_REFUSAL, TD_ADDITION) and entry.player is not None:
            last[entry.player] = entry
    out = []
    for pid, entry in last.items():
        if entry.action == TD_REFUSAL and await uow.players.get(pid) is None:
            name = str(entry.details.get("username") or pid)
            out.append(StandingRefusal(pid, name, entry.reason or "", entry.actor, entry.at))
    return out


async def td_hand(
    uow: UnitOfWork,
    players: Players,
    username: str,
    *,
    refuse: bool,
    reason: str,
    now: dt.datetime,
    actor: str,
) -> None:
    """A TD adds or refuses a Lichess account by hand (the registrations list), audited with
    the reason. A refusal sticks (rules 2.2.4): a registered account is removed (one already
    paired is refused: the TDs withdraw it instead), and an account that never registered is
    refused before it does; either may register again only once a TD adds it."""
    if refuse:
        if await uow.players.get(normalise_username(username)) is not None:
            await players.remove(uow, username, reason=reason, now=now, actor=actor)
    else:
        await players.add(uow, username, seed_rating=None, now=now, actor=actor)
    await uow.audit.record(
        at=now,
        actor=actor,
        action=TD_REFUSAL if refuse else TD_ADDITION,
        reason=reason,
        player=normalise_username(username),
        details={"username": username},
    )


async def refused_or_gone(uow: UnitOfWork, player: str, words: Words | None = None) -> str | None:
    """Why ``player`` may not register on their own: the TDs refused them (and did not add
    them since), or they left the championship; ``None``: nothing stands in the way. In
    ``words`` (the page's), else in the player's stored language."""
    row = await uow.players.get(player)
    words = words or await words_of(uow, player)
    if row is not None and row.status is not PlayerStatus.ACTIVE:
        return talk.gone(row.status, row.status_reason, words)
    for refusal in await standing_refusals(uow, player):
        return talk.refused_by_tds(refusal.reason, words)
    return None


@dataclass(frozen=True, slots=True)
class SelfRegistration:
    """What a player's own registration came to: registered, or each reason it was not."""

    username: str
    registered: bool
    reasons: tuple[str, ...] = ()
    join_team: str | None = None
    """The team to join first (the rest is fine)."""


@dataclass(frozen=True, slots=True)
class RegistrationCheck:
    username: str
    verdict: EligibilityVerdict | None
    problem: str | None  # the account could not be checked (not found, API error, bad data)
    team_member: bool | None = None  # None: no team configured, or its members unread
    unreachable: bool = False  # Lichess gave no answer: nothing is known of the account

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
            texts.append(talk.not_a_team_member())
        return texts


class Registration:
    def __init__(self, config: Config, db: Database, accounts: AccountSource) -> None:
        self.config = config
        self.db = db
        self.accounts = accounts

    async def check_player(
        self, username: str, on_game: Callable[[], None] | None = None
    ) -> RegistrationCheck:
        try:
            record = await self.accounts.account(username, on_game)
        except LichessUnreachable as e:
            return RegistrationCheck(username, None, talk.unreachable(e), unreachable=True)
        if isinstance(record, str):
            return RegistrationCheck(username, None, record)
        try:
            verdict = assess(
                record.facts,
                list(record.games),
                eligibility=self.config.rules.eligibility,
                cheat_detected=record.cheat_detected,
            )
        except SeedingError as e:
            return RegistrationCheck(username, None, talk.cannot_assess(e))
        return RegistrationCheck(username, verdict, None)

    async def check_all(
        self, *, progress: Callable[[int, int], None] | None = None
    ) -> list[RegistrationCheck]:
        """Check every registered player (nothing is written: the caller stores what was found
        with :meth:`record_checks`, in its own transaction, as the Lichess calls are over).
        ``progress(done, total)`` is told after each player (the desk's background check).

        Refuses first, naming it, when the token lacks a scope the check needs, and changes
        nothing when Lichess cannot be reached (before or during the checks)."""
        needed = registration_scopes(self.config)
        token = await self.accounts.token()
        if isinstance(token, str):
            raise OperationError(f"{token}: nothing was checked or changed")
        if needed:
            user, scopes = token
            missing = sorted(set(needed) - scopes) if user is not None else needed
            if missing:
                raise OperationError(talk.token_lacks(user, missing))
        async with self.db.reads() as uow:
            players = [(p.id, p.username) for p in await uow.players.list()]
        checks = []
        for _, username in players:
            checks.append(await self.check_player(username))
            if progress is not None:
                progress(len(checks), len(players))
        lost = next((c for c in checks if c.unreachable), None)
        if lost is not None:
            raise OperationError(talk.unreachable_during(lost.username, lost.problem))
        team = self.config.tournament.team
        members = await self.accounts.team_members(team) if team else None
        if isinstance(members, set):
            checks = [
                dataclasses.replace(c, team_member=pid in members)
                for (pid, _), c in zip(players, checks, strict=True)
            ]
        return checks

    async def record_checks(
        self, uow: UnitOfWork, checks: list[RegistrationCheck], *, now: dt.datetime, actor: str
    ) -> None:
        """Store what :meth:`check_all` found in the caller's unit of work: each player's
        seeding rating and team membership, and the check's audit row (the command or the desk
        commits it)."""
        for check in checks:
            player_id = normalise_username(check.username)
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
                    "cheat_detected": []
                    if verdict is None
                    else [d.isoformat() for d in verdict.cheat_detected],
                },
            )

    # --- players on their own (issue 17) ----------------------------------------------------

    def reason(self, code: str) -> str:
        """A refusal or review flag in words a player reads, with the settings' dates."""
        e = self.config.rules.eligibility
        return talk.reason(
            code, cheat_one_cutoff=e.cheat_one_cutoff, cheat_two_cutoff=e.cheat_two_cutoff
        )

    def read(self, text: str, words: Words) -> str:
        """A reason or a check's problem kept in English (a check's state), in ``words``."""
        if text == self.reason("cheat_detected"):  # the settings' dates, in the reader's words
            e = self.config.rules.eligibility
            return talk.reason(
                "cheat_detected",
                cheat_one_cutoff=e.cheat_one_cutoff,
                cheat_two_cutoff=e.cheat_two_cutoff,
                words=words,
            )
        return talk.read_back(text, words)

    async def _window(
        self, uow: UnitOfWork, username: str, now: dt.datetime, words: Words | None
    ) -> None:
        reg = await season_window(uow, self.config)
        if not reg.is_open(now):
            words = words or await words_of(uow, normalise_username(username))
            raise OperationError(talk.window_closed(reg.opens, reg.closes, words))

    async def settled(
        self, username: str, *, now: dt.datetime, words: Words | None = None
    ) -> SelfRegistration | None:
        """What is known without asking Lichess: outside the window (raises
        :class:`OperationError`), refused by the TDs or gone, or registered already; ``None``:
        the account is to be checked. Its refusals in ``words`` (the reader's page's; else the
        player's stored language)."""
        async with self.db.uow() as uow:  # no Lichess call for a repeated click
            await self._window(uow, username, now, words)
            barred = await refused_or_gone(uow, normalise_username(username), words)
            if barred is not None:
                return SelfRegistration(username, False, (barred,))
            if await uow.players.get(normalise_username(username)) is not None:
                return SelfRegistration(username, True)
        return None

    async def refusal(self, username: str, check: RegistrationCheck) -> SelfRegistration | None:
        """Why the checked account may not be entered (every reason it may not play, or the
        team to join first, asked of Lichess); ``None``: :meth:`enter` it. Writes nothing."""
        if check.problem is not None:
            return SelfRegistration(username, False, (check.problem,))
        assert check.verdict is not None
        reasons = [self.reason(r.value) for r in check.verdict.refusals]
        reasons += [self.reason(f.value) for f in check.verdict.flags]
        if reasons:
            return SelfRegistration(username, False, tuple(reasons))
        team = self.config.tournament.team
        if team:
            member = await self.accounts.in_team(username, team)
            if isinstance(member, str):
                return SelfRegistration(username, False, (member,))
            if not member:
                return SelfRegistration(username, False, (), join_team=team)
        return None

    async def enter(
        self,
        uow: UnitOfWork,
        username: str,
        check: RegistrationCheck,
        *,
        now: dt.datetime,
        language: str | None = None,
    ) -> SelfRegistration:
        """The entry of an account :meth:`refusal` let through, in the caller's unit of work
        (audited ``registration.self``); an account entered already stays as it is.
        ``language``: the one the player's pages were in when they asked (stored as their
        choice, which they may change on ``/account``)."""
        assert check.verdict is not None
        if await uow.players.get(normalise_username(username)) is not None:
            return SelfRegistration(username, True)
        row = await Players(self.config).add(
            uow, username, seed_rating=check.verdict.seed_rating, now=now, actor=username
        )
        row.language = language
        await uow.audit.record(
            at=now,
            actor=username,
            action="registration.self",
            player=normalise_username(username),
            details={
                "seed_rating": check.verdict.seed_rating,
                "cheat_detected": [d.isoformat() for d in check.verdict.cheat_detected],
                "language": language,
            },
        )
        return SelfRegistration(username, True)

    async def withdraw_self(self, uow: UnitOfWork, username: str, *, now: dt.datetime) -> None:
        """A player takes back their registration before their first pairing (audited)."""
        # (fixed sentences, marked: the page reads them in its words)
        player = await uow.players.get(normalise_username(username))
        if player is None:
            raise OperationError(N_("You are not registered."))
        if await uow.matches.count_for_player(player.id):
            raise OperationError(
                N_("You have been paired already; write to the TDs to withdraw (rules 8).")
            )
        await uow.audit.record(
            at=now,
            actor=username,
            action="registration.withdraw",
            player=player.id,
            details={"username": player.username, "seed_rating": player.seed_rating},
        )
        await uow.players.remove(player)
