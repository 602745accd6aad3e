"""The armageddon procedure of a tied knockout match (rules 3.ix): sealed bids for White's time,
rock-paper-scissors after equal bids, a TD's decision when nobody chose.

A knockout match in state ``armageddon`` gets one procedure, stored as its inputs and replayed
through the pure state machine (:mod:`storage.armageddon_log`). Bids and choices come through the
one door for a player's text (:class:`bot.service.weekly.texts.PlayerTexts`); the bid and
rock-paper-scissors deadlines reveal what is in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from bot.config import Config
from bot.notify import Notifier
from bot.notify import keys as notice
from bot.notify.languages import words_of
from bot.runtime.deadlines import Firing, Handler
from bot.service.challenges import GameChallenges
from bot.views.bracket import KNOCKOUT_VALUES, procedure
from rules.core.errors import RulesError, refusal
from rules.core.model import PlayerId, normalise_username
from rules.stages.armageddon import (
    ArmageddonError,
    ArmageddonErrorReason,
    ArmageddonEvent,
    ArmageddonProcedure,
    EventKind,
    Phase,
    format_clock,
)
from rules.talk import armageddon as talk
from rules.talk.alerts import armageddon_undecided
from rules.talk.commands import Bid, Rps
from storage.models import DeadlineRow, MatchRow
from storage.models_stages import ArmageddonRow
from storage.uow import UnitOfWork

__all__ = [
    "ARMAGEDDON_BIDS",
    "ARMAGEDDON_RPS",
    "SALT_SECRET_KEY",
    "Armageddons",
    "armageddon_salt",
    "set_salt_secret",
]

ARMAGEDDON_BIDS = "armageddon_bids"
ARMAGEDDON_RPS = "armageddon_rps"
SALT_SECRET_KEY = "armageddon.salt_secret"
"""The settings row holding the tournament's secret that the sealed values' salts derive from."""


def armageddon_salt(secret: str, *, match_id: int, step: int, player: str) -> str:
    """The salt of a sealed bid or choice: HMAC-SHA256 of the tournament's secret and the step.

    Derived, not drawn, so a replay of the same inputs (a restarted service, the crash test's
    uninterrupted twin run) stores the same steps and audit entries. The secret is created once
    (random, stored in the settings table with the first accepted sealed value); a demo or a test
    may store a seed-derived one first with :func:`set_salt_secret`. Until the reveal nobody
    outside the database can compute a salt, so the published commitments still hide the values
    (rules 3.ix).
    """
    message = f"{match_id}:{step}:{normalise_username(player) if player else ''}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


async def set_salt_secret(uow: UnitOfWork, secret: str) -> None:
    """Store the secret salts derive from (before any armageddon; the caller commits)."""
    await uow.settings.set(SALT_SECRET_KEY, secret)


def _event_details(event: ArmageddonEvent) -> dict[str, Any]:
    return {
        "event": event.kind.value,
        "text": event.text,
        "commitment": event.commitment,
        "seconds": event.seconds,
        "choice": None if event.choice is None else event.choice.value,
        "salt": event.salt,
        "round": event.round,
        "deadline": None if event.deadline is None else event.deadline.isoformat(),
    }


def _no_armageddon(match_id: int) -> RulesError:
    return refusal(
        ArmageddonError, ArmageddonErrorReason.WRONG_PHASE, talk.NO_ARMAGEDDON, match=match_id
    )


class Armageddons:
    def __init__(
        self, config: Config, notifier: Notifier, *, challenges: GameChallenges | None = None
    ) -> None:
        self.config = config
        self.notifier = notifier
        self.challenges = challenges

    def handlers(self) -> Mapping[str, Handler]:
        """The deadline handlers of the bid and rock-paper-scissors deadlines."""
        return {ARMAGEDDON_BIDS: self.on_deadline, ARMAGEDDON_RPS: self.on_deadline}

    async def _apply_events(
        self,
        uow: UnitOfWork,
        arm: ArmageddonRow,
        before: ArmageddonProcedure | None,
        proc: ArmageddonProcedure,
        events: Sequence[ArmageddonEvent],
        match: MatchRow,
        *,
        now: dt.datetime,
        actor: str,
    ) -> None:
        """Audit every event and carry out what the new phase asks for (deadlines, DMs,
        alerts)."""
        for event in events:
            await uow.audit.record(
                at=now,
                actor=actor,
                action=f"armageddon.{event.kind.value}",
                player=event.player,
                match_id=arm.match_id,
                details=_event_details(event),
            )
        arm.phase = proc.phase.value
        players = proc.players
        old_phase = None if before is None else before.phase
        old_round = 0 if before is None else before.rps_round
        mine = (ARMAGEDDON_BIDS, ARMAGEDDON_RPS)
        if proc.phase is Phase.BIDDING and before is None:
            await uow.deadlines.add(
                DeadlineRow(
                    kind=ARMAGEDDON_BIDS,
                    due_at=proc.bid_deadline + dt.timedelta(seconds=1),
                    match_id=arm.match_id,
                    subject=f"armageddon:{arm.id}:bids",
                    payload={"armageddon_id": arm.id},
                    created_at=now,
                )
            )
            key = notice.armageddon_bidding(arm.id, match.id)
            for player in players:
                text = talk.bidding_opened(match.id, proc, await words_of(uow, player))
                await self.notifier.dm_player(uow, now=now, player=player, text=text, key=key)
        if proc.phase is Phase.RPS and (old_phase is not Phase.RPS or proc.rps_round != old_round):
            await uow.deadlines.cancel_open(arm.match_id, now=now, kinds=mine)
            assert proc.rps_deadline is not None
            await uow.deadlines.add(
                DeadlineRow(
                    kind=ARMAGEDDON_RPS,
                    due_at=proc.rps_deadline + dt.timedelta(seconds=1),
                    match_id=arm.match_id,
                    subject=f"armageddon:{arm.id}:rps:{proc.rps_round}",
                    payload={"armageddon_id": arm.id, "round": proc.rps_round},
                    created_at=now,
                )
            )
            drawn = any(e.kind is EventKind.RPS_DRAWN for e in events)
            await self._tell_rps_round(uow, arm, proc, match, drawn=drawn, now=now)
        if proc.phase is Phase.DECIDED and old_phase is not Phase.DECIDED:
            await uow.deadlines.cancel_open(arm.match_id, now=now, kinds=mine)
            arm.white, arm.white_seconds = proc.white, proc.white_seconds
            key = notice.armageddon_colours(arm.id, match.id)
            for player in players:
                words = await words_of(uow, player)
                text = talk.clock_statement(proc, self.config.rules, words)
                await self.notifier.dm_player(uow, now=now, player=player, text=text, key=key)
            if self.challenges is not None and proc.white is not None:  # the game's link follows
                await self.challenges.schedule_armageddon(uow, match, white=proc.white, now=now)
        if proc.phase is Phase.NEEDS_TD and old_phase is not Phase.NEEDS_TD:
            await uow.deadlines.cancel_open(arm.match_id, now=now, kinds=mine)
            await self.notifier.td_alert(
                uow,
                now=now,
                text=armageddon_undecided(match.id, (players[0], players[1])),
                key=notice.armageddon_needs_td(arm.id, match.id),
            )
        await uow.flush()

    async def _tell_rps_round(
        self,
        uow: UnitOfWork,
        arm: ArmageddonRow,
        proc: ArmageddonProcedure,
        match: MatchRow,
        *,
        drawn: bool,
        now: dt.datetime,
    ) -> None:
        """Both players: a round of rock-paper-scissors is open, each in their words."""
        key = notice.armageddon_rps(arm.id, match.id, proc.rps_round)
        for player in proc.players:
            words = await words_of(uow, player)
            text = talk.rps_round(match.id, proc, drawn=drawn, words=words)
            await self.notifier.dm_player(uow, now=now, player=player, text=text, key=key)

    async def ensure(
        self, uow: UnitOfWork, row: MatchRow, *, now: dt.datetime
    ) -> ArmageddonRow | None:
        """Start the armageddon procedure of a tied knockout match (rules 3.vii.2, 3.viii.5),
        once."""
        if row.stage not in KNOCKOUT_VALUES or row.black_first is None:
            return None
        repo = uow.later_stages
        existing = await repo.armageddon_for_match(row.id)
        if existing is not None:
            return existing
        players = (PlayerId(row.white_first), PlayerId(row.black_first))
        proc, events = ArmageddonProcedure.start(players, now=now, ruleset=self.config.rules)
        arm = await repo.add_armageddon(
            ArmageddonRow(match_id=row.id, phase=proc.phase.value, started_at=now, findings=[])
        )
        await repo.add_step(arm.id, kind="start", at=now)
        await self._apply_events(uow, arm, None, proc, events, row, now=now, actor="bot")
        return arm

    async def _act(
        self,
        uow: UnitOfWork,
        arm: ArmageddonRow,
        *,
        kind: str,
        now: dt.datetime,
        actor: str,
        player: str | None = None,
        value: str | None = None,
    ) -> ArmageddonProcedure:
        """Apply one input to the procedure, store it, and carry out its effects."""
        before, match = await procedure(uow, arm, self.config.rules)
        salt = None
        stored_secret = await uow.settings.get(SALT_SECRET_KEY)
        secret = stored_secret or secrets.token_hex(32)
        if kind in ("bid", "rps"):
            steps = len(await uow.later_stages.steps(arm.id))
            salt = armageddon_salt(secret, match_id=arm.match_id, step=steps, player=player or "")
        who = PlayerId(player or "")
        if kind == "bid":
            proc, events = before.submit_bid(who, value or "", salt=salt or "", now=now)
        elif kind == "rps":
            proc, events = before.submit_rps(who, value or "", salt=salt or "", now=now)
        elif kind == "reveal":
            proc, events = before.reveal(now=now)
        else:
            proc, events = before.td_decide(who, now=now)
        if salt is not None and stored_secret is None:
            await set_salt_secret(uow, secret)  # only once an input was accepted
        await uow.later_stages.add_step(
            arm.id, kind=kind, at=now, player=player, value=value, salt=salt
        )
        await self._apply_events(uow, arm, before, proc, events, match, now=now, actor=actor)
        return proc

    async def act(
        self,
        uow: UnitOfWork,
        *,
        match_id: int,
        player: str,
        command: Bid | Rps,
        now: dt.datetime,
    ) -> str:
        """A player's sealed bid or rock-paper-scissors choice (rules 3.ix.1.2-3); the reply.

        Raises :class:`rules.stages.armageddon.ArmageddonError` (a ``RulesError``) for anything
        the rules refuse: no armageddon for this match, not a player of it, a second offer, a
        late offer, ...
        """
        arm = await uow.later_stages.armageddon_for_match(match_id)
        if arm is None:
            raise _no_armageddon(match_id)
        who = normalise_username(player)
        if isinstance(command, Bid):
            proc = await self._act(
                uow,
                arm,
                kind="bid",
                now=now,
                actor=who,
                player=who,
                value=format_clock(command.seconds),
            )
            if proc.phase is Phase.BIDDING:
                return talk.bid_sealed(
                    command.seconds, deadline=proc.bid_deadline, words=await words_of(uow, who)
                )
        else:
            proc = await self._act(
                uow, arm, kind="rps", now=now, actor=who, player=who, value=command.hand.value
            )
            if proc.phase is Phase.RPS and proc.view(who).own_choice is not None:
                return talk.rps_sealed(proc.rps_round, await words_of(uow, who))
        return talk.phase_reply(proc, who, await words_of(uow, who))

    async def td_decide(
        self, uow: UnitOfWork, *, match_id: int, white: str, now: dt.datetime, actor: str
    ) -> str:
        """The TDs name White when neither player took part in rock-paper-scissors; what they
        are told back (not a player's "You play White")."""
        arm = await uow.later_stages.armageddon_for_match(match_id)
        if arm is None:
            raise _no_armageddon(match_id)
        chosen = normalise_username(white)
        proc = await self._act(uow, arm, kind="td", now=now, actor=actor, player=chosen)
        return talk.white_named(match_id, proc)

    async def on_deadline(self, uow: UnitOfWork, firing: Firing) -> None:
        """A bid or rock-paper-scissors deadline passed: reveal what is in (rules 3.ix.1.2-3)."""
        arm_id = firing.deadline.payload.get("armageddon_id")
        repo = uow.later_stages
        arm = None if arm_id is None else await repo.armageddon(int(arm_id))
        if arm is None:
            return
        proc, _ = await procedure(uow, arm, self.config.rules)
        if firing.deadline.kind == ARMAGEDDON_BIDS and proc.phase is not Phase.BIDDING:
            return
        if firing.deadline.kind == ARMAGEDDON_RPS and (
            proc.phase is not Phase.RPS or proc.rps_round != firing.deadline.payload.get("round")
        ):
            return
        await self._act(uow, arm, kind="reveal", now=firing.now, actor="bot")
