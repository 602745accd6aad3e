"""Scheduling one match: offers, acceptance, the Friday duty and its faults (rules 5).

A :class:`Negotiation` is an immutable value. Every action returns a :class:`Step`: the new
negotiation and the events it caused (for the timeline, the audit log and the notices). A request
the regulations do not allow raises :class:`NegotiationError` and changes nothing.

Decisions where the regulations leave room:

* Offers are numbered per match, 1, 2, 3..., for both players together, as ``status`` lists them;
  a number never changes, even after a withdrawal.
* Rules 5.4 (3 hours apart, at most 2 on one UTC date, no duplicates) applies to all of a player's
  offers that are not withdrawn, including ones whose time has passed: they were offered.
* An offer counts towards the duty of rules 5.1 when it was made before the offers deadline had
  passed (Friday 23:59 UTC, the whole minute included) and was not withdrawn before then. Offers
  made later are still allowed, so that the players can still agree, but do not count.
* Rules 5.1 "unless an offer has been accepted": any agreement reached before the deadline (an offer
  of either player accepted) discharges both players' duty.
* An offer for the very time the opponent offered is refused with advice to accept that offer,
  so that agreement is always an explicit act.
* After a player is ruled at fault (rules 5.5, 5.9) only their opponent fixes the time: with
  :func:`choose_time`, or by accepting one of the offers on the table.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from rules.core.errors import RulesError, Value, refusal
from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import Ruleset
from rules.core.words import N_, Words
from rules.week.calendar import MatchWeek, label_day, label_duration, label_time

__all__ = [
    "Agreement",
    "AgreementKind",
    "ChangeDeclined",
    "ChangeProposal",
    "ChangeProposed",
    "Event",
    "FaultRuled",
    "Negotiation",
    "NegotiationError",
    "NegotiationErrorReason",
    "OfferMade",
    "OfferWithdrawn",
    "Phase",
    "Ruling",
    "RulingKind",
    "StandingOffer",
    "Step",
    "TimeAgreed",
    "accept_change",
    "accept_offer",
    "choose_time",
    "decline_change",
    "make_offers",
    "propose_change",
    "start_negotiation",
    "td_decide",
    "validate_offer",
    "withdraw_offer",
]


class NegotiationErrorReason(enum.Enum):
    NOT_A_PLAYER = "not_a_player"
    NOT_UTC = "not_utc"
    NOT_WHOLE_MINUTE = "not_whole_minute"
    OUTSIDE_WEEK = "outside_week"  # rules 4.5
    IN_THE_PAST = "in_the_past"
    DUPLICATE = "duplicate"  # rules 5.4: separate offers
    TOO_CLOSE = "too_close"  # rules 5.4: no closer than 3 hours
    DATE_FULL = "date_full"  # rules 5.4: no more than 2 on a single date
    OPPONENTS_TIME = "opponents_time"
    ALREADY_AGREED = "already_agreed"  # rules 5.2: the agreed time stands
    MATCH_RULED = "match_ruled"  # rules 5.6, 5.9: the match was ruled a tied match
    CHOOSER_DECIDES = "chooser_decides"  # rules 5.5, 5.9
    NOT_CHOOSER = "not_chooser"
    NO_SUCH_OFFER = "no_such_offer"
    OWN_OFFER = "own_offer"
    OFFER_WITHDRAWN = "offer_withdrawn"
    OFFER_PASSED = "offer_passed"
    NOT_AGREED = "not_agreed"
    SAME_TIME = "same_time"
    CHANGE_PENDING = "change_pending"
    NO_CHANGE = "no_change"
    OWN_PROPOSAL = "own_proposal"
    TOO_EARLY = "too_early"
    ALREADY_RULED = "already_ruled"


class NegotiationError(RulesError):
    """A scheduling request that rules 5 do not allow; ``reason`` says which."""

    reason: NegotiationErrorReason


def _no(reason: NegotiationErrorReason, template: str, **values: Value) -> RulesError:
    """The refusal ``template`` (marked with ``N_``), in English and in a reader's words."""
    return refusal(NegotiationError, reason, template, **values)


def _at(when: dt.datetime) -> Callable[[Words], str]:
    return lambda words: label_time(when, words)


def _lasting(delta: dt.timedelta) -> Callable[[Words], str]:
    return lambda words: label_duration(delta, words)


