"""Conduct during a match: no-shows, breaks, leaving, forfeits (rules 6).

Everything is a pure function of what the service has observed (games with their start and end
times, who was seen online, break calls) and the :class:`~rules.core.ruleset.Conduct` settings.

Who took a pause between two games? Lichess cannot tell: a rematch is offered by one player and
accepted by the other, and the game export says neither who offered nor who hesitated. So:

* a player calls their break with the ``break`` command (rules 6.1 speaks of *calling* a break);
  the pause around that call is theirs;
* a game that ended because a player left it (rules 6.4) makes the following pause theirs: their
  break started when they left;
* an unannounced pause longer than ``Conduct.long_pause`` is attributed to nobody. The first one is
  tolerated as a break one of the two players took. Any further one is the "repeated failure" of
  rules 6.2 and goes to the TDs, who decide who was responsible; the bot accuses nobody.

A break by a player who already had one, a break longer than ``Conduct.break_length`` and a repeated
unannounced pause are violations; where the offender is known, the opponent may claim the win.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from rules.core.errors import RulesError, Value, refusal
from rules.core.model import GameId, MatchId, PlayerId
from rules.core.ruleset import Conduct, Ruleset
from rules.core.words import ENGLISH, N_, Words
from rules.week.calendar import label_duration

__all__ = [
    "BreakCall",
    "ClaimReason",
    "ClaimRight",
    "ConductError",
    "ConductErrorReason",
    "Disqualification",
    "DisqualificationCase",
    "Forfeit",
    "ForfeitReason",
    "GameSpan",
    "NoShowAlert",
    "NoShowStage",
    "Pause",
    "PauseKind",
    "PauseReview",
    "PauseViolation",
    "assess_no_show",
    "check_break_call",
    "check_claim",
    "confirm_disqualification",
    "disqualification_due",
    "disqualifications_due",
    "granted_claim_reason",
    "no_show_forfeit",
    "pause_check_due",
    "review_pauses",
]


class ConductErrorReason(enum.Enum):
    TOO_EARLY = "too_early"
    NOT_A_PLAYER = "not_a_player"
    NO_CLAIM = "no_claim"
    BREAK_USED = "break_used"
    GAME_IN_PROGRESS = "game_in_progress"
    NOT_STARTED = "not_started"
    NOT_ENOUGH_FORFEITS = "not_enough_forfeits"


class ConductError(RulesError):
    reason: ConductErrorReason


C = ConductErrorReason


def _no(reason: ConductErrorReason, template: str, **values: Value) -> RulesError:
    """The refusal ``template`` (marked with ``N_``), in English and in a reader's words."""
    return refusal(ConductError, reason, template, **values)


def _lasting(delta: dt.timedelta) -> Callable[[Words], str]:
    return lambda words: label_duration(delta, words)


def minutes_text(delta: dt.timedelta) -> str:
    """A pause's length to the second, ``10 min 00 s`` (the same in English and French)."""
    total = int(delta.total_seconds())
    return f"{total // 60} min {total % 60:02d} s"


# --- claims --------------------------------------------------------------------------------------


class ClaimReason(enum.Enum):
    NO_SHOW = "no_show"  # rules 6.3
    SECOND_BREAK = "second_break"  # rules 6.1
    BREAK_OVERRUN = "break_overrun"  # rules 6.1, 6.4


@dataclass(frozen=True, slots=True)
class ClaimRight:
    """``claimant`` may claim the match win from ``against`` (the TDs confirm)."""

    match_id: MatchId
    claimant: PlayerId
    against: PlayerId
    reason: ClaimReason
    since: dt.datetime


def no_show_rule(conduct: Conduct, words: Words = ENGLISH) -> str:
    """Rules 6.3 in one sentence, with this rule set's times: the one wording every notice,
    help text and page uses."""
    return words.gettext(
        "if no game has started %(grace)s after the agreed time, the TDs are told; %(claim)s "
        "after it, a player who is there may claim the win or reschedule (rules 6.3)"
    ) % {
        "grace": label_duration(conduct.no_show_grace, words),
        "claim": label_duration(conduct.no_show_second_alert, words),
    }


def claim_opens(conduct: Conduct, scheduled: dt.datetime) -> dt.datetime:
    """When a player who is there may first claim a no-show (rules 6.3)."""
    return scheduled + conduct.no_show_second_alert


