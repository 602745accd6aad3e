"""Typed keys of the messages: one constructor per kind of event.

A :class:`NoticeKey` names what a message reports (:class:`~bot.notify.kinds.NoticeKind`), the
match and the player it is about, and the event: every copy of one event (to each TD, to each
player) shares the event string, and each recipient's copy is stored once (the outbox's dedupe
key is the event and the recipient), so an event repeated after a restart queues nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.notify.kinds import NoticeKind as K
from rules.week.conduct import NoShowStage

__all__ = ["NoticeKey"]


@dataclass(frozen=True, slots=True)
class NoticeKey:
    kind: K
    event: str
    match_id: int | None = None
    player: str | None = None

    def dedupe(self, recipient: str) -> str:
        """The outbox's dedupe key of this event's copy for ``recipient``."""
        return f"{self.event}:{recipient.lower()}"


# --- publication and scheduling --------------------------------------------------------------


def round_pairings(round_id: int) -> NoticeKey:
    return NoticeKey(K.ROUND_PAIRINGS, f"round:{round_id}")


def round_closing(round_id: int) -> NoticeKey:
    return NoticeKey(K.ROUND_CLOSING, f"round-closing:{round_id}")


def pairing(match_id: int, week: int) -> NoticeKey:
    return NoticeKey(K.PAIRING, f"pairing:{match_id}:{week}", match_id)


def step(kind: K, match_id: int, seq: int) -> NoticeKey:
    """A message about step ``seq`` of a match's event log (an offer, a ruling, a break...)."""
    return NoticeKey(kind, f"step:{match_id}:{seq}", match_id)


def time_agreed(match_id: int, week: int, stamp: str) -> NoticeKey:
    return NoticeKey(K.TIME_AGREED, f"agreed:{match_id}:{week}:{stamp}", match_id)


def result(match_id: int, week: int, outcome: str, decided_by: str | None) -> NoticeKey:
    return NoticeKey(K.RESULT, f"result:{match_id}:{week}:{outcome}:{decided_by}", match_id)


def deadline(kind: K, deadline_id: int, match_id: int | None) -> NoticeKey:
    """A message a deadline sends when it fires (once: the deadline row fires once)."""
    return NoticeKey(kind, f"deadline:{deadline_id}", match_id)


# --- conduct ---------------------------------------------------------------------------------


def no_show(match_id: int, scheduled: str, stage: NoShowStage) -> NoticeKey:
    """The TDs' notice of a no-show check: an alert at the second check, a note at the first
    (rules 6.3: only the second gives the appearing player the claim)."""
    kind = K.NO_SHOW if stage is NoShowStage.SECOND else K.NO_SHOW_FIRST
    return NoticeKey(kind, f"noshow:{match_id}:{scheduled}:{stage.value}", match_id)


def pause(match_id: int, week: int, after_game: int, pause_kind: str) -> NoticeKey:
    return NoticeKey(K.PAUSE, f"pause:{match_id}:{week}:{after_game}:{pause_kind}", match_id)


def pause_claim(match_id: int, week: int, after_game: int) -> NoticeKey:
    return NoticeKey(K.CLAIM_RIGHT, f"pause-claim:{match_id}:{week}:{after_game}", match_id)


def claim(match_id: int, seq: int) -> NoticeKey:
    return NoticeKey(K.CLAIM, f"claim:{match_id}:{seq}", match_id)


def disqualification_due(player: str, match_ids: Iterable[int]) -> NoticeKey:
    ids = ",".join(str(i) for i in match_ids)
    return NoticeKey(K.DISQUALIFICATION_DUE, f"dq:{player}:{ids}", player=player)


def disqualified(player: str) -> NoticeKey:
    return NoticeKey(K.DISQUALIFIED, f"dq-confirmed:{player}", player=player)


def account_marked(player: str, marks: str) -> NoticeKey:
    return NoticeKey(K.ACCOUNT_MARKED, f"marked:{player}:{marks}", player=player)


