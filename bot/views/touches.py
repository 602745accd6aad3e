"""The TDs' touches of a season, by kind, and the players' self-service actions (issue 17).

Counted from the audit log and the outbox, never from a message's text. A touch is one thing a
TD had to do:

- *decisions taken*: a ruling, a forfeit, a withdrawal, a player added or refused by hand...
  (the TDs' audit entries of :data:`DECISIONS`);
- *rounds approved and stages advanced*: a round a TD put into play (its proposal and its
  approval are one review of the pairings) and each stage advance;
- *forum drafts to paste*: each draft once (a draft rewritten before it was pasted is still one),
  and each edited text a TD pasted over a post;
- *alerts needing action*: one per event (every TD gets a copy); an alert settled by a decision
  on its match is counted once, with the alerts;
- *digests*: one per daily digest sent;
- *set-up*: the tournament created.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bot.config import Config
from bot.notify.kinds import NEEDS_DECISION, Channel, NoticeKind
from storage.uow import UnitOfWork

__all__ = ["DECISIONS", "SELF_SERVICE", "Touches", "season_touches"]

DECISIONS = (
    "fault.decide",
    "claim.grant",
    "claim.dismiss",
    "forfeit.record",
    "forfeit.waive",
    "match.adjudicate",
    "match.forfeit",
    "player.withdraw",
    "player.disqualify",
    "player.remove",
    "player.add",
    "registration.refuse",
    "armageddon.record",
    "result.record",
)
SENT_KINDS = (Channel.DM, Channel.TD_ALERT, Channel.TEAM_UPDATE, Channel.TD_NOTE)
APPROVALS = ("round.publish", "stage.advance")
SETUP = ("tournament.create",)
EDITS = ("forum.edited",)
SELF_SERVICE = {
    "registration.self": "registered themselves",
    "registration.withdraw": "withdrew before round 1",
    "match.offer": "offered times",
    "match.accept": "accepted a time",
    "match.choose": "chose a time",
    "match.decline": "declined offers",
    "match.claim": "claimed a match",
    "report.private": "reported privately",
}


@dataclass
class Touches:
    decisions: Counter[str] = field(default_factory=Counter)
    approvals: Counter[str] = field(default_factory=Counter)
    forum_drafts: Counter[str] = field(default_factory=Counter)
    alerts: Counter[str] = field(default_factory=Counter)
    digests: int = 0
    setup: int = 0
    settled_alerts: int = 0
    """Decisions that settled an alert on their match (counted with the alerts)."""
    rounds: int = 0
    self_service: Counter[str] = field(default_factory=Counter)
    notices: Counter[str] = field(default_factory=Counter)
    """Messages the bot sends (DMs, TD alerts, team updates, notes) by status: none lost."""

    @property
    def total(self) -> int:
        return (
            sum(self.decisions.values())
            - self.settled_alerts
            + sum(self.approvals.values())
            + sum(self.forum_drafts.values())
            + sum(self.alerts.values())
            + self.digests
            + self.setup
        )

    def table(self) -> list[str]:
        """The printed table (the demo's and ``bench/season.py``'s)."""
        drafts = sum(self.forum_drafts.values())
        per_round = f", {drafts / self.rounds:.2f} a round" if self.rounds else ""
        rows = [
            ("decisions taken", sum(self.decisions.values()) - self.settled_alerts,
             _detail(self.decisions, minus=self.settled_alerts)),
            ("rounds approved, stages advanced", sum(self.approvals.values()),
             _detail(self.approvals)),
            ("forum drafts to paste", drafts, _detail(self.forum_drafts) + per_round),
            ("alerts needing action", sum(self.alerts.values()), _detail(self.alerts)),
            ("daily digests", self.digests, ""),
            ("set-up", self.setup, "tournament created"),
        ]  # fmt: skip
        lines = ["TD touches of the season"]
        for name, count, detail in rows:
            lines.append(f"  {name:<34} {count:5d}  {detail}".rstrip())
        lines.append(f"  {'total':<34} {self.total:5d}")
        lines.append("Notices: " + ", ".join(f"{n} {s}" for s, n in sorted(self.notices.items())))
        lines.append("Players' self-service actions")
        for action, label in SELF_SERVICE.items():
            if self.self_service[action]:
                lines.append(f"  {label:<34} {self.self_service[action]:5d}")
        return lines


def _detail(counts: Counter[str], *, minus: int = 0) -> str:
    parts = [f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n]
    text = ", ".join(parts)
    if minus:
        text += f" ({minus} settling an alert: counted there)"
    return text


async def season_touches(uow: UnitOfWork, config: Config) -> Touches:
    """Count the season's TD touches and players' self-service actions so far."""
    tds = config.tournament.tds
    t = Touches()
    decided_on: Counter[int] = Counter()
    for _, action, match_id in await uow.audit.by_actors(tds, (*DECISIONS, *APPROVALS, *SETUP)):
        if action in DECISIONS:
            t.decisions[action] += 1
            if match_id is not None:
                decided_on[match_id] += 1
        elif action in APPROVALS:
            t.approvals[action] += 1
        else:
            t.setup += 1
    alerted_on: Counter[int] = Counter()
    events = await uow.outbox.events([Channel.FORUM_DRAFT.value, Channel.TD_ALERT.value])
    for channel, notice, _, match_id in events:
        if channel == Channel.FORUM_DRAFT:
            t.forum_drafts[notice or "other"] += 1
        else:
            kind = _kind(notice)
            if kind is None or kind in NEEDS_DECISION:
                t.alerts[notice or "other"] += 1
                if match_id is not None:
                    alerted_on[match_id] += 1
    t.digests = await uow.outbox.count_events(NoticeKind.TD_DIGEST.value)
    t.settled_alerts = sum(min(n, decided_on[m]) for m, n in alerted_on.items())
    edits = await uow.audit.count_actions(EDITS)
    if edits.get("forum.edited"):
        t.forum_drafts["edits pasted"] += edits["forum.edited"]
    t.self_service.update(await uow.audit.count_actions(SELF_SERVICE))
    for status, n in (await uow.outbox.status_counts(SENT_KINDS)).items():
        t.notices[status] += n
    t.rounds = len([r for r in await uow.tournaments.all_rounds() if r.published_at is not None])
    return t


def _kind(notice: str | None) -> NoticeKind | None:
    try:
        return NoticeKind(notice) if notice else None
    except ValueError:
        return None
