"""The TD desk: pending decisions first, then pairings, corrections, relays, forum posts, audit.

Each kind of decision is a small adapter (:class:`DecisionSource`): it lists what is pending, with
the evidence, and settles one by calling the same operation the CLI calls (``bot.td`` and the
feature modules). Settling is recorded in the audit log with the TD's name (``desk.settle``),
which is also what keeps a settled decision off the list.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from bot.config import USERNAME, Config
from bot.errors import OperationError
from bot.service.services import Services
from bot.views import matches as views
from bot.views.match_room import MatchView, match_view
from bot.views.timeline import timeline
from bot.web.auth import safe_next
from bot.web.core import (
    bad_request,
    context,
    int_field,
    not_found,
    read_form,
    redirect_with,
    render,
    require_td,
    when,
)
from bot.web.room import say_and_commit
from rules.core.errors import RulesError
from rules.core.model import normalise_username
from rules.core.ruleset import StageKind
from rules.talk.commands import MAX_LENGTH
from storage.models import AuditRow, GameRow, OutboxRow, RoundRow, StageRow
from storage.repo_web import WebRepository
from storage.uow import UnitOfWork

log = logging.getLogger(__name__)

REASON_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str
    needs_reason: bool = False


@dataclass(frozen=True, slots=True)
class Evidence:
    at: dt.datetime | None
    text: str
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    kind: str
    key: str
    title: str
    summary: str
    at: dt.datetime | None
    match_id: int | None = None
    evidence: tuple[Evidence, ...] = ()
    choices: tuple[Choice, ...] = ()
    link: str | None = None
    table: tuple[tuple[str, ...], ...] = field(default=())


class DecisionSource(Protocol):
    kind: str

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]: ...

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
    ) -> str: ...


async def settled_keys(uow: UnitOfWork) -> set[tuple[str, str]]:
    rows = await WebRepository(uow.session).audit_actions("desk.settle")
    return {(str(r.details.get("kind")), str(r.details.get("key"))) for r in rows}


async def match_timeline(uow: UnitOfWork, match_id: int) -> tuple[Evidence, ...]:
    """The match's audit trail: every game seen, every offer, every decision."""
    rows = await uow.audit.list(match_id=match_id)
    return tuple(Evidence(at=r.at, text=audit_text(r)) for r in rows[-30:])


def audit_text(row: AuditRow) -> str:
    bits = [f"{row.actor}: {row.action}"]
    if row.player:
        bits.append(f"player {row.player}")
    if row.reason:
        bits.append(f"— {row.reason}")
    details = {k: v for k, v in (row.details or {}).items() if k not in ("text",)}
    if details:
        bits.append(
            "(" + ", ".join(f"{k}: {v}" for k, v in sorted(details.items()) if v is not None) + ")"
        )
    text = " ".join(bits)
    return text if len(text) <= 400 else text[:399] + "…"


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
                if rnd.state != "proposed":
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
        rnd = await uow.session.get(RoundRow, int(key))
        if rnd is None or rnd.state != "proposed":
            raise OperationError("this round is not waiting for approval any more")
        stage = await uow.session.get(StageRow, rnd.stage_id)
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
        from sqlalchemy import select

        result = await uow.session.execute(
            select(GameRow)
            .where(GameRow.refusal.is_not(None), GameRow.counted.is_(False))
            .order_by(GameRow.created_at, GameRow.id)
        )
        out = []
        for g in result.scalars().all():
            if g.match_id is None:
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
        if rnd is None or rnd.state not in ("published", "complete"):
            continue
        try:
            out.append(await match_view(uow, config, match_id=row.id, viewer=viewer, now=now))
        except (OperationError, RulesError) as e:
            log.info("desk: match %s has no view: %s", row.id, e)
    return out


