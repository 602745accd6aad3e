"""A match's event log read back as rules values: the negotiation replayed from it (rules 5).

``match_events`` stores each accepted step as its inputs (kind, actor, time, data). Every step,
live or replayed, goes through :func:`apply_step`: the same pure function of
:mod:`rules.week.negotiation` either way, so the stored history and the state derived from it
can never disagree. Conduct facts (breaks, no-show checks, claim rights, claims) are events of
the same log, read back by :func:`claim_rights` and :func:`break_calls`.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable, Sequence
from typing import Any

from rules.core.model import GameId, GameStatus, MatchId, PlayerId
from rules.core.ruleset import Ruleset
from rules.week.calendar import MatchWeek
from rules.week.conduct import BreakCall, ClaimReason, ClaimRight, GameSpan
from rules.week.faults import apply_verdict, assess_offer_deadline
from rules.week.negotiation import (
    Negotiation,
    Step,
    accept_change,
    accept_offer,
    choose_time,
    decline_change,
    make_offers,
    propose_change,
    start_negotiation,
    td_decide,
    withdraw_offer,
)
from storage.models import GameRow
from storage.models_weekly import MatchEventRow

__all__ = [
    "NEGOTIATION_KINDS",
    "WEEK_STARTED",
    "LogKind",
    "apply_step",
    "break_calls",
    "claim_rights",
    "event_time",
    "game_spans",
    "replay",
]


class LogKind(enum.StrEnum):
    """What one event of a match's log records (``match_events.kind``)."""

    WEEK_STARTED = "week_started"
    # steps of the negotiation (rules 5), replayed by :func:`replay`
    OFFER = "offer"
    ACCEPT = "accept"
    WITHDRAW = "withdraw"
    CHANGE = "change"
    ACCEPT_CHANGE = "accept_change"
    DECLINE_CHANGE = "decline_change"
    CHOOSE = "choose"
    OFFERS_VERDICT = "offers_verdict"
    TD_DECISION = "td_decision"
    # conduct (rules 6)
    BREAK = "break"
    NO_SHOW_CHECK = "no_show_check"
    CLAIM_RIGHT = "claim_right"
    CLAIM = "claim"
    CLAIM_DECIDED = "claim_decided"


WEEK_STARTED = LogKind.WEEK_STARTED
NEGOTIATION_KINDS = frozenset(
    {
        LogKind.OFFER,
        LogKind.ACCEPT,
        LogKind.WITHDRAW,
        LogKind.CHANGE,
        LogKind.ACCEPT_CHANGE,
        LogKind.DECLINE_CHANGE,
        LogKind.CHOOSE,
        LogKind.OFFERS_VERDICT,
        LogKind.TD_DECISION,
    }
)
"""Event kinds that are steps of the negotiation (replayed by :func:`replay`)."""


def event_time(value: Any) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(str(value))
    if parsed.tzinfo is None:
        raise ValueError(f"naive time {value!r} in the event log")
    return parsed.astimezone(dt.UTC)


def _week_from(data: dict[str, Any]) -> MatchWeek:
    return MatchWeek(
        start=event_time(data["start"]),
        end=event_time(data["end"]),
        offer_deadline=event_time(data["offer_deadline"]),
    )


def apply_step(
    negotiation: Negotiation,
    kind: str,
    actor: str,
    at: dt.datetime,
    data: dict[str, Any],
    ruleset: Ruleset,
) -> Step:
    """One negotiation step, live or replayed: the same pure function either way."""
    player = PlayerId(actor)
    if kind == LogKind.OFFER:
        times = [event_time(t) for t in data["times"]]
        return make_offers(negotiation, times, player=player, now=at, ruleset=ruleset)
    if kind == LogKind.ACCEPT:
        number = data.get("number")
        time = event_time(data["time"]) if data.get("time") else None
        return accept_offer(negotiation, player=player, now=at, number=number, time=time)
    if kind == LogKind.WITHDRAW:
        return withdraw_offer(negotiation, int(data["number"]), player=player, now=at)
    if kind == LogKind.CHANGE:
        return propose_change(
            negotiation, event_time(data["time"]), player=player, now=at, ruleset=ruleset
        )
    if kind == LogKind.ACCEPT_CHANGE:
        return accept_change(negotiation, player=player, now=at)
    if kind == LogKind.DECLINE_CHANGE:
        return decline_change(negotiation, player=player, now=at)
    if kind == LogKind.CHOOSE:
        return choose_time(negotiation, player, event_time(data["time"]), now=at, ruleset=ruleset)
    if kind == LogKind.OFFERS_VERDICT:
        verdict = assess_offer_deadline(negotiation, now=at, ruleset=ruleset)
        return apply_verdict(negotiation, verdict, now=at)
    if kind == LogKind.TD_DECISION:
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
            negotiation = apply_step(
                negotiation, event.kind, event.actor, event.at, event.data, ruleset
            ).negotiation
    if negotiation is None:
        raise LookupError("the pairing of this match is not published yet")
    return negotiation


def claim_rights(events: Sequence[MatchEventRow]) -> tuple[list[ClaimRight], set[str]]:
    """Open claim rights (not yet decided) and the claimants who have claimed."""
    rights: list[ClaimRight] = []
    claimed: set[str] = set()
    for e in events:
        if e.kind == LogKind.CLAIM_RIGHT:
            rights.append(
                ClaimRight(
                    MatchId(e.match_id),
                    PlayerId(e.data["claimant"]),
                    PlayerId(e.data["against"]),
                    ClaimReason(e.data["reason"]),
                    event_time(e.data["since"]),
                )
            )
        elif e.kind == LogKind.CLAIM:
            claimed.add(e.actor)
        elif e.kind == LogKind.CLAIM_DECIDED:
            rights, claimed = [], set()
    return rights, claimed


def break_calls(events: Sequence[MatchEventRow]) -> list[BreakCall]:
    return [BreakCall(PlayerId(e.actor), e.at) for e in events if e.kind == LogKind.BREAK]


def game_spans(games: Sequence[GameRow]) -> list[GameSpan]:
    """Finished counted games; a game lost on ``timeout`` was left by the loser (rules 6.4)."""
    out = []
    for g in games:
        if not g.counted or g.last_move_at is None:
            continue
        left_by = None
        if g.status is GameStatus.TIMEOUT and g.winner in ("w", "b"):
            left_by = PlayerId(g.black if g.winner == "w" else g.white)
        out.append(GameSpan(GameId(g.id), g.created_at, g.last_move_at, left_by))
    return out
