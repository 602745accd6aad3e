"""The weekly flow of a round (DESIGN.md "The flow of one week"): publication, negotiation,
deadlines, no-shows and forfeits (rules 4, 5, 6, 7.1).

Doors:

* :func:`publish_round` puts approved pairings into play (every stage uses it): each match's
  negotiation starts, its deadlines are planned, and the pairing notices are queued.
* :func:`handle_text` is the one door for a player's text, whatever the channel (web match room,
  a TD relaying a message, ...). It answers with a :class:`Reply`; the caller commits the unit of
  work only when ``reply.changed`` is true (a refusal writes nothing), then calls
  ``service.changed()`` so the outbox and the deadline runner look again. Two texts for one match
  committed at the same instant collide on the log's unique (match, seq): the later commit raises
  ``IntegrityError`` and may simply be retried.
* :func:`match_view` is what the match room shows a viewer.
* The deadline handlers and the ``match_changed`` hook are wired by :func:`register`; TD decisions
  (:func:`decide_fault`, :func:`decide_claim`, :func:`confirm_disqualification`) serve the CLI and
  the TD desk.

State: the match's event log (``match_events``) is the history; the :class:`Negotiation` value is
rebuilt from it by replaying every accepted step through the pure functions of
:mod:`rules.week.negotiation` (:func:`replay`). A live action goes through the very same function
(:func:`_apply_step`) before its event is written, so what was accepted replays identically.
"""

from __future__ import annotations

import datetime as dt
import importlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.config import Config
from bot.intake import td_alert
from bot.td import OperationError, match_state
from rules.core.errors import RulesError
from rules.core.model import GameId, MatchId, PlayerId, normalise_username
from rules.core.ruleset import Ruleset
from rules.core.scoring import Outcome
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
    help_text,
    parse,
)
from rules.talk.notices import (
    TDAlert,
    deadline_missed,
    describe_time,
    fit,
    match_result,
    no_show_notice,
    offer_received,
    pairing_published,
    reply_reminder,
    status_text,
    td_claim_alert,
    td_no_show_alert,
    td_offers_verdict_alert,
    td_pause_alert,
    td_weekend_alert,
    time_agreed,
)
from rules.week.calendar import MatchWeek, label_duration, label_time, match_week
from rules.week.conduct import (
    BreakCall,
    ClaimReason,
    ClaimRight,
    ConductError,
    ConductErrorReason,
    GameSpan,
    NoShowAlert,
    NoShowStage,
    assess_no_show,
    check_break_call,
    check_claim,
    review_pauses,
)
from rules.week.deadlines import DeadlineKind, MatchState, plan_deadlines
from rules.week.forfeits import ForfeitKind, ForfeitRecord, disqualifications_due
from rules.week.negotiation import (
    Negotiation,
    OfferMade,
    Phase,
    RulingKind,
    Step,
    TimeAgreed,
    accept_change,
    accept_offer,
    apply_verdict,
    assess_offer_deadline,
    assess_weekend,
    awaiting_reply,
    choose_time,
    decline_change,
    make_offers,
    offers_counted,
    propose_change,
    start_negotiation,
    td_decide,
    withdraw_offer,
)
from storage.models import AuditRow, DeadlineRow, GameRow, MatchRow, PlayerExitRow, RoundRow
from storage.models_weekly import CheatReportRow, ForfeitRow, MatchEventRow
from storage.repo_weekly import WeeklyRepository
from storage.uow import UnitOfWork

if TYPE_CHECKING:
    from bot.app import Hooks, Service
    from bot.lichess.types import UserStatus
    from bot.runtime.deadlines import Firing

log = logging.getLogger(__name__)

__all__ = [
    "BreakView",
    "ClaimView",
    "DeadlineView",
    "GameView",
    "MatchView",
    "OfferView",
    "Reply",
    "TimelineEntry",
    "WeeklyContext",
    "confirm_disqualification",
    "decide_claim",
    "decide_fault",
    "handle_text",
    "match_view",
    "publication_date",
    "publish_round",
    "record_forfeit",
    "register",
    "replan_deadlines",
    "replay",
    "start_match_week",
    "timeline",
]

FORUM = "forum"
"""Recipient of forum drafts: the TDs paste them and mark them posted (DESIGN.md)."""

DECIDED = (Outcome.FIRST_WINS.value, Outcome.SECOND_WINS.value, Outcome.TIED.value)

# Event kinds that are steps of the negotiation (replayed by :func:`replay`).
WEEK_STARTED = "week_started"
NEGOTIATION_KINDS = frozenset(
    {
        "offer",
        "accept",
        "withdraw",
        "change",
        "accept_change",
        "decline_change",
        "choose",
        "offers_verdict",
        "td_decision",
    }
)


# --- publication ---------------------------------------------------------------------------------


def publication_date(now: dt.datetime, config: Config) -> dt.date:
    """The publication weekday (Tuesday) on or after ``now``, never before the first one."""
    day = max(now.date(), config.rules.calendar.first_publication)
    while day.weekday() != config.rules.calendar.publish_weekday:
        day += dt.timedelta(days=1)
    return day


def room_url(config: Config, match_id: int) -> str:
    """The match room link every notice carries."""
    return f"{config.service.public_url.rstrip('/')}/match/{match_id}"


async def publish_round(
    uow: UnitOfWork, config: Config, round_row: RoundRow, *, now: dt.datetime, actor: str
) -> MatchWeek:
    """Put an approved round into play (rules 4.3-4.4, 5.2).

    Sets the round's match week, schedules its matches, starts each match's negotiation with its
    deadlines, and queues the notices: a DM to each player (opponent, deadlines, match room link),
    one team update of the pairings if ``tournament.team`` is set, and a forum draft of the
    pairings post. Everything is written on ``uow``; the caller commits.
    """
    week = match_week(publication_date(now, config), config.rules)
    round_row.state = "published"
    round_row.published_at = now
    round_row.week_start, round_row.week_end = week.start, week.end
    matches = list(await uow.matches.for_round(round_row.id))
    for match in matches:
        if match.black_first is not None and match.state == "proposed":
            match.state = "scheduled"
    await uow.audit.record(
        at=now,
        actor=actor,
        action="round.publish",
        details={
            "round": round_row.id,
            "number": round_row.number,
            "week_start": week.start.isoformat(),
            "week_end": week.end.isoformat(),
        },
    )
    await uow.session.flush()
    for match in matches:
        if match.black_first is not None:
            await start_match_week(uow, config, match, now=now, actor=actor, week=week)
    stage = matches[0].stage if matches else "?"
    title = f"ACWC {stage} round {round_row.number} pairings"
    lines = [title, f"Play by {label_time(week.end)} (rules 4.5); all times UTC."]
    for m in matches:
        if m.black_first is None:
            lines.append(f"{m.board}. {m.white_first}: bye")
        else:
            lines.append(f"{m.board}. {m.white_first} - {m.black_first}  {room_url(config, m.id)}")
    pairings = "\n".join(lines)
    key = f"round:{round_row.id}"
    if config.tournament.team:
        await uow.outbox.enqueue(
            now=now,
            kind="team_update",
            recipient=config.tournament.team,
            subject=title,
            body=fit(pairings),
            dedupe_key=f"{key}:team",
        )
    await uow.outbox.enqueue(
        now=now,
        kind="forum_draft",
        recipient=FORUM,
        subject=title,
        body=fit(
            pairings + "\n\nPlayers: post your agreed time and, after the match, the result here "
            "(rules 5.2, 6.6)."
        ),
        dedupe_key=f"{key}:forum",
    )
    return week


def _week_of(row: MatchRow, round_row: RoundRow, ruleset: Ruleset) -> MatchWeek:
    if round_row.week_start is None:
        raise OperationError(f"match {row.id}: its round is not published yet")
    # A repeat week of a final moves the window on by a week per repeat (rules 3.viii).
    start = round_row.week_start.date() + dt.timedelta(weeks=row.week - 1)
    return match_week(start, ruleset)