def _on(when: dt.datetime) -> Callable[[Words], str]:
    """``Thu 14 Oct``, in the reader's words."""
    return lambda words: label_day(when.date(), words)


def _your_offer(number: int) -> Callable[[Words], str]:
    return lambda words: words.gettext("your offer %(number)s") % {"number": number}


def _in_this_message(words: Words) -> str:
    return words.gettext("another time in this message")


E = NegotiationErrorReason


# --- values --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StandingOffer:
    """One offered start time. ``number`` is its number in ``status`` (1-based, per match)."""

    number: int
    by: PlayerId
    time: dt.datetime
    made_at: dt.datetime
    withdrawn_at: dt.datetime | None = None

    @property
    def is_withdrawn(self) -> bool:
        return self.withdrawn_at is not None

    def is_open(self, *, now: dt.datetime) -> bool:
        """Not withdrawn and still in the future: the opponent may accept it."""
        return self.withdrawn_at is None and self.time > now


class AgreementKind(enum.Enum):
    ACCEPTED = "accepted"  # rules 5.7: an offer accepted
    CHOSEN = "chosen"  # rules 5.5, 5.9: the opponent of the player at fault chose
    CHANGED = "changed"  # both players agreed to move the agreed time


@dataclass(frozen=True, slots=True)
class Agreement:
    """The agreed start time; ``by`` is who accepted (or chose) it."""

    time: dt.datetime
    at: dt.datetime
    kind: AgreementKind
    by: PlayerId
    offer_number: int | None = None


@dataclass(frozen=True, slots=True)
class ChangeProposal:
    """A request to move the agreed time; it moves only when the opponent accepts."""

    by: PlayerId
    time: dt.datetime
    at: dt.datetime


class RulingKind(enum.Enum):
    OFFERS_ONE_AT_FAULT = "offers_one_at_fault"  # rules 5.5
    OFFERS_BOTH_AT_FAULT = "offers_both_at_fault"  # rules 5.6
    TD_PLAYER_AT_FAULT = "td_player_at_fault"  # rules 5.8, 5.9
    TD_NOBODY_AT_FAULT = "td_nobody_at_fault"  # rules 5.9


@dataclass(frozen=True, slots=True)
class Ruling:
    """A fault ruling on the negotiation.

    ``chooser`` picks the time (the opponent of the player at fault); ``tied`` means the match is
    recorded as a tied match without being played; ``forfeits`` are the players charged with a
    forfeit (rules 5.6; they count towards rules 6.5).
    """

    kind: RulingKind
    at: dt.datetime
    at_fault: tuple[PlayerId, ...] = ()
    chooser: PlayerId | None = None
    tied: bool = False
    forfeits: tuple[PlayerId, ...] = ()


class Phase(enum.Enum):
    OPEN = "open"  # offers go back and forth
    AGREED = "agreed"
    AWAITING_CHOICE = "awaiting_choice"  # a player is at fault; the opponent picks the time
    TIED = "tied"  # ruled a tied match (rules 5.6, 5.9)


@dataclass(frozen=True, slots=True)
class Negotiation:
    """The scheduling state of one match of one week."""

    match_id: MatchId
    players: tuple[PlayerId, PlayerId]
    week: MatchWeek
    offers: tuple[StandingOffer, ...] = ()
    agreement: Agreement | None = None
    change: ChangeProposal | None = None
    ruling: Ruling | None = None

    @property
    def phase(self) -> Phase:
        if self.agreement is not None:
            return Phase.AGREED
        if self.ruling is not None and self.ruling.tied:
            return Phase.TIED
        if self.ruling is not None and self.ruling.chooser is not None:
            return Phase.AWAITING_CHOICE
        return Phase.OPEN

    def opponent_of(self, player: PlayerId) -> PlayerId:
        first, second = self.players
        if player == first:
            return second
        if player == second:
            return first
        raise _no(
            E.NOT_A_PLAYER,
            N_("%(player)s does not play match %(match)s."),
            player=player,
            match=self.match_id,
        )

    def offers_by(self, player: PlayerId) -> tuple[StandingOffer, ...]:
        """``player``'s offers that are not withdrawn, in the order made."""
        return tuple(o for o in self.offers if o.by == player and not o.is_withdrawn)

    def offer(self, number: int) -> StandingOffer:
        for offer in self.offers:
            if offer.number == number:
                return offer
        raise _no(
            E.NO_SUCH_OFFER,
            N_("There is no offer %(number)s; `status` lists the offers."),
            number=number,
        )


