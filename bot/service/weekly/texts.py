"""The one door for a player's text, whatever the channel (web match room, a TD relaying a
message, the command line).

:meth:`PlayerTexts.handle` answers with a :class:`Reply`; the caller commits the unit of work
only when ``reply.changed`` is true (a refusal writes nothing), then wakes the service so the
outbox and the deadline runner look again. Two texts for one match committed at the same instant
collide on the log's unique (match, seq): the later commit raises ``IntegrityError`` and may
simply be retried.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Protocol

from bot.config import Config
from bot.errors import OperationError
from bot.notify import NoticeKind, Notifier
from bot.notify import keys as notice
from bot.notify.languages import readers, words_of
from bot.service.weekly.announce import Announcements
from bot.service.weekly.conduct import Conduct
from bot.service.weekly.log import Loaded, append, is_decided, load
from bot.service.weekly.planning import replan_deadlines
from rules.core.errors import RulesError
from rules.core.model import MatchId, PlayerId, normalise_username
from rules.talk import room as talk
from rules.talk.cheat_reports import cheat_report_receipt, make_cheat_report, td_cheat_report_alert
from rules.talk.commands import (
    Accept,
    AcceptChange,
    Bid,
    Break,
    ChooseTime,
    ClaimWin,
    Command,
    CommandError,
    DeclineChange,
    Help,
    Offer,
    ProposeChange,
    Report,
    Rps,
    Status,
    WithdrawOffer,
    format_command,
    parse,
)
from rules.talk.help import help_text
from rules.talk.notices import (
    change_asked,
    change_proposed,
    change_refused,
    offer_received,
    offer_withdrawn,
    offers_sent,
)
from rules.talk.status import status_text
from rules.week.negotiation import OfferMade, TimeAgreed
from storage.match_log import apply_step
from storage.models import MatchRow
from storage.models_weekly import CheatReportRow
from storage.uow import UnitOfWork

__all__ = ["ArmageddonDoor", "PlayerTexts", "Reply"]


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one text.

    ``ok`` is False for a refusal (nothing was written). ``changed`` is True when the text
    changed stored state: only then must the caller commit the unit of work (and wake the
    service). ``command`` is the canonical form of what was understood; ``reason`` names the
    refusal (a ``RulesError`` reason value, or ``not_your_match``, ``no_such_match``,
    ``not_published``, ``match_over``, ``bye``).
    """

    text: str
    ok: bool = True
    changed: bool = False
    command: str | None = None
    reason: str | None = None


class ArmageddonDoor(Protocol):
    """Bids and rock-paper-scissors of a tied knockout match (rules 3.ix): the reply text;
    raises ``RulesError`` for what the rules refuse."""

    async def act(
        self,
        uow: UnitOfWork,
        *,
        match_id: int,
        player: str,
        command: Bid | Rps,
        now: dt.datetime,
    ) -> str: ...


def _refuse(text: str, reason: str, command: str | None = None) -> Reply:
    return Reply(text=text, ok=False, changed=False, command=command, reason=reason)


_SCHEDULING = (Offer, Accept, WithdrawOffer, ProposeChange, AcceptChange, DeclineChange, ChooseTime)


def _step_for(command: Command) -> tuple[str, dict[str, Any]]:
    match command:
        case Offer(times):
            return "offer", {"times": [t.isoformat() for t in times]}
        case Accept(index, time):
            return "accept", {"number": index} if time is None else {"time": time.isoformat()}
        case WithdrawOffer(index):
            return "withdraw", {"number": index}
        case ProposeChange(time):
            return "change", {"time": time.isoformat()}
        case AcceptChange():
            return "accept_change", {}
        case DeclineChange():
            return "decline_change", {}
        case ChooseTime(time):
            return "choose", {"time": time.isoformat()}
    raise TypeError(f"not a scheduling command: {command!r}")


async def _audit_action(
    uow: UnitOfWork,
    row: MatchRow,
    player: PlayerId,
    action: str,
    *,
    now: dt.datetime,
    via: str,
    relayed_by: str | None,
    details: dict[str, Any],
) -> None:
    await uow.audit.record(
        at=now,
        actor=relayed_by or player,
        action=action,
        player=player,
        match_id=row.id,
        details={"via": via, **({"relayed_by": relayed_by} if relayed_by else {}), **details},
    )