async def start_match_week(
    uow: UnitOfWork,
    config: Config,
    row: MatchRow,
    *,
    now: dt.datetime,
    actor: str,
    week: MatchWeek | None = None,
) -> Negotiation:
    """Start the negotiation of ``row``'s current week (``row.week``); idempotent.

    :func:`publish_round` calls it for every match; the later stages call it when a tied final is
    repeated the next week (after raising ``row.week``). Queues the pairing DMs and plans the
    deadlines.
    """
    if row.black_first is None:
        raise OperationError(f"match {row.id} is a bye; it has nothing to schedule")
    repo = WeeklyRepository(uow.session)
    existing = [e for e in await repo.events(row.id, week=row.week) if e.kind == WEEK_STARTED]
    if existing:
        return replay(await repo.events(row.id, week=row.week), config.rules)
    if week is None:
        round_row = await uow.tournaments.round(row.round_id)
        assert round_row is not None
        week = _week_of(row, round_row, config.rules)
    players = (PlayerId(row.white_first), PlayerId(row.black_first))
    negotiation = start_negotiation(MatchId(row.id), players, week)
    await repo.append(
        row.id,
        week=row.week,
        at=now,
        actor=actor,
        kind=WEEK_STARTED,
        via="publish",
        data={
            "players": list(players),
            "start": week.start.isoformat(),
            "end": week.end.isoformat(),
            "offer_deadline": week.offer_deadline.isoformat(),
        },
    )
    for player in players:
        notice = pairing_published(
            match_id=MatchId(row.id),
            player=player,
            opponent=negotiation.opponent_of(player),
            week=week,
            room_url=room_url(config, row.id),
            now=now,
            ruleset=config.rules,
        )
        await _dm(
            uow, now=now, to=player, text=notice.text, key=f"pairing:{row.id}:{row.week}:{player}"
        )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="match.week_start",
        match_id=row.id,
        details={"week": row.week, "start": week.start.isoformat(), "end": week.end.isoformat()},
    )
    await replan_deadlines(uow, config, row, negotiation, now=now)
    return negotiation


# --- the event log and the negotiation -----------------------------------------------------------


def _time(value: Any) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(str(value))
    if parsed.tzinfo is None:
        raise ValueError(f"naive time {value!r} in the event log")
    return parsed.astimezone(dt.UTC)


def _week_from(data: dict[str, Any]) -> MatchWeek:
    return MatchWeek(
        start=_time(data["start"]),
        end=_time(data["end"]),
        offer_deadline=_time(data["offer_deadline"]),
    )


def _apply_step(
    negotiation: Negotiation,
    kind: str,
    actor: str,
    at: dt.datetime,
    data: dict[str, Any],
    ruleset: Ruleset,
) -> Step:
    """One negotiation step, live or replayed: the same pure function either way."""
    player = PlayerId(actor)
    if kind == "offer":
        times = [_time(t) for t in data["times"]]
        return make_offers(negotiation, times, player=player, now=at, ruleset=ruleset)
    if kind == "accept":
        number = data.get("number")
        time = _time(data["time"]) if data.get("time") else None
        return accept_offer(negotiation, player=player, now=at, number=number, time=time)
    if kind == "withdraw":
        return withdraw_offer(negotiation, int(data["number"]), player=player, now=at)
    if kind == "change":
        return propose_change(
            negotiation, _time(data["time"]), player=player, now=at, ruleset=ruleset
        )
    if kind == "accept_change":
        return accept_change(negotiation, player=player, now=at)
    if kind == "decline_change":
        return decline_change(negotiation, player=player, now=at)
    if kind == "choose":
        return choose_time(negotiation, player, _time(data["time"]), now=at, ruleset=ruleset)
    if kind == "offers_verdict":
        verdict = assess_offer_deadline(negotiation, now=at, ruleset=ruleset)
        return apply_verdict(negotiation, verdict, now=at)
    if kind == "td_decision":
        at_fault = data.get("at_fault")
        return td_decide(negotiation, PlayerId(at_fault) if at_fault else None, now=at)
    raise ValueError(f"{kind!r} is not a negotiation step")


def replay(events: Iterable[MatchEventRow], ruleset: Ruleset) -> Negotiation:
    """The negotiation of one match week, rebuilt from its events (deterministic).

    Raises ``LookupError`` when the week was never started (the pairing is not published).
    """
    negotiation: Negotiation | None = None
    for event in sorted(events, key=lambda e: e.seq):
        if event.kind == WEEK_STARTED:
            a, b = event.data["players"]
            negotiation = start_negotiation(
                MatchId(event.match_id), (PlayerId(a), PlayerId(b)), _week_from(event.data)
            )
        elif event.kind in NEGOTIATION_KINDS:
            if negotiation is None:
                raise ValueError(f"match {event.match_id}: step {event.seq} before the week start")
            negotiation = _apply_step(
                negotiation, event.kind, event.actor, event.at, event.data, ruleset
            ).negotiation
    if negotiation is None:
        raise LookupError("the pairing of this match is not published yet")
    return negotiation


@dataclass(frozen=True, slots=True)
class _Loaded:
    row: MatchRow
    negotiation: Negotiation
    events: tuple[MatchEventRow, ...]  # this week's, in order


async def _load(uow: UnitOfWork, config: Config, match_id: int) -> _Loaded:
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    events = tuple(await WeeklyRepository(uow.session).events(row.id, week=row.week))
    try:
        negotiation = replay(events, config.rules)
    except LookupError:
        raise OperationError(f"match {match_id}: its pairing is not published yet") from None
    return _Loaded(row, negotiation, events)


async def _append(
    uow: UnitOfWork,
    row: MatchRow,
    *,
    at: dt.datetime,
    actor: str,
    kind: str,
    data: dict[str, Any] | None = None,
    via: str | None = None,
) -> MatchEventRow:
    return await WeeklyRepository(uow.session).append(
        row.id, week=row.week, at=at, actor=actor, kind=kind, data=data, via=via
    )


# --- deadlines -----------------------------------------------------------------------------------


def _is_decided(row: MatchRow) -> bool:
    return row.outcome is not None


async def _games_started(uow: UnitOfWork, row: MatchRow, since: dt.datetime) -> int:
    """Games of the match begun since ``since``: counted ones and ones in progress."""
    games = await uow.games.for_match(row.id, counted_only=False)
    return sum(1 for g in games if g.created_at >= since and (g.counted or g.status == "started"))


async def replan_deadlines(
    uow: UnitOfWork, config: Config, row: MatchRow, negotiation: Negotiation, *, now: dt.datetime
) -> tuple[int, int]:
    """Bring the match's deadline rows in line with its state (rules/deadlines.plan_deadlines).

    Rows the plan no longer calls for are cancelled (``cancelled_at``); new ones are added; a
    cancelled row the plan calls for again is restored; fired rows stay as history and are never
    planned twice. Returns (added, cancelled). The caller wakes the runner after committing.
    """
    started = await _games_started(uow, row, negotiation.week.start) > 0
    plan = plan_deadlines(
        MatchState(negotiation, started=started, completed=_is_decided(row)), ruleset=config.rules
    )
    wanted = {(d.kind.value, d.due, d.subject): d for d in plan}
    kinds = {k.value for k in DeadlineKind}
    existing = [r for r in await WeeklyRepository(uow.session).deadlines(row.id) if r.kind in kinds]
    have = {(r.kind, r.due_at, r.subject): r for r in existing}
    added = cancelled = 0
    for key, deadline in wanted.items():
        found = have.get(key)
        if found is None:
            await uow.deadlines.add(
                DeadlineRow(
                    kind=deadline.kind.value,
                    due_at=deadline.due,
                    match_id=row.id,
                    subject=deadline.subject,
                    payload={"week": row.week},
                    created_at=now,
                )
            )
            added += 1
        elif found.cancelled_at is not None and found.fired_at is None:
            found.cancelled_at = None
            added += 1
    for key, found in have.items():
        if key not in wanted and found.fired_at is None and found.cancelled_at is None:
            found.cancelled_at = now
            cancelled += 1
    await uow.session.flush()
    return added, cancelled


# --- messages ------------------------------------------------------------------------------------


async def _dm(uow: UnitOfWork, *, now: dt.datetime, to: str, text: str, key: str | None) -> None:
    await uow.outbox.enqueue(now=now, kind="dm", recipient=to, body=fit(text), dedupe_key=key)


async def _alert(
    uow: UnitOfWork, config: Config, *, now: dt.datetime, key: str, alert: TDAlert, extra: str = ""
) -> None:
    text = alert.text if not extra else fit(alert.text + "\n" + extra)
    await td_alert(uow, config, now=now, key=key, text=text)


def _late_note(firing: Firing) -> str:
    if not firing.is_late:
        return ""
    return (
        f"(This check was due {label_time(firing.deadline.due_at)} and ran "
        f"{label_duration(firing.late_by)} late: the service was not running.)"
    )


def _with_note(text: str, note: str) -> str:
    return text if not note else f"{text}\n{note}"


async def _forum(uow: UnitOfWork, *, now: dt.datetime, subject: str, body: str, key: str) -> None:
    await uow.outbox.enqueue(
        now=now,
        kind="forum_draft",
        recipient=FORUM,
        subject=subject,
        body=fit(body),
        dedupe_key=key,
    )


