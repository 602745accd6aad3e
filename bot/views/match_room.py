"""The match room as one viewer sees it: the negotiation, the games, claims, breaks, the
deadlines and the actions this viewer may take now (the web room and the TD desk show it)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.config import Config
from bot.errors import OperationError
from bot.views.bracket import procedure
from bot.views.scores import match_state
from rules.core.model import GameStatus, PlayerId, normalise_username
from rules.core.states import MatchState
from rules.core.words import ENGLISH, Words
from rules.talk.games import time_control_text
from rules.talk.notices import describe_time
from rules.talk.room import NoShowCheckSeen, change_asked_line, no_show_lines, ruling_line
from rules.week.faults import counts_towards_duty, offers_counted
from rules.week.negotiation import Negotiation
from rules.week.next_step import MatchMoment, NextStep, PlayerOptions, player_options
from rules.week.room import next_game, offer_state
from storage.convert import to_match
from storage.match_log import LogKind, break_calls, claim_rights, game_spans, replay
from storage.models import GameRow, MatchRow
from storage.models_games import ChallengeRow
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
    week: int
    players: tuple[str, str]
    names: tuple[str, str]  # the players as Lichess spells them (``players`` are the ids)
    phase: str  # unpublished / open / agreed / awaiting_choice / tied
    offers_deadline: dt.datetime | None
    week_end: dt.datetime | None
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


@dataclass(frozen=True, slots=True)
class _Week:
    """What the negotiation shows: the offers and their counts, the ruling, a change asked."""

    phase: str = "unpublished"
    offers: tuple[OfferView, ...] = ()
    counted: tuple[tuple[str, int], ...] = ()
    ruling: str | None = None
    chooser: str | None = None
    change: str | None = None


async def match_view(
    uow: UnitOfWork,
    config: Config,
    *,
    match_id: int,
    viewer: str | None,
    now: dt.datetime,
    words: Words = ENGLISH,
) -> MatchView:
    """The match room of ``match_id`` as ``viewer`` (a Lichess username, or None) sees it, in
    ``words``. Raises :class:`OperationError` for an unknown match or a bye.
    """
    row = await _match_row(uow, match_id)
    viewer_id = normalise_username(viewer) if viewer else None
    match = to_match(row)
    players: tuple[str, str] = match.players
    is_player = viewer_id in players
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
    games = _games(all_games, name)
    decided = row.outcome is not None
    week = _Week() if n is None else _week(n, decided=decided, now=now, name=name, words=words)
    options = None
    if is_player and viewer_id is not None:
        player = PlayerId(viewer_id)
        options = await _options(uow, row, player, n, events, all_games, config, now=now)

    agreed = n.agreement.time if n is not None and n.agreement is not None else row.agreed_time
    no_show: tuple[str, ...] = ()
    if agreed is not None and not decided and not games and now >= agreed:
        checks = _checks(events, agreed, name)
        no_show = no_show_lines(config.rules.conduct, agreed, checks, now=now, words=words)
    upcoming = next_game(
        played=sum(1 for g in all_games if g.counted), total=row.games, decided=decided
    )
    challenge = await _open_challenge(uow, row, upcoming, now=now)
    broadcast = await uow.lichess.broadcast_round(row.round_id)
    is_td = viewer is not None and config.is_td(viewer)
    return MatchView(
        match_id=row.id,
        week=row.week,
        players=players,
        names=(name(players[0]), name(players[1])),
        phase=week.phase,
        offers_deadline=n.week.offer_deadline if n is not None else None,
        week_end=n.week.end if n is not None else None,
        offers=week.offers,
        offers_counted=week.counted,
        required_offers=config.rules.offers.required_offers,
        agreed_time=agreed,
        agreed_label=None if agreed is None else describe_time(agreed, now=now, words=words),
        change=week.change,
        ruling=week.ruling,
        chooser=week.chooser,
        score=None if state.score is None else str(state.score),
        games=games,
        claims=_claims(events, name) if is_player or is_td else (),
        breaks=tuple(BreakView(c.player, c.at) for c in break_calls(events)),
        deadlines=await _deadlines(uow, row.id, now=now),
        actions=options.actions if options is not None else (),
        step=None if options is None else options.step,
        no_show=no_show,
        time_control=time_control_text(config.rules.time_control),
        next_game=upcoming,
        next_white=None if upcoming is None else name(match.white_in_game(upcoming)),
        challenge_url=None if challenge is None else challenge.url,
        broadcast_url=None if broadcast is None else broadcast.url,
    )


async def _options(
    uow: UnitOfWork,
    row: MatchRow,
    player: PlayerId,
    n: Negotiation | None,
    events: Sequence[MatchEventRow],
    all_games: Sequence[GameRow],
    config: Config,
    *,
    now: dt.datetime,
) -> PlayerOptions:
    """What ``player`` may do in their match now, and the step the room's card shows."""
    moment = _moment(row, player, n, events, all_games, config, now=now)
    if moment.armageddon:
        moment = dataclasses.replace(moment, armageddon_due=await _bids_due(uow, row, config))
    return player_options(moment)


