"""What a player may do in their match now, and the one step the room puts first (pure).

The match room shows a "what to do now" card: the player's next step, its deadline and its
button. Which step that is, and which commands the player may send at all, are decided here from
what is known of the match (the negotiation, the games, breaks, claims), never in a page.

The order of the steps is the order of urgency: a decided match has nothing left; a claim waits
for the TDs; a claim the player may make comes before anything else; then the Armageddon bids;
then, by the negotiation's phase, offers, the choice of the time, a change of the time, and once
a time is agreed, the games themselves.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.core.model import PlayerId
from rules.core.ruleset import Conduct
from rules.week.conduct import BreakCall, ClaimRight, GameSpan, review_pauses
from rules.week.faults import offers_counted
from rules.week.negotiation import Negotiation, Phase, StandingOffer

__all__ = ["MatchMoment", "NextStep", "PlayerOptions", "StepKind", "player_options"]


class StepKind(enum.Enum):
    WAIT_PUBLICATION = "wait_publication"  # the match is not in play yet
    MAKE_OFFERS = "make_offers"  # fewer offers than rules 5.1 asks, before the offers deadline
    ANSWER_OFFER = "answer_offer"  # an open offer of the opponent: accept it (or counter)
    WAIT_ANSWER = "wait_answer"  # enough offers made: the opponent answers
    CHOOSE_TIME = "choose_time"  # the opponent was at fault: this player picks the time
    WAIT_CHOICE = "wait_choice"  # this player was at fault: the opponent picks
    ANSWER_CHANGE = "answer_change"  # the opponent asks to move the agreed time
    WAIT_CHANGE = "wait_change"  # this player asked to move it
    PLAY_AT = "play_at"  # a time is agreed and has not come yet
    PLAY_NOW = "play_now"  # the next game is to be played now
    GAME_IN_PROGRESS = "game_in_progress"
    ON_BREAK = "on_break"  # a break was called and is not over (rules 6.1)
    CLAIM = "claim"  # this player may claim the match (no-show, rules 6.3; breaks, 6.1)
    WAIT_TDS = "wait_tds"  # a claim, a ruling or a late negotiation is with the TDs
    ARMAGEDDON = "armageddon"  # the tiebreak game's bids (rules 3.ix)
    DONE = "done"  # the match is decided


@dataclass(frozen=True, slots=True)
class MatchMoment:
    """What is known of one match at ``now``, as one of its players (``me``) sees it.

    ``spans`` are the finished counted games, ``games_played`` how many counted games there are,
    ``game_in_progress`` whether one is being played; ``rights`` the open claim rights and
    ``claimed`` who claimed; ``armageddon`` whether the match is at its Armageddon stage, and
    ``armageddon_due`` when its bids are due.
    """

    me: PlayerId
    negotiation: Negotiation | None
    now: dt.datetime
    decided: bool
    required_offers: int
    conduct: Conduct
    games_total: int
    games_played: int = 0
    game_in_progress: bool = False
    spans: tuple[GameSpan, ...] = ()
    breaks: tuple[BreakCall, ...] = ()
    rights: tuple[ClaimRight, ...] = ()
    claimed: frozenset[str] = frozenset()
    armageddon: bool = False
    armageddon_due: dt.datetime | None = None  # when the Armageddon bids are due (rules 3.ix)
    agreed_time: dt.datetime | None = None  # the match's agreed time when no negotiation says


@dataclass(frozen=True, slots=True)
class NextStep:
    """The card: what to do, by when, and the command of its button (None: nothing to press).

    ``offer`` is the opponent's offer to answer, ``game`` the game to play, ``until`` when a
    break ends; ``also`` the card's other buttons (``break``, ``decline change``, ``offer``).
    """

    kind: StepKind
    deadline: dt.datetime | None = None
    button: str | None = None
    offer: int | None = None
    game: int | None = None
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerOptions:
    """The commands the player may send now (verbs as typed) and the step shown first."""

    actions: tuple[str, ...]
    step: NextStep


def player_options(m: MatchMoment) -> PlayerOptions:
    """What ``m.me`` may do in the match now, and their next step."""
    n = m.negotiation
    if n is None:
        return PlayerOptions((), NextStep(StepKind.WAIT_PUBLICATION))
    actions = ["status", "help", "report"]
    if not m.decided:
        actions += _negotiation_actions(n, m)
        if _may_call_break(n, m):
            actions.append("break")
        if _my_right(m):
            actions.append("claim win")
    return PlayerOptions(tuple(actions), _step(n, m, frozenset(actions)))


def _negotiation_actions(n: Negotiation, m: MatchMoment) -> list[str]:
    me, now = m.me, m.now
    theirs_open = any(o.by != me and o.is_open(now=now) for o in n.offers)
    mine_open = any(o.by == me and not o.is_withdrawn for o in n.offers)
    chooser = n.ruling.chooser if n.ruling is not None else None
    if n.phase is Phase.OPEN:
        return ["offer", *(["accept"] if theirs_open else []), *(["withdraw"] if mine_open else [])]
    if n.phase is Phase.AWAITING_CHOICE and chooser == me:
        return ["choose", *(["accept"] if theirs_open else [])]
    if n.phase is Phase.AGREED:
        if n.change is not None and n.change.by != me:
            return ["accept change", "decline change"]
        return ["change", *(["decline change"] if n.change is not None else [])]
    return []


def _may_call_break(n: Negotiation, m: MatchMoment) -> bool:
    """Rules 6.1: between two games, once per player."""
    if not m.spans or m.game_in_progress:
        return False
    review = review_pauses(
        m.spans, m.breaks, match_id=n.match_id, players=n.players, conduct=m.conduct, now=m.now
    )
    return not review.has_used_break(m.me)


def _my_right(m: MatchMoment) -> ClaimRight | None:
    if m.me in m.claimed:
        return None
    return next((r for r in m.rights if r.claimant == m.me), None)


def _step(n: Negotiation, m: MatchMoment, actions: frozenset[str]) -> NextStep:
    if m.decided:
        return NextStep(StepKind.DONE)
    if m.claimed & set(n.players):
        return NextStep(StepKind.WAIT_TDS)
    if _my_right(m) is not None:
        return NextStep(StepKind.CLAIM, button="claim win")
    if m.armageddon:
        due = m.armageddon_due or n.week.end
        return NextStep(StepKind.ARMAGEDDON, deadline=due, button="bid")
    if n.phase is Phase.TIED:
        return NextStep(StepKind.WAIT_TDS)
    if n.phase is Phase.AWAITING_CHOICE:
        chooser = n.ruling.chooser if n.ruling is not None else None
        if chooser == m.me:
            return NextStep(StepKind.CHOOSE_TIME, deadline=n.week.end, button="choose")
        return NextStep(StepKind.WAIT_CHOICE, deadline=n.week.end)
    if n.phase is Phase.OPEN:
        return _offers_step(n, m)
    return _agreed_step(n, m, actions)


def _offers_step(n: Negotiation, m: MatchMoment) -> NextStep:
    """Phase open: answer the opponent's earliest open offer, else make the offers the rules ask
    for, else wait (for the opponent before the offers deadline, for the TDs after it)."""
    theirs = _open_offers(n.offers, m.me, m.now)
    deadline = n.week.offer_deadline
    if theirs:
        first = theirs[0]
        return NextStep(
            StepKind.ANSWER_OFFER,
            deadline=min(first.time, n.week.end),
            button="accept",
            offer=first.number,
            also=("offer",),
        )
    if m.now >= deadline:
        return NextStep(StepKind.WAIT_TDS, also=("offer",))
    if offers_counted(n, m.me) < m.required_offers:
        return NextStep(StepKind.MAKE_OFFERS, deadline=deadline, button="offer")
    return NextStep(StepKind.WAIT_ANSWER, deadline=deadline, also=("offer",))


def _open_offers(
    offers: Sequence[StandingOffer], me: PlayerId, now: dt.datetime
) -> list[StandingOffer]:
    return sorted(
        (o for o in offers if o.by != me and o.is_open(now=now)), key=lambda o: (o.time, o.number)
    )


def _agreed_step(n: Negotiation, m: MatchMoment, actions: frozenset[str]) -> NextStep:
    """A time is agreed: a change to answer, then the games in their order."""
    if n.change is not None:
        if n.change.by != m.me:
            return NextStep(
                StepKind.ANSWER_CHANGE,
                deadline=n.change.time,
                button="accept change",
                also=("decline change",),
            )
        return NextStep(StepKind.WAIT_CHANGE, deadline=n.change.time, also=("decline change",))
    if m.game_in_progress:
        return NextStep(StepKind.GAME_IN_PROGRESS, game=m.games_played + 1)
    next_game = m.games_played + 1 if m.games_played < m.games_total else None
    if next_game is None:
        return NextStep(StepKind.WAIT_TDS)
    break_end = _break_ends(m)
    if break_end is not None:
        return NextStep(StepKind.ON_BREAK, deadline=break_end, game=next_game)
    agreed = n.agreement.time if n.agreement is not None else m.agreed_time
    if m.games_played == 0 and agreed is not None and m.now < agreed:
        return NextStep(StepKind.PLAY_AT, deadline=agreed, button="join", game=next_game)
    also = ("break",) if "break" in actions else ()
    return NextStep(
        StepKind.PLAY_NOW, deadline=n.week.end, button="join", game=next_game, also=also
    )


def _break_ends(m: MatchMoment) -> dt.datetime | None:
    """When a break called since the last game ends, if it is not over (rules 6.1)."""
    if not m.breaks or not m.spans:
        return None
    last_end = max(s.ended_at for s in m.spans)
    calls = [b for b in m.breaks if b.at >= last_end]
    if not calls:
        return None
    ends = min(calls, key=lambda b: b.at).at + m.conduct.break_length
    return ends if m.now < ends else None