async def _announce_agreement(
    uow: UnitOfWork, config: Config, loaded: _Loaded, negotiation: Negotiation, *, now: dt.datetime
) -> dict[PlayerId, str]:
    """Tell both players and the forum draft; returns each player's text."""
    row = loaded.row
    assert negotiation.agreement is not None
    row.agreed_time = negotiation.agreement.time
    texts: dict[PlayerId, str] = {}
    stamp = negotiation.agreement.at.isoformat()
    for notice in time_agreed(negotiation, now=now):
        if notice.recipient is None:
            await _forum(
                uow,
                now=now,
                subject=f"Agreed time, match {row.id}",
                body=f"Agreed time (match {row.id}): {notice.text}",
                key=f"agreed:{row.id}:{row.week}:{stamp}:forum",
            )
        else:
            texts[notice.recipient] = notice.text
            await _dm(
                uow,
                now=now,
                to=notice.recipient,
                text=notice.text,
                key=f"agreed:{row.id}:{row.week}:{stamp}:{notice.recipient}",
            )
    return texts


async def announce_result(
    uow: UnitOfWork, config: Config, row: MatchRow, *, now: dt.datetime
) -> None:
    """The result to both players and a forum draft of the results post (rules 6.6)."""
    if row.outcome not in DECIDED or row.black_first is None:
        return
    state = await match_state(uow, row.id)
    winner = (
        PlayerId(row.white_first)
        if row.outcome == Outcome.FIRST_WINS.value
        else PlayerId(row.black_first)
        if row.outcome == Outcome.SECOND_WINS.value
        else None
    )
    if row.decided_by in ("forfeit", "td") and not state.games:
        score = "by forfeit" if row.decided_by == "forfeit" else "by TD decision"
    else:
        score = str(state.score)
        if row.decided_by in ("forfeit", "td"):
            score += f" (decided by {'forfeit' if row.decided_by == 'forfeit' else 'the TDs'})"
    players = (PlayerId(row.white_first), PlayerId(row.black_first))
    key = f"result:{row.id}:{row.week}:{row.outcome}:{row.decided_by}"
    for notice in match_result(
        match_id=MatchId(row.id), players=players, score=score, winner=winner
    ):
        if notice.recipient is None:
            await _forum(
                uow,
                now=now,
                subject=f"Result, match {row.id}",
                body=f"Result (match {row.id}): {notice.text}",
                key=f"{key}:forum",
            )
        else:
            await _dm(
                uow, now=now, to=notice.recipient, text=notice.text, key=f"{key}:{notice.recipient}"
            )


async def _record_tied(
    uow: UnitOfWork, config: Config, row: MatchRow, *, decided_by: str, now: dt.datetime
) -> None:
    """A tied match without play (rules 5.6: ``forfeit``; 5.9: ``td``): ½ match point each."""
    row.outcome, row.decided_by = Outcome.TIED.value, decided_by
    row.state, row.completed_at = "complete", now
    await uow.session.flush()
    await announce_result(uow, config, row, now=now)


# --- forfeits and disqualification (rules 5.6, 6.3-6.5) -------------------------------------------


async def record_forfeit(
    uow: UnitOfWork,
    config: Config,
    *,
    player: str,
    match_id: int,
    kind: ForfeitKind,
    reason: str,
    now: dt.datetime,
    actor: str,
    note: str | None = None,
) -> ForfeitRow:
    """Charge ``player`` with a forfeit in ``match_id``; alerts the TDs when rules 6.5 applies."""
    row = await WeeklyRepository(uow.session).add_forfeit(
        ForfeitRow(
            player_id=player,
            match_id=match_id,
            kind=kind.value,
            reason=reason,
            at=now,
            recorded_by=actor,
            waived=False,
            note=note,
        )
    )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="forfeit.record",
        player=player,
        match_id=match_id,
        reason=note,
        details={"kind": kind.value, "reason": reason},
    )
    await _check_disqualification(uow, config, PlayerId(player), now=now)
    return row


async def waive_forfeit(
    uow: UnitOfWork, forfeit_id: int, *, reason: str, now: dt.datetime, actor: str
) -> ForfeitRow:
    """Rules 5.10: the TDs waive a forfeit; it stays on record but no longer counts (rules 6.5)."""
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    row = await uow.session.get(ForfeitRow, forfeit_id)
    if row is None:
        raise OperationError(f"there is no forfeit {forfeit_id}")
    if row.waived:
        raise OperationError(f"forfeit {forfeit_id} was waived already (by {row.waived_by})")
    row.waived, row.waived_by, row.note = True, actor, reason
    await uow.audit.record(
        at=now,
        actor=actor,
        action="forfeit.waive",
        reason=reason,
        player=row.player_id,
        match_id=row.match_id,
        details={"forfeit": row.id, "kind": row.kind},
    )
    await uow.session.flush()
    return row


async def _forfeit_records(uow: UnitOfWork, player: PlayerId | None = None) -> list[ForfeitRecord]:
    rows = await WeeklyRepository(uow.session).forfeits(player=player)
    return [
        ForfeitRecord(
            PlayerId(r.player_id), MatchId(r.match_id), ForfeitKind(r.kind), r.at, r.waived
        )
        for r in rows
    ]


async def _exited(uow: UnitOfWork) -> set[PlayerId]:
    return {PlayerId(e.player_id) for e in await uow.stages.exits()}


async def _check_disqualification(
    uow: UnitOfWork, config: Config, player: PlayerId, *, now: dt.datetime
) -> None:
    proposals = disqualifications_due(
        await _forfeit_records(uow, player),
        ruleset=config.rules,
        already_disqualified=await _exited(uow),
    )
    for proposal in proposals:
        rows = await WeeklyRepository(uow.session).forfeits(player=proposal.player)
        evidence = tuple(
            f"forfeit in match {r.match_id} ({r.kind}, {r.reason}) on {label_time(r.at)}"
            for r in rows
            if not r.waived
        )
        alert = TDAlert(
            None,
            proposal.text,
            evidence,
            f"acwc dq confirm {proposal.player} --reason ...",
        )
        ids = ",".join(str(i) for i in proposal.match_ids)
        await _alert(uow, config, now=now, key=f"dq:{proposal.player}:{ids}", alert=alert)


async def confirm_disqualification(
    uow: UnitOfWork, config: Config, username: str, *, reason: str, now: dt.datetime, actor: str
) -> PlayerExitRow | None:
    """A TD confirms the disqualification of rules 6.5.

    Refuses (:class:`OperationError`) when the player has not forfeited in enough different
    matches or has already left. If the later-stages feature provides
    ``bot.stages.disqualify_player(uow, config, player, *, reason, now, actor)`` it does the whole
    exit (rules 8); otherwise the exit row is recorded here and the player marked disqualified.
    """
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    player = normalise_username(username)
    row = await uow.players.get(player)
    if row is None:
        raise OperationError(f"{username} is not registered")
    if player in await _exited(uow):
        raise OperationError(f"{username} has already left the tournament")
    proposals = disqualifications_due(await _forfeit_records(uow, player), ruleset=config.rules)
    if not proposals:
        records = [r for r in await _forfeit_records(uow, player) if not r.waived]
        matches = sorted({r.match_id for r in records})
        raise OperationError(
            f"{username} has forfeits in {len(matches)} match(es) "
            f"({', '.join(map(str, matches)) or 'none'}); rules 6.5 disqualifies after "
            f"{config.rules.conduct.forfeit_limit} in different matches"
        )
    proposal = proposals[0]
    stages = importlib.import_module("bot.stages")
    disqualify: Callable[..., Awaitable[Any]] | None = getattr(stages, "disqualify_player", None)
    exit_row: PlayerExitRow | None = None
    if disqualify is not None:
        await disqualify(uow, config, player, reason=reason, now=now, actor=actor)
    else:
        tournament = await uow.tournaments.current()
        stage = tournament.current_stage if tournament is not None else "qualification"
        last_round = 0
        for m in await uow.matches.for_player(player):
            if m.stage == stage:
                rnd = await uow.tournaments.round(m.round_id)
                if rnd is not None and rnd.state in ("published", "complete"):
                    last_round = max(last_round, rnd.number)
        exit_row = await uow.stages.add_exit(
            PlayerExitRow(
                player_id=player,
                stage=stage,
                kind="disqualification",
                last_round=last_round,
                reason=f"rules 6.5: forfeits in matches {', '.join(map(str, proposal.match_ids))}; "
                + reason,
                decided_by=actor,
                at=now,
            )
        )
        row.status, row.status_reason = "disqualified", reason
    await uow.audit.record(
        at=now,
        actor=actor,
        action="player.disqualify",
        player=player,
        reason=reason,
        details={"rule": "6.5", "matches": list(proposal.match_ids)},
    )
    await _dm(
        uow,
        now=now,
        to=player,
        text=f"You are disqualified from the ACWC: you were forfeited in two different matches "
        f"(rules 6.5; matches {', '.join(map(str, proposal.match_ids))}). TD note: {reason}",
        key=f"dq-confirmed:{player}",
    )
    return exit_row


# --- claims and breaks from the event log --------------------------------------------------------