async def _match_row(uow: UnitOfWork, match_id: int) -> MatchRow:
    row = await uow.matches.get(match_id)
    if row is None:
        raise OperationError(f"there is no match {match_id}")
    if row.black_first is None:
        raise OperationError(f"match {match_id} is a bye")
    return row


def _games(all_games: Sequence[GameRow], name: Callable[[str], str]) -> tuple[GameView, ...]:
    """The counted games and the one in progress, numbered from 1."""
    shown = (g for g in all_games if g.counted or g.status is GameStatus.STARTED)
    return tuple(
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
        for i, g in enumerate(shown, start=1)
    )


def _claims(events: Sequence[MatchEventRow], name: Callable[[str], str]) -> tuple[ClaimView, ...]:
    rights, claimed = claim_rights(events)
    return tuple(
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


async def _deadlines(
    uow: UnitOfWork, match_id: int, *, now: dt.datetime
) -> tuple[DeadlineView, ...]:
    return tuple(
        DeadlineView(
            d.kind, d.due_at, describe_time(d.due_at, now=now), "fired" if d.fired_at else "planned"
        )
        for d in await uow.weekly.deadlines(match_id)
        if d.cancelled_at is None
    )


def _week(
    n: Negotiation,
    *,
    decided: bool,
    now: dt.datetime,
    name: Callable[[str], str],
    words: Words = ENGLISH,
) -> _Week:
    offers = tuple(
        OfferView(
            o.number,
            o.by,
            o.time,
            describe_time(o.time, now=now, words=words),
            offer_state(n, o, decided=decided, now=now).value,
            counts_towards_duty(n, o),
            name(o.by),
        )
        for o in n.offers
    )
    ruling = chooser = None
    if n.ruling is not None:
        chooser = n.ruling.chooser
        ruling = ruling_line(
            n.ruling.kind,
            at_fault=(name(p) for p in n.ruling.at_fault),
            chooser=name(n.ruling.chooser) if n.ruling.chooser else None,
            words=words,
        )
    change = None
    if n.change is not None:
        change = change_asked_line(name(n.change.by), n.change.time, now=now, words=words)
    return _Week(
        phase=n.phase.value,
        offers=offers,
        counted=tuple((name(p), offers_counted(n, p)) for p in n.players),
        ruling=ruling,
        chooser=chooser,
        change=change,
    )


def _moment(
    row: MatchRow,
    me: PlayerId,
    n: Negotiation | None,
    events: Sequence[MatchEventRow],
    all_games: Sequence[GameRow],
    config: Config,
    *,
    now: dt.datetime,
) -> MatchMoment:
    """What ``me`` knows of the match now, for :func:`rules.week.next_step.player_options`."""
    rights, claimed = claim_rights(events)
    return MatchMoment(
        me=me,
        negotiation=n,
        now=now,
        # a tied knockout match at its armageddon is not decided yet: the bids come next
        decided=row.outcome is not None and row.state != MatchState.ARMAGEDDON,
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


async def _bids_due(uow: UnitOfWork, row: MatchRow, config: Config) -> dt.datetime | None:
    """When the Armageddon bids of ``row`` are due (rules 3.ix), once its procedure started."""
    arm = await uow.later_stages.armageddon_for_match(row.id)
    if arm is None:
        return None
    proc, _ = await procedure(uow, arm, config.rules)
    return proc.bid_deadline


async def _open_challenge(
    uow: UnitOfWork, row: MatchRow, game: int | None, *, now: dt.datetime
) -> ChallengeRow | None:
    """The bot's open challenge of the match's next game, while it lasts."""
    return next(
        (
            c
            for c in reversed(await uow.lichess.challenges(row.id))
            if c.week == row.week and c.game_number == game and c.expires_at > now
        ),
        None,
    )


def _checks(
    events: Iterable[MatchEventRow], agreed: dt.datetime, name: Callable[[str], str]
) -> list[NoShowCheckSeen]:
    """What the bot's checks after the agreed time saw (rules 6.3)."""
    return [
        NoShowCheckSeen(
            e.at,
            tuple(name(p) for p in e.data.get("appeared", [])),
            tuple(name(p) for p in e.data.get("absent", [])),
        )
        for e in events
        if e.kind == LogKind.NO_SHOW_CHECK and e.data.get("scheduled") == agreed.isoformat()
    ]