class PlayerTexts:
    def __init__(
        self,
        config: Config,
        notifier: Notifier,
        *,
        announcements: Announcements,
        conduct: Conduct,
        armageddon: ArmageddonDoor,
    ) -> None:
        self.config = config
        self.notifier = notifier
        self.announcements = announcements
        self.conduct = conduct
        self.armageddon = armageddon

    async def handle(
        self,
        uow: UnitOfWork,
        *,
        match_id: int,
        player: str,
        text: str,
        now: dt.datetime,
        via: str = "web",
        relayed_by: str | None = None,
    ) -> Reply:
        """Read and carry out one player's text for their match, whatever the channel.

        ``player`` is the Lichess username of the player the text comes from (logged in on the
        web, or named by the TD who relays it: ``via="td-relay", relayed_by=<td>``). The text is
        parsed by :func:`rules.talk.commands.parse` and checked by the rules; a refusal (any
        ``RulesError``, a player acting on a match that is not theirs, an unknown or unpublished
        match) comes back as a :class:`Reply` with ``ok=False`` and writes nothing. An accepted
        action appends its event to the match's log, queues the DMs (the acting player gets the
        confirmation that is also the reply text, whatever the channel; the opponent is told
        what they need to know), re-plans the match's deadlines and writes an audit entry: the
        caller then commits (``reply.changed``).
        """
        player_id = normalise_username(player)
        found = await self._load(uow, match_id, player, player_id)
        if isinstance(found, Reply):
            return found
        try:
            command = parse(text, now=now, week=found.negotiation.week)
        except CommandError as e:
            return _refuse(e.said(await words_of(uow, player_id)), e.reason.value)
        canonical = format_command(command) if not isinstance(command, Report) else "report"
        try:
            return await self._carry_out(
                uow, found, player_id, command, canonical, now=now, via=via, relayed_by=relayed_by
            )
        except RulesError as e:
            said = e.said(await words_of(uow, player_id))
            return _refuse(said, e.reason.value, canonical)

    async def _load(
        self, uow: UnitOfWork, match_id: int, player: str, player_id: str
    ) -> Loaded | Reply:
        """The match ``player`` acts in, or the refusal when it is none of theirs to act in."""
        row = await uow.matches.get(match_id)
        words = await words_of(uow, player_id)
        if row is None:
            return _refuse(talk.no_such_match(match_id, words), "no_such_match")
        if row.black_first is None:
            return _refuse(talk.bye_match(match_id, words), "bye")
        if player_id not in (row.white_first, row.black_first):
            return _refuse(
                talk.not_your_match(player, match_id, (row.white_first, row.black_first), words),
                "not_your_match",
            )
        try:
            return await load(uow, self.config.rules, match_id)
        except OperationError:
            return _refuse(talk.match_not_published(match_id, words), "not_published")

    async def _carry_out(
        self,
        uow: UnitOfWork,
        loaded: Loaded,
        player: PlayerId,
        command: Command,
        canonical: str,
        *,
        now: dt.datetime,
        via: str,
        relayed_by: str | None,
    ) -> Reply:
        """One parsed command of ``player``; raises ``RulesError`` for what the rules refuse."""
        rules, row = self.config.rules, loaded.row
        if isinstance(command, Help):
            words = await words_of(uow, player)
            return Reply(help_text(command.topic, ruleset=rules, words=words), command=canonical)
        if isinstance(command, Status):
            words = await words_of(uow, player)
            body = status_text(
                loaded.negotiation, player=player, now=now, ruleset=rules, words=words
            )
            if is_decided(row):
                body += "\n" + talk.result_recorded(row.outcome, row.decided_by, words)
            return Reply(body, command=canonical)
        if isinstance(command, _SCHEDULING):
            if is_decided(row):
                words = await words_of(uow, player)
                said = talk.match_over(row.id, row.outcome, words)
                return _refuse(said, "match_over", canonical)
            return await self._scheduling(
                uow, loaded, player, command, now=now, via=via, relayed_by=relayed_by
            )
        if isinstance(command, Break | ClaimWin):
            return await self._conduct(
                uow, loaded, player, command, now=now, via=via, relayed_by=relayed_by
            )
        if isinstance(command, Report):
            return await self._report(uow, loaded, player, command, now=now, via=via)
        if isinstance(command, Bid | Rps):
            reply = await self.armageddon.act(
                uow, match_id=row.id, player=player, command=command, now=now
            )
            return Reply(reply, changed=True, command=canonical)
        raise TypeError(f"unhandled command {command!r}")  # pragma: no cover

    async def _conduct(
        self,
        uow: UnitOfWork,
        loaded: Loaded,
        player: PlayerId,
        command: Break | ClaimWin,
        *,
        now: dt.datetime,
        via: str,
        relayed_by: str | None,
    ) -> Reply:
        """A break called (rules 6.1) or the match's win claimed (rules 6.1, 6.3, 6.4)."""
        if isinstance(command, Break):
            verb, action = "break", "match.break"
            mine = await self.conduct.call_break(uow, loaded, player, now=now, via=via)
            details: dict[str, Any] | None = {}
        else:
            verb, action = "claim win", "match.claim"
            mine, details = await self.conduct.claim_win(uow, loaded, player, now=now, via=via)
        if details is None:  # a claim made before: nothing written
            return Reply(mine, command=verb)
        await _audit_action(
            uow,
            loaded.row,
            player,
            action,
            now=now,
            via=via,
            relayed_by=relayed_by,
            details=details,
        )
        return Reply(mine, changed=True, command=verb)

    async def _scheduling(
        self,
        uow: UnitOfWork,
        loaded: Loaded,
        player: PlayerId,
        command: Command,
        *,
        now: dt.datetime,
        via: str,
        relayed_by: str | None,
    ) -> Reply:
        config = self.config
        before = loaded.negotiation
        kind, data = _step_for(command)
        step = apply_step(before, kind, player, now, data, config.rules)  # raises: nothing written
        after = step.negotiation
        row = loaded.row
        event = await append(uow, row, at=now, actor=player, kind=kind, data=data, via=via)
        opponent = before.opponent_of(player)
        tongues = await readers(uow, (player, opponent))
        mine, theirs = tongues.of(player), tongues.of(opponent)
        texts: dict[PlayerId, str] = {}
        agreed = any(isinstance(e, TimeAgreed) for e in step.events)
        if agreed:
            texts = await self.announcements.agreement(uow, loaded, after, now=now)
        elif kind == "offer":
            made = [e for e in step.events if isinstance(e, OfferMade)]
            new = [o for o in after.offers if o.number in {e.number for e in made}]
            texts[player] = offers_sent(
                after,
                new,
                player=player,
                counted=all(e.counts for e in made),
                now=now,
                ruleset=config.rules,
                words=mine,
            )
            note = offer_received(
                after, new, recipient=opponent, now=now, ruleset=config.rules, words=theirs
            )
            texts[opponent] = note.text
        elif kind == "withdraw":
            offer = after.offer(int(data["number"]))
            texts[player], texts[opponent] = offer_withdrawn(
                player, offer.number, offer.time, words=mine, opponent_words=theirs
            )
        elif kind == "change":
            assert after.change is not None
            texts[player] = change_asked(opponent, after.change.time, now=now, words=mine)
            texts[opponent] = change_proposed(after, now=now, words=theirs).text
        elif kind == "decline_change":
            assert before.change is not None
            assert after.agreement is not None
            texts[player], texts[opponent] = change_refused(
                player,
                withdrawn=before.change.by == player,
                kept=after.agreement.time,
                words=mine,
                opponent_words=theirs,
            )
        if not agreed:
            key = notice.step(NoticeKind.NEGOTIATION_STEP, row.id, event.seq)
            for to, body in texts.items():
                if to in (player, opponent):
                    await self.notifier.dm(uow, now=now, to=to, text=body, key=key)
        await _audit_action(
            uow,
            row,
            player,
            f"match.{kind}",
            now=now,
            via=via,
            relayed_by=relayed_by,
            details={"seq": event.seq, "command": format_command(command), **data},
        )
        await replan_deadlines(uow, config.rules, row, after, now=now)
        done = texts.get(player, mine.gettext("Done."))
        return Reply(done, changed=True, command=format_command(command))

    async def _report(
        self,
        uow: UnitOfWork,
        loaded: Loaded,
        player: PlayerId,
        command: Report,
        *,
        now: dt.datetime,
        via: str,
    ) -> Reply:
        """Rules 7.1: to the TDs only; the log and the audit keep the reference, not the text."""
        match_id = loaded.row.id
        report = make_cheat_report(command, reporter=player, now=now, match_id=MatchId(match_id))
        stored = await uow.weekly.add_report(
            CheatReportRow(
                reference=report.reference,
                reporter=player,
                match_id=match_id,
                text=report.text,
                made_at=now,
                via=via,
            )
        )
        receipt = cheat_report_receipt(report)
        await self.notifier.dm(
            uow,
            now=now,
            to=player,
            text=receipt.text,
            key=notice.report_receipt(stored.id, match_id),
        )
        await self.notifier.td_alert(
            uow,
            now=now,
            text=td_cheat_report_alert(report).text,
            key=notice.cheat_report(stored.id, match_id, player),
        )
        await uow.audit.record(
            at=now,
            actor=player,
            action="report.private",
            player=player,
            details={"reference": report.reference, "via": via},
        )
        return Reply(receipt.text, changed=True, command="report")