def _claim_rights(events: Sequence[MatchEventRow]) -> tuple[list[ClaimRight], set[str]]:
    """Open claim rights (not yet decided) and the claimants who have claimed."""
    rights: list[ClaimRight] = []
    claimed: set[str] = set()
    for e in events:
        if e.kind == "claim_right":
            rights.append(
                ClaimRight(
                    MatchId(e.match_id),
                    PlayerId(e.data["claimant"]),
                    PlayerId(e.data["against"]),
                    ClaimReason(e.data["reason"]),
                    _time(e.data["since"]),
                )
            )
        elif e.kind == "claim":
            claimed.add(e.actor)
        elif e.kind == "claim_decided":
            rights, claimed = [], set()
    return rights, claimed


def _break_calls(events: Sequence[MatchEventRow]) -> list[BreakCall]:
    return [BreakCall(PlayerId(e.actor), e.at) for e in events if e.kind == "break"]


def _spans(games: Sequence[GameRow]) -> list[GameSpan]:
    """Finished counted games; a game lost on ``timeout`` was left by the loser (rules 6.4)."""
    spans = []
    for g in games:
        if not g.counted or g.last_move_at is None:
            continue
        left_by = None
        if g.status == "timeout" and g.winner in ("w", "b"):
            left_by = PlayerId(g.black if g.winner == "w" else g.white)
        spans.append(GameSpan(GameId(g.id), g.created_at, g.last_move_at, left_by))
    return spans


