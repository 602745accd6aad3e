"""The duty to offer (rules 5.1), the faults ruled on it (rules 5.5-5.9) and the replies a
player owes (rules 5.7), assessed on a :class:`rules.week.negotiation.Negotiation`.

The assessments are pure: :func:`assess_offer_deadline` says who met the duty by the offers
deadline and :func:`apply_verdict` turns that into the negotiation's ruling; :func:`assess_weekend`
says whether the TDs must decide (rules 5.8).
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, replace

from rules.core.model import PlayerId
from rules.core.ruleset import Ruleset
from rules.week.calendar import label_time
from rules.week.negotiation import (
    E,
    FaultRuled,
    Negotiation,
    NegotiationError,
    Phase,
    Ruling,
    RulingKind,
    StandingOffer,
    Step,
)

__all__ = [
    "PendingReply",
    "Verdict",
    "VerdictKind",
    "WeekendVerdict",
    "apply_verdict",
    "assess_offer_deadline",
    "assess_weekend",
    "awaiting_reply",
    "counts_towards_duty",
    "has_met_offer_duty",
    "offers_counted",
]


# --- the duty of rules 5.1 and the faults of 5.5-5.9 ----------------------------------------------


def counts_towards_duty(negotiation: Negotiation, offer: StandingOffer) -> bool:
    """Whether ``offer`` counts towards rules 5.1: made before the offers deadline had passed
    and not withdrawn before it."""
    close = negotiation.week.offers_close
    return offer.made_at < close and (offer.withdrawn_at is None or offer.withdrawn_at >= close)


def offers_counted(negotiation: Negotiation, player: PlayerId) -> int:
    """How many of ``player``'s offers count towards rules 5.1 (:func:`counts_towards_duty`)."""
    return sum(
        1 for o in negotiation.offers if o.by == player and counts_towards_duty(negotiation, o)
    )


def _agreed_in_time(negotiation: Negotiation) -> bool:
    agreement = negotiation.agreement
    return agreement is not None and agreement.at < negotiation.week.offers_close


def has_met_offer_duty(negotiation: Negotiation, player: PlayerId, *, ruleset: Ruleset) -> bool:
    """Rules 5.1: ``offers.required_offers`` counted offers, or an agreement before the deadline."""
    negotiation.opponent_of(player)  # raises for a player not in the match
    return (
        _agreed_in_time(negotiation)
        or offers_counted(negotiation, player) >= ruleset.offers.required_offers
    )


class VerdictKind(enum.Enum):
    AGREED = "agreed"  # a time was agreed before the deadline: the duty is moot
    NOBODY_AT_FAULT = "nobody_at_fault"
    PLAYER_AT_FAULT = "player_at_fault"  # rules 5.5
    BOTH_AT_FAULT = "both_at_fault"  # rules 5.6


@dataclass(frozen=True, slots=True)
class Verdict:
    """The offers check at the Friday deadline. ``offers`` is each player's counted offers."""

    kind: VerdictKind
    at_fault: tuple[PlayerId, ...]
    offers: tuple[tuple[PlayerId, int], ...]
    chooser: PlayerId | None = None


def assess_offer_deadline(
    negotiation: Negotiation, *, now: dt.datetime, ruleset: Ruleset
) -> Verdict:
    """Who met the duty of rules 5.1 (rules 5.5, 5.6). Pure: apply it with :func:`apply_verdict`.

    Raises :class:`NegotiationError` ``TOO_EARLY`` before the deadline has passed.
    """
    close = negotiation.week.offers_close
    if now < close:
        raise NegotiationError(
            E.TOO_EARLY,
            f"The offers deadline ({label_time(negotiation.week.offer_deadline)}) has not passed.",
        )
    counts = tuple((p, offers_counted(negotiation, p)) for p in negotiation.players)
    if _agreed_in_time(negotiation):
        return Verdict(VerdictKind.AGREED, (), counts)
    at_fault = tuple(p for p, n in counts if n < ruleset.offers.required_offers)
    if not at_fault:
        return Verdict(VerdictKind.NOBODY_AT_FAULT, (), counts)
    if len(at_fault) == 2:
        return Verdict(VerdictKind.BOTH_AT_FAULT, at_fault, counts)
    chooser = negotiation.opponent_of(at_fault[0])
    return Verdict(VerdictKind.PLAYER_AT_FAULT, at_fault, counts, chooser)