# --- events --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OfferMade:
    match_id: MatchId
    by: PlayerId
    number: int
    time: dt.datetime
    at: dt.datetime
    counts: bool  # made in time to count towards the duty of rules 5.1


@dataclass(frozen=True, slots=True)
class OfferWithdrawn:
    match_id: MatchId
    by: PlayerId
    number: int
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class TimeAgreed:
    match_id: MatchId
    agreement: Agreement
    previous: dt.datetime | None = None  # the time it replaces, after a change


@dataclass(frozen=True, slots=True)
class ChangeProposed:
    match_id: MatchId
    proposal: ChangeProposal


@dataclass(frozen=True, slots=True)
class ChangeDeclined:
    match_id: MatchId
    by: PlayerId
    proposal: ChangeProposal
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class FaultRuled:
    match_id: MatchId
    ruling: Ruling


Event = OfferMade | OfferWithdrawn | TimeAgreed | ChangeProposed | ChangeDeclined | FaultRuled


class Step(NamedTuple):
    """The result of an action: the new negotiation and what happened."""

    negotiation: Negotiation
    events: tuple[Event, ...]


# --- helpers -------------------------------------------------------------------------------------


def start_negotiation(
    match_id: MatchId, players: tuple[PlayerId, PlayerId], week: MatchWeek
) -> Negotiation:
    """A new negotiation, open from the publication of the pairing (rules 5.2)."""
    if players[0] == players[1]:
        raise ValueError("a match needs two different players")
    return Negotiation(match_id=match_id, players=players, week=week)


def _check_player(negotiation: Negotiation, player: PlayerId) -> PlayerId:
    return negotiation.opponent_of(player)


def _check_time(negotiation: Negotiation, when: dt.datetime, *, now: dt.datetime) -> None:
    """Inside the match week and in the future (rules 4.5)."""
    if when.tzinfo is None or when.utcoffset() != dt.timedelta(0):
        raise _no(E.NOT_UTC, N_("Times must be given in UTC (rules 5.3)."))
    if when.second or when.microsecond:
        raise _no(E.NOT_WHOLE_MINUTE, N_("Times are given to the minute, e.g. 18:00."))
    week = negotiation.week
    if not week.contains(when):
        raise _no(
            E.OUTSIDE_WEEK,
            N_(
                "%(time)s is outside this match week, which runs from %(start)s to %(end)s "
                "(rules 4.5)."
            ),
            time=_at(when),
            start=_at(week.start),
            end=_at(week.end),
        )
    if when <= now:
        raise _no(
            E.IN_THE_PAST,
            N_("%(time)s has already passed; offer a time in the future."),
            time=_at(when),
        )


def _open_phase(negotiation: Negotiation, player: PlayerId, *, accepting: bool = False) -> None:
    phase = negotiation.phase
    if phase is Phase.AGREED:
        assert negotiation.agreement is not None
        raise _no(
            E.ALREADY_AGREED,
            N_(
                "The match is agreed for %(time)s; it changes only if both players agree: send "
                "`change <time>` to ask."
            ),
            time=_at(negotiation.agreement.time),
        )
    if phase is Phase.TIED:
        raise _no(
            E.MATCH_RULED,
            N_("This match has been ruled a tied match; nothing is left to schedule."),
        )
    if phase is Phase.AWAITING_CHOICE:
        assert negotiation.ruling is not None
        chooser = negotiation.ruling.chooser
        if not (accepting and player == chooser):
            if player == chooser:
                raise _no(
                    E.CHOOSER_DECIDES,
                    N_(
                        "%(chooser)s chooses the match time now (rules 5.5, 5.9): send "
                        "`choose <time>`."
                    ),
                    chooser=chooser,
                )
            raise _no(
                E.CHOOSER_DECIDES,
                N_("%(chooser)s chooses the match time now (rules 5.5, 5.9)."),
                chooser=chooser,
            )