# --- the one door for a player's text ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one text.

    ``ok`` is False for a refusal (nothing was written). ``changed`` is True when the text
    changed stored state: only then must the caller commit the unit of work (and wake the
    service: ``service.changed()``). ``command`` is the canonical form of what was understood;
    ``reason`` names the refusal (a ``RulesError`` reason value, or ``not_your_match``,
    ``no_such_match``, ``not_published``, ``match_over``, ``not_available``).
    """

    text: str
    ok: bool = True
    changed: bool = False
    command: str | None = None
    reason: str | None = None


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


async def handle_text(
    uow: UnitOfWork,
    config: Config,
    *,
    match_id: int,
    player: str,
    text: str,
    now: dt.datetime,
    via: str = "web",
    relayed_by: str | None = None,
) -> Reply:
    """Read and carry out one player's text for their match, whatever the channel.

    ``player`` is the Lichess username of the player the text comes from (logged in on the web,
    or named by the TD who relays it: ``via="td-relay", relayed_by=<td>``). The text is parsed by
    :func:`rules.talk.commands.parse` and checked by the rules; a refusal (any ``RulesError``, a
    player acting on a match that is not theirs, an unknown or unpublished match) comes back as a
    :class:`Reply` with ``ok=False`` and writes nothing. An accepted action appends its event to
    the match's log, queues the DMs (the acting player gets the confirmation that is also the
    reply text, whatever the channel; the opponent is told what they need to know), re-plans the
    match's deadlines and writes an audit entry: the caller then commits (``reply.changed``).
    """
    player_id = normalise_username(player)
    row = await uow.matches.get(match_id)
    if row is None:
        return _refuse(f"There is no match {match_id}.", "no_such_match")
    if row.black_first is None:
        return _refuse(f"Match {match_id} is a bye; there is nothing to schedule.", "bye")
    if player_id not in (row.white_first, row.black_first):
        return _refuse(
            f"{player} does not play match {match_id} ({row.white_first} - {row.black_first}); "
            "you can act only in your own match room.",
            "not_your_match",
        )
    try:
        loaded = await _load(uow, config, match_id)
    except OperationError:
        return _refuse(
            f"The pairing of match {match_id} is not published yet; wait for the pairings.",
            "not_published",
        )
    negotiation = loaded.negotiation
    try:
        command = parse(text, now=now, week=negotiation.week)
    except CommandError as e:
        return _refuse(e.message, e.reason.value)
    canonical = format_command(command) if not isinstance(command, Report) else "report"
    try:
        if isinstance(command, Help):
            return Reply(help_text(command.topic), command=canonical)
        if isinstance(command, Status):
            body = status_text(negotiation, player=player_id, now=now, ruleset=config.rules)
            if _is_decided(loaded.row):
                body += f"\nResult recorded: {loaded.row.outcome} ({loaded.row.decided_by})."
            return Reply(body, command=canonical)
        if isinstance(command, _SCHEDULING):
            if _is_decided(loaded.row):
                return _refuse(
                    f"Match {match_id} is over ({loaded.row.outcome}); nothing is left to "
                    "schedule.",
                    "match_over",
                    canonical,
                )
            return await _scheduling(
                uow, config, loaded, player_id, command, now=now, via=via, relayed_by=relayed_by
            )
        if isinstance(command, Break):
            return await _break(
                uow, config, loaded, player_id, now=now, via=via, relayed_by=relayed_by
            )
        if isinstance(command, ClaimWin):
            return await _claim(
                uow, config, loaded, player_id, now=now, via=via, relayed_by=relayed_by
            )
        if isinstance(command, Report):
            return await _report(uow, config, loaded, player_id, command, now=now, via=via)
        if isinstance(command, Bid | Rps):
            return await _armageddon(uow, config, loaded, player_id, command, now=now, via=via)
    except RulesError as e:
        return _refuse(e.message, e.reason.value, canonical)
    raise TypeError(f"unhandled command {command!r}")  # pragma: no cover


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


async def _scheduling(
    uow: UnitOfWork,
    config: Config,
    loaded: _Loaded,
    player: PlayerId,
    command: Command,
    *,
    now: dt.datetime,
    via: str,
    relayed_by: str | None,
) -> Reply:
    before = loaded.negotiation
    kind, data = _step_for(command)
    step = _apply_step(before, kind, player, now, data, config.rules)  # raises: nothing written
    after = step.negotiation
    row = loaded.row
    event = await _append(uow, row, at=now, actor=player, kind=kind, data=data, via=via)
    opponent = before.opponent_of(player)
    seq = event.seq
    texts: dict[PlayerId, str] = {}
    if any(isinstance(e, TimeAgreed) for e in step.events):
        texts = await _announce_agreement(uow, config, loaded, after, now=now)
    elif kind == "offer":
        made = [e for e in step.events if isinstance(e, OfferMade)]
        new = [o for o in after.offers if o.number in {e.number for e in made}]
        lines = [f"Your offer{'s' if len(new) > 1 else ''} went to {opponent}:"]
        lines.extend(f"{o.number}. {describe_time(o.time, now=now)}" for o in new)
        if not all(e.counts for e in made):
            lines.append(
                "Made after the offers deadline: they do not count towards rules 5.1, "
                "but your opponent can still accept them."
            )
        elif after.phase is Phase.OPEN:
            lines.append(
                f"You have made {offers_counted(after, player)} of "
                f"{config.rules.offers.required_offers} offers due by "
                f"{describe_time(after.week.offer_deadline, now=now)} (rules 5.1)."
            )
        texts[player] = "\n".join(lines)
        notice = offer_received(after, new, recipient=opponent, now=now, ruleset=config.rules)
        texts[opponent] = notice.text
    elif kind == "withdraw":
        offer = after.offer(int(data["number"]))
        texts[player] = f"Offer {offer.number} ({label_time(offer.time)}) is withdrawn."
        texts[opponent] = f"{player} withdrew offer {offer.number} ({label_time(offer.time)})."
    elif kind == "change":
        assert after.change is not None
        texts[player] = (
            f"You asked {opponent} to move the match to "
            f"{describe_time(after.change.time, now=now)}; the agreed time stays until they send "
            "`accept change`."
        )
        from rules.talk.notices import change_proposed

        texts[opponent] = change_proposed(after, now=now).text
    elif kind == "decline_change":
        assert before.change is not None
        assert after.agreement is not None
        kept = label_time(after.agreement.time)
        if before.change.by == player:
            texts[player] = f"You withdrew your request to move the match; it stays at {kept}."
            texts[opponent] = (
                f"{player} withdrew their request to move the match; it stays at {kept}."
            )
        else:
            texts[player] = f"You declined the change; the match stays at {kept}."
            texts[opponent] = f"{player} declined moving the match; it stays at {kept}."
    for to, body in texts.items():
        if to in (player, opponent) and not any(isinstance(e, TimeAgreed) for e in step.events):
            await _dm(uow, now=now, to=to, text=body, key=f"step:{row.id}:{seq}:{to}")
    await _audit_action(
        uow,
        row,
        player,
        f"match.{kind}",
        now=now,
        via=via,
        relayed_by=relayed_by,
        details={"seq": seq, "command": format_command(command), **data},
    )
    await replan_deadlines(uow, config, row, after, now=now)
    return Reply(texts.get(player, "Done."), changed=True, command=format_command(command))


async def _break(
    uow: UnitOfWork,
    config: Config,
    loaded: _Loaded,
    player: PlayerId,
    *,
    now: dt.datetime,
    via: str,
    relayed_by: str | None,
) -> Reply:
    row = loaded.row
    games = await uow.games.for_match(row.id, counted_only=False)
    spans = _spans(games)
    review = review_pauses(
        spans,
        _break_calls(loaded.events),
        match_id=MatchId(row.id),
        players=loaded.negotiation.players,
        conduct=config.rules.conduct,
        now=now,
    )
    check_break_call(
        review,
        spans,
        player=player,
        players=loaded.negotiation.players,
        game_in_progress=any(g.status == "started" for g in games),
    )
    if _is_decided(row):
        raise ConductError(ConductErrorReason.NOT_STARTED, f"Match {row.id} is over.")
    event = await _append(uow, row, at=now, actor=player, kind="break", via=via)
    until = now + config.rules.conduct.break_length
    opponent = loaded.negotiation.opponent_of(player)
    mine = (
        f"Your one break of this match (rules 6.1) has started: the next game must start by "
        f"{label_time(until)}."
    )
    await _dm(uow, now=now, to=player, text=mine, key=f"step:{row.id}:{event.seq}:{player}")
    await _dm(
        uow,
        now=now,
        to=opponent,
        text=f"{player} called their one break (rules 6.1): the next game starts by "
        f"{label_time(until)} at the latest.",
        key=f"step:{row.id}:{event.seq}:{opponent}",
    )
    await _audit_action(
        uow, row, player, "match.break", now=now, via=via, relayed_by=relayed_by, details={}
    )
    return Reply(mine, changed=True, command="break")


async def _claim(
    uow: UnitOfWork,
    config: Config,
    loaded: _Loaded,
    player: PlayerId,
    *,
    now: dt.datetime,
    via: str,
    relayed_by: str | None,
) -> Reply:
    row = loaded.row
    rights, claimed = _claim_rights(loaded.events)
    right = check_claim(rights, player, match_id=MatchId(row.id))  # raises NO_CLAIM
    if player in claimed:
        return Reply(
            "You have already claimed the win; the TDs decide and will tell you.",
            command="claim win",
        )
    event = await _append(
        uow, row, at=now, actor=player, kind="claim", data={"reason": right.reason.value}, via=via
    )
    evidence = tuple(entry.line for entry in await timeline(uow, row.id, audit=False))[-12:]
    await _alert(
        uow,
        config,
        now=now,
        key=f"claim:{row.id}:{event.seq}",
        alert=td_claim_alert(right, evidence=evidence),
    )
    mine = (
        f"Your claim of the match win against {right.against} went to the TDs; they decide "
        "(rules 6.3, 6.4) and you will be told."
    )
    await _dm(uow, now=now, to=player, text=mine, key=f"step:{row.id}:{event.seq}:{player}")
    await _audit_action(
        uow,
        row,
        player,
        "match.claim",
        now=now,
        via=via,
        relayed_by=relayed_by,
        details={"reason": right.reason.value, "against": right.against},
    )
    return Reply(mine, changed=True, command="claim win")


async def _report(
    uow: UnitOfWork,
    config: Config,
    loaded: _Loaded,
    player: PlayerId,
    command: Report,
    *,
    now: dt.datetime,
    via: str,
) -> Reply:
    """Rules 7.1: to the TDs only; the log and the audit keep the reference, not the text."""
    report = make_cheat_report(command, reporter=player, now=now, match_id=MatchId(loaded.row.id))
    stored = await WeeklyRepository(uow.session).add_report(
        CheatReportRow(
            reference=report.reference,
            reporter=player,
            match_id=loaded.row.id,
            text=report.text,
            made_at=now,
            via=via,
        )
    )
    receipt = cheat_report_receipt(report)
    await _dm(uow, now=now, to=player, text=receipt.text, key=f"report:{stored.id}:receipt")
    await _alert(
        uow, config, now=now, key=f"report:{stored.id}", alert=td_cheat_report_alert(report)
    )
    await uow.audit.record(
        at=now,
        actor=player,
        action="report.private",
        player=player,
        details={"reference": report.reference, "via": via},
    )
    return Reply(receipt.text, changed=True, command="report")


async def _armageddon(
    uow: UnitOfWork,
    config: Config,
    loaded: _Loaded,
    player: PlayerId,
    command: Bid | Rps,
    *,
    now: dt.datetime,
    via: str,
) -> Reply:
    """Bids and rock-paper-scissors belong to the later stages (rules 3.ix).

    If ``bot.stages`` provides ``handle_armageddon(uow, config, *, match_id, player, command,
    now, via) -> Reply``, it answers; otherwise the reply says so and nothing is recorded.
    """
    stages = importlib.import_module("bot.stages")
    handler = getattr(stages, "handle_armageddon", None)
    if handler is not None:
        reply: Reply = await handler(
            uow, config, match_id=loaded.row.id, player=player, command=command, now=now, via=via
        )
        return reply
    return _refuse(
        "Armageddon bids are handled by the later-stages feature (rules 3.ix), which is not "
        "running in this service yet; nothing was recorded. Ask the TDs.",
        "not_available",
        format_command(command),
    )


# --- TD decisions --------------------------------------------------------------------------------


async def decide_fault(
    uow: UnitOfWork,
    config: Config,
    match_id: int,
    *,
    at_fault: str | None,
    reason: str,
    now: dt.datetime,
    actor: str,
) -> Negotiation:
    """The TDs rule on a negotiation without agreement (rules 5.8-5.10).

    ``at_fault`` names the player at fault (their opponent chooses the time); ``None`` rules
    nobody at fault: a tied match (½ each, no forfeit). Raises ``RulesError`` or
    :class:`OperationError` and changes nothing when it cannot.
    """
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    loaded = await _load(uow, config, match_id)
    row = loaded.row
    if _is_decided(row):
        raise OperationError(f"match {match_id} already has a result ({row.outcome})")
    data: dict[str, Any] = {
        "at_fault": normalise_username(at_fault) if at_fault else None,
        "reason": reason,
    }
    step = _apply_step(loaded.negotiation, "td_decision", actor, now, data, config.rules)
    after = step.negotiation
    event = await _append(uow, row, at=now, actor=actor, kind="td_decision", data=data, via="cli")
    assert after.ruling is not None
    for notice in deadline_missed(after, after.ruling, now=now):
        if notice.recipient is not None:
            await _dm(
                uow,
                now=now,
                to=notice.recipient,
                text=notice.text,
                key=f"step:{row.id}:{event.seq}:{notice.recipient}",
            )
    await uow.audit.record(
        at=now,
        actor=actor,
        action="fault.decide",
        match_id=row.id,
        reason=reason,
        player=data["at_fault"],
        details={"at_fault": data["at_fault"], "rule": "5.9"},
    )
    if after.ruling.tied:
        await _record_tied(uow, config, row, decided_by="td", now=now)
    await replan_deadlines(uow, config, row, after, now=now)
    return after


async def decide_claim(
    uow: UnitOfWork,
    config: Config,
    match_id: int,
    *,
    winner: str | None,
    reason: str,
    now: dt.datetime,
    actor: str,
) -> MatchRow:
    """The TDs grant a claim (``winner``: the match is forfeited by the other player, who gets a
    forfeit record, rules 6.3-6.5) or dismiss it (``winner=None``; needs an open claim)."""
    if not reason.strip():
        raise OperationError("a reason is required: it goes into the audit log")
    loaded = await _load(uow, config, match_id)
    row = loaded.row
    rights, claimed = _claim_rights(loaded.events)
    if winner is None:
        if not rights and not claimed:
            raise OperationError(f"match {match_id} has no open claim to dismiss")
        event = await _append(
            uow,
            row,
            at=now,
            actor=actor,
            kind="claim_decided",
            data={"winner": None, "reason": reason},
            via="cli",
        )
        for p in sorted({r.claimant for r in rights} | {PlayerId(c) for c in claimed}):
            await _dm(
                uow,
                now=now,
                to=p,
                text=f"The TDs dismissed the claim in match {row.id}: {reason}. The match goes on.",
                key=f"step:{row.id}:{event.seq}:{p}",
            )
        await uow.audit.record(
            at=now, actor=actor, action="claim.dismiss", match_id=row.id, reason=reason, details={}
        )
        return row
    if _is_decided(row):
        raise OperationError(f"match {match_id} already has a result ({row.outcome})")
    win = normalise_username(winner)
    if win not in (row.white_first, row.black_first):
        raise OperationError(f"{winner} does not play match {match_id}")
    assert row.black_first is not None
    loser = PlayerId(row.black_first if win == row.white_first else row.white_first)
    right = next((r for r in rights if r.claimant == win), None)
    forfeit_reason = (
        "td" if right is None else "no_show" if right.reason is ClaimReason.NO_SHOW else "conduct"
    )
    await _append(
        uow,
        row,
        at=now,
        actor=actor,
        kind="claim_decided",
        data={
            "winner": win,
            "reason": reason,
            "claim": None if right is None else right.reason.value,
        },
        via="cli",
    )
    row.outcome = Outcome.FIRST_WINS.value if win == row.white_first else Outcome.SECOND_WINS.value
    row.decided_by, row.state, row.completed_at = "forfeit", "complete", now
    await uow.session.flush()
    await uow.audit.record(
        at=now,
        actor=actor,
        action="claim.grant",
        match_id=row.id,
        player=win,
        reason=reason,
        details={"winner": win, "forfeited_by": loser, "claim": forfeit_reason},
    )
    await announce_result(uow, config, row, now=now)
    await record_forfeit(
        uow,
        config,
        player=loser,
        match_id=row.id,
        kind=ForfeitKind.MATCH,
        reason=forfeit_reason,
        now=now,
        actor=actor,
        note=reason,
    )
    await replan_deadlines(uow, config, row, loaded.negotiation, now=now)
    return row


# --- the timeline --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One line of a match's history: an event of its log or an audit entry."""

    at: dt.datetime
    source: str  # "event" / "audit"
    actor: str
    kind: str
    text: str

    @property
    def line(self) -> str:
        return f"{self.at:%a %d %b %H:%M} UTC {self.actor}: {self.text}"