def check_claim(
    rights: Iterable[ClaimRight], player: PlayerId, *, match_id: MatchId, conduct: Conduct
) -> ClaimRight:
    """The right behind a player's ``claim win``; raises ``NO_CLAIM`` if they have none."""
    for right in sorted(rights, key=lambda r: (r.since, r.reason.value)):
        if right.claimant == player and right.match_id == match_id:
            return right
    grace = conduct.no_show_grace
    later = conduct.no_show_second_alert - grace
    raise _no(
        C.NO_CLAIM,
        N_(
            "You have nothing to claim: a win can be claimed when your opponent has not shown up "
            "in the %(grace)s grace period after the agreed time nor %(later)s later, or overran "
            "the break of %(break_length)s or repeated a break (rules 6.1, 6.3, 6.4)."
        ),
        grace=_lasting(grace),
        later=_lasting(later),
        break_length=_lasting(conduct.break_length),
    )


# --- no-shows (rules 6.3) ------------------------------------------------------------------------


class NoShowStage(enum.Enum):
    FIRST = "first"  # +10 minutes: the grace period is over
    SECOND = "second"  # +20 minutes: the appearing player may claim the win or reschedule


@dataclass(frozen=True, slots=True)
class NoShowAlert:
    """No match game had started at a no-show check.

    ``appeared`` were seen online since the agreed time; ``absent`` were not. With exactly one
    player appearing, at the second check that player may claim the win or reschedule.
    """

    match_id: MatchId
    stage: NoShowStage
    scheduled: dt.datetime
    at: dt.datetime
    appeared: tuple[PlayerId, ...]
    absent: tuple[PlayerId, ...]

    @property
    def appearing_player(self) -> PlayerId | None:
        return self.appeared[0] if len(self.appeared) == 1 else None

    @property
    def claim(self) -> ClaimRight | None:
        """The appearing player's right to claim the win (second check only)."""
        if self.stage is not NoShowStage.SECOND or self.appearing_player is None:
            return None
        return ClaimRight(
            self.match_id, self.appearing_player, self.absent[0], ClaimReason.NO_SHOW, self.at
        )


def assess_no_show(
    *,
    match_id: MatchId,
    players: tuple[PlayerId, PlayerId],
    scheduled: dt.datetime,
    now: dt.datetime,
    seen: Collection[PlayerId],
    games_started: int,
    ruleset: Ruleset,
) -> NoShowAlert | None:
    """Rules 6.3 at +10 and +20 minutes: ``None`` when a game has started, else an alert.

    ``seen`` are the players seen online or playing since ``scheduled``. Raises ``TOO_EARLY``
    before the grace period is over.
    """
    conduct = ruleset.conduct
    if now < scheduled + conduct.no_show_grace:
        raise _no(
            C.TOO_EARLY,
            N_("The %(grace)s grace period is not over yet (rules 6.3)."),
            grace=_lasting(conduct.no_show_grace),
        )
    if games_started > 0:
        return None
    stage = (
        NoShowStage.SECOND if now >= scheduled + conduct.no_show_second_alert else NoShowStage.FIRST
    )
    appeared = tuple(p for p in players if p in seen)
    absent = tuple(p for p in players if p not in seen)
    return NoShowAlert(match_id, stage, scheduled, now, appeared, absent)


# --- breaks and pauses (rules 6.1, 6.2, 6.4) -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameSpan:
    """A finished match game: when it started and ended; ``abandoned_by`` left it (rules 6.4)."""

    game_id: GameId
    started_at: dt.datetime
    ended_at: dt.datetime
    abandoned_by: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class BreakCall:
    """A ``break`` command (rules 6.1)."""

    player: PlayerId
    at: dt.datetime


class PauseKind(enum.Enum):
    SHORT = "short"  # within Conduct.long_pause: the rematch was immediate (rules 6.2)
    BREAK = "break"  # a player's one break (rules 6.1), called or by leaving (6.4)
    UNANNOUNCED = "unannounced"  # a long pause nobody called; the first one is tolerated
    SECOND_BREAK = "second_break"  # a player's second break
    OVERRUN = "overrun"  # longer than Conduct.break_length
    REPEATED = "repeated"  # a further unannounced long pause (rules 6.2: repeated failure)

    @property
    def is_violation(self) -> bool:
        return self in (PauseKind.SECOND_BREAK, PauseKind.OVERRUN, PauseKind.REPEATED)


@dataclass(frozen=True, slots=True)
class Pause:
    """The time between game ``after_game`` (1-based) and the next one, or ``now`` if none yet."""

    after_game: int
    start: dt.datetime
    end: dt.datetime
    ongoing: bool
    taken_by: PlayerId | None
    kind: PauseKind

    @property
    def length(self) -> dt.timedelta:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class PauseViolation:
    """A pause for the TDs; ``claim`` is the opponent's right when the offender is known."""

    match_id: MatchId
    pause: Pause
    offender: PlayerId | None
    claim: ClaimRight | None
    explanation: str