def validate_offer(
    offer_time: dt.datetime,
    negotiation: Negotiation,
    *,
    player: PlayerId,
    now: dt.datetime,
    ruleset: Ruleset,
    also: Sequence[dt.datetime] = (),
) -> None:
    """Check one offered time against rules 4.5 and 5.4; returns nothing, raises if refused.

    ``also`` lists times offered earlier in the same command, checked as if already made.
    Raises :class:`NegotiationError` with ``OUTSIDE_WEEK``, ``IN_THE_PAST``, ``DUPLICATE``,
    ``OPPONENTS_TIME``, ``TOO_CLOSE`` (closer than ``offers.min_gap`` to another of the player's
    offers; exactly the gap is allowed), ``DATE_FULL`` (already ``offers.max_per_date`` on that UTC
    date), or a phase reason (``ALREADY_AGREED``, ``MATCH_RULED``, ``CHOOSER_DECIDES``).
    """
    rules = ruleset.offers
    opponent = _check_player(negotiation, player)
    _open_phase(negotiation, player)
    _check_time(negotiation, offer_time, now=now)
    own: list[tuple[Value, dt.datetime]] = [
        (_your_offer(o.number), o.time) for o in negotiation.offers_by(player)
    ]
    own.extend((_in_this_message, t) for t in also)
    for name, time in own:
        if time == offer_time:
            raise _no(
                E.DUPLICATE,
                N_(
                    "You already offered %(time)s (%(name)s); each offer must be a separate time "
                    "(rules 5.4)."
                ),
                time=_at(offer_time),
                name=name,
            )
    for theirs in negotiation.offers_by(opponent):
        if theirs.time == offer_time:
            raise _no(
                E.OPPONENTS_TIME,
                N_(
                    "%(opponent)s offered %(time)s (offer %(number)s): send `accept %(number)s` "
                    "to agree to it."
                ),
                opponent=opponent,
                time=_at(offer_time),
                number=theirs.number,
            )
    for name, time in own:
        gap = abs(time - offer_time)
        if gap < rules.min_gap:
            raise _no(
                E.TOO_CLOSE,
                N_(
                    "%(time)s is only %(gap)s from %(name)s (%(other)s); offers must be at least "
                    "%(min_gap)s apart (rules 5.4)."
                ),
                time=_at(offer_time),
                gap=_lasting(gap),
                name=name,
                other=_at(time),
                min_gap=_lasting(rules.min_gap),
            )
    same_date = [t for _, t in own if t.date() == offer_time.date()]
    if len(same_date) >= rules.max_per_date:
        raise _no(
            E.DATE_FULL,
            N_(
                "You already offered %(count)s times on %(date)s; at most %(limit)s offers may be "
                "on one date (rules 5.4). Pick another day."
            ),
            count=len(same_date),
            date=_on(offer_time),
            limit=rules.max_per_date,
        )


def make_offers(
    negotiation: Negotiation,
    times: Sequence[dt.datetime],
    *,
    player: PlayerId,
    now: dt.datetime,
    ruleset: Ruleset,
) -> Step:
    """Record ``player``'s offers (rules 5.1, 5.4); all of them or, if one is refused, none.

    Making an offer also answers the opponent's pending offers (rules 5.7). Raises
    :class:`NegotiationError` as :func:`validate_offer`.
    """
    if not times:
        raise ValueError("an offer needs at least one time")
    for i, time in enumerate(times):
        validate_offer(
            time, negotiation, player=player, now=now, ruleset=ruleset, also=tuple(times[:i])
        )
    counts = now < negotiation.week.offers_close
    number = max((o.number for o in negotiation.offers), default=0)
    new: list[StandingOffer] = []
    events: list[Event] = []
    for time in times:
        number += 1
        new.append(StandingOffer(number=number, by=player, time=time, made_at=now))
        events.append(OfferMade(negotiation.match_id, player, number, time, now, counts))
    return Step(replace(negotiation, offers=negotiation.offers + tuple(new)), tuple(events))


def _find_offer(
    negotiation: Negotiation, *, player: PlayerId, number: int | None, time: dt.datetime | None
) -> StandingOffer:
    opponent = negotiation.opponent_of(player)
    if number is not None:
        return negotiation.offer(number)
    for offer in negotiation.offers_by(opponent):
        if offer.time == time:
            return offer
    assert time is not None
    raise _no(
        E.NO_SUCH_OFFER,
        N_(
            "%(opponent)s has not offered %(time)s; `status` lists the offers, or make it your "
            "offer."
        ),
        opponent=opponent,
        time=_at(time),
    )


