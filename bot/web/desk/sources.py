"""The kinds of decision the desk lists, each settled by the same service operation the CLI
calls: round approvals, flagged games, negotiation faults (rules 5.8), claims (rules 6.3-6.4),
disqualifications (rules 6.5) and every other TD alert.

What is pending is read from the read models and the outbox's columns (the notice kind, the
event, the match and the player of each TD alert), never from a message's text.
"""

from __future__ import annotations

import datetime as dt
import logging

from bot.config import Config
from bot.errors import OperationError
from bot.notify.kinds import NoticeKind, notice_label
from bot.service.services import Services
from bot.views import matches as views
from bot.views.match_room import MatchView, match_view
from bot.web.core import not_found
from bot.web.desk.decisions import (
    Choice,
    Decision,
    DecisionSource,
    Evidence,
    match_timeline,
    settled_keys,
    weekly_timeline,
)
from rules.core.errors import RulesError
from rules.core.ruleset import StageKind
from rules.core.states import RoundState
from rules.week.faults import assess_weekend
from rules.week.negotiation import NegotiationError
from storage.match_log import replay
from storage.models import OutboxRow, OutboxStatus
from storage.repo_weekly import WeeklyRepository
from storage.uow import UnitOfWork

__all__ = ["RESULT_CHOICES", "SOURCES", "pending_decisions", "source"]

log = logging.getLogger(__name__)


class RoundApprovals:
    """Rounds whose pairings wait for a TD (state ``proposed``): approve puts them into play."""

    kind = "round"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        tournament = await uow.tournaments.current()
        if tournament is None:
            return []
        names = {p.id: p.username for p in await uow.players.list()}
        out = []
        for stage in await uow.tournaments.stages(tournament.id):
            for rnd in await uow.tournaments.rounds(stage.id):
                if rnd.state != RoundState.PROPOSED:
                    continue
                matches = await uow.matches.for_round(rnd.id)
                if not matches:
                    continue  # still being paired
                table = tuple(
                    (
                        str(m.board),
                        names.get(m.white_first, m.white_first),
                        "bye" if m.black_first is None else names.get(m.black_first, m.black_first),
                    )
                    for m in matches
                )
                out.append(
                    Decision(
                        kind=self.kind,
                        key=str(rnd.id),
                        title=f"Approve pairings: {views.STAGE_LABELS.get(stage.kind, stage.kind)}"
                        f" round {rnd.number}",
                        summary=f"{len(matches)} boards; approving publishes them to the players.",
                        at=None,
                        choices=(Choice("approve", "Approve and publish"),),
                        link="/desk/rounds",
                        table=table,
                    )
                )
        return out

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str:
        if choice != "approve" or not key.isdigit():
            raise OperationError("a round can only be approved here")
        rnd = await uow.tournaments.round(int(key))
        if rnd is None or rnd.state != RoundState.PROPOSED:
            raise OperationError("this round is not waiting for approval any more")
        stage = await uow.tournaments.stage_by_id(rnd.stage_id)
        assert stage is not None
        # The same operations as `acwc round approve` / `acwc stage round approve`: byes settled,
        # the break between stages honoured, then publication.
        if stage.kind == StageKind.QUALIFICATION.value:
            await services.qualification.approve_proposed(uow, now=now, actor=actor)
        else:
            await services.stage_rounds.approve_round(
                uow, stage=StageKind(stage.kind), number=rnd.number, now=now, actor=actor
            )
        end = rnd.week_end
        return f"Round {rnd.number} approved and published" + (
            f"; the week ends {end:%a %d %b %H:%M} UTC." if end else "."
        )


RESULT_CHOICES = {"1-0": "Count it: 1-0", "0-1": "Count it: 0-1", "1/2-1/2": "Count it: draw"}