@dataclass(frozen=True, slots=True)
class PauseReview:
    pauses: tuple[Pause, ...]
    violations: tuple[PauseViolation, ...]

    def has_used_break(self, player: PlayerId) -> bool:
        return any(p.taken_by == player and p.kind is not PauseKind.SHORT for p in self.pauses)


def _opponent(players: tuple[PlayerId, PlayerId], player: PlayerId) -> PlayerId:
    return players[1] if player == players[0] else players[0]


def review_pauses(
    games: Sequence[GameSpan],
    calls: Iterable[BreakCall],
    *,
    match_id: MatchId,
    players: tuple[PlayerId, PlayerId],
    conduct: Conduct,
    now: dt.datetime | None = None,
) -> PauseReview:
    """Classify every pause between consecutive games (rules 6.1, 6.2, 6.4).

    ``games`` are the finished games of the match in any order (sorted by start here). Pass
    ``now`` while the match goes on and the next game has not started: the pause since the last
    game is then reviewed too (an overrun shows before the next game starts).
    """
    ordered = sorted(games, key=lambda g: (g.started_at, g.game_id))
    spans: list[tuple[int, dt.datetime, dt.datetime, bool, PlayerId | None]] = []
    for i, game in enumerate(ordered):
        if i + 1 < len(ordered):
            spans.append(
                (i + 1, game.ended_at, ordered[i + 1].started_at, False, game.abandoned_by)
            )
        elif now is not None and now > game.ended_at:
            spans.append((i + 1, game.ended_at, now, True, game.abandoned_by))
    call_list = sorted(calls, key=lambda c: (c.at, c.player))
    used: set[PlayerId] = set()
    unannounced_seen = False
    pauses: list[Pause] = []
    violations: list[PauseViolation] = []
    for after, start, end, ongoing, left_by in spans:
        length = end - start
        caller = next((c.player for c in call_list if start <= c.at <= end), None)
        taken_by = left_by or caller
        long = length > conduct.long_pause
        if not long and taken_by is None:
            pauses.append(Pause(after, start, end, ongoing, None, PauseKind.SHORT))
            continue
        if taken_by is None:
            kind = PauseKind.REPEATED if unannounced_seen else PauseKind.UNANNOUNCED
            unannounced_seen = True
        else:
            kind = PauseKind.SECOND_BREAK if taken_by in used else PauseKind.BREAK
            used.add(taken_by)
        if length > conduct.break_length:
            kind = PauseKind.OVERRUN
        pause = Pause(after, start, end, ongoing, taken_by, kind)
        pauses.append(pause)
        if not kind.is_violation:
            continue
        claim = None
        if taken_by is not None:
            reason = (
                ClaimReason.BREAK_OVERRUN if kind is PauseKind.OVERRUN else ClaimReason.SECOND_BREAK
            )
            claim = ClaimRight(match_id, _opponent(players, taken_by), taken_by, reason, end)
        who = taken_by or "one of the players (Lichess does not say who)"
        if kind is PauseKind.OVERRUN:
            text = (
                f"Pause after game {after} lasted {minutes_text(length)}"
                f"{' so far' if ongoing else ''}, longer than the "
                f"{minutes_text(conduct.break_length)} a break may last (rules 6.1, 6.4); "
                f"taken by {who}."
            )
        elif kind is PauseKind.SECOND_BREAK:
            text = (
                f"{taken_by} took a second break after game {after} ({minutes_text(length)}); "
                "each player has one (rules 6.1)."
            )
        else:
            text = (
                f"Another unannounced pause after game {after} ({minutes_text(length)}): the "
                "rematch must be immediate when no break is called (rules 6.2); the TDs decide "
                "who was responsible."
            )
        violations.append(PauseViolation(match_id, pause, taken_by, claim, text))
    return PauseReview(tuple(pauses), tuple(violations))


def pause_check_due(
    games: Sequence[GameSpan], calls: Iterable[BreakCall], *, conduct: Conduct
) -> dt.datetime | None:
    """When the pause after the last finished game has overrun if no game has started by then
    (rules 6.1, 6.4): the break's length after the game's end (a leaver's 10 minutes run from
    the end of the game they left), or after a break called later in the pause (the time its
    caller was told), and a second more (a break "lasts at most" its length). ``None``: no game
    has finished yet."""
    if not games:
        return None
    last = max(games, key=lambda g: (g.ended_at, g.game_id))
    start = max([last.ended_at, *(c.at for c in calls if c.at >= last.ended_at)])
    return start + conduct.break_length + dt.timedelta(seconds=1)