def accept_offer(
    negotiation: Negotiation,
    *,
    player: PlayerId,
    now: dt.datetime,
    number: int | None = None,
    time: dt.datetime | None = None,
) -> Step:
    """``player`` accepts one of the opponent's offers, by number or by time (rules 5.7).

    After a fault ruling the chooser may accept an offer on the table as their choice. Raises
    :class:`NegotiationError` (``NO_SUCH_OFFER``, ``OWN_OFFER``, ``OFFER_WITHDRAWN``,
    ``OFFER_PASSED`` or a phase reason).
    """
    if (number is None) == (time is None):
        raise ValueError("give exactly one of number and time")
    _check_player(negotiation, player)
    _open_phase(negotiation, player, accepting=True)
    offer = _find_offer(negotiation, player=player, number=number, time=time)
    if offer.by == player:
        raise _no(
            E.OWN_OFFER,
            N_("Offer %(number)s is your own; your opponent accepts it, or you withdraw it."),
            number=offer.number,
        )
    if offer.is_withdrawn:
        raise _no(E.OFFER_WITHDRAWN, N_("Offer %(number)s was withdrawn."), number=offer.number)
    if offer.time <= now:
        raise _no(
            E.OFFER_PASSED,
            N_("Offer %(number)s (%(time)s) has already passed."),
            number=offer.number,
            time=_at(offer.time),
        )
    kind = (
        AgreementKind.CHOSEN
        if negotiation.phase is Phase.AWAITING_CHOICE
        else AgreementKind.ACCEPTED
    )
    agreement = Agreement(offer.time, now, kind, player, offer.number)
    return Step(
        replace(negotiation, agreement=agreement, change=None),
        (TimeAgreed(negotiation.match_id, agreement),),
    )


def withdraw_offer(
    negotiation: Negotiation, number: int, *, player: PlayerId, now: dt.datetime
) -> Step:
    """``player`` takes back their own open offer ``number``.

    A withdrawn offer stops counting towards the duty of rules 5.1 if withdrawn before the
    deadline. Raises :class:`NegotiationError`.
    """
    _check_player(negotiation, player)
    offer = negotiation.offer(number)
    if offer.by != player:
        raise _no(E.NO_SUCH_OFFER, N_("Offer %(number)s is not yours to withdraw."), number=number)
    if offer.is_withdrawn:
        raise _no(E.OFFER_WITHDRAWN, N_("Offer %(number)s is already withdrawn."), number=number)
    if negotiation.phase is Phase.AGREED:
        raise _no(
            E.ALREADY_AGREED, N_("The match time is agreed; offers can no longer be withdrawn.")
        )
    offers = tuple(
        replace(o, withdrawn_at=now) if o.number == number else o for o in negotiation.offers
    )
    return Step(
        replace(negotiation, offers=offers),
        (OfferWithdrawn(negotiation.match_id, player, number, now),),
    )


# --- changing an agreed time ---------------------------------------------------------------------


def propose_change(
    negotiation: Negotiation,
    time: dt.datetime,
    *,
    player: PlayerId,
    now: dt.datetime,
    ruleset: Ruleset,
) -> Step:
    """Ask to move the agreed time; it stays until the opponent accepts (rules 5.2).

    A player's new proposal replaces their own pending one. Raises :class:`NegotiationError`
    (``NOT_AGREED``, ``SAME_TIME``, ``CHANGE_PENDING``, ``OUTSIDE_WEEK``, ``IN_THE_PAST``).
    """
    del ruleset  # part of the uniform signature; no offer limits apply to a change
    opponent = _check_player(negotiation, player)
    agreement = negotiation.agreement
    if agreement is None:
        raise _no(E.NOT_AGREED, N_("No time is agreed yet; make an offer instead."))
    _check_time(negotiation, time, now=now)
    if time == agreement.time:
        raise _no(E.SAME_TIME, N_("The match is already at %(time)s."), time=_at(time))
    if negotiation.change is not None and negotiation.change.by == opponent:
        raise _no(
            E.CHANGE_PENDING,
            N_(
                "%(opponent)s asked to move the match to %(time)s; answer with `accept change` "
                "or `decline change` first."
            ),
            opponent=opponent,
            time=_at(negotiation.change.time),
        )
    proposal = ChangeProposal(player, time, now)
    return Step(
        replace(negotiation, change=proposal),
        (ChangeProposed(negotiation.match_id, proposal),),
    )