def cheat_report(report_id: int, match_id: int | None, reporter: str) -> NoticeKey:
    return NoticeKey(K.CHEAT_REPORT, f"report:{report_id}", match_id, reporter)


def data_removal(player: str, asked: int) -> NoticeKey:
    """A player's request that their data be removed (``asked``: the request's audit row)."""
    return NoticeKey(K.DATA_REMOVAL, f"data-removal:{player}:{asked}", player=player)


def report_receipt(report_id: int, match_id: int | None) -> NoticeKey:
    return NoticeKey(K.REPORT_RECEIPT, f"report:{report_id}:receipt", match_id)


# --- games -----------------------------------------------------------------------------------


def game_refused(game_id: str, match_id: int) -> NoticeKey:
    return NoticeKey(K.GAME_REFUSED, f"intake:{game_id}", match_id)


def game_flagged(game_id: str, match_id: int) -> NoticeKey:
    return NoticeKey(K.GAME_FLAGGED, f"intake-alert:{game_id}", match_id)


# --- later stages ----------------------------------------------------------------------------


def knockout_repeat(match_id: int) -> NoticeKey:
    return NoticeKey(K.KNOCKOUT_REPEAT, f"repeat:{match_id}", match_id)


def armageddon_bidding(armageddon_id: int, match_id: int) -> NoticeKey:
    return NoticeKey(K.ARMAGEDDON_BIDDING, f"armageddon-start:{armageddon_id}", match_id)


def armageddon_rps(armageddon_id: int, match_id: int, rps_round: int) -> NoticeKey:
    event = f"armageddon-rps:{armageddon_id}:{rps_round}"
    return NoticeKey(K.ARMAGEDDON_RPS, event, match_id)


def armageddon_colours(armageddon_id: int, match_id: int) -> NoticeKey:
    return NoticeKey(K.ARMAGEDDON_COLOURS, f"armageddon-clocks:{armageddon_id}", match_id)


def armageddon_needs_td(armageddon_id: int, match_id: int) -> NoticeKey:
    return NoticeKey(K.ARMAGEDDON_NEEDS_TD, f"armageddon-td:{armageddon_id}", match_id)


def armageddon_game(what: str, game_id: str, match_id: int) -> NoticeKey:
    """``what``: ``extra``, ``clock``, ``early`` or ``check`` (a game around the armageddon)."""
    return NoticeKey(K.ARMAGEDDON_GAME, f"armageddon-{what}:{game_id}", match_id)


def armageddon_result(armageddon_id: int, match_id: int) -> NoticeKey:
    return NoticeKey(K.ARMAGEDDON_RESULT, f"armageddon-result:{armageddon_id}", match_id)


def game_forfeit(match_id: int, game: int) -> NoticeKey:
    return NoticeKey(K.GAME_FORFEIT, f"game-forfeit:{match_id}:{game}", match_id)


def exit_award(match_id: int) -> NoticeKey:
    return NoticeKey(K.EXIT_AWARD, f"exit-award:{match_id}", match_id)


def knockout_repaired(match_id: int) -> NoticeKey:
    return NoticeKey(K.KNOCKOUT_REPAIRED, f"rebuild:{match_id}", match_id)


# --- delivery --------------------------------------------------------------------------------


def undelivered(player: str, day: str) -> NoticeKey:
    """The TDs' alert that ``player``'s notices did not go out by DM (one a player a day)."""
    return NoticeKey(K.UNDELIVERED, f"undelivered:{player.lower()}:{day}", player=player.lower())


def late(since: str) -> NoticeKey:
    """The TDs' note that notices wait while Lichess is unreachable (one an outage)."""
    return NoticeKey(K.LATE, f"late:{since}")


# --- the TDs' digest -------------------------------------------------------------------------


def td_digest(day: str) -> NoticeKey:
    """The digest sent on ``day`` (an ISO date)."""
    return NoticeKey(K.TD_DIGEST, f"digest:{day}")
