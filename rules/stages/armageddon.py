"""The armageddon game and how its colours are chosen (rules 3.ix); the game played is checked in
:mod:`rules.stages.armageddon_game`.

Black has ``black_seconds`` (3:00) with draw odds and no increment; each player makes a sealed
time offer for White and the lower offer plays White with that time; equal offers go to
rock-paper-scissors (rules 3.ix.1.1-4).

:class:`ArmageddonProcedure` is a pure state machine. Every step takes ``now=`` and returns
the new procedure together with the events it caused, for the audit log. Offers and
rock-paper-scissors choices are sealed: the procedure keeps them, but :meth:`view` shows a
player only their own until both are in or the deadline passes, and the events of a sealed step
carry only a commitment (SHA-256 of the value and a caller-chosen salt), so anyone can check
afterwards that nothing was changed once the values are revealed with their salts.

Decisions the regulations leave open, taken here:

* A player with no offer at the deadline loses the bidding: the other plays White with their
  own offer. If neither offered, both count as offering the most White may have (Black's
  time) and rock-paper-scissors picks White.
* The rock-paper-scissors winner plays White. A drawn round is replayed with a new deadline of
  the same length. A player with no choice at the deadline loses the round; if neither chose,
  the TDs decide (:meth:`ArmageddonProcedure.td_decide`).
* An offer or a choice, once made, cannot be changed.
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import re
from dataclasses import dataclass, replace

from rules.core.errors import RulesError, refusal
from rules.core.model import PlayerId
from rules.core.ruleset import Ruleset
from rules.core.words import N_

__all__ = [
    "ArmageddonError",
    "ArmageddonErrorReason",
    "ArmageddonEvent",
    "ArmageddonProcedure",
    "ArmageddonView",
    "Decision",
    "EventKind",
    "Phase",
    "Rps",
    "commitment",
    "format_clock",
    "parse_bid",
]


class ArmageddonErrorReason(enum.Enum):
    BAD_BID_FORMAT = "bad_bid_format"
    BID_TOO_LOW = "bid_too_low"
    BID_TOO_HIGH = "bid_too_high"
    NOT_A_PLAYER = "not_a_player"
    SAME_PLAYER = "same_player"
    ALREADY_SUBMITTED = "already_submitted"
    DEADLINE_PASSED = "deadline_passed"
    WRONG_PHASE = "wrong_phase"
    TOO_EARLY = "too_early"
    BAD_CHOICE = "bad_choice"
    BAD_SALT = "bad_salt"
    NAIVE_DATETIME = "naive_datetime"


class ArmageddonError(RulesError):
    """An armageddon request that the regulations do not allow."""

    reason: ArmageddonErrorReason


_BID = re.compile(r"^\s*(\d{1,3}):([0-5]\d)\s*$")


def format_clock(seconds: int) -> str:
    """``90`` -> ``"1:30"``."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def parse_bid(text: str, *, ruleset: Ruleset) -> int:
    """A time offer for White written ``m:ss``, in seconds (rules 3.ix.1.2), between
    ``min_white_seconds`` (0:01) and Black's time (3:00); else :class:`ArmageddonError`."""
    rules = ruleset.armageddon
    return _parse_seconds(text, rules.min_white_seconds, rules.black_seconds)


def _parse_seconds(text: str, minimum: int, maximum: int) -> int:
    low, high = format_clock(minimum), format_clock(maximum)
    found = _BID.match(text)
    if found is None:
        raise refusal(
            ArmageddonError,
            ArmageddonErrorReason.BAD_BID_FORMAT,
            N_("Write your time offer for White as m:ss, between %(low)s and %(high)s: %(text)s?"),
            low=low,
            high=high,
            text=repr(text.strip()),
        )
    seconds = int(found.group(1)) * 60 + int(found.group(2))
    if seconds < minimum:
        raise refusal(
            ArmageddonError,
            ArmageddonErrorReason.BID_TOO_LOW,
            N_("White needs at least %(low)s on the clock; you offered %(bid)s."),
            low=low,
            bid=format_clock(seconds),
        )
    if seconds > maximum:
        raise refusal(
            ArmageddonError,
            ArmageddonErrorReason.BID_TOO_HIGH,
            N_("White cannot have more time than Black's %(high)s; you offered %(bid)s."),
            high=high,
            bid=format_clock(seconds),
        )
    return seconds


