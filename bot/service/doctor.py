"""What ``acwc doctor`` finds: can the bot do on Lichess what the config asks of it?

Each finding is a line with its topic, and says only what Lichess answered: when Lichess cannot
be reached, the one finding is that, and nothing else is guessed (not "token not valid", not
"missing scopes", not "not team leader"). Otherwise, in order: the token, the account (an
ordinary account: lila refuses DMs to and from a BOT account, and its broadcasts), every scope
the config's features need (:func:`feature_scopes`), the team (a real Lichess needs one: without
it most new conversations are over lila's daily budget), whether the bot leads it with the
"Updates" permission, the registered players not in it, a stopped outbox and who refuses DMs.

Lichess shows a team's leaders only when they have the "Public" permission, and no API reads a
leader's permissions; so the "Updates" permission is read from lila's answer to an empty team
update, which it refuses without sending anything: a redirect to the team page (not a leader
with that permission) or a form error (one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config
from bot.errors import LichessUnreachable
from storage.db import Database

__all__ = [
    "AccountState",
    "DoctorReport",
    "DoctorService",
    "DoctorSource",
    "Finding",
    "diagnose",
    "feature_scopes",
    "team_refusal",
]


def feature_scopes(config: Config) -> dict[str, str]:
    """Every scope the bot's token needs for the config's features, each with what needs it:
    the one place that says so (``acwc run`` checks them at start, ``acwc doctor`` names them)."""
    needed = {"msg:write": "the DMs to players and TDs"}
    if config.tournament.team:
        needed["team:lead"] = "the team updates"
        needed["team:read"] = "the team's member list (registration check)"
    if config.games.challenges:
        needed["challenge:write"] = "the games' open challenges (lila checks it on any token)"
    if config.games.bulk_pairing:
        needed["challenge:bulk"] = "the games the bot starts for players who allowed it"
    if config.games.broadcast_stages:
        needed["study:write"] = "the broadcasts of the games"
    return needed


def team_refusal(config: Config) -> str | None:
    """Why a config that plays on a real Lichess without a team cannot run (``None``: it can)."""
    if config.tournament.team or config.service.uses_local_lichess:
        return None
    return (
        "no team is set (tournament.team): on Lichess the bot must lead the players' team, or "
        "most DMs to new conversations go over Lichess's daily budget and are lost"
    )


@dataclass(frozen=True, slots=True)
class AccountState:
    """What Lichess says of the bot's own account."""

    title: str | None
    disabled: bool
    tos_violation: bool


class DoctorSource(Protocol):
    """Lichess as the doctor asks it; every method raises :class:`LichessUnreachable` when
    Lichess gave no answer."""

    @property
    def url(self) -> str: ...

    async def token(self) -> tuple[str | None, frozenset[str]]:
        """The token's user (``None``: unknown or revoked) and scopes."""
        ...

    async def account(self, username: str) -> AccountState | None:
        """The account (``None``: no such account)."""
        ...

    async def team_leaders(self, team: str) -> set[str] | None:
        """The leaders Lichess shows (``None``: no such team)."""
        ...

    async def updates_permission(self, team: str) -> bool | str:
        """Whether the token's user leads ``team`` with the "Updates" permission, or why it
        could not be told."""
        ...

    async def team_members(self, team: str) -> set[str] | str:
        """The members' ids, or why they could not be read."""
        ...


@dataclass(frozen=True, slots=True)
class Finding:
    topic: str
    ok: bool
    text: str


@dataclass(frozen=True, slots=True)
class DoctorReport:
    findings: tuple[Finding, ...]
    bot: str | None = None
    scopes: frozenset[str] = frozenset()
    missing: tuple[str, ...] = ()
    reachable: bool = True

    @property
    def problems(self) -> list[str]:
        return [f"{f.topic}: {f.text}" for f in self.findings if not f.ok]


class DoctorService:
    """``acwc doctor``'s service: :func:`diagnose` with the config, database and Lichess."""

    def __init__(self, config: Config, db: Database, source: DoctorSource) -> None:
        self.config = config
        self.db = db
        self.source = source

    async def run(self) -> DoctorReport:
        return await diagnose(self.config, self.db, self.source)


async def diagnose(config: Config, db: Database, source: DoctorSource) -> DoctorReport:
    """Ask ``source`` and read the holds of ``db``; every finding, in the module's order."""
    findings: list[Finding] = []
    refusal = team_refusal(config)
    if refusal is not None:
        findings.append(Finding("team", False, refusal))
    try:
        report = await _ask(config, db, source, findings)
    except LichessUnreachable as e:
        unreachable = Finding("lichess", False, f"cannot reach Lichess at {source.url}: {e}")
        return DoctorReport((*findings, unreachable), reachable=False)
    return report


