"""What the match room shows of a match's week, decided here (pure): where each offer stands and
which game is to be played next (its White: ``rules.core.model.Match.white_in_game``). The
room's page only assembles these; what a player may send is :mod:`rules.week.next_step`."""

from __future__ import annotations

import datetime as dt
import enum

from rules.week.negotiation import Negotiation, Phase, StandingOffer

__all__ = ["OfferState", "next_game", "offer_state"]


class OfferState(enum.StrEnum):
    OPEN = "open"  # the opponent may accept it
    WITHDRAWN = "withdrawn"
    PASSED = "passed"  # its time has come and gone
    ACCEPTED = "accepted"
    CLOSED = "closed"  # a time is agreed or ruled, or the match is decided: no longer acceptable


def offer_state(
    negotiation: Negotiation, offer: StandingOffer, *, decided: bool, now: dt.datetime
) -> OfferState:
    """Where ``offer`` stands at ``now``. Once a time is agreed (or the TDs ruled, or the match
    is decided) no offer can be accepted any more: the others are closed, not open."""
    agreement = negotiation.agreement
    if agreement is not None and offer.number == agreement.offer_number:
        return OfferState.ACCEPTED
    if offer.is_withdrawn:
        return OfferState.WITHDRAWN
    if offer.time <= now:
        return OfferState.PASSED
    if not decided and negotiation.phase in (Phase.OPEN, Phase.AWAITING_CHOICE):
        return OfferState.OPEN
    return OfferState.CLOSED


def next_game(*, played: int, total: int, decided: bool) -> int | None:
    """The number (1-based) of the match's next game after ``played`` counted games of
    ``total``; None once the match is decided or every game is played."""
    if decided or played >= total:
        return None
    return played + 1