async def weekly_timeline(uow: UnitOfWork, match_id: int) -> tuple[Evidence, ...]:
    return tuple(
        Evidence(at=t.at, text=f"{t.actor}: {t.text}") for t in await timeline(uow, match_id)
    )


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
            if v.phase != "open" or v.offers_deadline is None:
                continue
            if now < v.offers_deadline + dt.timedelta(minutes=1):
                continue  # the weekend has not begun
            if not all(n >= v.required_offers for _, n in v.offers_counted):
                continue  # the offers check rules on that by itself (rules 5.5, 5.6)
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
        for r in await uow.outbox.list(kind="td_alert"):
            key = _alert_key(r)
            if key.startswith("dq:"):
                seen.setdefault(key.split(":")[1], r)
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

    Features that need a TD's ruling write a TD alert; until their own desk adapters exist, this
    one lists every alert once (not once per TD) so none is forgotten.
    """

    kind = "alert"

    async def pending(
        self, uow: UnitOfWork, services: Services, *, now: dt.datetime
    ) -> list[Decision]:
        rows = await uow.outbox.list(kind="td_alert")
        seen: dict[str, OutboxRow] = {}
        for r in rows:
            key = _alert_key(r)
            if not key.startswith("dq:"):
                seen.setdefault(key, r)
        out = []
        for key, r in seen.items():
            match_id = _match_of(r)
            evidence: tuple[Evidence, ...] = ()
            if match_id is not None:
                evidence = await match_timeline(uow, match_id)
            out.append(
                Decision(
                    kind=self.kind,
                    key=key,
                    title=r.subject or _first_sentence(r.body),
                    summary=r.body,
                    at=r.created_at,
                    match_id=match_id,
                    evidence=evidence,
                    choices=(Choice("done", "Done"),),
                    link=None if match_id is None else f"/match/{match_id}",
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


def _first_sentence(text: str) -> str:
    first = text.strip().split("\n", 1)[0].split(": ", 2)
    line = ": ".join(first[:2]) if len(first) > 2 else first[0]
    return line if len(line) <= 120 else line[:119] + "…"


def _alert_key(row: OutboxRow) -> str:
    if row.dedupe_key:
        base, _, tail = row.dedupe_key.rpartition(":")
        if base and tail == row.recipient.lower():
            return base[:150]
        return row.dedupe_key[:150]
    return f"outbox-{row.id}"


def _match_of(row: OutboxRow) -> int | None:
    import re

    found = re.search(r"\bmatch (\d{1,9})\b", row.body)
    return int(found.group(1)) if found else None


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


# --- pages ----------------------------------------------------------------------------------


async def desk(request: web.Request) -> web.StreamResponse:
    require_td(request)
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.uow() as uow:
        decisions = await pending_decisions(uow, ctx.services, now=now)
        drafts = await WebRepository(uow.session).forum_drafts()
        rounds = await views.published_rounds(uow)
        posted_by = {
            int(r.details.get("outbox", 0)): r.actor
            for r in await WebRepository(uow.session).audit_actions("forum.posted")
        }
    return await render(
        request,
        "desk.html",
        {
            "title": "TD desk",
            "decisions": decisions,
            "drafts": [d for d in drafts if d.status != "posted"],
            "posted": [d for d in drafts if d.status == "posted"][-10:],
            "posted_by": posted_by,
            "current": rounds[:1],
            "when": lambda t: when(t, now),
            "results": list(RESULT_CHOICES),
            "max_text": MAX_LENGTH,
        },
    )


async def settle(request: web.Request) -> web.StreamResponse:
    """``POST /desk/decide``: one button of one pending decision."""
    require_td(request)
    who, values = await read_form(
        request, {"kind": 20, "key": 200, "choice": 40, "reason": REASON_LIMIT}
    )
    ctx = context(request)
    now = ctx.now()
    kind, key, choice = values.get("kind", ""), values.get("key", ""), values.get("choice", "")
    reason = " ".join(values.get("reason", "").split())
    adapter = source(kind)
    async with ctx.db.uow() as uow:
        pending = {
            d.key: d for d in await pending_decisions(uow, ctx.services, now=now) if d.kind == kind
        }
        decision = pending.get(key)
        if decision is None:
            return redirect_with(
                request, "/desk", "That decision was already settled or is gone.", ok=False
            )
        picked = next((c for c in decision.choices if c.value == choice), None)
        if picked is None:
            raise bad_request("That is not one of this decision's buttons.")
        if picked.needs_reason and not reason:
            return redirect_with(
                request, "/desk", "Give a reason: it goes into the audit log.", ok=False
            )
        try:
            message = await adapter.settle(
                uow,
                ctx.services,
                key=key,
                choice=choice,
                reason=reason,
                actor=who.username,
                now=now,
            )
        except (OperationError, RulesError) as e:
            return redirect_with(request, "/desk", str(e), ok=False)
        await uow.audit.record(
            at=now,
            actor=who.username,
            action="desk.settle",
            reason=reason or None,
            match_id=decision.match_id,
            details={"kind": kind, "key": key, "choice": choice},
        )
        await uow.commit()
    ctx.changed()
    return redirect_with(request, "/desk", message)


async def correct_result(request: web.Request) -> web.StreamResponse:
    """``POST /desk/result``: record or correct one game of a match, with a reason (rules 1.3)."""
    require_td(request)
    who, values = await read_form(
        request, {"match_id": 10, "game": 4, "result": 10, "reason": REASON_LIMIT}
    )
    ctx = context(request)
    now = ctx.now()
    match_id = int_field(values, "match_id", low=1)
    game = int_field(values, "game", low=1, high=100)
    async with ctx.db.uow() as uow:
        try:
            state = await ctx.services.results.record(
                uow,
                match_id,
                game_number=game,
                result=values.get("result", ""),
                reason=" ".join(values.get("reason", "").split()),
                now=now,
                actor=who.username,
            )
        except OperationError as e:
            return redirect_with(request, "/desk#results", str(e), ok=False)
        await uow.commit()
    ctx.changed()
    return redirect_with(
        request, "/desk#results", f"Match {match_id}: game {game} recorded; score {state.score}."
    )


async def relay(request: web.Request) -> web.StreamResponse:
    """``POST /desk/relay``: "alice wrote: offer thu 18:00", through the room's own handler."""
    require_td(request)
    who, values = await read_form(
        request, {"player": 30, "match_id": 10, "text": MAX_LENGTH, "back": 100}
    )
    ctx = context(request)
    now = ctx.now()
    username = values.get("player", "").strip()
    text = values.get("text", "").strip()
    if not USERNAME.match(username):
        raise bad_request("Give the player's Lichess username.")
    if not text:
        raise bad_request("Give what the player wrote, e.g. `offer thu 18:00`.")
    player_id = normalise_username(username)
    back = safe_next(values.get("back")) if values.get("back") else "/desk#relay"
    async with ctx.db.uow() as uow:
        if values.get("match_id", "").strip():
            match_id = int_field(values, "match_id", low=1)
            row = await uow.matches.get(match_id)
        else:
            row = await views.current_match(uow, player_id)
        if row is None or player_id not in (row.white_first, row.black_first):
            return redirect_with(
                request, "/desk#relay", f"{username} has no such match to act on.", ok=False
            )
        match_id = row.id

    async def audit_relay(uow: UnitOfWork, reply: str, ok: bool) -> None:
        await uow.audit.record(
            at=now,
            actor=who.username,
            action="desk.relay",
            player=player_id,
            match_id=match_id,
            details={"text": text, "reply": reply[:500], "ok": ok},
        )

    message, ok = await say_and_commit(
        ctx,
        match_id=match_id,
        player=player_id,
        text=text,
        via="td-relay",
        relayed_by=who.username,
        after=audit_relay,
    )
    return redirect_with(request, back, f"{username} (relayed): {message}", ok=ok)