def apply_verdict(negotiation: Negotiation, verdict: Verdict, *, now: dt.datetime) -> Step:
    """Record the offers-check verdict.

    One player at fault: the opponent chooses the time (rules 5.5). Both at fault: a tied match
    and a forfeit for each (rules 5.6). Nobody at fault or already agreed: nothing changes (but a
    time agreed after the deadline still stands, and then a fault is not recorded either: the
    match is scheduled, which is what the rule is for). Raises ``ALREADY_RULED`` on a second ruling.
    """
    if verdict.kind in (VerdictKind.AGREED, VerdictKind.NOBODY_AT_FAULT):
        return Step(negotiation, ())
    if negotiation.ruling is not None:
        raise NegotiationError(E.ALREADY_RULED, "The negotiation has already been ruled on.")
    if negotiation.agreement is not None:
        return Step(negotiation, ())
    if verdict.kind is VerdictKind.BOTH_AT_FAULT:
        ruling = Ruling(
            RulingKind.OFFERS_BOTH_AT_FAULT,
            now,
            at_fault=verdict.at_fault,
            tied=True,
            forfeits=verdict.at_fault,
        )
    else:
        ruling = Ruling(
            RulingKind.OFFERS_ONE_AT_FAULT, now, at_fault=verdict.at_fault, chooser=verdict.chooser
        )
    return Step(
        replace(negotiation, ruling=ruling, change=None),
        (FaultRuled(negotiation.match_id, ruling),),
    )


@dataclass(frozen=True, slots=True)
class WeekendVerdict:
    """Rules 5.8: both players made their offers but nothing was agreed before the weekend."""

    needs_td: bool
    offers: tuple[tuple[PlayerId, int], ...]


def assess_weekend(
    negotiation: Negotiation, *, now: dt.datetime, ruleset: Ruleset
) -> WeekendVerdict:
    """Whether the TDs must decide who is at fault (rules 5.8).

    The weekend begins when the offers deadline has passed (Saturday 00:00 UTC). Raises
    ``TOO_EARLY`` before then.
    """
    if now < negotiation.week.offers_close:
        raise NegotiationError(E.TOO_EARLY, "The weekend has not begun.")
    counts = tuple((p, offers_counted(negotiation, p)) for p in negotiation.players)
    both_offered = all(n >= ruleset.offers.required_offers for _, n in counts)
    needs = both_offered and negotiation.phase is Phase.OPEN
    return WeekendVerdict(needs, counts)


# --- replies (rules 5.7) -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PendingReply:
    """``player`` owes a reply to the opponent's offers made since ``since`` (rules 5.7)."""

    player: PlayerId
    since: dt.datetime
    offer_numbers: tuple[int, ...]


def awaiting_reply(negotiation: Negotiation) -> tuple[PendingReply, ...]:
    """Who has not answered the opponent's latest offers, while the negotiation is open.

    An answer is making an offer (rules 5.7: "making a different offer") or accepting. Offers
    withdrawn meanwhile need no answer. Independent of the clock so a deadline plan is stable; the
    reminder checks :meth:`StandingOffer.is_open` when it fires.
    """
    if negotiation.phase is not Phase.OPEN:
        return ()
    out: list[PendingReply] = []
    for player in negotiation.players:
        opponent = negotiation.opponent_of(player)
        answered = max(
            (o.made_at for o in negotiation.offers if o.by == player),
            default=None,
        )
        pending = tuple(
            o for o in negotiation.offers_by(opponent) if answered is None or o.made_at > answered
        )
        if pending:
            out.append(
                PendingReply(
                    player,
                    min(o.made_at for o in pending),
                    tuple(sorted(o.number for o in pending)),
                )
            )
    return tuple(out)
