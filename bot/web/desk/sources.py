"""The kinds of decision the desk lists, each settled by the same service operation the CLI
calls: round approvals, flagged games, negotiation faults (rules 5.8), claims (rules 6.3-6.4),
disqualifications (rules 6.5) and every other TD alert.

What is pending is read from the read models and the outbox's columns (the notice kind, the
event, the match and the player of each TD alert), never from a message's text.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Mapping

from bot.config import Config
from bot.errors import OperationError
from bot.notify.kinds import NoticeKind, notice_label
from bot.service.services import Services
from bot.service.stages.candidates import SMALL_FIELD, SMALLER_POOLS, CandidatesStage
from bot.views import matches as views
from bot.views.match_room import MatchView, match_view
from bot.web.core import not_found, whole_number
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
from rules.core.states import RoundState, StageState
from rules.week.faults import assess_weekend
from rules.week.negotiation import NegotiationError
from storage.match_log import replay
from storage.models import OutboxRow, OutboxStatus
from storage.repo_stages import StagesRepository
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
        round_id = whole_number(key)
        if choice != "approve" or round_id is None:
            raise OperationError("a round can only be approved here")
        rnd = await uow.tournaments.round(round_id)
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


class StageStarts:
    """A stage is complete: the TDs start the next one (as ``acwc stage advance``). When too
    few qualify to fill the Candidates' pools (a withdrawal, a small field), the regulations do
    not say what happens (rules 1.3, 5.10): the card puts the choice to the TDs, and nothing
    stops meanwhile."""

    kind = "stage"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        tournament = await uow.tournaments.current()
        if tournament is None:
            return []
        progression = services.progression
        current = StageKind(tournament.current_stage)
        fmt = progression.runner(current).format
        stage = await uow.tournaments.stage(tournament.id, current.value)
        if stage is None or stage.state == StageState.COMPLETE:
            return []
        try:
            if not (await progression.progress(uow, current)).complete:
                return []
        except (OperationError, RulesError):
            return []
        following = fmt.next_stage()
        label = views.STAGE_LABELS.get(current.value, current.value)
        key = f"{current.value}:{stage.id}"
        if following is None:
            return [
                Decision(
                    kind=self.kind,
                    key=key,
                    title=f"{label} complete: close the championship",
                    summary="Every match is decided. Closing records the final placement.",
                    at=None,
                    choices=(Choice("advance", "Close the championship"),),
                )
            ]
        next_label = views.STAGE_LABELS.get(following.value, following.value)
        choices: tuple[Choice, ...] = (Choice("advance", f"Start the {next_label}"),)
        summary = f"Every match of the {label} is decided: the {next_label} can start."
        title = f"{label} complete: start the {next_label}"
        runner = progression.runner(following)
        if isinstance(runner, CandidatesStage):
            chosen, needed = await runner.qualifiers(uow)
            if len(chosen) < needed:
                title = f"Too few qualifiers for the Candidates: {len(chosen)} of {needed}"
                summary = (
                    f"The pools need {needed} qualifiers (rules 3.v.4) but only {len(chosen)} "
                    "players are still in the qualification, so no further places can fill "
                    "them. The regulations leave this to the TDs (rules 1.3, 5.10): start with "
                    "smaller pools (every qualifier, placed by the regulations' table, an odd "
                    "pool giving a bye each round), or keep the championship waiting while you "
                    "decide (this card stays; nothing else stops)."
                )
                choices = (Choice("smaller", "Start the Candidates with smaller pools", True),)
        return [
            Decision(
                kind=self.kind,
                key=key,
                title=title,
                summary=summary,
                at=None,
                choices=choices,
                link="/standings",
            )
        ]

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
        if choice == "smaller":
            await uow.settings.set(SMALL_FIELD, SMALLER_POOLS)
            await uow.audit.record(
                at=now,
                actor=actor,
                action="stage.small_field",
                reason=reason,
                details={"choice": SMALLER_POOLS},
            )
        elif choice != "advance":
            raise OperationError("pick one of the buttons")
        report = await services.progression.advance(uow, now=now, actor=actor)
        return report.text().splitlines()[0]


RESULT_CHOICES = {"1-0": "Count it: 1-0", "0-1": "Count it: 0-1", "1/2-1/2": "Count it: draw"}


class FlaggedGames:
    """Games of paired players that did not count (wrong clock, casual, outside the week...)."""

    kind = "game"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        out = []
        stages = StagesRepository(uow.session)
        for g in await uow.games.flagged():
            if g.match_id is None:  # pragma: no cover - flagged() reads games of a match
                continue
            arm = await stages.armageddon_for_match(g.match_id)
            if arm is not None and arm.game_id == g.id:
                continue  # the armageddon's own game: its alert is the decision (rules 3.ix)
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
                            Choice(v, label, needs_reason=True, previewed=True)
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
        names = await _names(uow)
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
                    title=f"No agreed time in match {v.match_id}: "
                    f"{names.get(a, a)} - {names.get(b, b)} (rules 5.8)",
                    summary="Both players made their offers but agreed no time. Who is at fault? "
                    "The other player then chooses the time; nobody at fault ties the match.",
                    at=v.offers_deadline,
                    match_id=v.match_id,
                    evidence=await weekly_timeline(uow, v.match_id),
                    choices=_fault_choices(a, b, names=names),
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
        match_id = whole_number(key.split(":", 1)[0])
        if match_id is None:
            raise OperationError("there is no such match")
        return await _fault(services, uow, match_id, choice, reason, actor, now)


class ClaimDecisions:
    """Rules 6.3-6.5: a player claimed the match (no-show, overlong break): grant or dismiss."""

    kind = "claim"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        out = []
        config = services.config
        names = await _names(uow)
        for v in await open_match_views(uow, config, viewer=_td_viewer(config), now=now):
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
        match_id = whole_number(key.split(":", 1)[0])
        if match_id is None:
            raise OperationError("there is no such match")
        return await _grant(services, uow, match_id, choice, reason, actor, now)


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
        names = await _names(uow)
        out = []
        for player, r in latest.items():
            if player in exited:
                continue
            forfeits = [
                f
                for f in await WeeklyRepository(uow.session).forfeits(player=player)
                if not f.waived
            ]
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
        player = key.split(":", 1)[0]
        if choice.startswith("waive:"):
            forfeit_id = whole_number(choice.removeprefix("waive:"))
            if forfeit_id is None:
                raise OperationError("there is no such forfeit")
            row = await services.conduct.waive_forfeit(
                uow, forfeit_id, reason=reason, now=now, actor=actor
            )
            return f"Forfeit {row.id} of {player} waived; {player} stays in the tournament."
        if choice != "confirm":
            raise OperationError("pick one of the buttons")
        await services.conduct.confirm_disqualification(
            uow, player, reason=reason, now=now, actor=actor
        )
        return f"{player} is disqualified."


COVERED = frozenset(
    {
        NoticeKind.WEEKEND_FAULT.value,  # FaultDecisions
        NoticeKind.CLAIM.value,  # ClaimDecisions
        NoticeKind.GAME_REFUSED.value,  # FlaggedGames
        NoticeKind.DISQUALIFICATION_DUE.value,  # Disqualifications
    }
)
"""Alert kinds a ruling source above lists as its own decision: never a second, raw item."""

ABOUT_THE_WEEK = frozenset(
    {
        NoticeKind.OFFERS_VERDICT.value,
        NoticeKind.MATCH_OVERDUE.value,
        NoticeKind.NO_SHOW.value,
        NoticeKind.PAUSE.value,
    }
)
"""Alert kinds about a match still being played: once the match has a result, nothing is left
to decide (the ruling that gave it the result is in the audit log)."""

OVERRULABLE_NOTES = (NoticeKind.OFFERS_VERDICT.value,)
"""TD notes (no DM of their own: the daily digest tells them) of a ruling the bot took that the
TDs may still overrule from the desk while the match is undecided (rules 5.5, 5.6)."""


class TdAlerts:
    """Alerts the bot sent the TDs (no-shows, pauses, the offers check, reports...).

    Each is listed once (not once per TD, nor once per reminder: the newest alert of one kind on
    one match stands for the others), with the ruling buttons its kind calls for; an alert a
    ruling source lists itself (:data:`COVERED`) is not repeated here, and an alert about the
    week of a match that has since been decided is settled by that result.
    """

    kind = "alert"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        latest: dict[tuple[str, int | str], OutboxRow] = {}
        failed: dict[str, bool] = {}  # every copy failed: no TD got it by DM
        for r in await uow.outbox.alerts(
            except_notice=NoticeKind.DISQUALIFICATION_DUE.value, with_notes=OVERRULABLE_NOTES
        ):
            if r.notice in COVERED:
                continue
            # A week alert's reminders (the second no-show check, ...) are one situation of one
            # match; any other alert (two private reports on one match) is an item of its own.
            group: int | str = r.event or f"outbox-{r.id}"
            if r.notice in ABOUT_THE_WEEK and r.match_id is not None:
                group = r.match_id
            latest[(r.notice or "", group)] = r  # oldest first: the last is the newest
            key = r.event or f"outbox-{r.id}"
            failed[key] = failed.get(key, True) and r.status is OutboxStatus.FAILED
        done = await settled_keys(uow)
        names = await _names(uow)
        out = []
        for r in latest.values():
            key = r.event or f"outbox-{r.id}"
            if (self.kind, key) in done:
                continue
            row = None if r.match_id is None else await uow.matches.get(r.match_id)
            decided = row is not None and row.outcome is not None
            if decided and r.notice in ABOUT_THE_WEEK:
                continue
            evidence: tuple[Evidence, ...] = ()
            if r.match_id is not None:
                evidence = await weekly_timeline(uow, r.match_id)
            choices: tuple[Choice, ...] = (Choice("done", "Done: nothing to rule"),)
            if row is not None and not decided and row.black_first is not None:
                a = names.get(row.white_first, row.white_first)
                b = names.get(row.black_first, row.black_first)
                if r.notice == NoticeKind.OFFERS_VERDICT.value:
                    choices = (
                        Choice("done", "Keep the bot's ruling"),
                        *_fault_choices(
                            row.white_first, row.black_first, names=names, prefix="Overrule: "
                        ),
                    )
                elif r.notice in ABOUT_THE_WEEK:
                    choices = (
                        Choice("done", "Done: no forfeit"),
                        Choice(f"grant:{row.white_first}", f"Forfeit win to {a}", True, True),
                        Choice(f"grant:{row.black_first}", f"Forfeit win to {b}", True, True),
                    )
            out.append(
                Decision(
                    kind=self.kind,
                    key=key,
                    title=_title(r, names) + (" (not delivered by DM)" if failed.get(key) else ""),
                    summary=alert_body(r, names),
                    at=r.created_at,
                    match_id=r.match_id,
                    evidence=evidence,
                    choices=choices,
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
        if choice == "done":
            return "Alert settled: nothing to rule."
        alert = next(
            (
                r
                for r in await uow.outbox.alerts(with_notes=OVERRULABLE_NOTES)
                if (r.event or "") == key
            ),
            None,
        )
        if alert is None or alert.match_id is None:
            raise OperationError("this alert names no match to rule on")
        if choice.startswith("grant:"):
            return await _grant(services, uow, alert.match_id, choice, reason, actor, now)
        if choice.startswith("fault:") or choice == "nobody":
            return await _fault(services, uow, alert.match_id, choice, reason, actor, now)
        raise OperationError("pick one of the buttons")


def _fault_choices(
    a: str, b: str, *, names: dict[str, str], prefix: str = ""
) -> tuple[Choice, ...]:
    return (
        Choice(f"fault:{a}", f"{prefix}{names.get(a, a)} at fault", True, True),
        Choice(f"fault:{b}", f"{prefix}{names.get(b, b)} at fault", True, True),
        Choice("nobody", f"{prefix}nobody at fault (tied match)", True, True),
    )


async def _fault(
    services: Services,
    uow: UnitOfWork,
    match_id: int,
    choice: str,
    reason: str,
    actor: str,
    now: dt.datetime,
) -> str:
    at_fault = None if choice == "nobody" else choice.removeprefix("fault:")
    await services.decisions.decide_fault(
        uow, match_id, at_fault=at_fault, reason=reason, now=now, actor=actor, via="desk"
    )
    if at_fault is None:
        return f"Match {match_id}: nobody at fault; the match is ruled tied (rules 5.9)."
    return f"Match {match_id}: ruled {at_fault} at fault; the other player chooses the time."


async def _grant(
    services: Services,
    uow: UnitOfWork,
    match_id: int,
    choice: str,
    reason: str,
    actor: str,
    now: dt.datetime,
) -> str:
    winner = None if choice == "dismiss" else choice.removeprefix("grant:")
    await services.decisions.decide_claim(
        uow, match_id, winner=winner, reason=reason, now=now, actor=actor, via="desk"
    )
    if winner is None:
        return f"Match {match_id}: claim dismissed; the match goes on."
    return f"Match {match_id}: won by {winner} by forfeit."


async def _names(uow: UnitOfWork) -> dict[str, str]:
    """Player id -> the username as Lichess spells it."""
    return {p.id: p.username for p in await uow.players.list()}


def alert_body(row: OutboxRow, names: Mapping[str, str]) -> str:
    """An alert's words for the desk: without the "[ACWC] match N:" head (the title says it)
    nor the line that says how to settle it (the buttons do it); line breaks kept; players as
    Lichess spells them (the bot's notices name them by id)."""
    lines = row.body.splitlines()
    if lines:
        lines[0] = re.sub(r"^\[ACWC\]( match \d+:)? ?", "", lines[0])
    text = "\n".join(line for line in lines if not line.startswith("Settle it with the buttons"))
    if not names:
        return text
    pattern = (
        r"(?<![\w/-])("
        + "|".join(re.escape(p) for p in sorted(names, key=len, reverse=True))
        + r")(?![\w-])"
    )
    return re.sub(pattern, lambda m: names.get(m.group(1), m.group(1)), text)


def _title(row: OutboxRow, names: dict[str, str]) -> str:
    """The alert's kind in words, its match, and the player it names."""
    kind = None
    if row.notice is not None:
        try:
            kind = NoticeKind(row.notice)
        except ValueError:  # a kind a later version wrote
            kind = None
    label = notice_label(kind) if kind is not None else (row.subject or "Alert")
    if row.match_id is not None:
        label = f"{label}: match {row.match_id}"
    if row.player is not None and row.player in names:
        label = f"{label}, {names[row.player]}"
    return label


SOURCES: list[DecisionSource] = [
    StageStarts(),
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
    # A match with a fault or a claim to rule on is one decision: its alerts (a no-show, a
    # pause) are the evidence of that ruling, not items of their own.
    ruled = {d.match_id for d in out if d.kind in ("fault", "claim")}
    return [d for d in out if d.kind != "alert" or d.match_id is None or d.match_id not in ruled]