async def mark_posted(request: web.Request) -> web.StreamResponse:
    """``POST /desk/forum/{id}/posted``: the TD pasted this forum post; never list it again."""
    require_td(request)
    who, _ = await read_form(request, {})
    ctx = context(request)
    now = ctx.now()
    raw = request.match_info.get("draft_id", "")
    if not raw.isdigit() or len(raw) > 9:
        raise not_found("There is no such forum post.")
    async with ctx.db.uow() as uow:
        row = await uow.outbox.get(int(raw))
        if row is None or row.kind != "forum_draft":
            raise not_found("There is no such forum post.")
        if row.status == "posted":
            return redirect_with(request, "/desk#forum", "That post was already marked posted.")
        row.status = "posted"
        row.sent_at = now
        await uow.audit.record(
            at=now,
            actor=who.username,
            action="forum.posted",
            details={"outbox": row.id, "subject": row.subject},
        )
        await uow.commit()
    return redirect_with(request, "/desk#forum", "Marked posted.")


async def rounds_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/rounds``: pairing review, every round of every stage."""
    require_td(request)
    ctx = context(request)
    now = ctx.now()
    async with ctx.db.uow() as uow:
        tournament = await uow.tournaments.current()
        names = {p.id: p.username for p in await uow.players.list()}
        stages: list[tuple[str, list[tuple[RoundRow, Sequence[Any]]]]] = []
        if tournament is not None:
            for stage in await uow.tournaments.stages(tournament.id):
                rounds = [
                    (r, await uow.matches.for_round(r.id))
                    for r in await uow.tournaments.rounds(stage.id)
                ]
                if rounds:
                    stages.append((views.STAGE_LABELS.get(stage.kind, stage.kind), rounds))
        done = await settled_keys(uow)
    return await render(
        request,
        "desk_rounds.html",
        {
            "title": "Pairing review",
            "stages": stages,
            "names": names,
            "settled": done,
            "when": lambda t: when(t, now),
        },
    )


PAIR_ACTIONS = ("pair", "forbid", "swap")


async def pair_round(request: web.Request) -> web.StreamResponse:
    """``POST /desk/rounds/pair``: propose the next qualification round, or re-pair the proposal
    with a forbidden pair or a swap (the same operation as ``acwc round pair``: the engine
    re-pairs under the rules; nothing is edited by hand)."""
    require_td(request)
    who, values = await read_form(request, {"action": 10, "first": 30, "second": 30})
    action = values.get("action", "")
    if action not in PAIR_ACTIONS:
        raise bad_request("Choose pair, forbid or swap.")
    pair: list[tuple[str, str]] = []
    if action != "pair":
        first, second = values.get("first", "").strip(), values.get("second", "").strip()
        if (
            not (USERNAME.match(first) and USERNAME.match(second))
            or first.lower() == second.lower()
        ):
            return redirect_with(
                request, "/desk/rounds", "Give two different players' usernames.", ok=False
            )
        pair = [(first, second)]
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            view = await ctx.services.qualification.propose_round(
                uow,
                now=ctx.now(),
                actor=who.username,
                forbid=pair if action == "forbid" else (),
                swap=pair if action == "swap" else (),
            )
        except (OperationError, RulesError) as e:
            return redirect_with(request, "/desk/rounds", str(e), ok=False)
        await uow.commit()
    return redirect_with(
        request,
        "/desk/rounds",
        f"Qualification round {view.number} proposed ({len(view.boards)} boards); "
        "approve it from the desk.",
    )


EXIT_KINDS = ("withdrawal", "disqualification")


async def _exit_preview(
    request: web.Request, values: dict[str, str], actor: str, *, commit: bool
) -> tuple[Any, str | None]:
    """Run the exit in a unit of work: committed to confirm, rolled back for the preview."""
    kind = values.get("kind", "")
    if kind not in EXIT_KINDS:
        raise bad_request("Choose a withdrawal or a disqualification.")
    player = values.get("player", "").strip()
    if not USERNAME.match(player):
        raise bad_request("Give the player's Lichess username.")
    ctx = context(request)
    async with ctx.db.uow() as uow:
        try:
            preview = await ctx.services.exits.exit_player(
                uow,
                player=player,
                kind=kind,
                reason=" ".join(values.get("reason", "").split()),
                engine_mark=values.get("engine") == "1",
                now=ctx.now(),
                actor=actor,
            )
        except (OperationError, RulesError) as e:
            return None, str(e)
        if commit:
            await uow.commit()
    if commit:
        ctx.changed()
        await ctx.runtime.refresh_players()
    return preview, None


EXIT_LIMITS = {"player": 30, "kind": 20, "engine": 1, "reason": REASON_LIMIT}


async def exit_page(request: web.Request) -> web.StreamResponse:
    """``POST /desk/exit/preview``: the standings before and after a withdrawal or
    disqualification (rules 8), nothing changed yet; the page's button confirms it."""
    require_td(request)
    who, values = await read_form(request, EXIT_LIMITS)
    preview, error = await _exit_preview(request, values, who.username, commit=False)
    if error is not None:
        return redirect_with(request, "/desk#exits", error, ok=False)
    return await render(
        request,
        "desk_exit.html",
        {"title": "Confirm the exit", "preview": preview, "values": values},
    )


