"""What a message is: its channel (how it goes out) and its kind (what it reports)."""

from __future__ import annotations

import enum

from storage.models import Channel, OutboxStatus

__all__ = ["NEEDS_DECISION", "SENDABLE", "Channel", "NoticeKind", "OutboxStatus", "notice_label"]


SENDABLE = (Channel.DM, Channel.TD_ALERT, Channel.TEAM_UPDATE)
"""The channels the outbox dispatcher delivers (a forum draft waits for a TD)."""


class NoticeKind(enum.Enum):
    """What one message reports (the ``outbox.notice`` column). Add a kind here and a key
    constructor in :mod:`bot.notify.keys` for every new message."""

    # publication and scheduling (rules 4, 5)
    ROUND_PAIRINGS = "round_pairings"  # forum: the round's pairings post, kept current
    ROUND_CLOSING = "round_closing"  # forum: the round's results and standings
    PAIRING = "pairing"
    NEGOTIATION_STEP = "negotiation_step"
    TIME_AGREED = "time_agreed"
    GAME_LINK = "game_link"  # a match game's challenge, sent to both players
    REPLY_REMINDER = "reply_reminder"
    FAULT_RULING = "fault_ruling"
    OFFERS_VERDICT = "offers_verdict"  # TD alert: the Friday check ruled (rules 5.5, 5.6)
    WEEKEND_FAULT = "weekend_fault"  # TD alert: no agreement, TDs decide (rules 5.8)
    MATCH_OVERDUE = "match_overdue"  # TD alert: not completed by Monday (rules 4.5)
    RESULT = "result"
    # conduct (rules 6, 7)
    BREAK_CALLED = "break_called"
    NO_SHOW = "no_show"  # TD alert: the second check (rules 6.3)
    NO_SHOW_FIRST = "no_show_first"  # TD note: the first check, the second one follows
    NO_SHOW_NOTICE = "no_show_notice"
    PAUSE = "pause"  # TD alert: an overlong or repeated pause (rules 6.1, 6.2, 6.4)
    CLAIM_RIGHT = "claim_right"
    CLAIM = "claim"  # TD alert: a player claims the match
    CLAIM_RECEIVED = "claim_received"
    CLAIM_DISMISSED = "claim_dismissed"
    DISQUALIFICATION_DUE = "disqualification_due"  # TD alert (rules 6.5)
    DISQUALIFIED = "disqualified"
    CHEAT_REPORT = "cheat_report"  # TD alert (rules 7.1)
    ACCOUNT_MARKED = "account_marked"  # TD alert: the daily look found a mark (rules 7.3)
    REPORT_RECEIPT = "report_receipt"
    # games
    GAME_REFUSED = "game_refused"  # TD alert: a game of paired players does not count
    GAME_FLAGGED = "game_flagged"  # TD alert: a counted game needs a look
    # later stages (rules 3.vi-3.ix, 8)
    KNOCKOUT_REPEAT = "knockout_repeat"
    ARMAGEDDON_BIDDING = "armageddon_bidding"
    ARMAGEDDON_RPS = "armageddon_rps"
    ARMAGEDDON_COLOURS = "armageddon_colours"
    ARMAGEDDON_NEEDS_TD = "armageddon_needs_td"  # TD alert
    ARMAGEDDON_GAME = "armageddon_game"  # TD alert: a game around the armageddon needs a look
    ARMAGEDDON_RESULT = "armageddon_result"
    EXIT_AWARD = "exit_award"
    GAME_FORFEIT = "game_forfeit"  # the TDs charged a game forfeit (rules 6.2)
    KNOCKOUT_REPAIRED = "knockout_repaired"
    # delivery (bot/runtime/outbox.py): not a decision, so it waits for the TDs' digest
    UNDELIVERED = "undelivered"  # a player's notice could not go out by DM
    LATE = "late"  # Lichess unreachable: notices wait and go out when it is back
    # the TDs' daily digest of what needs no decision (issue 17)
    TD_DIGEST = "td_digest"  # a DM to each TD: the day's notes
    DATA_REMOVAL = "data_removal"  # TD alert: a player asks that their data be removed


NEEDS_DECISION = frozenset(
    {
        NoticeKind.WEEKEND_FAULT,
        NoticeKind.MATCH_OVERDUE,
        NoticeKind.CLAIM,
        NoticeKind.NO_SHOW,  # the second check: a claim or the TDs' ruling (rules 6.3)
        NoticeKind.DISQUALIFICATION_DUE,
        NoticeKind.CHEAT_REPORT,
        NoticeKind.ACCOUNT_MARKED,
        NoticeKind.GAME_FLAGGED,
        NoticeKind.ARMAGEDDON_NEEDS_TD,
        NoticeKind.DATA_REMOVAL,
    }
)
"""TD alerts a TD must act on: sent at once and listed on the desk. Any other TD notice (an
offers verdict, a pause, a refused game, a game around an armageddon, a notice that
could not be delivered, the first no-show check: the grace period is over but the second check
ten minutes later is the one that gives the appearing player the claim, rules 6.3) waits for
the daily digest (:mod:`bot.service.digest`)."""


_LABELS = {
    NoticeKind.OFFERS_VERDICT: "Offers check ruled (rules 5.5, 5.6)",
    NoticeKind.WEEKEND_FAULT: "No agreed time by the weekend (rules 5.8)",
    NoticeKind.MATCH_OVERDUE: "Match not completed in its week (rules 4.5)",
    NoticeKind.NO_SHOW: "No-show (rules 6.3)",
    NoticeKind.NO_SHOW_FIRST: "No-show, first check (rules 6.3)",
    NoticeKind.PAUSE: "Pause between games (rules 6.1, 6.2, 6.4)",
    NoticeKind.CLAIM: "A player claims the match (rules 6.3, 6.4)",
    NoticeKind.DISQUALIFICATION_DUE: "Forfeits in two matches (rules 6.5)",
    NoticeKind.CHEAT_REPORT: "Private report (rules 7.1)",
    NoticeKind.GAME_REFUSED: "A game did not count",
    NoticeKind.GAME_FLAGGED: "A counted game needs a look",
    NoticeKind.ARMAGEDDON_NEEDS_TD: "Armageddon: the TDs name White (rules 3.ix)",
    NoticeKind.ARMAGEDDON_GAME: "Armageddon game needs a look (rules 3.ix)",
    NoticeKind.UNDELIVERED: "A notice could not be delivered by DM",
    NoticeKind.LATE: "Notices late: Lichess unreachable",
    NoticeKind.GAME_LINK: "Game link",
    NoticeKind.TD_DIGEST: "Daily digest (no decision needed)",
    NoticeKind.DATA_REMOVAL: "A player asks that their data be removed",
}


def notice_label(kind: NoticeKind) -> str:
    """What a notice of ``kind`` is about, in a few words (the desk's titles)."""
    return _LABELS.get(kind, kind.value.replace("_", " ").capitalize())
