"""The match room as one viewer sees it: the negotiation, the games, claims, breaks, the
deadlines and the actions this viewer may take now (the web room and the TD desk show it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.config import Config
from bot.errors import OperationError
from bot.views.scores import match_state
from rules.core.model import GameStatus, PlayerId, normalise_username
from rules.talk.games import time_control_text
from rules.talk.notices import describe_time
from rules.week.calendar import label_time
from rules.week.conduct import claim_opens, no_show_rule
from rules.week.faults import offers_counted
from rules.week.negotiation import Negotiation, Phase, RulingKind
from rules.week.next_step import MatchMoment, NextStep, player_options
from storage.match_log import LogKind, break_calls, claim_rights, game_spans, replay
from storage.models_weekly import MatchEventRow
from storage.uow import UnitOfWork

__all__ = [
    "BreakView",
    "ClaimView",
    "DeadlineView",
    "GameView",
    "MatchView",
    "OfferView",
    "match_view",
]


@dataclass(frozen=True, slots=True)
class OfferView:
    number: int
    by: str
    time: dt.datetime
    label: str  # "Thu 14 Oct 18:00 UTC, in 2 days 3 hours"
    state: str  # open / withdrawn / passed / accepted / closed (a time is agreed or ruled)
    counts: bool  # counts towards the duty of rules 5.1
    by_name: str = ""  # the offerer as Lichess spells them


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
    claimant_name: str = ""
    against_name: str = ""


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
    names: tuple[str, str]  # the players as Lichess spells them (``players`` are the ids)
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
    no_show: tuple[str, ...] = ()
    """Rules 6.3 once the agreed time has passed with no game: when claiming opens and who the
    bot's checks saw online."""
    time_control: str = ""  # "2+5 rated antichess"
    next_game: int | None = None  # the number of the next game to play, if any
    next_white: str | None = None  # who has White in it (the match's colour order)
    challenge_url: str | None = None  # the bot's open challenge for it, while it lasts
    broadcast_url: str | None = None  # the Lichess broadcast round of this week
    step: NextStep | None = None
    """The viewer's next step (rules.week.next_step), for the two players only."""


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
    spelled = {p.id: p.username for p in await uow.players.list()}

    def name(player: str) -> str:
        return spelled.get(player, player)

    events = tuple(await uow.weekly.events(row.id, week=row.week))
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
            white=name(g.white),
            black=name(g.black),
            result="*" if g.status is GameStatus.STARTED else _RESULTS.get(g.winner, "½-½"),
            status=g.status,
            counted=g.counted,
        )
        for i, g in enumerate(
            (g for g in all_games if g.counted or g.status is GameStatus.STARTED), start=1
        )
    )
    rights, claimed = claim_rights(events)
    claims = (
        tuple(
            ClaimView(
                r.claimant,
                r.against,
                r.reason.value,
                r.since,
                r.claimant in claimed,
                name(r.claimant),
                name(r.against),
            )
            for r in rights
        )
        if (is_player or is_td)
        else ()
    )
    breaks = tuple(BreakView(c.player, c.at) for c in break_calls(events))
    deadlines = tuple(
        DeadlineView(
            d.kind, d.due_at, describe_time(d.due_at, now=now), "fired" if d.fired_at else "planned"
        )
        for d in await uow.weekly.deadlines(row.id)
        if d.cancelled_at is None
    )
    decided = row.outcome is not None
    offers: tuple[OfferView, ...] = ()
    phase = "unpublished"
    ruling_text = chooser = change_text = None
    counted: tuple[tuple[str, int], ...] = ()
    if n is not None:
        phase = n.phase.value
        close = n.week.offers_close
        accepted = n.agreement.offer_number if n.agreement is not None else None
        # Once a time is agreed (or the TDs ruled, or the match is decided) no offer can be
        # accepted any more: the others read "closed", not "open".
        offering = not decided and n.phase in (Phase.OPEN, Phase.AWAITING_CHOICE)
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
                else "open"
                if offering
                else "closed",
                o.made_at < close and (o.withdrawn_at is None or o.withdrawn_at >= close),
                name(o.by),
            )
            for o in n.offers
        )
        counted = tuple((name(p), offers_counted(n, p)) for p in n.players)
        if n.ruling is not None:
            chooser = n.ruling.chooser
            ruling_text = _RULINGS[n.ruling.kind].format(
                f=", ".join(name(p) for p in n.ruling.at_fault),
                c=name(n.ruling.chooser) if n.ruling.chooser else None,
            )
        if n.change is not None:
            change_text = (
                f"{name(n.change.by)} asks to move the match to "
                f"{describe_time(n.change.time, now=now)}"
            )
    options = None
    if is_player and viewer_id is not None:
        options = player_options(
            MatchMoment(
                me=PlayerId(viewer_id),
                negotiation=n,
                now=now,
                decided=decided,
                required_offers=config.rules.offers.required_offers,
                conduct=config.rules.conduct,
                games_total=row.games,
                games_played=sum(1 for g in all_games if g.counted),
                game_in_progress=any(g.status is GameStatus.STARTED for g in all_games),
                spans=tuple(game_spans(all_games)),
                breaks=tuple(break_calls(events)),
                rights=tuple(rights),
                claimed=frozenset(claimed),
                armageddon=row.state == "armageddon",
                agreed_time=row.agreed_time,
            )
        )
    week_start = n.week.start if n is not None else None
    deadline = n.week.offer_deadline if n is not None else None
    week_end = n.week.end if n is not None else None

    def label(when: dt.datetime | None) -> str | None:
        return describe_time(when, now=now) if when is not None else None

    agreed = n.agreement.time if n is not None and n.agreement is not None else row.agreed_time
    no_show: tuple[str, ...] = ()
    if agreed is not None and not decided and not games and now >= agreed:
        no_show = _no_show_lines(events, config, agreed, name, now=now)
    played = sum(1 for g in all_games if g.counted)
    next_game = played + 1 if not decided and played < row.games else None
    next_white = None
    if next_game is not None:
        next_white = name(players[0] if next_game % 2 == 1 else players[1])
    repo = uow.lichess
    challenge = next(
        (
            c
            for c in reversed(await repo.challenges(row.id))
            if c.week == row.week and c.game_number == next_game and c.expires_at > now
        ),
        None,
    )
    broadcast = await repo.broadcast_round(row.round_id)
    return MatchView(
        match_id=row.id,
        stage=row.stage,
        round=rnd.number if rnd is not None else None,
        week=row.week,
        players=players,
        names=(name(players[0]), name(players[1])),
        viewer=viewer_id,
        is_player=is_player,
        opponent=opponent,
        room_url=config.room_url(row.id),
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
        actions=options.actions if options is not None else (),
        step=None if options is None else options.step,
        no_show=no_show,
        time_control=time_control_text(config.rules.time_control),
        next_game=next_game,
        next_white=next_white,
        challenge_url=None if challenge is None else challenge.url,
        broadcast_url=None if broadcast is None else broadcast.url,
    )


def _no_show_lines(
    events: Iterable[MatchEventRow],
    config: Config,
    agreed: dt.datetime,
    name: Callable[[str], str],
    *,
    now: dt.datetime,
) -> tuple[str, ...]:
    """Rules 6.3 in the room: the one rule's wording, when a claim opens, what the checks saw."""
    conduct = config.rules.conduct
    opens = claim_opens(conduct, agreed)
    lines = [
        f"No game has started yet. The rule: {no_show_rule(conduct)}.",
        f"A no-show can be claimed from {describe_time(opens, now=now)}."
        if now < opens
        else f"A no-show can be claimed since {describe_time(opens, now=now)}.",
    ]
    for e in events:
        if e.kind != LogKind.NO_SHOW_CHECK or e.data.get("scheduled") != agreed.isoformat():
            continue
        appeared = [name(p) for p in e.data.get("appeared", [])]
        absent = [name(p) for p in e.data.get("absent", [])]
        at = label_time(e.at)
        if not appeared:
            lines.append(f"Check at {at}: neither player was seen online.")
        else:
            seen = " and ".join(appeared)
            missing = f"; {' and '.join(absent)} was not" if absent else ""
            lines.append(f"Check at {at}: {seen} was seen online{missing}.")
    return tuple(lines)
