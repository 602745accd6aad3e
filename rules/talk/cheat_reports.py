"""Private reports to the TDs, such as suspicions of cheating (rules 7.1).

Rules 7.1: accusations must be made privately; a public accusation disqualifies the accuser. So a
:class:`CheatReport` only ever becomes a receipt to its author and an alert to the TDs, both
private (:class:`~rules.talk.notices.Audience` ``PLAYER`` and ``TDS``); there is no public
rendering, and its ``repr`` leaves the text out so that it does not end up in logs either.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field

from rules.core.errors import RulesError
from rules.core.model import MatchId, PlayerId
from rules.talk.commands import MAX_LENGTH, Report
from rules.talk.notices import Audience, Notice, TDAlert
from rules.talk.spelling import quoted
from rules.week.calendar import label_time

__all__ = [
    "CheatReport",
    "ReportError",
    "ReportErrorReason",
    "cheat_report_receipt",
    "make_cheat_report",
    "td_cheat_report_alert",
]


class ReportErrorReason(enum.Enum):
    EMPTY = "empty"
    TOO_LONG = "too_long"


class ReportError(RulesError):
    reason: ReportErrorReason

    def __init__(self, reason: ReportErrorReason, message: str) -> None:
        super().__init__(reason, message)


@dataclass(frozen=True, slots=True)
class CheatReport:
    """A private report: who sent it, when, about which match (if sent from a match room)."""

    reporter: PlayerId
    text: str = field(repr=False)
    made_at: dt.datetime
    match_id: MatchId | None = None

    @property
    def reference(self) -> str:
        """A short reference the reporter and the TDs can quote: ``R-20211014-1802-alice``."""
        return f"R-{self.made_at:%Y%m%d-%H%M}-{self.reporter}"


def make_cheat_report(
    command: Report, *, reporter: PlayerId, now: dt.datetime, match_id: MatchId | None = None
) -> CheatReport:
    """A report from a ``report <text>`` command; raises :class:`ReportError` if empty or long."""
    text = " ".join(command.text.split())
    if not text:
        raise ReportError(ReportErrorReason.EMPTY, "Write what you want to tell the TDs.")
    if len(text) > MAX_LENGTH:
        raise ReportError(
            ReportErrorReason.TOO_LONG,
            f"A report may be {MAX_LENGTH} characters long; yours is {len(text)}.",
        )
    return CheatReport(reporter, text, now, match_id)


def cheat_report_receipt(report: CheatReport) -> Notice:
    """The private receipt to the reporter; it does not repeat the accusation."""
    return Notice(
        Audience.PLAYER,
        report.reporter,
        f"Your report {report.reference} reached the TDs privately "
        f"({label_time(report.made_at)}). Please keep it private: a public accusation of "
        "cheating leads to disqualification of the accuser (rules 7.1). The TDs may contact you.",
    )


def td_cheat_report_alert(report: CheatReport) -> TDAlert:
    """The report as a private TD alert (rules 7.1, 7.2)."""
    where = f" (from the room of match {report.match_id})" if report.match_id is not None else ""
    return TDAlert(
        report.match_id,
        f"private report {report.reference} from {report.reporter}{where} (rules 7.1). "
        "Keep it private.",
        (f"{report.reporter} wrote: {quoted(report.text)}",),  # their words, as written
        None,
    )