def check_break_call(
    review: PauseReview,
    games: Sequence[GameSpan],
    *,
    player: PlayerId,
    players: tuple[PlayerId, PlayerId],
    game_in_progress: bool,
) -> None:
    """Whether ``player`` may call a break now (rules 6.1): between two games, once per match.

    Raises ``NOT_A_PLAYER``, ``NOT_STARTED``, ``GAME_IN_PROGRESS`` or ``BREAK_USED``.
    """
    if player not in players:
        raise _no(C.NOT_A_PLAYER, N_("%(player)s does not play this match."), player=player)
    if not games:
        raise _no(C.NOT_STARTED, N_("A break is called between two games (rules 6.1)."))
    if game_in_progress:
        raise _no(
            C.GAME_IN_PROGRESS,
            N_("A game is in progress; call your break after it ends (rules 6.1)."),
        )
    if review.has_used_break(player):
        raise _no(C.BREAK_USED, N_("You have already had your one break (rules 6.1)."))


# --- forfeits and disqualification (rules 5.6, 6.3, 6.5) -----------------------------------------


class ForfeitReason(enum.Enum):
    OFFERS = "offers"  # rules 5.6
    NO_SHOW = "no_show"  # rules 6.3
    CONDUCT = "conduct"  # rules 6.1, 6.2, 6.4
    TD = "td"  # rules 1.4


def granted_claim_reason(right: ClaimRight | None) -> ForfeitReason:
    """Why a match the TDs give to a claimant is forfeited: a no-show (rules 6.3), the player's
    conduct (rules 6.1, 6.4), or the TDs' own decision when the claimant had no open right."""
    if right is None:
        return ForfeitReason.TD
    return ForfeitReason.NO_SHOW if right.reason is ClaimReason.NO_SHOW else ForfeitReason.CONDUCT


@dataclass(frozen=True, slots=True)
class Forfeit:
    player: PlayerId
    match_id: MatchId
    reason: ForfeitReason
    at: dt.datetime


def no_show_forfeit(alert: NoShowAlert) -> Forfeit:
    """Rules 6.3: no claim and no rescheduling: the match is forfeited by the absent player."""
    if alert.appearing_player is None:
        raise ConductError(
            C.NO_CLAIM, "A no-show forfeit needs exactly one appearing player (rules 6.3)."
        )
    return Forfeit(alert.absent[0], alert.match_id, ForfeitReason.NO_SHOW, alert.at)


@dataclass(frozen=True, slots=True)
class DisqualificationCase:
    """Rules 6.5: forfeits in ``limit`` different matches; the TDs must confirm."""

    player: PlayerId
    forfeits: tuple[Forfeit, ...]

    @property
    def matches(self) -> tuple[MatchId, ...]:
        return tuple(sorted({f.match_id for f in self.forfeits}))


@dataclass(frozen=True, slots=True)
class Disqualification:
    player: PlayerId
    case: DisqualificationCase
    confirmed_by: str
    at: dt.datetime


def disqualification_due(
    forfeits: Iterable[Forfeit], player: PlayerId, *, conduct: Conduct
) -> DisqualificationCase | None:
    """A case when ``player`` forfeited in ``conduct.forfeit_limit`` different matches (rules 6.5).

    Several forfeits in one match count once.
    """
    own = tuple(
        sorted(
            (f for f in forfeits if f.player == player),
            key=lambda f: (f.at, f.match_id, f.reason.value),
        )
    )
    if len({f.match_id for f in own}) < conduct.forfeit_limit:
        return None
    return DisqualificationCase(player, own)


def disqualifications_due(
    forfeits: Iterable[Forfeit], *, conduct: Conduct
) -> tuple[DisqualificationCase, ...]:
    """Every player with a disqualification case, in player order."""
    all_forfeits = tuple(forfeits)
    cases = (
        disqualification_due(all_forfeits, p, conduct=conduct)
        for p in sorted({f.player for f in all_forfeits})
    )
    return tuple(c for c in cases if c is not None)


def confirm_disqualification(
    case: DisqualificationCase, *, confirmed_by: str, at: dt.datetime, conduct: Conduct
) -> Disqualification:
    """The TDs confirm a case (rules 6.5); raises ``NOT_ENOUGH_FORFEITS`` if it does not hold."""
    if len(case.matches) < conduct.forfeit_limit:
        raise ConductError(
            C.NOT_ENOUGH_FORFEITS,
            f"{case.player} forfeited in {len(case.matches)} match(es); disqualification needs "
            f"{conduct.forfeit_limit} (rules 6.5).",
        )
    return Disqualification(case.player, case, confirmed_by, at)