def _describe_event(e: MatchEventRow) -> str:
    d = e.data
    match e.kind:
        case "week_started":
            start, end = label_time(_time(d["start"])), label_time(_time(d["end"]))
            return f"pairing published, week {start} to {end}"
        case "offer":
            return "offered " + ", ".join(label_time(_time(t)) for t in d["times"])
        case "accept":
            return (
                f"accepted offer {d['number']}"
                if d.get("number")
                else f"accepted {label_time(_time(d['time']))}"
            )
        case "withdraw":
            return f"withdrew offer {d['number']}"
        case "change":
            return f"asked to move the match to {label_time(_time(d['time']))}"
        case "accept_change":
            return "accepted the change"
        case "decline_change":
            return "declined the change"
        case "choose":
            return f"chose {label_time(_time(d['time']))} (rules 5.5, 5.9)"
        case "offers_verdict":
            at_fault = ", ".join(d.get("at_fault", [])) or "nobody"
            return f"offers check: {d.get('verdict')}, at fault: {at_fault}"
        case "td_decision":
            return f"TD decision: at fault {d.get('at_fault') or 'nobody'} ({d.get('reason')})"
        case "break":
            return "called a break (rules 6.1)"
        case "no_show_check":
            return (
                f"no-show check ({d.get('stage')}): seen "
                f"{', '.join(d.get('appeared', [])) or 'nobody'}, "
                f"not seen {', '.join(d.get('absent', [])) or 'nobody'}"
            )
        case "claim_right":
            return f"{d['claimant']} may claim the win ({d['reason']})"
        case "claim":
            return f"claimed the win ({d.get('reason')})"
        case "claim_decided":
            decided = f"winner {d['winner']}" if d.get("winner") else "dismissed"
            return f"claim decided: {decided} ({d.get('reason')})"
    return e.kind


async def timeline(uow: UnitOfWork, match_id: int, *, audit: bool = True) -> list[TimelineEntry]:
    """The match's history: its event log and (with ``audit``) its audit entries, by time."""
    entries = [
        (e.at, 0, e.seq, TimelineEntry(e.at, "event", e.actor, e.kind, _describe_event(e)))
        for e in await WeeklyRepository(uow.session).events(match_id)
    ]
    if audit:
        rows: Sequence[AuditRow] = await uow.audit.list(match_id=match_id)
        entries.extend(
            (
                a.at,
                1,
                a.id,
                TimelineEntry(
                    a.at,
                    "audit",
                    a.actor,
                    a.action,
                    f"{a.action}{' - ' + a.reason if a.reason else ''}",
                ),
            )
            for a in rows
        )
    return [t for *_, t in sorted(entries, key=lambda x: (x[0], x[1], x[2]))]


# --- what the match room shows -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OfferView:
    number: int
    by: str
    time: dt.datetime
    label: str  # "Thu 14 Oct 18:00 UTC, in 2 days 3 hours"
    state: str  # open / withdrawn / passed / accepted
    counts: bool  # counts towards the duty of rules 5.1


@dataclass(frozen=True, slots=True)
class DeadlineView:
    kind: str  # rules.deadlines.DeadlineKind value
    due: dt.datetime
    label: str
    state: str  # planned / fired


@dataclass(frozen=True, slots=True)
class GameView:
    number: int
    id: str
    url: str
    white: str
    black: str
    result: str  # 1-0 / 0-1 / ½-½ / * (in progress)
    status: str
    counted: bool


@dataclass(frozen=True, slots=True)
class ClaimView:
    claimant: str
    against: str
    reason: str
    since: dt.datetime
    claimed: bool


@dataclass(frozen=True, slots=True)
class BreakView:
    player: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class MatchView:
    """Everything the match room shows one viewer (``viewer`` None: a visitor).

    ``actions`` are the commands this viewer may send now (verbs as typed: ``offer``, ``accept``,
    ``withdraw``, ``change``, ``accept change``, ``decline change``, ``choose``, ``break``,
    ``claim win``, ``report``, ``status``, ``help``); empty for anyone but the two players.
    Claims are shown to the two players and the TDs only; private reports never.
    """

    match_id: int
    stage: str
    round: int | None
    week: int
    players: tuple[str, str]
    viewer: str | None
    is_player: bool
    opponent: str | None
    room_url: str
    published: bool
    phase: str  # unpublished / open / agreed / awaiting_choice / tied
    state: str  # the match row's state
    outcome: str | None
    decided_by: str | None
    week_start: dt.datetime | None
    offers_deadline: dt.datetime | None
    week_end: dt.datetime | None
    week_start_label: str | None
    offers_deadline_label: str | None
    week_end_label: str | None
    offers: tuple[OfferView, ...]
    offers_counted: tuple[tuple[str, int], ...]
    required_offers: int
    agreed_time: dt.datetime | None
    agreed_label: str | None
    change: str | None  # a pending request to move the agreed time, in words
    ruling: str | None  # a fault ruling, in words
    chooser: str | None
    score: str | None
    games: tuple[GameView, ...]
    claims: tuple[ClaimView, ...]
    breaks: tuple[BreakView, ...]
    deadlines: tuple[DeadlineView, ...]
    actions: tuple[str, ...]


_RESULTS = {"w": "1-0", "b": "0-1", None: "½-½"}
_RULINGS = {
    RulingKind.OFFERS_ONE_AT_FAULT: (
        "{f} made too few offers by the deadline (rules 5.5); {c} chooses the time"
    ),
    RulingKind.OFFERS_BOTH_AT_FAULT: (
        "neither player made the required offers (rules 5.6): tied match, a forfeit each"
    ),
    RulingKind.TD_PLAYER_AT_FAULT: "the TDs found {f} at fault (rules 5.9); {c} chooses the time",
    RulingKind.TD_NOBODY_AT_FAULT: "the TDs found nobody at fault (rules 5.9): tied match",
}


