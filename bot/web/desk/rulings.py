"""The desk's rulings on matches and games, each settled by the same service operation the CLI
calls: flagged games, negotiation faults (rules 5.8), claims (rules 6.3-6.4) and
disqualifications (rules 6.5)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from bot.config import Config
from bot.errors import OperationError
from bot.notify.kinds import NoticeKind
from bot.service.services import Services
from bot.views import matches as views
from bot.views.match_room import MatchView, match_view
from bot.web.core import whole_number
from bot.web.desk.decisions import (
    Choice,
    Decision,
    Evidence,
    Ruling,
    alert_body,
    match_timeline,
    player_names,
    weekly_timeline,
)
from rules.core.errors import RulesError
from rules.core.model import normalise_username
from rules.core.states import RoundState
from rules.week.faults import assess_weekend
from rules.week.negotiation import NegotiationError
from storage.match_log import replay
from storage.models import OutboxRow
from storage.uow import UnitOfWork

__all__ = [
    "RESULT_CHOICES",
    "ClaimDecisions",
    "Disqualifications",
    "FaultDecisions",
    "FlaggedGames",
    "fault_choices",
    "open_match_views",
    "rule_on_match",
]

log = logging.getLogger(__name__)


RESULT_CHOICES = {"1-0": "Count it: 1-0", "0-1": "Count it: 0-1", "1/2-1/2": "Count it: draw"}


class FlaggedGames:
    """Games of paired players that did not count (wrong clock, casual, outside the week...),
    while their match is still open: once it has its result (or a TD's ruling) they are history,
    in the audit log and the match's timeline, not a decision that waits."""

    kind = "game"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        out = []
        stages = uow.later_stages
        names = await player_names(uow)
        for g in await uow.games.flagged():
            if g.match_id is None:  # pragma: no cover - flagged() reads games of a match
                continue
            arm = await stages.armageddon_for_match(g.match_id)
            if arm is not None and arm.game_id == g.id:
                continue  # the armageddon's own game: its alert is the decision (rules 3.ix)
            match = await uow.matches.get(g.match_id)
            if match is not None and match.outcome is not None and arm is None:
                continue  # the match has its result: the game can no longer count in it
            link = views.lichess_game_url(g.id)
            out.append(
                Decision(
                    kind=self.kind,
                    key=g.id,
                    title=f"Game {g.id} did not count (match {g.match_id})",
                    summary=f"{spelled(g.white, names)} - {spelled(g.black, names)}: "
                    f"{views.game_result(g)}, "
                    f"{(g.refusal or '').replace('_', ' ')}; {g.variant}, "
                    f"{'rated' if g.rated else 'casual'}, {g.clock_limit}+{g.clock_increment}.",
                    at=g.created_at,
                    match_id=g.match_id,
                    evidence=(
                        Evidence(at=g.created_at, text=f"Lichess game {g.id}", url=link),
                        *await match_timeline(uow, g.match_id),
                    ),
                    choices=(
                        Choice("dismiss", "It does not count"),
                        *(
                            Choice(v, label, needs_reason=True, previewed=True)
                            for v, label in RESULT_CHOICES.items()
                        ),
                    ),
                    link=f"/match/{g.match_id}",
                )
            )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        game = await uow.games.get(ruling.key)
        if game is None or game.match_id is None:
            raise OperationError("there is no such flagged game")
        if ruling.choice == "dismiss":
            return f"Game {ruling.key} stays uncounted."
        if ruling.choice not in RESULT_CHOICES:
            raise OperationError("pick one of the buttons")
        counted = await uow.games.for_match(game.match_id)
        # White's view of the Lichess game, turned into the match game's White.
        state = await services.results.record(
            uow,
            game.match_id,
            game_number=len(counted) + 1,
            result=ruling.choice,
            reason=f"{ruling.reason} (Lichess game {ruling.key})",
            now=ruling.now,
            actor=ruling.actor,
        )
        return (
            f"Game {ruling.key} counted as {ruling.choice}; "
            f"match {game.match_id} stands {state.score}."
        )


async def open_match_views(
    uow: UnitOfWork, config: Config, *, viewer: str, now: dt.datetime
) -> list[MatchView]:
    """The match room of every undecided match of a published round, as a TD sees it."""
    out = []
    for row in await uow.matches.all():
        if row.black_first is None or row.state not in views.OPEN_STATES or row.outcome:
            continue
        rnd = await uow.tournaments.round(row.round_id)
        if rnd is None or rnd.state not in (RoundState.PUBLISHED, RoundState.COMPLETE):
            continue
        try:
            out.append(await match_view(uow, config, match_id=row.id, viewer=viewer, now=now))
        except (OperationError, RulesError) as e:
            log.info("desk: match %s has no view: %s", row.id, e)
    return out


def _td_viewer(config: Config) -> str:
    return config.tournament.tds[0] if config.tournament.tds else "td"


@dataclass(frozen=True, slots=True)
class OpenMatch:
    """An undecided match in play as a TD sees its room, with the players' names."""

    view: MatchView
    names: dict[str, str]
    config: Config
    now: dt.datetime


class _OnMatch:
    """Cards about the undecided matches in play, keyed ``<match id>:...``, each settled by a
    ruling on its match."""

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        config = services.config
        names = await player_names(uow)
        out = []
        for v in await open_match_views(uow, config, viewer=_td_viewer(config), now=now):
            out.extend(await self.cards(uow, OpenMatch(v, names, config, now)))
        return out

    async def cards(self, uow: UnitOfWork, m: OpenMatch) -> list[Decision]:
        raise NotImplementedError

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        match_id = whole_number(ruling.key.split(":", 1)[0])
        if match_id is None:
            raise OperationError("there is no such match")
        return await rule_on_match(services, uow, match_id, ruling)


class FaultDecisions(_OnMatch):
    """Rules 5.8-5.10: both players offered, nothing agreed by the weekend: who is at fault?"""

    kind = "fault"

    async def cards(self, uow: UnitOfWork, m: OpenMatch) -> list[Decision]:
        v, names, config = m.view, m.names, m.config
        events = await uow.weekly.events(v.match_id, week=v.week)
        try:
            negotiation = replay(events, config.rules)
            verdict = assess_weekend(negotiation, now=m.now, ruleset=config.rules)
        except (LookupError, NegotiationError):
            return []  # not published, or the weekend has not begun
        if not verdict.needs_td:
            return []  # agreed, ruled, or the offers check rules by itself (rules 5.5, 5.6)
        a, b = v.players
        return [
            Decision(
                kind=self.kind,
                key=f"{v.match_id}:w{v.week}",
                title=f"No agreed time in match {v.match_id}: "
                f"{names.get(a, a)} - {names.get(b, b)} (rules 5.8)",
                summary="Both players made their offers but agreed no time. Who is at fault? "
                "The other player then chooses the time; nobody at fault ties the match.",
                at=v.offers_deadline,
                match_id=v.match_id,
                evidence=await weekly_timeline(uow, v.match_id),
                choices=fault_choices(a, b, names=names),
                link=f"/match/{v.match_id}",
            )
        ]


class ClaimDecisions(_OnMatch):
    """Rules 6.3-6.5: a player claimed the match (no-show, overlong break): grant or dismiss."""

    kind = "claim"

    async def cards(self, uow: UnitOfWork, m: OpenMatch) -> list[Decision]:
        v, names = m.view, m.names
        out = []
        for c in v.claims:
            if not c.claimed:
                continue
            claimant = names.get(c.claimant, c.claimant)
            against = names.get(c.against, c.against)
            out.append(
                Decision(
                    kind=self.kind,
                    key=f"{v.match_id}:{c.claimant}",
                    title=f"{claimant} claims match {v.match_id} against {against}",
                    summary=f"Reason: {c.reason.replace('_', ' ')}. Granting forfeits the "
                    f"match for {against} (a forfeit on their record, rules 6.5).",
                    at=c.since,
                    match_id=v.match_id,
                    evidence=await weekly_timeline(uow, v.match_id),
                    choices=(
                        Choice(f"grant:{c.claimant}", f"Grant to {claimant}", True, True),
                        Choice("dismiss", "Dismiss the claim", True),
                    ),
                    link=f"/match/{v.match_id}",
                )
            )
        return out


class Disqualifications:
    """Rules 6.5: forfeits in enough matches: the bot proposes, a TD confirms or waives one of
    the forfeits (as ``acwc dq confirm`` and ``acwc forfeit waive``)."""

    kind = "dq"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        latest: dict[str, OutboxRow] = {}
        for r in await uow.outbox.alerts(notice=NoticeKind.DISQUALIFICATION_DUE.value):
            if r.player is not None:
                latest[r.player] = r  # oldest first: the last is the newest case
        exited = {e.player_id for e in await uow.stages.exits()}
        names = await player_names(uow)
        out = []
        for player, r in latest.items():
            if player in exited:
                continue
            forfeits = [f for f in await uow.weekly.forfeits(player=player) if not f.waived]
            name = names.get(player, player)
            out.append(
                Decision(
                    kind=self.kind,
                    key=f"{player}:{r.event or r.id}",
                    title=f"Disqualify {name}? (rules 6.5)",
                    summary=alert_body(r, names),
                    at=r.created_at,
                    evidence=tuple(
                        Evidence(
                            at=f.at,
                            text=f"Forfeit {f.id}: match {f.match_id}, {f.reason}",
                            url=f"/match/{f.match_id}",
                        )
                        for f in forfeits
                    ),
                    choices=(
                        Choice("confirm", f"Confirm: disqualify {name}", True, True),
                        *(
                            Choice(
                                f"waive:{f.id}",
                                f"Waive forfeit {f.id} (match {f.match_id})",
                                needs_reason=True,
                                previewed=True,
                            )
                            for f in forfeits
                        ),
                    ),
                    link=f"/players/{player}",
                )
            )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        player = ruling.key.split(":", 1)[0]
        if ruling.choice.startswith("waive:"):
            forfeit_id = whole_number(ruling.choice.removeprefix("waive:"))
            if forfeit_id is None:
                raise OperationError("there is no such forfeit")
            row = await services.conduct.waive_forfeit(
                uow, forfeit_id, reason=ruling.reason, now=ruling.now, actor=ruling.actor
            )
            return f"Forfeit {row.id} of {player} waived; {player} stays in the tournament."
        if ruling.choice != "confirm":
            raise OperationError("pick one of the buttons")
        await services.conduct.confirm_disqualification(
            uow, player, reason=ruling.reason, now=ruling.now, actor=ruling.actor
        )
        return f"{player} is disqualified."


def spelled(player: str, names: dict[str, str]) -> str:
    """A player named by a game record, as Lichess spells the name."""
    return names.get(normalise_username(player), player)


def fault_choices(a: str, b: str, *, names: dict[str, str], prefix: str = "") -> tuple[Choice, ...]:
    return (
        Choice(f"fault:{a}", f"{prefix}{names.get(a, a)} at fault", True, True),
        Choice(f"fault:{b}", f"{prefix}{names.get(b, b)} at fault", True, True),
        Choice("nobody", f"{prefix}nobody at fault (tied match)", True, True),
    )


async def rule_on_match(services: Services, uow: UnitOfWork, match_id: int, ruling: Ruling) -> str:
    """A ruling on a match, as ``acwc fault decide`` or ``acwc claim decide``: who is at fault
    when nothing was agreed (``fault:<player>``, ``nobody``: rules 5.8-5.9), or a claim or
    no-show granted (``grant:<player>``: a forfeit, rules 6.3-6.5) or dismissed."""
    choice = ruling.choice
    decide: Callable[..., Awaitable[object]]
    if choice.startswith("fault:") or choice == "nobody":
        at_fault = None if choice == "nobody" else choice.removeprefix("fault:")
        decide = partial(services.decisions.decide_fault, at_fault=at_fault)
        said = (
            f"Match {match_id}: nobody at fault; the match is ruled tied (rules 5.9)."
            if at_fault is None
            else f"Match {match_id}: ruled {at_fault} at fault; the other player chooses the time."
        )
    elif choice.startswith("grant:") or choice == "dismiss":
        winner = None if choice == "dismiss" else choice.removeprefix("grant:")
        decide = partial(services.decisions.decide_claim, winner=winner)
        said = (
            f"Match {match_id}: claim dismissed; the match goes on."
            if winner is None
            else f"Match {match_id}: won by {winner} by forfeit."
        )
    else:
        raise OperationError("pick one of the buttons")
    await decide(
        uow, match_id, reason=ruling.reason, now=ruling.now, actor=ruling.actor, via="desk"
    )
    return said