class FlaggedGames:
    """Games of paired players that did not count (wrong clock, casual, outside the week...)."""

    kind = "game"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        out = []
        for g in await uow.games.flagged():
            if g.match_id is None:  # pragma: no cover - flagged() reads games of a match
                continue
            link = views.lichess_game_url(g.id)
            out.append(
                Decision(
                    kind=self.kind,
                    key=g.id,
                    title=f"Game {g.id} did not count (match {g.match_id})",
                    summary=f"{g.white} - {g.black}: {views.game_result(g)}, "
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
                            Choice(v, label, needs_reason=True)
                            for v, label in RESULT_CHOICES.items()
                        ),
                    ),
                    link=f"/match/{g.match_id}",
                )
            )
        return out

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str:
        game = await uow.games.get(key)
        if game is None or game.match_id is None:
            raise OperationError("there is no such flagged game")
        if choice == "dismiss":
            return f"Game {key} stays uncounted."
        if choice not in RESULT_CHOICES:
            raise OperationError("pick one of the buttons")
        counted = await uow.games.for_match(game.match_id)
        # White's view of the Lichess game, turned into the match game's White.
        state = await services.results.record(
            uow,
            game.match_id,
            game_number=len(counted) + 1,
            result=choice,
            reason=f"{reason} (Lichess game {key})",
            now=now,
            actor=actor,
        )
        return f"Game {key} counted as {choice}; match {game.match_id} stands {state.score}."


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


class FaultDecisions:
    """Rules 5.8-5.10: both players offered, nothing agreed by the weekend: who is at fault?"""

    kind = "fault"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        out = []
        config = services.config
        for v in await open_match_views(uow, config, viewer=_td_viewer(config), now=now):
            events = await WeeklyRepository(uow.session).events(v.match_id, week=v.week)
            try:
                negotiation = replay(events, config.rules)
                verdict = assess_weekend(negotiation, now=now, ruleset=config.rules)
            except (LookupError, NegotiationError):
                continue  # not published, or the weekend has not begun
            if not verdict.needs_td:
                continue  # agreed, ruled, or the offers check rules by itself (rules 5.5, 5.6)
            a, b = v.players
            out.append(
                Decision(
                    kind=self.kind,
                    key=f"{v.match_id}:w{v.week}",
                    title=f"No agreed time in match {v.match_id}: {a} - {b} (rules 5.8)",
                    summary="Both players made their offers but agreed no time. Who is at fault? "
                    "The other player then chooses the time; nobody at fault ties the match.",
                    at=v.offers_deadline,
                    match_id=v.match_id,
                    evidence=await weekly_timeline(uow, v.match_id),
                    choices=(
                        Choice(f"fault:{a}", f"{a} at fault", needs_reason=True),
                        Choice(f"fault:{b}", f"{b} at fault", needs_reason=True),
                        Choice("nobody", "Nobody at fault (tied match)", needs_reason=True),
                    ),
                    link=f"/match/{v.match_id}",
                )
            )
        return out

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str:
        match_id = int(key.split(":", 1)[0])
        at_fault = None if choice == "nobody" else choice.removeprefix("fault:")
        await services.decisions.decide_fault(
            uow, match_id, at_fault=at_fault, reason=reason, now=now, actor=actor
        )
        who = "nobody" if at_fault is None else at_fault
        return f"Match {match_id}: ruled {who} at fault."


class ClaimDecisions:
    """Rules 6.3-6.5: a player claimed the match (no-show, overlong break): grant or dismiss."""

    kind = "claim"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        out = []
        config = services.config
        for v in await open_match_views(uow, config, viewer=_td_viewer(config), now=now):
            for c in v.claims:
                if not c.claimed:
                    continue
                out.append(
                    Decision(
                        kind=self.kind,
                        key=f"{v.match_id}:{c.claimant}",
                        title=f"{c.claimant} claims match {v.match_id} against {c.against}",
                        summary=f"Reason: {c.reason.replace('_', ' ')}. Granting forfeits the "
                        f"match for {c.against} (a forfeit on their record, rules 6.5).",
                        at=c.since,
                        match_id=v.match_id,
                        evidence=await weekly_timeline(uow, v.match_id),
                        choices=(
                            Choice(f"grant:{c.claimant}", f"Grant to {c.claimant}", True),
                            Choice("dismiss", "Dismiss the claim", True),
                        ),
                        link=f"/match/{v.match_id}",
                    )
                )
        return out

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str:
        match_id = int(key.split(":", 1)[0])
        winner = None if choice == "dismiss" else choice.removeprefix("grant:")
        await services.decisions.decide_claim(
            uow, match_id, winner=winner, reason=reason, now=now, actor=actor
        )
        if winner is None:
            return f"Match {match_id}: claim dismissed; the match goes on."
        return f"Match {match_id}: granted to {winner}."