async def match_view(
    uow: UnitOfWork, config: Config, *, match_id: int, viewer: str | None, now: dt.datetime
) -> MatchView:
    """The match room of ``match_id`` as ``viewer`` (a Lichess username, or None) sees it.

    Raises :class:`OperationError` for an unknown match or a bye.
    """
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    if row.black_first is None:
        raise OperationError(f"match {match_id} is a bye")
    viewer_id = normalise_username(viewer) if viewer else None
    players = (row.white_first, row.black_first)
    is_player = viewer_id in players
    opponent = None
    if is_player:
        opponent = players[1] if viewer_id == players[0] else players[0]
    is_td = viewer is not None and config.is_td(viewer)
    rnd = await uow.tournaments.round(row.round_id)
    events = tuple(await WeeklyRepository(uow.session).events(row.id, week=row.week))
    try:
        n: Negotiation | None = replay(events, config.rules)
    except LookupError:
        n = None
    state = await match_state(uow, row.id)
    all_games = await uow.games.for_match(row.id, counted_only=False)
    games = tuple(
        GameView(
            number=i,
            id=g.id,
            url=f"https://lichess.org/{g.id}" if g.source == "lichess" else "",
            white=g.white,
            black=g.black,
            result="*" if g.status == "started" else _RESULTS.get(g.winner, "½-½"),
            status=g.status,
            counted=g.counted,
        )
        for i, g in enumerate((g for g in all_games if g.counted or g.status == "started"), start=1)
    )
    rights, claimed = _claim_rights(events)
    claims = (
        tuple(
            ClaimView(r.claimant, r.against, r.reason.value, r.since, r.claimant in claimed)
            for r in rights
        )
        if (is_player or is_td)
        else ()
    )
    breaks = tuple(BreakView(c.player, c.at) for c in _break_calls(events))
    deadlines = tuple(
        DeadlineView(
            d.kind, d.due_at, describe_time(d.due_at, now=now), "fired" if d.fired_at else "planned"
        )
        for d in await WeeklyRepository(uow.session).deadlines(row.id)
        if d.cancelled_at is None
    )
    decided = _is_decided(row)
    offers: tuple[OfferView, ...] = ()
    actions: list[str] = []
    phase = "unpublished"
    ruling_text = chooser = change_text = None
    counted: tuple[tuple[str, int], ...] = ()
    if n is not None:
        phase = n.phase.value
        close = n.week.offers_close
        accepted = n.agreement.offer_number if n.agreement is not None else None
        offers = tuple(
            OfferView(
                o.number,
                o.by,
                o.time,
                describe_time(o.time, now=now),
                "accepted"
                if o.number == accepted
                else "withdrawn"
                if o.is_withdrawn
                else "passed"
                if o.time <= now
                else "open",
                o.made_at < close and (o.withdrawn_at is None or o.withdrawn_at >= close),
            )
            for o in n.offers
        )
        counted = tuple((p, offers_counted(n, p)) for p in n.players)
        if n.ruling is not None:
            chooser = n.ruling.chooser
            ruling_text = _RULINGS[n.ruling.kind].format(
                f=", ".join(n.ruling.at_fault), c=n.ruling.chooser
            )
        if n.change is not None:
            change_text = (
                f"{n.change.by} asks to move the match to {describe_time(n.change.time, now=now)}"
            )
        if is_player and viewer_id is not None:
            me = PlayerId(viewer_id)
            actions = ["status", "help", "report"]
            theirs_open = any(o.by != me and o.is_open(now=now) for o in n.offers)
            mine_open = any(o.by == me and not o.is_withdrawn for o in n.offers)
            if not decided:
                if n.phase is Phase.OPEN:
                    actions.append("offer")
                    if theirs_open:
                        actions.append("accept")
                    if mine_open:
                        actions.append("withdraw")
                elif n.phase is Phase.AWAITING_CHOICE and chooser == me:
                    actions.append("choose")
                    if theirs_open:
                        actions.append("accept")
                elif n.phase is Phase.AGREED:
                    if n.change is not None and n.change.by != me:
                        actions.extend(["accept change", "decline change"])
                    else:
                        actions.append("change")
                        if n.change is not None:
                            actions.append("decline change")
                spans = _spans(all_games)
                review = review_pauses(
                    spans,
                    _break_calls(events),
                    match_id=MatchId(row.id),
                    players=n.players,
                    conduct=config.rules.conduct,
                    now=now,
                )
                in_progress = any(g.status == "started" for g in all_games)
                if spans and not in_progress and not review.has_used_break(me):
                    actions.append("break")
                if any(r.claimant == me for r in rights) and me not in claimed:
                    actions.append("claim win")
    week_start = n.week.start if n is not None else None
    deadline = n.week.offer_deadline if n is not None else None
    week_end = n.week.end if n is not None else None

    def label(when: dt.datetime | None) -> str | None:
        return describe_time(when, now=now) if when is not None else None

    agreed = n.agreement.time if n is not None and n.agreement is not None else row.agreed_time
    return MatchView(
        match_id=row.id,
        stage=row.stage,
        round=rnd.number if rnd is not None else None,
        week=row.week,
        players=players,
        viewer=viewer_id,
        is_player=is_player,
        opponent=opponent,
        room_url=room_url(config, row.id),
        published=n is not None,
        phase=phase,
        state=row.state,
        outcome=row.outcome,
        decided_by=row.decided_by,
        week_start=week_start,
        offers_deadline=deadline,
        week_end=week_end,
        week_start_label=label(week_start),
        offers_deadline_label=label(deadline),
        week_end_label=label(week_end),
        offers=offers,
        offers_counted=counted,
        required_offers=config.rules.offers.required_offers,
        agreed_time=agreed,
        agreed_label=label(agreed),
        change=change_text,
        ruling=ruling_text,
        chooser=chooser,
        score=None if state.score is None else str(state.score),
        games=games,
        claims=claims,
        breaks=breaks,
        deadlines=deadlines,
        actions=tuple(actions),
    )


# --- deadline handlers and match hooks -----------------------------------------------------------

StatusSource = Callable[[Iterable[str]], Awaitable[list["UserStatus"]]]