async def exit_confirm(request: web.Request) -> web.StreamResponse:
    """``POST /desk/exit``: make the withdrawal or disqualification (audited by name)."""
    require_td(request)
    who, values = await read_form(request, EXIT_LIMITS)
    preview, error = await _exit_preview(request, values, who.username, commit=True)
    if error is not None:
        return redirect_with(request, "/desk#exits", error, ok=False)
    return redirect_with(
        request, "/desk", f"{preview.username}: {preview.kind} recorded ({preview.stage} stage)."
    )


AUDIT_PAGE = 100


async def audit_page(request: web.Request) -> web.StreamResponse:
    """``GET /desk/audit``: the audit log, newest first."""
    require_td(request)
    ctx = context(request)
    raw = request.query.get("before", "")
    before = int(raw) if raw.isdigit() and len(raw) < 10 else None
    async with ctx.db.uow() as uow:
        rows = await WebRepository(uow.session).recent_audit(limit=AUDIT_PAGE, before=before)
    return await render(
        request,
        "desk_audit.html",
        {
            "title": "Audit log",
            "rows": [(r, audit_text(r)) for r in rows],
            "older": rows[-1].id if len(rows) == AUDIT_PAGE else None,
        },
    )


def add_routes(app: web.Application) -> None:
    app.router.add_get("/desk", desk)
    app.router.add_post("/desk/decide", settle)
    app.router.add_post("/desk/result", correct_result)
    app.router.add_post("/desk/relay", relay)
    app.router.add_post("/desk/forum/{draft_id}/posted", mark_posted)
    app.router.add_get("/desk/rounds", rounds_page)
    app.router.add_post("/desk/rounds/pair", pair_round)
    app.router.add_post("/desk/exit/preview", exit_page)
    app.router.add_post("/desk/exit", exit_confirm)
    app.router.add_get("/desk/audit", audit_page)
