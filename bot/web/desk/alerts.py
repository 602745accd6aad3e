"""The TD alerts on the desk: each listed once, titled with its kind, its match and the player it
names, with the ruling buttons its kind calls for; the alerts a ruling source lists as its own
decision are left to it.

What is pending is read from the outbox's columns (the notice kind, the event, the match and the
player of each TD alert), never from a message's text.
"""

from __future__ import annotations

import datetime as dt

from bot.errors import OperationError
from bot.notify.kinds import NoticeKind, notice_label
from bot.service.services import Services
from bot.web.desk.decisions import (
    Choice,
    Decision,
    Evidence,
    Ruling,
    alert_body,
    player_names,
    settled_keys,
    weekly_timeline,
)
from bot.web.desk.rulings import fault_choices, rule_on_match
from storage.models import OutboxRow, OutboxStatus
from storage.uow import UnitOfWork

__all__ = ["ABOUT_THE_WEEK", "COVERED", "OVERRULABLE_NOTES", "TdAlerts"]


COVERED = frozenset(
    {
        NoticeKind.WEEKEND_FAULT.value,  # FaultDecisions
        NoticeKind.CLAIM.value,  # ClaimDecisions
        NoticeKind.GAME_REFUSED.value,  # FlaggedGames
        NoticeKind.DISQUALIFICATION_DUE.value,  # Disqualifications
        NoticeKind.ARMAGEDDON_NEEDS_TD.value,  # ArmageddonDecisions
        NoticeKind.ACCOUNT_MARKED.value,  # MarkedAccounts (rules 7.3)
        NoticeKind.DATA_REMOVAL.value,  # RemovalRequests
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
        names = await player_names(uow)
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
                        *fault_choices(
                            row.white_first, row.black_first, names=names, prefix="Overrule: "
                        ),
                    )
                elif r.notice in ABOUT_THE_WEEK:
                    choices = (
                        Choice("done", "Done: no forfeit"),
                        Choice(f"grant:{row.white_first}", f"Forfeit win to {a}", True, True),
                        Choice(f"grant:{row.black_first}", f"Forfeit win to {b}", True, True),
                    )
                    if r.notice == NoticeKind.MATCH_OVERDUE.value:  # rules 4.5: the TDs decide
                        choices += (
                            Choice("adjudicate:tied", "Adjudicate: a tied match", True, True),
                            Choice(
                                f"adjudicate:{row.white_first}", f"Adjudicate: {a} wins", True, True
                            ),
                            Choice(
                                f"adjudicate:{row.black_first}", f"Adjudicate: {b} wins", True, True
                            ),
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
                    optional=r.notice in OVERRULABLE_NOTES,
                )
            )
        return out

    async def settle(self, uow: UnitOfWork, services: Services, ruling: Ruling) -> str:
        if ruling.choice == "done":
            return "Alert settled: nothing to rule."
        alert = next(
            (
                r
                for r in await uow.outbox.alerts(with_notes=OVERRULABLE_NOTES)
                if (r.event or "") == ruling.key
            ),
            None,
        )
        if alert is None or alert.match_id is None:
            raise OperationError("this alert names no match to rule on")
        if ruling.choice.startswith("adjudicate:"):  # as the command line's adjudication
            winner = ruling.choice.removeprefix("adjudicate:")
            row = await services.results.adjudicate(
                uow,
                alert.match_id,
                winner=None if winner == "tied" else winner,
                reason=ruling.reason,
                now=ruling.now,
                actor=ruling.actor,
            )
            return f"Match {row.id}: adjudicated, {str(row.outcome).replace('_', ' ')}."
        return await rule_on_match(services, uow, alert.match_id, ruling)


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