async def _ask(
    config: Config, db: Database, source: DoctorSource, findings: list[Finding]
) -> DoctorReport:
    bot, scopes = await source.token()
    if bot is None:
        findings.append(Finding("token", False, "the token is not valid (unknown or revoked)"))
        return DoctorReport(tuple(findings))
    findings.append(Finding("token", True, f"the token of {bot}"))
    findings.append(await _account(config, source, bot))
    needed = feature_scopes(config)
    missing = tuple(s for s in needed if s not in scopes)
    if missing:
        text = "; ".join(f"{s} ({needed[s]})" for s in missing)
        findings.append(Finding("scopes", False, f"the token lacks {text}"))
    else:
        findings.append(Finding("scopes", True, ", ".join(sorted(scopes)) or "-"))
    team = config.tournament.team
    if team:
        findings.extend(await _team(db, source, bot, team, scopes))
    elif team_refusal(config) is None:
        findings.append(Finding("team", True, "none (a sandbox: DMs are not budgeted by team)"))
    findings.extend(await _holds(db))
    if config.games.bulk_pairing and not config.secrets.token_key:
        if config.service.uses_local_lichess:
            text = "a key of each process's own (a sandbox): stored tokens last until it stops"
            findings.append(Finding("token key", True, text))
        else:
            text = (
                "ACWC_TOKEN_KEY is not set: players cannot let the bot start their games; set "
                "it, or [games] bulk_pairing = false"
            )
            findings.append(Finding("token key", False, text))
    return DoctorReport(tuple(findings), bot=bot, scopes=scopes, missing=missing)


async def _account(config: Config, source: DoctorSource, bot: str) -> Finding:
    state = await source.account(bot)
    if state is None:
        return Finding("account", False, f"Lichess has no account {bot}")
    if state.title == "BOT":
        return Finding(
            "account",
            False,
            f"{bot} is a BOT account: Lichess refuses DMs to and from BOT accounts and "
            "broadcasts by them; the bot needs an ordinary account",
        )
    if state.disabled or state.tos_violation:
        why = "closed" if state.disabled else "marked for breaking the Lichess terms"
        return Finding("account", False, f"{bot} is {why}")
    named = config.service.bot_account
    if named and named.lower() != bot.lower():
        return Finding(
            "account", False, f"the token is {bot}'s, but service.bot_account says {named}"
        )
    return Finding("account", True, f"{bot}, an ordinary account")


async def _team(
    db: Database, source: DoctorSource, bot: str, team: str, scopes: frozenset[str]
) -> list[Finding]:
    leaders = await source.team_leaders(team)
    if leaders is None:
        return [Finding("team", False, f"Lichess has no team {team}")]
    listed = bot.lower() in {u.lower() for u in leaders}
    if "team:lead" in scopes:
        permission = await source.updates_permission(team)
    else:
        permission = "the token lacks team:lead, which reading it needs"
    out = [_leadership(bot, team, listed, permission)]
    members = await source.team_members(team)
    if isinstance(members, str):
        return [*out, Finding("members", False, members)]
    async with db.reads() as uow:
        players = await uow.players.list()
    outside = [p.username for p in players if p.id not in members]
    text = ", ".join(outside) if outside else "every registered player is a member"
    out.append(Finding("members", True, f"not members of {team}: {text}" if outside else text))
    return out


def _leadership(bot: str, team: str, listed: bool, permission: bool | str) -> Finding:
    if permission is True:
        return Finding("leader", True, f"{bot} leads {team} with the Updates permission")
    if permission is False and listed:
        return Finding(
            "leader",
            False,
            f"{bot} leads {team} without the Updates permission: its team updates are refused",
        )
    if permission is False:
        return Finding(
            "leader",
            False,
            f"{bot} does not lead {team} (or leads it hidden, without the Updates permission)",
        )
    if listed:
        return Finding(
            "leader",
            False,
            f"{bot} leads {team}; whether with the Updates permission is not known: {permission}",
        )
    return Finding(
        "leader",
        False,
        f"{bot} is not among the leaders Lichess shows for {team} (a leader without the "
        f"Public permission is hidden), and the Updates permission is not known: {permission}",
    )


async def _holds(db: Database) -> Sequence[Finding]:
    async with db.reads() as uow:
        holds = [(h.name, h.reason) for h in await uow.holds.named("")]
    out = []
    stopped = next((reason for name, reason in holds if name == "outbox"), None)
    if stopped:
        out.append(Finding("outbox", False, f"stopped: {stopped}"))
    else:
        out.append(Finding("outbox", True, "running"))
    refusing = [name.split(":", 1)[1] for name, _ in holds if name.startswith("dm-refused:")]
    out.append(Finding("refusing DMs", True, ", ".join(refusing) or "none"))
    return out