def commitment(value: str, salt: str) -> str:
    """The SHA-256 hex digest of ``value`` and ``salt``, published while ``value`` is sealed."""
    return hashlib.sha256(f"{value}\n{salt}".encode()).hexdigest()


class Rps(enum.Enum):
    ROCK = "rock"
    PAPER = "paper"
    SCISSORS = "scissors"

    def beats(self, other: Rps) -> bool:
        return (self, other) in (
            (Rps.ROCK, Rps.SCISSORS),
            (Rps.PAPER, Rps.ROCK),
            (Rps.SCISSORS, Rps.PAPER),
        )


def _read_choice(choice: Rps | str) -> Rps:
    if isinstance(choice, Rps):
        return choice
    try:
        return Rps(choice.strip().lower())
    except ValueError:
        raise refusal(
            ArmageddonError,
            ArmageddonErrorReason.BAD_CHOICE,
            N_("Choose rock, paper or scissors, not %(choice)s."),
            choice=repr(choice.strip()),
        ) from None


class Phase(enum.Enum):
    BIDDING = "bidding"
    RPS = "rps"
    NEEDS_TD = "needs_td"
    DECIDED = "decided"


PHASE_SAID = {
    Phase.BIDDING: N_("the time offers are open"),
    Phase.RPS: N_("rock-paper-scissors decides who plays White"),
    Phase.NEEDS_TD: N_("the TDs decide who plays White"),
    Phase.DECIDED: N_("the colours are decided"),
}
"""Where the procedure stands, in words a player reads (a step sent at another phase)."""


class Decision(enum.Enum):
    """How White was chosen."""

    LOWER_BID = "lower_bid"
    OPPONENT_NO_BID = "opponent_no_bid"
    RPS = "rps"
    OPPONENT_NO_RPS = "opponent_no_rps"
    TD = "td"


class EventKind(enum.Enum):
    STARTED = "started"
    BID_SEALED = "bid_sealed"
    BID_REVEALED = "bid_revealed"
    BID_MISSING = "bid_missing"
    RPS_STARTED = "rps_started"
    RPS_SEALED = "rps_sealed"
    RPS_REVEALED = "rps_revealed"
    RPS_MISSING = "rps_missing"
    RPS_DRAWN = "rps_drawn"
    TD_NEEDED = "td_needed"
    COLOURS_DECIDED = "colours_decided"


@dataclass(frozen=True, slots=True)
class ArmageddonEvent:
    """One step for the audit log. Fields that do not apply to ``kind`` are ``None``.

    A sealed step carries ``commitment`` only; the matching revealed step carries the value
    (``seconds`` or ``choice``) and ``salt``, so ``commitment(value, salt)`` can be checked.
    """

    kind: EventKind
    at: dt.datetime
    text: str
    player: PlayerId | None = None
    commitment: str | None = None
    seconds: int | None = None
    choice: Rps | None = None
    salt: str | None = None
    round: int | None = None
    deadline: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class _Sealed:
    value: str
    salt: str


@dataclass(frozen=True, slots=True)
class ArmageddonView:
    """What one viewer may see. Sealed values of others are ``None`` until revealed."""

    phase: Phase
    players: tuple[PlayerId, PlayerId]
    black_seconds: int
    bid_deadline: dt.datetime
    own_bid: int | None
    bids_in: tuple[bool, bool]
    bids: tuple[int | None, int | None] | None
    rps_round: int
    rps_deadline: dt.datetime | None
    own_choice: Rps | None
    choices_in: tuple[bool, bool]
    rps_history: tuple[tuple[Rps | None, Rps | None], ...]
    white: PlayerId | None
    black: PlayerId | None
    white_seconds: int | None
    decided_by: Decision | None


