"""Semifinals, the Grand Final and the Third Place Playoff (rules 3.vi.5, 3.vii, 3.viii, 8.iii-iv).

A :class:`Bracket` is the whole knockout as one value: the Candidates pool orders it was seeded
from, the two semifinals, their results, the final matches and their winners. Functions return a
new bracket; nothing is changed in place, so the caller can store each step as an event.

Who has White in game 1 is not in the regulations. Here the pool winner has White in game 1 of
a semifinal (a small reward for winning the pool); for the final matches it is drawn by lot with
the caller's ``random.Random``; each weekly repeat of a tied final swaps the colours of game 1.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from rules.core.errors import RulesError
from rules.core.model import Game, Match, PlayerId
from rules.core.ruleset import MatchFormat, StageKind
from rules.core.scoring import MatchScore, Outcome, armageddon_winner, match_outcome, match_score

__all__ = [
    "Bracket",
    "KnockoutError",
    "KnockoutErrorReason",
    "KnockoutPairing",
    "KnockoutState",
    "KnockoutStatus",
    "Rebuild",
    "SemifinalResult",
    "Slot",
    "WeekPairing",
    "knockout_state",
    "next_week_pairing",
    "pair_finals",
    "rebuild_after_withdrawal",
    "record_final",
    "record_semifinal",
    "start_bracket",
]


class KnockoutErrorReason(enum.Enum):
    POOL_TOO_SMALL = "pool_too_small"
    DUPLICATE_PLAYER = "duplicate_player"
    NOT_IN_MATCH = "not_in_match"
    WRONG_SLOT = "wrong_slot"
    ALREADY_DECIDED = "already_decided"
    SEMIFINALS_UNDECIDED = "semifinals_undecided"
    FINALS_NOT_PAIRED = "finals_not_paired"
    NO_REPLACEMENT = "no_replacement"
    ALREADY_WITHDRAWN = "already_withdrawn"
    BAD_WEEKS = "bad_weeks"
    ARMAGEDDON_NOT_DUE = "armageddon_not_due"
    ARMAGEDDON_PLAYERS = "armageddon_players"
    BAD_FORMAT = "bad_format"


class KnockoutError(RulesError):
    """A knockout request that the regulations do not allow."""

    def __init__(self, reason: KnockoutErrorReason, message: str) -> None:
        super().__init__(reason, message)
        self.reason: KnockoutErrorReason = reason


class Slot(enum.Enum):
    """The four knockout matches. SF1: 1st upper v 2nd lower; SF2: 1st lower v 2nd upper."""

    SF1 = "sf1"
    SF2 = "sf2"
    FINAL = "final"
    THIRD_PLACE = "third_place"

    @property
    def stage(self) -> StageKind:
        if self is Slot.FINAL:
            return StageKind.FINAL
        if self is Slot.THIRD_PLACE:
            return StageKind.THIRD_PLACE
        return StageKind.SEMIFINAL


@dataclass(frozen=True, slots=True)
class KnockoutPairing:
    """One knockout match for display and for creating the :class:`Match`.

    ``white_first`` has White in game 1; the sources say where each player came from
    (``"1st upper pool"``, ``"winner SF2"``).
    """

    slot: Slot
    white_first: PlayerId
    black_first: PlayerId
    white_source: str
    black_source: str

    @property
    def stage(self) -> StageKind:
        return self.slot.stage

    @property
    def players(self) -> frozenset[PlayerId]:
        return frozenset((self.white_first, self.black_first))


@dataclass(frozen=True, slots=True)
class SemifinalResult:
    winner: PlayerId
    loser: PlayerId


_POOLS = ("upper", "lower")
# (slot, pool index of the White player, place, pool index of the Black player, place)
_SEMI_SLOTS = ((Slot.SF1, 0, 0, 1, 1), (Slot.SF2, 1, 0, 0, 1))
_ORDINAL = ("1st", "2nd")


@dataclass(frozen=True, slots=True)
class Bracket:
    """The knockout as a value a UI can render.

    ``upper``/``lower``: the Candidates standings of each pool, best first, as seeded; players
    who withdrew later are listed in ``withdrawn`` and skipped. ``results`` holds the semifinal
    results (``None`` while undecided), in SF1, SF2 order. ``final_white_from`` and
    ``third_white_from`` say which semifinal (0 for SF1, 1 for SF2) sends the player with
    White in game 1 of that match; they are ``None`` until :func:`pair_finals`.
    """

    upper: tuple[PlayerId, ...]
    lower: tuple[PlayerId, ...]
    semifinals: tuple[KnockoutPairing, KnockoutPairing]
    results: tuple[SemifinalResult | None, SemifinalResult | None] = (None, None)
    final_white_from: int | None = None
    third_white_from: int | None = None
    final_winner: PlayerId | None = None
    third_place_winner: PlayerId | None = None
    withdrawn: tuple[PlayerId, ...] = ()

    def semifinal(self, slot: Slot) -> KnockoutPairing:
        if slot is Slot.SF1:
            return self.semifinals[0]
        if slot is Slot.SF2:
            return self.semifinals[1]
        raise KnockoutError(KnockoutErrorReason.WRONG_SLOT, f"{slot.value} is not a semifinal.")

    def _final_pair(self, slot: Slot) -> KnockoutPairing | None:
        white_from = self.final_white_from if slot is Slot.FINAL else self.third_white_from
        if white_from is None or self.results[0] is None or self.results[1] is None:
            return None
        word = "winner" if slot is Slot.FINAL else "loser"
        white_sf, black_sf = white_from, 1 - white_from
        white_res, black_res = self.results[white_sf], self.results[black_sf]
        assert white_res is not None
        assert black_res is not None
        finals = slot is Slot.FINAL
        return KnockoutPairing(
            slot,
            white_res.winner if finals else white_res.loser,
            black_res.winner if finals else black_res.loser,
            f"{word} SF{white_sf + 1}",
            f"{word} SF{black_sf + 1}",
        )

    @property
    def final(self) -> KnockoutPairing | None:
        """The Grand Final (rules 3.viii.1), once paired."""
        return self._final_pair(Slot.FINAL)

    @property
    def third_place(self) -> KnockoutPairing | None:
        """The Third Place Playoff (rules 3.viii.2), once paired."""
        return self._final_pair(Slot.THIRD_PLACE)

    def pairings(self) -> tuple[KnockoutPairing, ...]:
        """Every match paired so far, in SF1, SF2, final, third place order."""
        out = list(self.semifinals)
        for pairing in (self.final, self.third_place):
            if pairing is not None:
                out.append(pairing)
        return tuple(out)

    def winner_of(self, slot: Slot) -> PlayerId | None:
        if slot is Slot.FINAL:
            return self.final_winner
        if slot is Slot.THIRD_PLACE:
            return self.third_place_winner
        result = self.results[0 if slot is Slot.SF1 else 1]
        return None if result is None else result.winner

    def placement(
        self,
    ) -> tuple[PlayerId | None, PlayerId | None, PlayerId | None, PlayerId | None]:
        """Places 1 to 4 (rules 3.viii.1-2); ``None`` where not decided yet."""
        out: list[PlayerId | None] = [None, None, None, None]
        for slot, winner, first in (
            (Slot.FINAL, self.final_winner, 0),
            (Slot.THIRD_PLACE, self.third_place_winner, 2),
        ):
            pairing = self._final_pair(slot)
            if pairing is not None and winner is not None:
                out[first] = winner
                out[first + 1] = (
                    pairing.black_first if winner == pairing.white_first else pairing.white_first
                )
        return (out[0], out[1], out[2], out[3])


def _semifinals(
    pools: tuple[Sequence[PlayerId], Sequence[PlayerId]],
    *,
    frozen: dict[Slot, KnockoutPairing],
    busy: frozenset[PlayerId] = frozenset(),
) -> tuple[KnockoutPairing, KnockoutPairing]:
    """Fill the semifinal slots from the pool orders; ``frozen`` semifinals keep their players.

    ``busy`` players (already moved into a decided semifinal's result) are skipped as well.
    """
    taken = {p for pairing in frozen.values() for p in pairing.players} | busy
    need: list[list[tuple[int, Slot, bool]]] = [[], []]  # per pool: (place, slot, is_white)
    for slot, white_pool, white_place, black_pool, black_place in _SEMI_SLOTS:
        if slot in frozen:
            continue
        need[white_pool].append((white_place, slot, True))
        need[black_pool].append((black_place, slot, False))
    chosen: dict[tuple[Slot, bool], PlayerId] = {}
    for pool_index in (0, 1):
        available = [p for p in pools[pool_index] if p not in taken]
        wanted = sorted(need[pool_index], key=lambda n: n[0])
        if len(available) < len(wanted):
            raise KnockoutError(
                KnockoutErrorReason.NO_REPLACEMENT,
                f"The {_POOLS[pool_index]} pool has no player left to move up.",
            )
        for player, (_, slot, is_white) in zip(available, wanted, strict=False):
            chosen[(slot, is_white)] = player
    out: list[KnockoutPairing] = []
    for slot, white_pool, white_place, black_pool, black_place in _SEMI_SLOTS:
        if slot in frozen:
            out.append(frozen[slot])
            continue
        out.append(
            KnockoutPairing(
                slot,
                chosen[(slot, True)],
                chosen[(slot, False)],
                f"{_ORDINAL[white_place]} {_POOLS[white_pool]} pool",
                f"{_ORDINAL[black_place]} {_POOLS[black_pool]} pool",
            )
        )
    return (out[0], out[1])


def start_bracket(upper: Sequence[PlayerId], lower: Sequence[PlayerId]) -> Bracket:
    """Pair the semifinals from the Candidates standings (rules 3.vi.5).

    ``upper``/``lower`` are each pool's standings, best first (at least the top two; pass the
    whole pool so that withdrawals can move players up, rules 8.iii-iv). The winner of each
    pool meets the second of the other. Raises :class:`KnockoutError` for a pool with fewer
    than two players or a player in both pools.
    """
    up, low = tuple(upper), tuple(lower)
    for name, pool in (("upper", up), ("lower", low)):
        if len(pool) < 2:
            raise KnockoutError(
                KnockoutErrorReason.POOL_TOO_SMALL,
                f"The {name} pool must send its top two to the semifinals.",
            )
    everyone = [*up, *low]
    if len(set(everyone)) != len(everyone):
        raise KnockoutError(
            KnockoutErrorReason.DUPLICATE_PLAYER, "A player appears twice in the pool standings."
        )
    return Bracket(upper=up, lower=low, semifinals=_semifinals((up, low), frozen={}))


def _other(pairing: KnockoutPairing, player: PlayerId) -> PlayerId:
    if player == pairing.white_first:
        return pairing.black_first
    if player == pairing.black_first:
        return pairing.white_first
    raise KnockoutError(
        KnockoutErrorReason.NOT_IN_MATCH,
        f"{player} does not play the {pairing.slot.value} match.",
    )


def record_semifinal(bracket: Bracket, slot: Slot, winner: PlayerId) -> Bracket:
    """Record who won a semifinal (rules 3.vii.1). Raises :class:`KnockoutError` if ``winner``
    does not play it or it already has a result."""
    pairing = bracket.semifinal(slot)
    loser = _other(pairing, winner)
    index = 0 if slot is Slot.SF1 else 1
    if bracket.results[index] is not None:
        raise KnockoutError(
            KnockoutErrorReason.ALREADY_DECIDED, f"{slot.value} already has a winner."
        )
    results = list(bracket.results)
    results[index] = SemifinalResult(winner, loser)
    return replace(bracket, results=(results[0], results[1]))


def pair_finals(bracket: Bracket, *, rng: random.Random) -> Bracket:
    """Pair the Grand Final and the Third Place Playoff (rules 3.viii.1-2).

    Who has White in game 1 of each is drawn by lot with ``rng``. Raises
    :class:`KnockoutError` while a semifinal is undecided or if the finals are already paired.
    """
    if bracket.results[0] is None or bracket.results[1] is None:
        raise KnockoutError(
            KnockoutErrorReason.SEMIFINALS_UNDECIDED,
            "The final matches are paired once both semifinals have a winner.",
        )
    if bracket.final_white_from is not None:
        raise KnockoutError(KnockoutErrorReason.ALREADY_DECIDED, "The finals are already paired.")
    return replace(bracket, final_white_from=rng.randrange(2), third_white_from=rng.randrange(2))


def record_final(bracket: Bracket, slot: Slot, winner: PlayerId) -> Bracket:
    """Record who won the final or the third place playoff (rules 3.viii)."""
    if slot not in (Slot.FINAL, Slot.THIRD_PLACE):
        raise KnockoutError(
            KnockoutErrorReason.WRONG_SLOT, f"{slot.value} is not one of the final matches."
        )
    pairing = bracket.final if slot is Slot.FINAL else bracket.third_place
    if pairing is None:
        raise KnockoutError(KnockoutErrorReason.FINALS_NOT_PAIRED, "The finals are not paired yet.")
    _other(pairing, winner)
    if bracket.winner_of(slot) is not None:
        raise KnockoutError(
            KnockoutErrorReason.ALREADY_DECIDED, f"The {slot.value} match already has a winner."
        )
    if slot is Slot.FINAL:
        return replace(bracket, final_winner=winner)
    return replace(bracket, third_place_winner=winner)


# --------------------------------------------------------------------------------------------
# Withdrawals (rules 8.iii-iv)


@dataclass(frozen=True, slots=True)
class Rebuild:
    """The bracket after a withdrawal.

    ``changed``: the matches whose players changed; the caller voids their games and creates
    them anew. ``moved_up``: players who took a new place, in the order they moved.
    """

    bracket: Bracket
    changed: tuple[Slot, ...]
    moved_up: tuple[PlayerId, ...]


def _pool_of(bracket: Bracket, player: PlayerId) -> tuple[PlayerId, ...]:
    if player in bracket.upper:
        return bracket.upper
    if player in bracket.lower:
        return bracket.lower
    raise KnockoutError(
        KnockoutErrorReason.NOT_IN_MATCH, f"{player} did not play the Candidates pools."
    )


def rebuild_after_withdrawal(bracket: Bracket, player: PlayerId) -> Rebuild:
    """Move players up after ``player`` withdraws or is disqualified (rules 8.iii-iv).

    The semantics, from the regulations' "players below them move up one position":

    * **In an undecided semifinal (8.iii).** ``player`` leaves their pool order and each
      undecided semifinal is paired again from the new orders: the players below them in their
      Candidates pool move up one place. If the 1st of the upper pool withdraws, the 2nd becomes
      1st (and plays the 2nd of the lower pool) and the 3rd becomes 2nd (and plays the winner
      of the lower pool), so both semifinals change. A semifinal that already has a result
      keeps its players, who are skipped when moving others up.
    * **Already through to the final matches (8.iv)**, i.e. ``player`` has a semifinal result:
      the player they beat in the semifinal moves up into their place in the Grand Final (with
      their colour), and the vacated Third Place Playoff place goes to the best remaining player
      of ``player``'s Candidates pool who is not already in the knockout. A semifinal loser who
      withdraws is replaced in the Third Place Playoff the same way. Raises
      :class:`KnockoutError` (``ALREADY_DECIDED``) if their final match already has a winner:
      TDs settle a disqualification after the fact by hand.
    * **Not in the knockout** (e.g. a pool's 3rd): only recorded, so they are never moved up.

    Raises :class:`KnockoutError` if ``player`` already withdrew, never played the pools, or no
    player is left to move up.
    """
    if player in bracket.withdrawn:
        raise KnockoutError(
            KnockoutErrorReason.ALREADY_WITHDRAWN, f"{player} has already withdrawn."
        )
    pool = _pool_of(bracket, player)
    withdrawn = (*bracket.withdrawn, player)

    for index, result in enumerate(bracket.results):
        if result is None or player not in (result.winner, result.loser):
            continue
        return _move_up_to_finals(
            bracket, player, pool=pool, index=index, result=result, withdrawn=withdrawn
        )
    return _pair_semifinals_again(bracket, player, withdrawn=withdrawn)


def _move_up_to_finals(
    bracket: Bracket,
    player: PlayerId,
    *,
    pool: tuple[PlayerId, ...],
    index: int,
    result: SemifinalResult,
    withdrawn: tuple[PlayerId, ...],
) -> Rebuild:
    """Rules 8.iv: ``player``, in semifinal ``result`` (the ``index``-th), leaves the final
    matches; the player they beat, or their pool's best player left, moves up."""
    finals_slot = Slot.FINAL if player == result.winner else Slot.THIRD_PLACE
    if bracket.winner_of(finals_slot) is not None:
        raise KnockoutError(
            KnockoutErrorReason.ALREADY_DECIDED,
            f"The {finals_slot.value} match of {player} is already decided; a TD settles"
            " the placement by hand.",
        )
    # Players who already moved up sit in a result, not in the semifinal pairings.
    in_knockout = {p for pairing in bracket.semifinals for p in pairing.players} | {
        p for r in bracket.results if r is not None for p in (r.winner, r.loser)
    }
    replacement = next(
        (p for p in pool if p not in in_knockout and p not in withdrawn and p != player),
        None,
    )
    if replacement is None:
        raise KnockoutError(
            KnockoutErrorReason.NO_REPLACEMENT,
            f"No player is left in the pool of {player} to move up.",
        )
    if player == result.winner:
        new_result = SemifinalResult(winner=result.loser, loser=replacement)
        moved: tuple[PlayerId, ...] = (result.loser, replacement)
    else:
        new_result = SemifinalResult(winner=result.winner, loser=replacement)
        moved = (replacement,)
    results = list(bracket.results)
    results[index] = new_result
    new = replace(bracket, results=(results[0], results[1]), withdrawn=withdrawn)
    changed = tuple(
        slot
        for slot, before, after in (
            (Slot.FINAL, bracket.final, new.final),
            (Slot.THIRD_PLACE, bracket.third_place, new.third_place),
        )
        if before is not None and after != before
    )
    return Rebuild(new, changed, moved)


def _pair_semifinals_again(
    bracket: Bracket, player: PlayerId, *, withdrawn: tuple[PlayerId, ...]
) -> Rebuild:
    """Rules 8.iii: the undecided semifinals paired again from the pools' orders without
    ``player`` (only recorded when not in a semifinal)."""
    frozen = {
        pairing.slot: pairing
        for pairing, result in zip(bracket.semifinals, bracket.results, strict=True)
        if result is not None
    }
    in_semis = any(player in pairing.players for pairing in bracket.semifinals)
    if not in_semis:
        return Rebuild(replace(bracket, withdrawn=withdrawn), (), ())
    orders = (
        tuple(p for p in bracket.upper if p not in withdrawn),
        tuple(p for p in bracket.lower if p not in withdrawn),
    )
    busy = frozenset(p for r in bracket.results if r is not None for p in (r.winner, r.loser))
    semis = _semifinals(orders, frozen=frozen, busy=busy)
    changed_semis = tuple(
        after.slot
        for before, after in zip(bracket.semifinals, semis, strict=True)
        if after != before
    )
    # Everyone who now sits in a different semifinal place (slot and colour) moved up.
    moved_list: list[PlayerId] = []
    for before, after in zip(bracket.semifinals, semis, strict=True):
        for old, now in (
            (before.white_first, after.white_first),
            (before.black_first, after.black_first),
        ):
            if old != now and now not in moved_list:
                moved_list.append(now)
    return Rebuild(
        replace(bracket, semifinals=semis, withdrawn=withdrawn),
        changed_semis,
        tuple(moved_list),
    )


# --------------------------------------------------------------------------------------------
# One knockout match over its weeks (rules 3.vii.2, 3.viii.3-5)


class KnockoutStatus(enum.Enum):
    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    NEXT_WEEK = "next_week"  # a tied final: play again next week (rules 3.viii.3-4)
    ARMAGEDDON_DUE = "armageddon_due"  # rules 3.vii.2, 3.viii.5
    DECIDED = "decided"


@dataclass(frozen=True, slots=True)
class KnockoutState:
    """Where one knockout match stands. ``scores`` has one entry per week played or started."""

    status: KnockoutStatus
    scores: tuple[MatchScore, ...]
    winner: PlayerId | None = None
    loser: PlayerId | None = None
    by_armageddon: bool = False

    @property
    def week(self) -> int:
        return len(self.scores)


@dataclass(frozen=True, slots=True)
class WeekPairing:
    white_first: PlayerId
    black_first: PlayerId
    week: int


def next_week_pairing(match: Match) -> WeekPairing:
    """The repeat of a tied final next week (rules 3.viii.3-4): game-1 colours swap."""
    return WeekPairing(match.black_first, match.white_first, match.week + 1)


def knockout_state(
    weeks: Sequence[tuple[Match, Iterable[Game]]],
    *,
    fmt: MatchFormat,
    armageddon: Game | None = None,
) -> KnockoutState:
    """Decide one knockout match from its weekly matches and games (rules 3.vii, 3.viii).

    ``weeks`` lists each week's :class:`Match` (weeks 1, 2, ... in order, same two players)
    with its accepted games. A semifinal (one week) that ends level goes to armageddon; a final
    that ends level is repeated next week up to ``fmt.max_weeks`` weeks, then armageddon, as
    :func:`rules.core.scoring.match_outcome` says. ``armageddon`` is the armageddon game once
    played; its winner comes from :func:`rules.core.scoring.armageddon_winner`.

    Raises :class:`KnockoutError` for weeks out of order, different players, a week after the
    match was decided, or an armageddon game that is not due or has other players.
    """
    if not weeks:
        if armageddon is not None:
            raise KnockoutError(
                KnockoutErrorReason.ARMAGEDDON_NOT_DUE, "No armageddon before the match is played."
            )
        return KnockoutState(KnockoutStatus.NOT_STARTED, ())
    players = frozenset(weeks[0][0].players)
    scores: list[MatchScore] = []
    for i, (match, games) in enumerate(weeks, start=1):
        if match.week != i or frozenset(match.players) != players:
            raise KnockoutError(
                KnockoutErrorReason.BAD_WEEKS,
                f"Week {i} of the match must be week {i} between the same two players.",
            )
        score = match_score(match, games)
        scores.append(score)
        outcome = match_outcome(score, fmt, week=match.week)
        state = _week_state(
            match, outcome, tuple(scores), last=i == len(weeks), armageddon=armageddon
        )
        if state is not None:
            return state
    raise AssertionError("unreachable")  # pragma: no cover


def _week_state(
    match: Match,
    outcome: Outcome,
    scores: tuple[MatchScore, ...],
    *,
    last: bool,
    armageddon: Game | None,
) -> KnockoutState | None:
    """Where the match stands after week ``match.week``, whose ``outcome`` it was; ``None`` when
    the week was tied and a later one follows. Raises :class:`KnockoutError` as
    :func:`knockout_state` says."""
    i = match.week
    if outcome in (Outcome.FIRST_WINS, Outcome.SECOND_WINS):
        if not last:
            raise KnockoutError(
                KnockoutErrorReason.BAD_WEEKS, f"The match was decided in week {i}."
            )
        if armageddon is not None:
            raise KnockoutError(
                KnockoutErrorReason.ARMAGEDDON_NOT_DUE, "The match was decided without one."
            )
        first = outcome is Outcome.FIRST_WINS
        winner = match.white_first if first else match.black_first
        return KnockoutState(KnockoutStatus.DECIDED, scores, winner, match.opponent_of(winner))
    if outcome is Outcome.REPEAT:
        if not last:
            return None
        if armageddon is not None:
            raise KnockoutError(
                KnockoutErrorReason.ARMAGEDDON_NOT_DUE,
                f"A tied week {i} is replayed next week before any armageddon.",
            )
        return KnockoutState(KnockoutStatus.NEXT_WEEK, scores)
    if outcome is Outcome.ARMAGEDDON:
        if not last:
            raise KnockoutError(
                KnockoutErrorReason.BAD_WEEKS, f"Week {i} ends in armageddon, not a repeat."
            )
        return _armageddon_state(match, scores, armageddon)
    if outcome is Outcome.TIED:
        raise KnockoutError(
            KnockoutErrorReason.BAD_FORMAT,
            "A knockout match format needs a tiebreak (armageddon or repeat).",
        )
    if not last:
        raise KnockoutError(KnockoutErrorReason.BAD_WEEKS, f"Week {i} is not finished yet.")
    if armageddon is not None:
        raise KnockoutError(
            KnockoutErrorReason.ARMAGEDDON_NOT_DUE, "The match is still being played."
        )
    return KnockoutState(KnockoutStatus.IN_PROGRESS, scores)


def _armageddon_state(
    match: Match, scores: tuple[MatchScore, ...], armageddon: Game | None
) -> KnockoutState:
    """A last week that ends in armageddon: due, or decided by the armageddon game."""
    if armageddon is None:
        return KnockoutState(KnockoutStatus.ARMAGEDDON_DUE, scores)
    if frozenset((armageddon.white, armageddon.black)) != frozenset(match.players):
        raise KnockoutError(
            KnockoutErrorReason.ARMAGEDDON_PLAYERS,
            f"Armageddon game {armageddon.id} is not between the two players.",
        )
    winner = armageddon_winner(armageddon)
    return KnockoutState(
        KnockoutStatus.DECIDED,
        scores,
        winner,
        match.opponent_of(winner),
        by_armageddon=True,
    )
