"""What simulated players and TDs do next in one match: pure functions of its state and the seed.

A match week gets a *script* drawn from the seed and the match (:func:`match_script`): who offers
first, when the other answers, whether someone is late (answers after the 24-hour reminder, rules
5.7), misses the offers deadline (rules 5.5) or both make offers and never agree (rules 5.8-5.9, the
TDs decide). :func:`plan_negotiation` turns the script and the match's current negotiation (rebuilt
from the database) into the actions still to come, each with its time. Nothing here remembers
earlier steps, so a restarted driver or service sees the same plan.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from dataclasses import dataclass

from bot.demo.roster import rng_for
from rules.core.model import PlayerId
from rules.week.calendar import MatchWeek
from rules.week.negotiation import Negotiation, Phase

__all__ = ["MatchScript", "Persona", "Planned", "match_script", "offer_text", "plan_negotiation"]

MINUTE = dt.timedelta(minutes=1)
HOUR = dt.timedelta(hours=1)
DAY = dt.timedelta(days=1)
FIRST_HOURS = (12, 15, 18)  # the first player's offered hours: never the second player's
SECOND_HOURS = (13, 17, 20)


class Persona(enum.Enum):
    NORMAL = "normal"  # offers, accepted within a day
    LATE = "late"  # the answer comes after the 24-hour reminder (rules 5.7)
    FAULT = "fault"  # one player makes no offer by Friday (rules 5.5): the other chooses
    WEEKEND = "weekend"  # both offer, nobody accepts: the TDs decide (rules 5.8-5.9)


@dataclass(frozen=True, slots=True)
class Planned:
    """One action: ``kind`` is ``text`` (a player's text through the one door for
    a player's text),
    ``decide_fault`` or ``decide_claim`` (a TD operation; ``arg`` names the player)."""

    at: dt.datetime
    actor: str
    kind: str
    text: str = ""
    arg: str | None = None

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        return (self.actor, self.kind, self.text, self.arg)


@dataclass(frozen=True, slots=True)
class MatchScript:
    persona: Persona
    proposer: PlayerId
    responder: PlayerId
    offer_at: dt.datetime
    reply_at: dt.datetime
    first_offers: tuple[dt.datetime, ...]
    second_offers: tuple[dt.datetime, ...]
    pick: int
    choose_delay: dt.timedelta
    choose_times: tuple[dt.datetime, ...]
    td_at_fault: PlayerId


def _at(week: MatchWeek, day: int, hour: int, minute: int = 0) -> dt.datetime:
    return week.start + day * DAY + dt.timedelta(hours=hour, minutes=minute)


def match_script(
    seed: int,
    match_id: int,
    week_number: int,
    week: MatchWeek,
    players: tuple[PlayerId, PlayerId],
    *,
    allow_faults: bool,
) -> MatchScript:
    """The script of one match week (the same for the same seed, match and week)."""
    rng = rng_for(seed, "script", match_id, week_number)
    roll = rng.random()
    if allow_faults and roll < 0.05:
        persona = Persona.WEEKEND
    elif allow_faults and roll < 0.12:
        persona = Persona.FAULT
    elif roll < 0.28:
        persona = Persona.LATE
    else:
        persona = Persona.NORMAL
    first = rng.randrange(2)
    proposer, responder = players[first], players[1 - first]
    offer_at = week.start + 10 * HOUR + rng.randrange(0, 27) * HOUR + 5 * MINUTE
    if persona is Persona.LATE:
        reply_at = offer_at + 25 * HOUR + rng.randrange(0, 12) * HOUR
    else:
        reply_at = offer_at + HOUR + rng.randrange(0, 19) * HOUR
    days = sorted(rng.sample(range(2, 6), 3))  # Thu..Sun of a Tuesday week: one offer a date
    first_offers = tuple(_at(week, d, rng.choice(FIRST_HOURS)) for d in days)
    other_days = sorted(rng.sample(range(2, 6), 3))
    second_offers = tuple(_at(week, d, rng.choice(SECOND_HOURS)) for d in other_days)
    return MatchScript(
        persona=persona,
        proposer=proposer,
        responder=responder,
        offer_at=offer_at,
        reply_at=reply_at,
        first_offers=first_offers,
        second_offers=second_offers,
        pick=rng.randrange(3),
        choose_delay=10 * HOUR + rng.randrange(0, 3) * HOUR,
        choose_times=(_at(week, 5, 14), _at(week, 6, 12)),
        td_at_fault=players[rng.randrange(2)],
    )


def offer_text(times: Sequence[dt.datetime]) -> str:
    return "offer " + ", ".join(f"{t:%Y-%m-%d %H:%M}" for t in times)


def plan_negotiation(n: Negotiation, s: MatchScript, *, td: str) -> list[Planned]:
    """The scheduling actions still to come in this match week, from its negotiation now."""
    if n.phase in (Phase.AGREED, Phase.TIED):
        return []
    a, b = s.proposer, s.responder
    if n.phase is Phase.AWAITING_CHOICE:
        assert n.ruling is not None
        assert n.ruling.chooser is not None
        at = n.ruling.at + s.choose_delay
        time = next((t for t in s.choose_times if t > at + 2 * HOUR), s.choose_times[-1])
        return [Planned(at, n.ruling.chooser, "text", f"choose {time:%Y-%m-%d %H:%M}")]
    plans: list[Planned] = []
    a_offers, b_offers = n.offers_by(a), n.offers_by(b)
    if s.persona is Persona.FAULT:
        if not b_offers:
            plans.append(Planned(s.offer_at, b, "text", offer_text(s.first_offers)))
        return plans
    if not a_offers:
        plans.append(Planned(s.offer_at, a, "text", offer_text(s.first_offers)))
    elif s.persona is Persona.WEEKEND:
        if not b_offers:
            plans.append(Planned(s.reply_at, b, "text", offer_text(s.second_offers)))
        elif n.ruling is None:
            decide_at = n.week.offer_deadline + 9 * HOUR + 5 * MINUTE
            plans.append(Planned(decide_at, td, "decide_fault", arg=s.td_at_fault))
    else:
        still_open = [o for o in a_offers if o.is_open(now=s.reply_at + HOUR)]
        if still_open:
            pick = still_open[s.pick % len(still_open)]
            plans.append(Planned(s.reply_at, b, "text", f"accept {pick.number}"))
    return plans
