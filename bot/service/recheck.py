"""Rules 7.3: every active player's Lichess account looked at once a day during the event.

A player marked on Lichess during the championship (``tosViolation``: an engine or booster
mark; Lichess does not say which) or whose account is closed is flagged for the TDs: an alert
naming the mark, and an audit entry (``account.marked``) that the desk lists with a one-click
disqualification through the one exit path (rules 8). The bot never disqualifies by itself: the
TDs decide (rules 1.3), and they say whether the mark is an engine mark (rules 8.1.2).

A game Lichess ends as "cheat detected" during the championship is counted with its date as at
registration (rules 2.2.3: one since the first cut-off or two since the second): the dates the
registration read (its audit entry), and every such game the looks have seen since, which the
job's row carries from one look to the next (``payload["cheat_games"]``). Each look reads only
the games finished since the previous one (``payload["since"]``, less :data:`OVERLAP` for a game
that was still being played then); a new one that makes the grounds is flagged as a mark
(``cheat_detected``) with its games.

The job is a deadline row (:data:`RECHECK_DEADLINE`), planned when a round is published and
planned again a day later each time it runs while the championship lasts. It asks Lichess for
up to 300 accounts in one request (``POST /api/users``) and, for each player who finished a game
since the last look (lila's ``playTime`` or rated game count moved: :class:`AccountLook`; every
player each 7th look), for their games since then, inside its firing's transaction (on SQLite
the other writers wait for it: short requests, once a day).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.runtime.deadlines import Firing, Handler
from rules.core.states import PlayerStatus, StageState
from rules.stages.seeding import AccountFacts, cheat_grounds
from rules.talk.conduct import account_mark_evidence, account_marked
from rules.talk.notices import TDAlert
from storage.models import AuditRow, DeadlineRow
from storage.uow import UnitOfWork

__all__ = [
    "MARK_ACTION",
    "RECHECK_DEADLINE",
    "AccountMarks",
    "AccountRecheck",
    "schedule_account_recheck",
]

log = logging.getLogger(__name__)

RECHECK_DEADLINE = "account_recheck"
MARK_ACTION = "account.marked"
RECHECK_EVERY = dt.timedelta(days=1)
FULL_LOOK_EVERY = 7
"""Every 7th look reads every player's games, played or not: a casual game without a clock
moves neither count of :class:`AccountLook` (a correspondence game Lichess ended as "cheat
detected" would otherwise wait unseen)."""
OVERLAP = dt.timedelta(hours=1)
"""How far before the previous look the next one reads games again: the export has finished
games only, so one still being played at the previous look is read at the next."""
CHEAT_MARK = "cheat_detected"
REGISTRATION_READS = ("registration.check", "registration.self")
"""The audit entries that keep the "cheat detected" dates read at registration."""

CheatGames = dict[str, dt.datetime]
""""Cheat detected" games against a player: each game's id and when it was created."""


@dataclass(frozen=True, slots=True)
class AccountLook:
    """One account as the daily look reads it: its facts, and what says whether it finished
    a game since (``None``: Lichess did not say)."""

    facts: AccountFacts
    activity: tuple[int | None, int | None] | None = None
    """(seconds played in games with a clock, rated games of the variant): lila moves the
    first when any game with a clock ends (a "cheat detected" one too), the second when a
    rated game of the variant ends."""


class AccountMarks(Protocol):
    async def marks(self, usernames: Sequence[str]) -> dict[str, AccountLook | str] | str:
        """Each account's facts by username (``POST /api/users``, 300 a request), or a sentence
        saying why one (or all) could not be read."""
        ...

    async def cheat_games(self, username: str, *, since: dt.datetime) -> CheatGames | str:
        """The player's games finished since ``since`` that Lichess ended as "cheat detected"
        against them, or a sentence saying why they could not be read."""
        ...


def _marks_of(facts: AccountFacts) -> list[str]:
    return [
        m
        for m, on in (("tos_violation", facts.tos_violation), ("account_closed", facts.disabled))
        if on
    ]


async def schedule_account_recheck(
    uow: UnitOfWork, *, now: dt.datetime, carried: Mapping[str, object] | None = None
) -> None:
    """Make sure the daily look at the accounts has its next run (one open row at a time);
    ``carried``: what the look that plans it hands to the next (when it looked, the "cheat
    detected" games seen)."""
    if await uow.deadlines.open_of_kind(RECHECK_DEADLINE) is None:
        await uow.deadlines.add(
            DeadlineRow(
                kind=RECHECK_DEADLINE,
                due_at=now + RECHECK_EVERY,
                subject="",
                payload=dict(carried or {}),
                created_at=now,
            )
        )


def _seen_cheats(payload: Mapping[str, object]) -> dict[str, CheatGames]:
    """The "cheat detected" games the earlier looks saw, by player, from the row's payload."""
    stored = payload.get("cheat_games")
    if not isinstance(stored, dict):
        return {}
    return {
        str(player): {str(g): dt.datetime.fromisoformat(str(at)) for g, at in games.items()}
        for player, games in stored.items()
        if isinstance(games, dict)
    }


def _registration_cheats(entries: Sequence[AuditRow]) -> dict[str, list[dt.datetime]]:
    """The "cheat detected" dates each player's latest registration read kept (rules 2.2.3)."""
    out: dict[str, list[dt.datetime]] = {}
    for entry in entries:  # oldest first: the latest read wins
        if entry.action in REGISTRATION_READS and entry.player is not None:
            dates = entry.details.get("cheat_detected")
            if isinstance(dates, list):
                out[entry.player] = [dt.datetime.fromisoformat(str(d)) for d in dates]
    return out


async def _event_lasts(uow: UnitOfWork) -> bool:
    """The championship has begun and has not ended: a stage in play, or one done and another
    still to come."""
    tournament = await uow.tournaments.current()
    if tournament is None:
        return False
    states = {s.state for s in await uow.tournaments.stages(tournament.id)}
    return StageState.ACTIVE in states or {StageState.COMPLETE, StageState.PENDING} <= states


class AccountRecheck:
    """The daily job's handler (rules 7.3)."""

    def __init__(self, config: Config, notifier: Notifier, accounts: AccountMarks | None) -> None:
        self.config = config
        self.notifier = notifier
        self.accounts = accounts

    def handlers(self) -> dict[str, Handler]:
        return {RECHECK_DEADLINE: self.on_recheck}

    async def on_recheck(self, uow: UnitOfWork, firing: Firing) -> None:
        now = firing.now
        if not await _event_lasts(uow):
            return  # not begun (the first publication plans it again) or over
        if self.accounts is None:  # no Lichess here: the next run may have it
            await schedule_account_recheck(uow, now=now, carried=firing.deadline.payload)
            return
        payload = firing.deadline.payload
        previous = payload.get("since")
        looked = None if previous is None else dt.datetime.fromisoformat(str(previous))
        players = list(await uow.players.list(status=PlayerStatus.ACTIVE))
        entries = await uow.audit.list(actions=(MARK_ACTION, *REGISTRATION_READS))
        flagged: dict[str, list[str]] = {}
        for entry in entries:
            if entry.action == MARK_ACTION and entry.player is not None:
                flagged[entry.player] = list(entry.details.get("marks", []))
        registered = _registration_cheats(entries)
        seen = _seen_cheats(payload)
        before = payload.get("activity")
        activity: dict[str, list[int | None]] = {}
        full = int(str(payload.get("looks", 0))) % FULL_LOOK_EVERY == 0
        # Lichess is asked inside the firing's transaction, one short request for up to 300
        # accounts and a short export a player, once a day: a commit here would leave a claim
        # without its end if the process died.
        accounts = await self.accounts.marks([p.username for p in players]) if players else {}
        for player in players:
            look = accounts if isinstance(accounts, str) else accounts[player.username]
            if isinstance(look, str):
                log.warning("account re-check of %s: %s", player.username, look)
                continue
            marks = _marks_of(look.facts)
            found: CheatGames | str = {}
            if look.activity is not None:
                activity[player.id] = list(look.activity)
            idle = (
                not full
                and look.activity is not None
                and None not in look.activity
                and isinstance(before, dict)
                and before.get(player.id) == list(look.activity)
            )
            if not idle and not look.facts.disabled:  # a game may have ended: read the games
                since = max(player.registered_at, looked or player.registered_at) - OVERLAP
                found = await self.accounts.cheat_games(player.username, since=since)
            if isinstance(found, str):
                log.warning("account re-check of %s: %s", player.username, found)
                found = {}
            known = seen.setdefault(player.id, {})
            new = {g: at for g, at in found.items() if g not in known}
            known.update(new)
            dates = [*registered.get(player.id, []), *known.values()]
            grounds = bool(new) and cheat_grounds(dates, eligibility=self.config.rules.eligibility)
            last = [m for m in flagged.get(player.id, []) if m != CHEAT_MARK]
            if grounds or (marks and marks != last):
                await self._flag(
                    uow, player.id, player.username, marks, known if grounds else {}, now=now
                )
        carried = {
            "since": now.isoformat(),
            "activity": activity,
            "looks": int(str(payload.get("looks", 0))) + 1,
            "cheat_games": {
                p: {g: at.isoformat() for g, at in games.items()}
                for p, games in seen.items()
                if games
            },
        }
        await schedule_account_recheck(uow, now=now, carried=carried)

    async def _flag(
        self,
        uow: UnitOfWork,
        player: str,
        username: str,
        marks: list[str],
        cheats: CheatGames,
        *,
        now: dt.datetime,
    ) -> None:
        if cheats:
            marks = [*marks, CHEAT_MARK]
        games = {g: at.isoformat() for g, at in sorted(cheats.items(), key=lambda c: c[1])}
        await uow.audit.record(
            at=now,
            actor="bot",
            action=MARK_ACTION,
            player=player,
            details={"marks": marks, "cheat_games": games},
        )
        evidence = account_mark_evidence(username, games)
        alert = TDAlert(None, account_marked(username, marks), evidence, None)
        what = ",".join([*marks, *games])  # a new "cheat detected" game is news of its own
        await self.notifier.td_alert(
            uow, now=now, text=alert.text, key=notice.account_marked(player, what)
        )