Step = tuple["ArmageddonProcedure", tuple[ArmageddonEvent, ...]]


def _aware(now: dt.datetime) -> None:
    if now.tzinfo is None:
        raise ArmageddonError(
            ArmageddonErrorReason.NAIVE_DATETIME, "Times must carry a time zone (UTC)."
        )


@dataclass(frozen=True, slots=True)
class ArmageddonProcedure:
    """The choice of colours and White's time for one armageddon game (rules 3.ix).

    Start with :meth:`start`; then :meth:`submit_bid`, :meth:`reveal` (at a deadline),
    :meth:`submit_rps` and, if needed, :meth:`td_decide`. Each returns ``(procedure, events)``.
    """

    players: tuple[PlayerId, PlayerId]
    black_seconds: int
    min_white_seconds: int
    window: dt.timedelta
    bid_deadline: dt.datetime
    phase: Phase = Phase.BIDDING
    bids: tuple[_Sealed | None, _Sealed | None] = (None, None)
    rps_round: int = 0
    rps_deadline: dt.datetime | None = None
    choices: tuple[_Sealed | None, _Sealed | None] = (None, None)
    rps_history: tuple[tuple[Rps | None, Rps | None], ...] = ()
    tied_seconds: int | None = None
    white: PlayerId | None = None
    white_seconds: int | None = None
    decided_by: Decision | None = None

    @classmethod
    def start(
        cls, players: tuple[PlayerId, PlayerId], *, now: dt.datetime, ruleset: Ruleset
    ) -> Step:
        """Open the bidding; offers are due ``bid_window`` (24 h) from ``now``."""
        _aware(now)
        if players[0] == players[1]:
            raise ArmageddonError(
                ArmageddonErrorReason.SAME_PLAYER, "An armageddon game needs two players."
            )
        rules = ruleset.armageddon
        proc = cls(
            players=players,
            black_seconds=rules.black_seconds,
            min_white_seconds=rules.min_white_seconds,
            window=rules.bid_window,
            bid_deadline=now + rules.bid_window,
        )
        event = ArmageddonEvent(
            EventKind.STARTED,
            now,
            f"Armageddon between {players[0]} and {players[1]}: Black has"
            f" {format_clock(rules.black_seconds)} and draw odds; time offers for White are due"
            f" by {proc.bid_deadline:%Y-%m-%d %H:%M} UTC.",
            deadline=proc.bid_deadline,
        )
        return proc, (event,)

    # -- helpers ------------------------------------------------------------------------------

    def _index(self, player: PlayerId) -> int:
        if player == self.players[0]:
            return 0
        if player == self.players[1]:
            return 1
        raise refusal(
            ArmageddonError,
            ArmageddonErrorReason.NOT_A_PLAYER,
            N_("%(player)s does not play this armageddon game."),
            player=player,
        )

    def _phase(self, phase: Phase, template: str) -> None:
        """Refuse a step sent at another phase: ``template`` (marked) says which step, and
        fills in ``%(now)s``, where the procedure stands."""
        if self.phase is not phase:
            standing = PHASE_SAID[self.phase]
            raise refusal(
                ArmageddonError,
                ArmageddonErrorReason.WRONG_PHASE,
                template,
                now=lambda words: words.gettext(standing),
            )

    @property
    def black(self) -> PlayerId | None:
        if self.white is None:
            return None
        return self.players[1] if self.white == self.players[0] else self.players[0]

    def _decide(
        self, white_index: int, seconds: int, by: Decision, now: dt.datetime
    ) -> tuple[ArmageddonProcedure, ArmageddonEvent]:
        white = self.players[white_index]
        black = self.players[1 - white_index]
        proc = replace(self, phase=Phase.DECIDED, white=white, white_seconds=seconds, decided_by=by)
        event = ArmageddonEvent(
            EventKind.COLOURS_DECIDED,
            now,
            f"{white} plays White with {format_clock(seconds)}; {black} plays Black with"
            f" {format_clock(self.black_seconds)} and draw odds ({by.value}).",
            player=white,
            seconds=seconds,
        )
        return proc, event

    def _start_rps(
        self, seconds: int, now: dt.datetime
    ) -> tuple[ArmageddonProcedure, ArmageddonEvent]:
        number = self.rps_round + 1
        deadline = now + self.window
        proc = replace(
            self,
            phase=Phase.RPS,
            rps_round=number,
            rps_deadline=deadline,
            choices=(None, None),
            tied_seconds=seconds,
        )
        event = ArmageddonEvent(
            EventKind.RPS_STARTED,
            now,
            f"Equal offers of {format_clock(seconds)}: rock-paper-scissors round {number}"
            f" decides who plays White; choices are due by {deadline:%Y-%m-%d %H:%M} UTC.",
            round=number,
            deadline=deadline,
            seconds=seconds,
        )
        return proc, event

    # -- bidding ------------------------------------------------------------------------------

    def submit_bid(self, player: PlayerId, bid: str, *, salt: str, now: dt.datetime) -> Step:
        """Seal ``player``'s time offer for White (``"m:ss"``, rules 3.ix.1.2).

        ``salt`` is a fresh random string from the caller (e.g. ``secrets.token_hex(16)``).
        When the second offer arrives the offers are revealed and White is decided at once.
        Raises :class:`ArmageddonError` for a bad offer, a second offer, a stranger, or an
        offer after the deadline.
        """
        _aware(now)
        index = self._index(player)
        self._phase(Phase.BIDDING, N_("A time offer is not possible now: %(now)s."))
        if now > self.bid_deadline:
            raise refusal(
                ArmageddonError,
                ArmageddonErrorReason.DEADLINE_PASSED,
                N_("Time offers closed at %(time)s UTC."),
                time=f"{self.bid_deadline:%Y-%m-%d %H:%M}",
            )
        if self.bids[index] is not None:
            raise refusal(
                ArmageddonError,
                ArmageddonErrorReason.ALREADY_SUBMITTED,
                N_("You have already made your time offer."),
            )
        if not salt:
            raise ArmageddonError(ArmageddonErrorReason.BAD_SALT, "A sealed value needs a salt.")
        seconds = _parse_seconds(bid, self.min_white_seconds, self.black_seconds)
        sealed = _Sealed(str(seconds), salt)
        bids = (sealed, self.bids[1]) if index == 0 else (self.bids[0], sealed)
        proc = replace(self, bids=bids)
        event = ArmageddonEvent(
            EventKind.BID_SEALED,
            now,
            f"{player} made a sealed time offer.",
            player=player,
            commitment=commitment(sealed.value, salt),
        )
        if bids[0] is not None and bids[1] is not None:
            proc, more = proc._reveal_bids(now)
            return proc, (event, *more)
        return proc, (event,)

    def _reveal_bids(self, now: dt.datetime) -> Step:
        events: list[ArmageddonEvent] = []
        seconds: list[int | None] = []
        for player, sealed in zip(self.players, self.bids, strict=True):
            if sealed is None:
                seconds.append(None)
                events.append(
                    ArmageddonEvent(
                        EventKind.BID_MISSING,
                        now,
                        f"{player} made no time offer by the deadline.",
                        player=player,
                    )
                )
            else:
                value = int(sealed.value)
                seconds.append(value)
                events.append(
                    ArmageddonEvent(
                        EventKind.BID_REVEALED,
                        now,
                        f"{player} offered {format_clock(value)} for White.",
                        player=player,
                        seconds=value,
                        salt=sealed.salt,
                    )
                )
        a, b = seconds
        if a is not None and b is not None and a != b:
            low = 0 if a < b else 1
            proc, decided = self._decide(low, min(a, b), Decision.LOWER_BID, now)
        elif a is not None and b is None:
            proc, decided = self._decide(0, a, Decision.OPPONENT_NO_BID, now)
        elif a is None and b is not None:
            proc, decided = self._decide(1, b, Decision.OPPONENT_NO_BID, now)
        else:
            tied = a if a is not None else self.black_seconds
            proc, decided = self._start_rps(tied, now)
        return proc, (*events, decided)

    # -- deadlines ----------------------------------------------------------------------------

    def reveal(self, *, now: dt.datetime) -> Step:
        """Act on a passed deadline: reveal the offers, or settle the rock-paper-scissors round.

        Raises :class:`ArmageddonError` (``TOO_EARLY``) before the deadline (values stay sealed
        until both are in or the deadline passes) and (``WRONG_PHASE``) when nothing waits on a
        deadline.
        """
        _aware(now)
        if self.phase is Phase.BIDDING:
            if now <= self.bid_deadline:
                raise ArmageddonError(
                    ArmageddonErrorReason.TOO_EARLY,
                    "Time offers stay sealed until both are in or the deadline passes.",
                )
            return self._reveal_bids(now)
        if self.phase is Phase.RPS:
            assert self.rps_deadline is not None
            if now <= self.rps_deadline:
                raise ArmageddonError(
                    ArmageddonErrorReason.TOO_EARLY,
                    "Choices stay sealed until both are in or the deadline passes.",
                )
            return self._reveal_rps(now)
        raise ArmageddonError(
            ArmageddonErrorReason.WRONG_PHASE,
            f"Nothing waits on a deadline: the procedure is at {self.phase.value}.",
        )

    # -- rock-paper-scissors ------------------------------------------------------------------

    def submit_rps(
        self, player: PlayerId, choice: Rps | str, *, salt: str, now: dt.datetime
    ) -> Step:
        """Seal ``player``'s rock-paper-scissors choice (rules 3.ix.1.3).

        Both choices are revealed together once both are in; a draw starts a new round.
        """
        _aware(now)
        index = self._index(player)
        self._phase(Phase.RPS, N_("Rock-paper-scissors is not possible now: %(now)s."))
        assert self.rps_deadline is not None
        if now > self.rps_deadline:
            raise refusal(
                ArmageddonError,
                ArmageddonErrorReason.DEADLINE_PASSED,
                N_("Choices closed at %(time)s UTC."),
                time=f"{self.rps_deadline:%Y-%m-%d %H:%M}",
            )
        if self.choices[index] is not None:
            raise refusal(
                ArmageddonError,
                ArmageddonErrorReason.ALREADY_SUBMITTED,
                N_("You have already chosen this round."),
            )
        if not salt:
            raise ArmageddonError(ArmageddonErrorReason.BAD_SALT, "A sealed value needs a salt.")
        pick = _read_choice(choice)
        sealed = _Sealed(pick.value, salt)
        choices = (sealed, self.choices[1]) if index == 0 else (self.choices[0], sealed)
        proc = replace(self, choices=choices)
        event = ArmageddonEvent(
            EventKind.RPS_SEALED,
            now,
            f"{player} made a sealed choice in round {self.rps_round}.",
            player=player,
            commitment=commitment(sealed.value, salt),
            round=self.rps_round,
        )
        if choices[0] is not None and choices[1] is not None:
            proc, more = proc._reveal_rps(now)
            return proc, (event, *more)
        return proc, (event,)

    def _reveal_rps(self, now: dt.datetime) -> Step:
        events: list[ArmageddonEvent] = []
        picks: list[Rps | None] = []
        for player, sealed in zip(self.players, self.choices, strict=True):
            if sealed is None:
                picks.append(None)
                events.append(
                    ArmageddonEvent(
                        EventKind.RPS_MISSING,
                        now,
                        f"{player} made no choice in round {self.rps_round}.",
                        player=player,
                        round=self.rps_round,
                    )
                )
            else:
                pick = Rps(sealed.value)
                picks.append(pick)
                events.append(
                    ArmageddonEvent(
                        EventKind.RPS_REVEALED,
                        now,
                        f"{player} chose {pick.value} in round {self.rps_round}.",
                        player=player,
                        choice=pick,
                        salt=sealed.salt,
                        round=self.rps_round,
                    )
                )
        a, b = picks
        history = (*self.rps_history, (a, b))
        base = replace(self, rps_history=history)
        seconds = self.tied_seconds if self.tied_seconds is not None else self.black_seconds
        if a is None and b is None:
            proc = replace(base, phase=Phase.NEEDS_TD)
            events.append(
                ArmageddonEvent(
                    EventKind.TD_NEEDED,
                    now,
                    "Neither player chose in rock-paper-scissors: the TDs decide who plays White.",
                    round=self.rps_round,
                )
            )
            return proc, tuple(events)
        if a is None or b is None:
            winner = 0 if b is None else 1
            proc, decided = base._decide(winner, seconds, Decision.OPPONENT_NO_RPS, now)
            return proc, (*events, decided)
        if a is b:
            events.append(
                ArmageddonEvent(
                    EventKind.RPS_DRAWN,
                    now,
                    f"Round {self.rps_round} drawn ({a.value} against {b.value}); play again.",
                    round=self.rps_round,
                )
            )
            proc, started = base._start_rps(seconds, now)
            return proc, (*events, started)
        winner = 0 if a.beats(b) else 1
        proc, decided = base._decide(winner, seconds, Decision.RPS, now)
        return proc, (*events, decided)

    def td_decide(self, white: PlayerId, *, now: dt.datetime) -> Step:
        """The TDs name White when neither player took part in rock-paper-scissors."""
        _aware(now)
        index = self._index(white)
        self._phase(Phase.NEEDS_TD, N_("A TD decision is not possible now: %(now)s."))
        seconds = self.tied_seconds if self.tied_seconds is not None else self.black_seconds
        proc, decided = self._decide(index, seconds, Decision.TD, now)
        return proc, (decided,)

    # -- what each viewer sees ----------------------------------------------------------------

    def view(self, viewer: PlayerId | None) -> ArmageddonView:
        """What ``viewer`` may see (``None``: the public, the TDs' dashboard included)."""
        own = None
        if viewer is not None and viewer in self.players:
            own = self._index(viewer)
        revealed = self.phase is not Phase.BIDDING
        bids: tuple[int | None, int | None] | None = None
        if revealed:
            b0, b1 = self.bids
            bids = (
                int(b0.value) if b0 is not None else None,
                int(b1.value) if b1 is not None else None,
            )
        own_bid = None
        own_choice = None
        if own is not None:
            mine = self.bids[own]
            own_bid = int(mine.value) if mine is not None else None
            chosen = self.choices[own] if self.phase is Phase.RPS else None
            own_choice = Rps(chosen.value) if chosen is not None else None
        in_rps = self.phase is Phase.RPS
        return ArmageddonView(
            phase=self.phase,
            players=self.players,
            black_seconds=self.black_seconds,
            bid_deadline=self.bid_deadline,
            own_bid=own_bid,
            bids_in=(self.bids[0] is not None, self.bids[1] is not None),
            bids=bids,
            rps_round=self.rps_round,
            rps_deadline=self.rps_deadline if in_rps else None,
            own_choice=own_choice,
            choices_in=(
                in_rps and self.choices[0] is not None,
                in_rps and self.choices[1] is not None,
            ),
            rps_history=self.rps_history,
            white=self.white,
            black=self.black,
            white_seconds=self.white_seconds,
            decided_by=self.decided_by,
        )