@dataclass
class WeeklyContext:
    """What the handlers need beyond (uow, firing): the config, the clock, and the Lichess user
    statuses (no-show evidence, rules 6.3). Bound when the service starts (``bind_service``);
    tests bind it by hand with :meth:`bind`."""

    config: Config | None = None
    statuses: StatusSource | None = None
    now: Callable[[], dt.datetime] | None = None
    handlers: dict[str, Callable[[UnitOfWork, Firing], Awaitable[None]]] = field(
        default_factory=dict
    )

    def bind(
        self,
        *,
        config: Config,
        now: Callable[[], dt.datetime],
        statuses: StatusSource | None = None,
    ) -> None:
        self.config, self.now, self.statuses = config, now, statuses

    def bind_service(self, service: Service) -> None:
        lichess = getattr(service, "lichess", None)
        self.bind(
            config=service.config,
            now=service.clock.now,
            statuses=None if lichess is None else lichess.get_statuses,
        )

    def _config(self) -> Config:
        if self.config is None:
            raise RuntimeError("the weekly feature is not bound to a service (WeeklyContext.bind)")
        return self.config

    # --- deadlines ------------------------------------------------------------------------

    async def _loaded(self, uow: UnitOfWork, firing: Firing) -> _Loaded | None:
        match_id = firing.deadline.match_id
        if match_id is None:
            return None
        try:
            loaded = await _load(uow, self._config(), match_id)
        except OperationError:
            log.warning("deadline %s: match %s has no negotiation", firing.deadline.id, match_id)
            return None
        week = firing.deadline.payload.get("week") if firing.deadline.payload else None
        if week is not None and week != loaded.row.week:
            return None  # a deadline of an earlier week of a repeated final
        return loaded

    async def on_reply_reminder(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 5.7: the player still owes an answer 24 hours after the opponent's offer."""
        config = self._config()
        loaded = await self._loaded(uow, firing)
        if loaded is None or _is_decided(loaded.row):
            return
        n = loaded.negotiation
        for pending in awaiting_reply(n):
            if pending.player != firing.deadline.subject:
                continue
            if pending.since + config.rules.offers.reply_within != firing.deadline.due_at:
                continue  # answered since, and a newer offer awaits: its own reminder comes
            if not any(
                o.is_open(now=firing.now) for o in n.offers if o.number in pending.offer_numbers
            ):
                continue
            notice = reply_reminder(n, pending, now=firing.now)
            await _dm(
                uow,
                now=firing.now,
                to=pending.player,
                text=_with_note(notice.text, _late_note(firing)),
                key=f"deadline:{firing.deadline.id}",
            )

    async def on_offers_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 5.1, 5.5, 5.6 at Friday 23:59 UTC."""
        config = self._config()
        loaded = await self._loaded(uow, firing)
        if loaded is None:
            return
        row, n = loaded.row, loaded.negotiation
        if _is_decided(row) or n.ruling is not None:
            return
        verdict = assess_offer_deadline(n, now=firing.now, ruleset=config.rules)
        step = apply_verdict(n, verdict, now=firing.now)
        if step.events:
            after = step.negotiation
            assert after.ruling is not None
            data = {
                "verdict": verdict.kind.value,
                "at_fault": list(verdict.at_fault),
                "offers": {p: c for p, c in verdict.offers},
                "late_by_seconds": int(firing.late_by.total_seconds()),
            }
            event = await _append(
                uow,
                row,
                at=firing.now,
                actor="bot",
                kind="offers_verdict",
                data=data,
                via="deadline",
            )
            note = _late_note(firing)
            for notice in deadline_missed(after, after.ruling, now=firing.now):
                if notice.recipient is not None:
                    await _dm(
                        uow,
                        now=firing.now,
                        to=notice.recipient,
                        text=_with_note(notice.text, note),
                        key=f"step:{row.id}:{event.seq}:{notice.recipient}",
                    )
            await _alert(
                uow,
                config,
                now=firing.now,
                key=f"deadline:{firing.deadline.id}",
                alert=td_offers_verdict_alert(n, verdict),
                extra=note,
            )
            if after.ruling.tied:
                await _record_tied(uow, config, row, decided_by="forfeit", now=firing.now)
                for p in after.ruling.forfeits:
                    await record_forfeit(
                        uow,
                        config,
                        player=p,
                        match_id=row.id,
                        kind=ForfeitKind.GAME,
                        reason="offers",
                        now=firing.now,
                        actor="bot",
                        note="rules 5.6: fewer than the required offers by the deadline",
                    )
            n = after
        await replan_deadlines(uow, config, row, n, now=firing.now)

    async def on_weekend_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 5.8: both made their offers, nothing agreed: the TDs decide with one command."""
        config = self._config()
        loaded = await self._loaded(uow, firing)
        if loaded is None or _is_decided(loaded.row):
            return
        verdict = assess_weekend(loaded.negotiation, now=firing.now, ruleset=config.rules)
        if not verdict.needs_td:
            return
        base = td_weekend_alert(loaded.negotiation, verdict)
        history = tuple(e.line for e in await timeline(uow, loaded.row.id, audit=False))
        alert = TDAlert(
            base.match_id, base.what, (*base.evidence, "timeline:", *history), base.command
        )
        await _alert(
            uow,
            config,
            now=firing.now,
            key=f"deadline:{firing.deadline.id}",
            alert=alert,
            extra=_late_note(firing),
        )

    async def on_no_show(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 6.3 at the agreed time + 10 and + 20 minutes."""
        config = self._config()
        loaded = await self._loaded(uow, firing)
        if loaded is None or _is_decided(loaded.row):
            return
        row, n = loaded.row, loaded.negotiation
        if n.agreement is None or n.agreement.time.isoformat() != firing.deadline.subject:
            return  # the time moved since: the new time has its own checks
        scheduled = n.agreement.time
        started = await _games_started(uow, row, scheduled - config.rules.conduct.no_show_grace)
        seen: set[PlayerId] = set()
        for e in loaded.events:
            if e.kind == "no_show_check" and e.data.get("scheduled") == scheduled.isoformat():
                seen.update(PlayerId(p) for p in e.data.get("appeared", []))
        unavailable = ""
        if self.statuses is not None and not started:
            try:
                for status in await self.statuses(list(n.players)):
                    if status.online or status.playing:
                        seen.add(PlayerId(status.id))
            except Exception as e:  # Lichess down: the alert says so rather than guessing
                unavailable = (
                    f"Lichess statuses unavailable ({type(e).__name__}): 'seen' is from "
                    "earlier checks only."
                )
                log.warning("no-show check of match %s: statuses failed: %s", row.id, e)
        alert = assess_no_show(
            match_id=MatchId(row.id),
            players=n.players,
            scheduled=scheduled,
            now=firing.now,
            seen=seen,
            games_started=started,
            ruleset=config.rules,
        )
        if alert is None:
            return
        if (
            firing.deadline.kind == DeadlineKind.NO_SHOW_FIRST.value
            and alert.stage is NoShowStage.SECOND
        ):
            return  # fired so late that the second check covers it
        await self._record_no_show(uow, config, loaded, alert, firing, unavailable)

    async def _record_no_show(
        self,
        uow: UnitOfWork,
        config: Config,
        loaded: _Loaded,
        alert: NoShowAlert,
        firing: Firing,
        unavailable: str,
    ) -> None:
        row = loaded.row
        for e in loaded.events:
            if (
                e.kind == "no_show_check"
                and e.data.get("scheduled") == alert.scheduled.isoformat()
                and e.data.get("stage") == alert.stage.value
            ):
                return  # this check was recorded already: say nothing twice
        event = await _append(
            uow,
            row,
            at=firing.now,
            actor="bot",
            kind="no_show_check",
            via="deadline",
            data={
                "stage": alert.stage.value,
                "scheduled": alert.scheduled.isoformat(),
                "appeared": list(alert.appeared),
                "absent": list(alert.absent),
            },
        )
        note = _late_note(firing)
        extra = "\n".join(x for x in (unavailable, note) if x)
        await _alert(
            uow,
            config,
            now=firing.now,
            key=f"noshow:{row.id}:{alert.scheduled.isoformat()}:{alert.stage.value}",
            alert=td_no_show_alert(alert),
            extra=extra,
        )
        for notice in no_show_notice(alert, now=firing.now):
            if notice.recipient is not None:
                await _dm(
                    uow,
                    now=firing.now,
                    to=notice.recipient,
                    text=_with_note(notice.text, note),
                    key=f"step:{row.id}:{event.seq}:{notice.recipient}",
                )
        claim = alert.claim
        if claim is not None:
            await _append(
                uow,
                row,
                at=firing.now,
                actor="bot",
                kind="claim_right",
                via="deadline",
                data={
                    "claimant": claim.claimant,
                    "against": claim.against,
                    "reason": claim.reason.value,
                    "since": claim.since.isoformat(),
                },
            )

    async def on_completion_check(self, uow: UnitOfWork, firing: Firing) -> None:
        """Rules 4.5: every match must be completed by Monday 23:59 UTC."""
        config = self._config()
        loaded = await self._loaded(uow, firing)
        if loaded is None or _is_decided(loaded.row):
            return
        row = loaded.row
        state = await match_state(uow, row.id)
        agreed = loaded.negotiation.agreement
        alert = TDAlert(
            MatchId(row.id),
            f"{row.white_first} - {row.black_first} was not completed by "
            f"{label_time(loaded.negotiation.week.end)} (rules 4.5).",
            (
                f"score {state.score} after {len(state.games)} of {row.games} games",
                f"agreed time: {label_time(agreed.time) if agreed else 'none'}",
                *(e.line for e in (await timeline(uow, row.id, audit=False))[-10:]),
            ),
            f"acwc result record {row.id} --game N --result R --reason ... | "
            f"acwc claim decide {row.id} --winner USER --reason ...",
        )
        await _alert(
            uow,
            config,
            now=firing.now,
            key=f"deadline:{firing.deadline.id}",
            alert=alert,
            extra=_late_note(firing),
        )

    # --- games ----------------------------------------------------------------------------

    async def on_match_changed(
        self, uow: UnitOfWork, match_id: int, outcome: Outcome | None
    ) -> None:
        """After a counted game: pauses (rules 6.1, 6.2, 6.4), deadlines, and the result."""
        config = self._config()
        if self.now is None:
            raise RuntimeError("the weekly feature is not bound to a service (WeeklyContext.bind)")
        now = self.now()
        row = await uow.matches.get(match_id)
        if row is None or row.black_first is None:
            return
        try:
            loaded = await _load(uow, config, match_id)
        except OperationError:
            loaded = None
        if loaded is not None:
            await self._review_pauses(uow, config, loaded, now=now)
            await replan_deadlines(uow, config, row, loaded.negotiation, now=now)
        if outcome is not None and outcome.value in DECIDED:
            await announce_result(uow, config, row, now=now)

    async def _review_pauses(
        self, uow: UnitOfWork, config: Config, loaded: _Loaded, *, now: dt.datetime
    ) -> None:
        row = loaded.row
        games = await uow.games.for_match(row.id)
        review = review_pauses(
            _spans(games),
            _break_calls(loaded.events),
            match_id=MatchId(row.id),
            players=loaded.negotiation.players,
            conduct=config.rules.conduct,
        )
        rights, _ = _claim_rights(loaded.events)
        for violation in review.violations:
            pause = violation.pause
            await _alert(
                uow,
                config,
                now=now,
                key=f"pause:{row.id}:{row.week}:{pause.after_game}:{pause.kind.value}",
                alert=td_pause_alert(violation),
            )
            claim = violation.claim
            if claim is None or any(
                r.claimant == claim.claimant and r.reason is claim.reason for r in rights
            ):
                continue
            await _append(
                uow,
                row,
                at=now,
                actor="bot",
                kind="claim_right",
                via="games",
                data={
                    "claimant": claim.claimant,
                    "against": claim.against,
                    "reason": claim.reason.value,
                    "since": claim.since.isoformat(),
                },
            )
            rights.append(claim)
            await _dm(
                uow,
                now=now,
                to=claim.claimant,
                text=f"{violation.explanation} You may send `claim win` in your match room; the "
                "TDs decide (rules 6.1, 6.4).",
                key=f"pause-claim:{row.id}:{row.week}:{pause.after_game}:{claim.claimant}",
            )


def register(hooks: Hooks) -> WeeklyContext:
    """Deadline handlers and match hooks of the weekly flow; returns the context they share.

    The service binds the context when it starts (``hooks.service_start``); a test may bind it
    itself (``ctx.bind(config=..., now=clock.now, statuses=client.get_statuses)``).
    """
    ctx = WeeklyContext()
    handlers: dict[str, Callable[[UnitOfWork, Firing], Awaitable[None]]] = {
        DeadlineKind.REPLY_REMINDER.value: ctx.on_reply_reminder,
        DeadlineKind.OFFERS_CHECK.value: ctx.on_offers_check,
        DeadlineKind.WEEKEND_CHECK.value: ctx.on_weekend_check,
        DeadlineKind.NO_SHOW_FIRST.value: ctx.on_no_show,
        DeadlineKind.NO_SHOW_SECOND.value: ctx.on_no_show,
        DeadlineKind.COMPLETION_CHECK.value: ctx.on_completion_check,
    }
    ctx.handlers = handlers
    hooks.deadline_handlers.update(handlers)
    hooks.match_changed.append(ctx.on_match_changed)
    hooks.service_start.append(ctx.bind_service)
    return ctx
