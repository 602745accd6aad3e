"""The texts the bot sends: player notices and TD alerts (pure templates).

Every time is stated in UTC with its weekday and how far away it is (:func:`describe_time`), e.g.
``Thu 14 Oct 18:00 UTC, in 2 days 3 hours``. A TD alert says what happened, the evidence, and
that the TD desk's buttons settle it; the operation's command line (:attr:`TDAlert.command`) is
kept for the command line's own listing and never written into the text a TD reads.

Lichess private messages (``POST /inbox/{username}``): the API spec gives no length limit, but
Lichess keeps only the first 8000 characters of a message (lila ``Msg.make``). Texts here are far
shorter; :func:`fit` is the safety net that keeps every text within :data:`DM_LIMIT`.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import Ruleset
from rules.core.words import ENGLISH, EVERYONE_IN_ENGLISH, Readers, Words
from rules.week.calendar import MatchWeek, label_duration, label_time
from rules.week.conduct import (
    ClaimRight,
    DisqualificationCase,
    NoShowAlert,
    NoShowStage,
    PauseViolation,
    no_show_rule,
)
from rules.week.faults import PendingReply, Verdict, WeekendVerdict, offers_counted
from rules.week.negotiation import Negotiation, Phase, Ruling, RulingKind, StandingOffer

__all__ = [
    "DM_LIMIT",
    "Audience",
    "Notice",
    "TDAlert",
    "TeamBoard",
    "change_asked",
    "change_proposed",
    "change_refused",
    "deadline_missed",
    "describe_time",
    "fit",
    "late_check_note",
    "match_result",
    "no_show_notice",
    "offer_received",
    "offer_withdrawn",
    "offers_sent",
    "pairing_published",
    "reply_reminder",
    "result_score",
    "round_pairings",
    "statuses_unavailable",
    "td_claim_alert",
    "td_completion_alert",
    "td_disqualification_alert",
    "td_no_show_alert",
    "td_offers_verdict_alert",
    "td_pause_alert",
    "td_weekend_alert",
    "time_agreed",
]

DM_LIMIT = 8000
"""Characters Lichess keeps of one private message."""


class Audience(enum.Enum):
    PLAYER = "player"  # a DM to one player
    TDS = "tds"  # a DM to each TD and the dashboard
    PUBLIC = "public"  # team update, public schedule, forum draft


@dataclass(frozen=True, slots=True)
class Notice:
    audience: Audience
    recipient: PlayerId | None
    text: str


@dataclass(frozen=True, slots=True)
class TDAlert:
    """One alert per event: what happened, the evidence, and where it is settled: the desk's
    buttons. ``command`` is the operation's command line, for the command line's own listing;
    the text a TD reads names no command."""

    match_id: MatchId | None
    what: str
    evidence: tuple[str, ...]
    command: str | None

    @property
    def text(self) -> str:
        head = f"[ACWC] match {self.match_id}: " if self.match_id is not None else "[ACWC] "
        lines = [head + self.what]
        if self.evidence:
            lines.append("Evidence:")
            lines.extend(f"- {line}" for line in self.evidence)
        if self.command is not None:  # the desk's buttons; the command line is the TDs' own
            lines.append("Settle it with the buttons on the TD desk.")
        return fit("\n".join(lines))

    def notice(self) -> Notice:
        return Notice(Audience.TDS, None, self.text)


def fit(text: str, limit: int = DM_LIMIT, *, words: Words = ENGLISH) -> str:
    """``text`` cut to ``limit`` characters, saying so (in the reader's ``words``) when it had to
    be cut."""
    if len(text) <= limit:
        return text
    shortened = "\n" + words.gettext("… (shortened; the match room has the rest)")
    return text[: limit - len(shortened)] + shortened


def describe_time(when: dt.datetime, *, now: dt.datetime, words: Words = ENGLISH) -> str:
    """``Thu 14 Oct 18:00 UTC, in 2 days 3 hours`` (or ``..., 5 minutes ago``, ``..., now``)."""
    delta = when - now
    at = label_time(when, words)
    if abs(delta) < dt.timedelta(minutes=1):
        return words.gettext("%(time)s, now") % {"time": at}
    duration = label_duration(delta, words)
    if delta > dt.timedelta(0):
        return words.gettext("%(time)s, in %(duration)s") % {"time": at, "duration": duration}
    return words.gettext("%(time)s, %(duration)s ago") % {"time": at, "duration": duration}


def _hours(delta: dt.timedelta, words: Words) -> str:
    """``24 hours`` rather than ``1 day``: how the regulations state reply times."""
    hours = delta / dt.timedelta(hours=1)
    if hours != int(hours):
        return words.gettext("%(hours)s hours") % {"hours": f"{hours:g}"}
    n = int(hours)
    return words.ngettext("%(n)d hour", "%(n)d hours", n) % {"n": n}


def _player(recipient: PlayerId, text: str, words: Words = ENGLISH) -> Notice:
    return Notice(Audience.PLAYER, recipient, fit(text, words=words))


def _offer_line(offer: StandingOffer, *, now: dt.datetime, words: Words = ENGLISH) -> str:
    return f"{offer.number}. {offer.by}: {describe_time(offer.time, now=now, words=words)}"


def _offer_evidence(negotiation: Negotiation) -> tuple[str, ...]:
    lines = []
    for o in sorted(negotiation.offers, key=lambda o: o.number):
        state = f", withdrawn {label_time(o.withdrawn_at)}" if o.withdrawn_at is not None else ""
        lines.append(
            f"offer {o.number} by {o.by}: {label_time(o.time)} "
            f"(made {label_time(o.made_at)}{state})"
        )
    return tuple(lines) or ("no offers were made",)


# --- player notices ------------------------------------------------------------------------------
# Each is written in its reader's language: ``words`` for one reader, ``readers`` for several.


def pairing_published(
    *,
    match_id: MatchId,
    player: PlayerId,
    opponent: PlayerId,
    week: MatchWeek,
    room_url: str,
    now: dt.datetime,
    ruleset: Ruleset,
    words: Words = ENGLISH,
) -> Notice:
    """Tuesday: your opponent, the deadlines and the match room (rules 4, 5.1)."""
    rules = ruleset.offers
    text = words.gettext(
        "ACWC pairing: you play %(opponent)s (match %(match)s).\n"
        "Agree a start time in your match room: %(room)s\n"
        "- Offer at least %(required)s times by %(deadline)s (rules 5.1), at least %(gap)s "
        "apart and at most %(per_date)s on one date (rules 5.4). All times are UTC, e.g. "
        "`offer thu 18:00, fri 20:00`.\n"
        "- Answer your opponent's offers, preferably within %(reply)s (rules 5.7).\n"
        "- The match must be completed by %(end)s (rules 4.5).\n"
        "Send `help` in the match room for every command."
    ) % {
        "opponent": opponent,
        "match": match_id,
        "room": room_url,
        "required": rules.required_offers,
        "deadline": describe_time(week.offer_deadline, now=now, words=words),
        "gap": label_duration(rules.min_gap, words),
        "per_date": rules.max_per_date,
        "reply": _hours(rules.reply_within, words),
        "end": describe_time(week.end, now=now, words=words),
    }
    return _player(player, text, words)


def offer_received(
    negotiation: Negotiation,
    offers: Sequence[StandingOffer],
    *,
    recipient: PlayerId,
    now: dt.datetime,
    ruleset: Ruleset,
    words: Words = ENGLISH,
) -> Notice:
    """The opponent offered times: how to accept or counter (rules 5.7)."""
    by = negotiation.opponent_of(recipient)
    lines = [
        words.ngettext(
            "%(by)s offered a time for your ACWC match:",
            "%(by)s offered times for your ACWC match:",
            len(offers),
        )
        % {"by": by}
    ]
    lines.extend(
        _offer_line(o, now=now, words=words) for o in sorted(offers, key=lambda o: o.number)
    )
    lines.append(
        words.gettext(
            "Reply with `accept %(first)s` or offer other times (`offer ...`), preferably "
            "within %(reply)s (rules 5.7)."
        )
        % {
            "first": min(o.number for o in offers),
            "reply": _hours(ruleset.offers.reply_within, words),
        }
    )
    return _player(recipient, "\n".join(lines), words)


def reply_reminder(
    negotiation: Negotiation, pending: PendingReply, *, now: dt.datetime, words: Words = ENGLISH
) -> Notice:
    """Rules 5.7: a reminder that the opponent's offers are still unanswered."""
    open_offers = [
        o for o in negotiation.offers if o.number in pending.offer_numbers and o.is_open(now=now)
    ]
    opponent = negotiation.opponent_of(pending.player)
    lines = [
        words.gettext("Reminder: %(opponent)s's offers are waiting for your answer (rules 5.7):")
        % {"opponent": opponent}
    ]
    lines.extend(_offer_line(o, now=now, words=words) for o in open_offers)
    lines.append(words.gettext("Send `accept <number>` or offer other times with `offer ...`."))
    return _player(pending.player, "\n".join(lines), words)


def _agreed_text(
    negotiation: Negotiation,
    player: PlayerId,
    *,
    now: dt.datetime,
    ruleset: Ruleset,
    games_line: str | None,
    words: Words,
) -> str:
    agreement = negotiation.agreement
    assert agreement is not None
    text = words.gettext(
        "Your ACWC match against %(opponent)s is fixed: %(when)s.\n"
        "Be online on time: %(no_show_rule)s. The time changes only if both of you agree "
        "(`change <time>`).\n"
    ) % {
        "opponent": negotiation.opponent_of(player),
        "when": describe_time(agreement.time, now=now, words=words),
        "no_show_rule": no_show_rule(ruleset.conduct, words),
    }
    if games_line is None:
        games_line = words.gettext(
            "The bot sends you each game's link: a challenge only you two can join."
        )
    return text + games_line


def time_agreed(
    negotiation: Negotiation,
    *,
    now: dt.datetime,
    ruleset: Ruleset,
    names: Mapping[PlayerId, str] | None = None,
    games_line: str | None = None,
    readers: Readers = EVERYONE_IN_ENGLISH,
) -> tuple[Notice, ...]:
    """The agreed time, to both players, and the public line for the schedule (rules 5.2);
    ``names``: the players as Lichess spells them, for the public line; ``games_line``: how
    the players reach their games, in place of the general sentence ("": nothing, for the
    caller to add the game's link)."""
    agreement = negotiation.agreement
    if agreement is None:
        raise ValueError("no time is agreed")
    a, b = negotiation.players
    notices = [
        _player(
            p,
            _agreed_text(
                negotiation,
                p,
                now=now,
                ruleset=ruleset,
                games_line=games_line,
                words=readers.of(p),
            ),
            readers.of(p),
        )
        for p in (a, b)
    ]
    spelled = names or {}
    public = f"{spelled.get(a, a)} - {spelled.get(b, b)}: {label_time(agreement.time)}"
    notices.append(Notice(Audience.PUBLIC, None, public))
    return tuple(notices)


def change_proposed(
    negotiation: Negotiation, *, now: dt.datetime, words: Words = ENGLISH
) -> Notice:
    """Ask the opponent to consent to a new time."""
    proposal = negotiation.change
    if proposal is None or negotiation.agreement is None:
        raise ValueError("no change is proposed")
    recipient = negotiation.opponent_of(proposal.by)
    text = words.gettext(
        "%(by)s asks to move your match from %(agreed)s to %(proposed)s.\n"
        "Send `accept change` to agree or `decline change` to keep the agreed time."
    ) % {
        "by": proposal.by,
        "agreed": label_time(negotiation.agreement.time, words),
        "proposed": describe_time(proposal.time, now=now, words=words),
    }
    return _player(recipient, text, words)


def offers_sent(
    negotiation: Negotiation,
    offers: Sequence[StandingOffer],
    *,
    player: PlayerId,
    counted: bool,
    now: dt.datetime,
    ruleset: Ruleset,
    words: Words = ENGLISH,
) -> str:
    """What ``player`` is told of the ``offers`` they just made (``counted``: before the offers
    deadline, so they count towards rules 5.1)."""
    opponent = negotiation.opponent_of(player)
    lines = [
        words.ngettext(
            "Your offer went to %(opponent)s:", "Your offers went to %(opponent)s:", len(offers)
        )
        % {"opponent": opponent}
    ]
    lines.extend(f"{o.number}. {describe_time(o.time, now=now, words=words)}" for o in offers)
    if not counted:
        lines.append(
            words.gettext(
                "Made after the offers deadline: they do not count towards rules 5.1, "
                "but your opponent can still accept them."
            )
        )
    elif negotiation.phase is Phase.OPEN:
        lines.append(_offers_made_line(negotiation, player, now=now, ruleset=ruleset, words=words))
    return "\n".join(lines)


def _offers_made_line(
    negotiation: Negotiation, player: PlayerId, *, now: dt.datetime, ruleset: Ruleset, words: Words
) -> str:
    return words.gettext(
        "You have made %(made)s of %(required)s offers due by %(deadline)s (rules 5.1)."
    ) % {
        "made": offers_counted(negotiation, player),
        "required": ruleset.offers.required_offers,
        "deadline": describe_time(negotiation.week.offer_deadline, now=now, words=words),
    }


def offer_withdrawn(
    player: str,
    number: int,
    time: dt.datetime,
    *,
    words: Words = ENGLISH,
    opponent_words: Words = ENGLISH,
) -> tuple[str, str]:
    """What ``player``, who withdrew their offer ``number``, and their opponent are told (each
    in their own words)."""
    return (
        words.gettext("Offer %(number)s (%(time)s) is withdrawn.")
        % {"number": number, "time": label_time(time, words)},
        opponent_words.gettext("%(player)s withdrew offer %(number)s (%(time)s).")
        % {"player": player, "number": number, "time": label_time(time, opponent_words)},
    )


def change_asked(
    opponent: str, time: dt.datetime, *, now: dt.datetime, words: Words = ENGLISH
) -> str:
    """What a player who asked ``opponent`` to move the agreed time to ``time`` is told."""
    return words.gettext(
        "You asked %(opponent)s to move the match to %(time)s; the agreed time stays until "
        "they send `accept change`."
    ) % {"opponent": opponent, "time": describe_time(time, now=now, words=words)}


@dataclass(frozen=True, slots=True)
class TeamBoard:
    """One board of a round in the team's message: ``black`` None is a bye."""

    board: int
    white: str
    black: str | None
    room_url: str


def round_pairings(
    stage: str, number: int, week: MatchWeek, boards: Sequence[TeamBoard]
) -> tuple[str, str]:
    """The team message of a round put into play: its subject and its body."""
    title = f"ACWC {stage} round {number} pairings"
    lines = [
        title,
        f"Play by {label_time(week.end)} (rules 4.5); all times UTC.",
        f"Offer your start times in your match room by {label_time(week.offer_deadline)} "
        '(rules 5.1); your pairing is there under "your notices".',
    ]
    for b in boards:
        if b.black is None:
            lines.append(f"{b.board}. {b.white}: bye")
        else:
            lines.append(f"{b.board}. {b.white} - {b.black}  {b.room_url}")
    return title, "\n".join(lines)


def change_refused(
    player: str,
    *,
    withdrawn: bool,
    kept: dt.datetime,
    words: Words = ENGLISH,
    opponent_words: Words = ENGLISH,
) -> tuple[str, str]:
    """What ``player``, who withdrew their own request to move the match (``withdrawn``) or
    declined the opponent's, and that opponent are told: the match stays at ``kept``."""
    mine, theirs = (
        {"at": label_time(kept, words)},
        {
            "at": label_time(kept, opponent_words),
            "player": player,
        },
    )
    if withdrawn:
        return (
            words.gettext("You withdrew your request to move the match; it stays at %(at)s.")
            % mine,
            opponent_words.gettext(
                "%(player)s withdrew their request to move the match; it stays at %(at)s."
            )
            % theirs,
        )
    return (
        words.gettext("You declined the change; the match stays at %(at)s.") % mine,
        opponent_words.gettext("%(player)s declined moving the match; it stays at %(at)s.")
        % theirs,
    )


def _fault_text(
    ruling: Ruling, player: PlayerId, opponent: PlayerId, end: str, words: Words
) -> str:
    """A fault ruling as ``player`` reads it (``end``: when the week ends, in their words)."""
    one_at_fault = ruling.kind is RulingKind.OFFERS_ONE_AT_FAULT
    if ruling.tied:
        reason = (
            words.gettext(
                "neither player made the required offers by the deadline (rules 5.6), and "
                "both of you are charged with a forfeit"
            )
            if ruling.kind is RulingKind.OFFERS_BOTH_AT_FAULT
            else words.gettext("the TDs found neither player at fault (rules 5.9)")
        )
        return words.gettext(
            "Your ACWC match against %(opponent)s is recorded as a tied match: %(reason)s."
        ) % {"opponent": opponent, "reason": reason}
    if ruling.chooser == player:
        return words.gettext(
            "%(opponent)s is at fault (%(why)s), so you choose the match time: send "
            "`choose <time>` (UTC), e.g. `choose sat 18:00`, before %(end)s."
        ) % {
            "opponent": opponent,
            "end": end,
            "why": words.gettext("not enough offers by the deadline, rules 5.5")
            if one_at_fault
            else words.gettext("TD decision, rules 5.9"),
        }
    return words.gettext(
        "You are at fault (%(why)s), so %(opponent)s chooses the match time and you must "
        "accept it. You will be told the time as soon as it is chosen."
    ) % {
        "opponent": opponent,
        "why": words.gettext("fewer than the required offers by the deadline, rules 5.5")
        if one_at_fault
        else words.gettext("TD decision, rules 5.9"),
    }


def deadline_missed(
    negotiation: Negotiation,
    ruling: Ruling,
    *,
    now: dt.datetime,
    readers: Readers = EVERYONE_IN_ENGLISH,
) -> tuple[Notice, ...]:
    """A fault ruling told to both players (rules 5.5, 5.6, 5.9)."""
    out: list[Notice] = []
    for p in negotiation.players:
        words = readers.of(p)
        end = describe_time(negotiation.week.end, now=now, words=words)
        out.append(
            _player(p, _fault_text(ruling, p, negotiation.opponent_of(p), end, words), words)
        )
    return tuple(out)


def _no_show_after(alert: NoShowAlert, ruleset: Ruleset, words: Words = ENGLISH) -> str:
    """How long after the agreed time this check is (rules 6.3: the grace period, then more)."""
    conduct = ruleset.conduct
    first = alert.stage is NoShowStage.FIRST
    return label_duration(conduct.no_show_grace if first else conduct.no_show_second_alert, words)


def no_show_notice(
    alert: NoShowAlert,
    *,
    now: dt.datetime,
    ruleset: Ruleset,
    readers: Readers = EVERYONE_IN_ENGLISH,
) -> tuple[Notice, ...]:
    """Rules 6.3 to the players: the appearing player is told the TDs know, then their options."""
    out: list[Notice] = []
    appearing = alert.appearing_player
    for p in alert.appeared:
        if appearing is None:
            continue
        words = readers.of(p)
        values = {"absent": alert.absent[0], "after": _no_show_after(alert, ruleset, words)}
        if alert.stage is NoShowStage.FIRST:
            text = words.gettext(
                "%(absent)s has not shown up %(after)s after the agreed time (%(time)s). The "
                "TDs have been told for you (rules 6.3)."
            ) % (values | {"time": label_time(alert.scheduled, words)})
        else:
            text = (
                words.gettext(
                    "%(absent)s has still not shown up %(after)s after the agreed time; the TDs "
                    "have been told again. You may `claim win`, or reschedule with `change <time>` "
                    "(rules 6.3)."
                )
                % values
            )
        out.append(_player(p, text, words))
    for p in alert.absent:
        words = readers.of(p)
        text = words.gettext(
            "Your ACWC match was due at %(time)s and you have not shown up. Start the game now "
            "or contact the TDs (rules 6.3)."
        ) % {"time": describe_time(alert.scheduled, now=now, words=words)}
        out.append(_player(p, text, words))
    return tuple(out)


def match_result(
    *,
    match_id: MatchId,
    players: tuple[PlayerId, PlayerId],
    score: str,
    winner: PlayerId | None,
    names: Mapping[PlayerId, str] | None = None,
    readers: Readers = EVERYONE_IN_ENGLISH,
    scores: Mapping[PlayerId, str] | None = None,
) -> tuple[Notice, ...]:
    """The result, to both players and for the public pages (rules 6.6); ``names``: the
    players as Lichess spells them; ``scores``: the score as each player reads it (``score``
    for anyone not in it)."""
    spelled = names or {}
    a, b = (spelled.get(p, p) for p in players)
    notices = []
    for p in players:
        words = readers.of(p)
        outcome = (
            words.gettext("%(winner)s wins") % {"winner": spelled.get(winner, winner)}
            if winner is not None
            else words.gettext("tied match")
        )
        mine = (scores or {}).get(p, score)
        notices.append(
            _player(
                p,
                words.gettext("ACWC match %(match)s result: %(line)s. Thank you for playing.")
                % {"match": match_id, "line": f"{a} - {b} {mine} ({outcome})"},
                words,
            )
        )
    outcome = f"{spelled.get(winner, winner)} wins" if winner is not None else "tied match"
    notices.append(Notice(Audience.PUBLIC, None, f"{a} - {b} {score} ({outcome})"))
    return tuple(notices)


# --- TD alerts -----------------------------------------------------------------------------------


def _fault_command(match_id: MatchId) -> str:
    return f"acwc fault decide {match_id} --at-fault USER|--nobody"


def td_offers_verdict_alert(negotiation: Negotiation, verdict: Verdict) -> TDAlert:
    """The Friday offers check found a fault and the bot applied rules 5.5/5.6; TDs may overrule."""
    counts = ", ".join(f"{p}: {n}" for p, n in verdict.offers)
    if len(verdict.at_fault) == 2:
        what = (
            "neither player made the required offers by the deadline; recorded as a tied match "
            "with a forfeit for each (rules 5.6)."
        )
    else:
        what = (
            f"{verdict.at_fault[0]} did not make the required offers by the deadline; "
            f"{verdict.chooser} chooses the time (rules 5.5)."
        )
    return TDAlert(
        negotiation.match_id,
        what,
        (f"offers counted: {counts}", *_offer_evidence(negotiation)),
        f"{_fault_command(negotiation.match_id)}  (only to overrule, rules 5.10)",
    )


def td_weekend_alert(negotiation: Negotiation, verdict: WeekendVerdict) -> TDAlert:
    """Rules 5.8: both made their offers, no agreement; the TDs decide who is at fault."""
    a, b = negotiation.players
    counts = ", ".join(f"{p}: {n}" for p, n in verdict.offers)
    return TDAlert(
        negotiation.match_id,
        f"{a} and {b} both made their offers but agreed no time before the weekend "
        "(rules 5.8). Decide who is at fault; the other player then chooses the time. "
        "Nobody at fault makes it a tied match (rules 5.9).",
        (f"offers counted: {counts}", *_offer_evidence(negotiation)),
        f"acwc fault decide {negotiation.match_id} --at-fault {a}|{b}|--nobody",
    )


def td_no_show_alert(alert: NoShowAlert, *, ruleset: Ruleset) -> TDAlert:
    """Rules 6.3, after the grace period and again after the second alert's time."""
    after = _no_show_after(alert, ruleset)
    second = label_duration(ruleset.conduct.no_show_second_alert)
    appeared = ", ".join(alert.appeared) or "nobody"
    absent = ", ".join(alert.absent) or "nobody"
    evidence = (
        f"agreed time: {label_time(alert.scheduled)}",
        f"seen online since then: {appeared}",
        f"not seen: {absent}",
        "no match game has started",
    )
    claim = alert.claim
    appearing = alert.appearing_player
    command: str | None = None
    if claim is not None:
        what = (
            f"{claim.against} has not shown up {after} after the agreed time; "
            f"{claim.claimant} may claim the win or reschedule (rules 6.3)."
        )
        command = f"acwc claim decide {alert.match_id} --winner {claim.claimant}|--dismiss"
    elif appearing is not None:
        what = (
            f"{alert.absent[0]} has not shown up {after} after the agreed time; "
            f"{appearing} is there (rules 6.3). Second check at +{second}."
        )
    else:
        what = f"no game has started {after} after the agreed time (rules 6.3)."
        if alert.stage is NoShowStage.SECOND:
            command = f"acwc claim decide {alert.match_id} --winner USER|--dismiss"
    return TDAlert(alert.match_id, what, evidence, command)


def td_pause_alert(violation: PauseViolation) -> TDAlert:
    """Rules 6.1, 6.2, 6.4: an overlong, second or repeated pause between games."""
    pause = violation.pause
    match_id = violation.match_id
    evidence = (
        f"game {pause.after_game} ended {label_time(pause.start)}",
        (
            "next game not started yet"
            if pause.ongoing
            else f"game {pause.after_game + 1} started {label_time(pause.end)}"
        ),
        f"pause taken by: {violation.offender or 'unknown (no break was called)'}",
    )
    if violation.claim is not None:
        command = f"acwc claim decide {match_id} --winner {violation.claim.claimant}|--dismiss"
        what = f"{violation.explanation} {violation.claim.claimant} may claim the win."
    else:
        command = f"acwc claim decide {match_id} --winner USER|--dismiss"
        what = violation.explanation
    return TDAlert(match_id, what, evidence, command)


def td_claim_alert(claim: ClaimRight, *, evidence: Sequence[str] = (), ruleset: Ruleset) -> TDAlert:
    """A player sent ``claim win``; the TDs confirm or dismiss it."""
    reasons = {
        "no_show": "did not show up (rules 6.3)",
        "second_break": "took a second break (rules 6.1)",
        "break_overrun": f"overran the break of {label_duration(ruleset.conduct.break_length)} "
        "(rules 6.1, 6.4)",
    }
    return TDAlert(
        claim.match_id,
        f"{claim.claimant} claims the match win: {claim.against} {reasons[claim.reason.value]}.",
        tuple(evidence),
        f"acwc claim decide {claim.match_id} --winner {claim.claimant}|--dismiss",
    )


def td_disqualification_alert(case: DisqualificationCase) -> TDAlert:
    """Rules 6.5: forfeits in enough different matches; disqualification awaits the TDs."""
    evidence = tuple(
        f"forfeit in match {f.match_id} ({f.reason.value}) on {label_time(f.at)}"
        for f in case.forfeits
    )
    return TDAlert(
        None,
        f"{case.player} has forfeited in {len(case.matches)} different matches; rules 6.5 "
        "disqualifies them once you confirm.",
        evidence,
        f"acwc dq confirm {case.player}",
    )


def late_check_note(due_at: dt.datetime, late_by: dt.timedelta, words: Words = ENGLISH) -> str:
    """The line a notice of a check that ran late carries (the service was not running)."""
    return words.gettext(
        "(This check was due %(due)s and ran %(late)s late: the service was not running.)"
    ) % {"due": label_time(due_at, words), "late": label_duration(late_by, words)}


def statuses_unavailable(error: str) -> str:
    """A no-show check's evidence when Lichess did not say who is online (``error``: why)."""
    return f"Lichess statuses unavailable ({error}): 'seen' is from earlier checks only."


def td_completion_alert(
    match_id: MatchId,
    players: tuple[str, str],
    week_end: dt.datetime,
    *,
    score: str,
    played: int,
    games: int,
    agreed: dt.datetime | None,
    history: Sequence[str],
) -> TDAlert:
    """Rules 4.5: a match not completed by the end of its week, with its score, its agreed
    time and the last lines of its history."""
    return TDAlert(
        match_id,
        f"{players[0]} - {players[1]} was not completed by {label_time(week_end)} (rules 4.5).",
        (
            f"score {score} after {played} of {games} games",
            f"agreed time: {label_time(agreed) if agreed else 'none'}",
            *history,
        ),
        "record the missing games (Record or correct a result), a forfeit win to either "
        "player, or no forfeit",
    )


def result_score(
    score: str, *, decided_by: str | None, games_played: bool, words: Words = ENGLISH
) -> str:
    """A decided match's score in its result notice: the games' score, and who decided it when
    a forfeit or the TDs did (alone when no game was played)."""
    if decided_by == "forfeit":
        if not games_played:
            return words.gettext("by forfeit")
        return words.gettext("%(score)s (decided by forfeit)") % {"score": score}
    if decided_by == "td":
        if not games_played:
            return words.gettext("by TD decision")
        return words.gettext("%(score)s (decided by the TDs)") % {"score": score}
    return score