class Disqualifications:
    """Rules 6.5: forfeits in enough matches: the bot proposes, a TD confirms (with the standings
    before and after, computed in a transaction that is rolled back)."""

    kind = "dq"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        seen: dict[str, OutboxRow] = {}
        for r in await uow.outbox.alerts(notice=NoticeKind.DISQUALIFICATION_DUE.value):
            if r.player is not None:
                seen.setdefault(r.player, r)
        exited = {e.player_id for e in await uow.stages.exits()}
        out = []
        for player, r in seen.items():
            if player in exited:
                continue
            out.append(
                Decision(
                    kind=self.kind,
                    key=player,
                    title=f"Disqualify {player}? (rules 6.5)",
                    summary=r.body,
                    at=r.created_at,
                    choices=(
                        Choice("confirm", f"Confirm: disqualify {player}", True),
                        Choice("waive", "Do not disqualify", True),
                    ),
                    link=f"/players/{player}",
                )
            )
        return out

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str:
        if choice == "waive":
            return f"{key} stays in the tournament."
        await services.conduct.confirm_disqualification(
            uow, key, reason=reason, now=now, actor=actor
        )
        return f"{key} is disqualified."


class TdAlerts:
    """Alerts the bot sent the TDs (faults, claims, no-shows, reports...): read, act, mark done.

    Every TD alert is listed once (not once per TD: its copies share one event), so none is
    forgotten; a kind that needs a ruling of its own has its own source above.
    """

    kind = "alert"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        seen: dict[str, OutboxRow] = {}
        failed: dict[str, bool] = {}  # every copy failed: no TD got it by DM
        for r in await uow.outbox.alerts(except_notice=NoticeKind.DISQUALIFICATION_DUE.value):
            key = r.event or f"outbox-{r.id}"
            seen.setdefault(key, r)
            failed[key] = failed.get(key, True) and r.status is OutboxStatus.FAILED
        out = []
        for key, r in seen.items():
            evidence: tuple[Evidence, ...] = ()
            if r.match_id is not None:
                evidence = await match_timeline(uow, r.match_id)
            out.append(
                Decision(
                    kind=self.kind,
                    key=key,
                    title=_title(r) + (" (not delivered by DM)" if failed[key] else ""),
                    summary=r.body,
                    at=r.created_at,
                    match_id=r.match_id,
                    evidence=evidence,
                    choices=(Choice("done", "Done"),),
                    link=None if r.match_id is None else f"/match/{r.match_id}",
                )
            )
        return out

    async def settle(
        self,
        uow: UnitOfWork,
        services: Services,
        *,
        key: str,
        choice: str,
        reason: str,
        actor: str,
        now: dt.datetime,
    ) -> str:
        if choice != "done":
            raise OperationError("an alert can only be marked done")
        return "Alert marked done."


def _title(row: OutboxRow) -> str:
    """The alert's kind in words, and its match."""
    kind = None
    if row.notice is not None:
        try:
            kind = NoticeKind(row.notice)
        except ValueError:  # a kind a later version wrote
            kind = None
    label = notice_label(kind) if kind is not None else (row.subject or "Alert")
    return label if row.match_id is None else f"{label}: match {row.match_id}"


SOURCES: list[DecisionSource] = [
    RoundApprovals(),
    FaultDecisions(),
    ClaimDecisions(),
    Disqualifications(),
    FlaggedGames(),
    TdAlerts(),
]
"""Decision kinds, in the order the desk shows them. Feature modules may add their own."""


def source(kind: str) -> DecisionSource:
    for s in SOURCES:
        if s.kind == kind:
            return s
    raise not_found("There is no such kind of decision.")


async def pending_decisions(
    uow: UnitOfWork, services: Services, *, now: dt.datetime
) -> list[Decision]:
    done = await settled_keys(uow)
    out: list[Decision] = []
    for s in SOURCES:
        out.extend(
            d for d in await s.pending(uow, services, now=now) if (d.kind, d.key) not in done
        )
    return out