def accept_change(negotiation: Negotiation, *, player: PlayerId, now: dt.datetime) -> Step:
    """The opponent of the proposer agrees: the match moves to the proposed time."""
    _check_player(negotiation, player)
    proposal = negotiation.change
    if proposal is None or negotiation.agreement is None:
        raise _no(E.NO_CHANGE, N_("Nobody has asked to change the match time."))
    if proposal.by == player:
        raise _no(E.OWN_PROPOSAL, N_("Your opponent must accept your change, not you."))
    if proposal.time <= now:
        raise _no(
            E.OFFER_PASSED,
            N_("The proposed time %(time)s has already passed."),
            time=_at(proposal.time),
        )
    agreement = Agreement(proposal.time, now, AgreementKind.CHANGED, player)
    previous = negotiation.agreement.time
    return Step(
        replace(negotiation, agreement=agreement, change=None),
        (TimeAgreed(negotiation.match_id, agreement, previous=previous),),
    )


def decline_change(negotiation: Negotiation, *, player: PlayerId, now: dt.datetime) -> Step:
    """The opponent declines a proposed change, or the proposer withdraws it; the time stays."""
    _check_player(negotiation, player)
    proposal = negotiation.change
    if proposal is None:
        raise _no(E.NO_CHANGE, N_("Nobody has asked to change the match time."))
    return Step(
        replace(negotiation, change=None),
        (ChangeDeclined(negotiation.match_id, player, proposal, now),),
    )


def choose_time(
    negotiation: Negotiation,
    chooser: PlayerId,
    time: dt.datetime,
    *,
    now: dt.datetime,
    ruleset: Ruleset,
) -> Step:
    """The opponent of the player at fault fixes the time (rules 5.5, 5.9).

    The time must be inside the match week and in the future; the spacing rules of 5.4 do not
    apply to a choice. Raises :class:`NegotiationError` (``NOT_CHOOSER``, ``OUTSIDE_WEEK``,
    ``IN_THE_PAST``, or a phase reason).
    """
    del ruleset  # uniform signature
    _check_player(negotiation, chooser)
    if negotiation.phase is not Phase.AWAITING_CHOICE:
        _open_phase(negotiation, chooser)
        raise _no(E.NOT_CHOOSER, N_("Nobody has been ruled at fault; agree on a time by offers."))
    assert negotiation.ruling is not None
    if negotiation.ruling.chooser != chooser:
        raise _no(
            E.NOT_CHOOSER,
            N_("%(chooser)s chooses the match time (rules 5.5, 5.9), not you."),
            chooser=negotiation.ruling.chooser,
        )
    _check_time(negotiation, time, now=now)
    agreement = Agreement(time, now, AgreementKind.CHOSEN, chooser)
    return Step(
        replace(negotiation, agreement=agreement), (TimeAgreed(negotiation.match_id, agreement),)
    )


def td_decide(negotiation: Negotiation, at_fault: PlayerId | None, *, now: dt.datetime) -> Step:
    """The TDs rule on a negotiation without agreement (rules 5.8-5.10).

    A player at fault: their opponent chooses the time. Nobody at fault: a tied match, with no
    forfeit. Replaces an earlier fault ruling (rules 5.10: the TDs have the last word); refuses
    when a time is agreed (``ALREADY_AGREED``).
    """
    if negotiation.agreement is not None:
        raise NegotiationError(
            E.ALREADY_AGREED,
            f"The match is agreed for {label_time(negotiation.agreement.time)}; nothing to decide.",
        )
    if at_fault is None:
        ruling = Ruling(RulingKind.TD_NOBODY_AT_FAULT, now, tied=True)
    else:
        chooser = negotiation.opponent_of(at_fault)
        ruling = Ruling(RulingKind.TD_PLAYER_AT_FAULT, now, at_fault=(at_fault,), chooser=chooser)
    return Step(
        replace(negotiation, ruling=ruling, change=None),
        (FaultRuled(negotiation.match_id, ruling),),
    )
