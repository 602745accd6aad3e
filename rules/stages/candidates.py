"""The Candidates stage: pools, the double round-robin schedule and the matches' results.

Rules 3.iii-iv (seeded entrants), 3.v.4 (how many qualify), 3.vi.1-4 (pools, matches) and 8.ii (a
withdrawn or disqualified candidate's games are disregarded). A pool's standings and their
tiebreaks (rules 3.vi.6) are :mod:`rules.stages.pool_standings`.

Everything here is pure: the caller passes the qualification's final placement, the matches and
their games (or results it has adjudicated) and gets values back.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.core.errors import RulesError
from rules.core.model import Game, Match, MatchId, PlayerId, normalise_username
from rules.core.ruleset import MatchFormat, Ruleset, Seeding, StageKind
from rules.core.scoring import Outcome, match_outcome, match_points, match_score

__all__ = [
    "REGULATION_POOL_TABLES",
    "CandidatesError",
    "CandidatesErrorReason",
    "MatchResult",
    "Pairing",
    "Pool",
    "PoolEntry",
    "PoolTable",
    "Pools",
    "RoundRobinRound",
    "SeededRole",
    "assign_pools",
    "berger_rounds",
    "candidates_format",
    "disregard_withdrawn",
    "fewest_qualifiers",
    "pool_schedule",
    "qualifiers_needed",
    "result_of",
    "smaller_pools",
]


class CandidatesErrorReason(enum.Enum):
    TOO_FEW_QUALIFIERS = "too_few_qualifiers"
    DUPLICATE_PLAYER = "duplicate_player"
    SEEDED_IN_QUALIFICATION = "seeded_in_qualification"
    UNSUPPORTED_POOL_SIZE = "unsupported_pool_size"
    BAD_POOL_TABLE = "bad_pool_table"
    POOL_TOO_SMALL = "pool_too_small"
    BAD_MEETINGS = "bad_meetings"
    UNKNOWN_PLAYER = "unknown_player"
    NO_PLACEMENT = "no_placement"
    BAD_SEED_COUNT = "bad_seed_count"


class CandidatesError(RulesError):
    """A request about the Candidates stage that the regulations do not allow."""

    def __init__(self, reason: CandidatesErrorReason, message: str) -> None:
        super().__init__(reason, message)
        self.reason: CandidatesErrorReason = reason


# --------------------------------------------------------------------------------------------
# Pools (rules 3.v.4, 3.vi.1-2)


class Pool(enum.Enum):
    UPPER = "upper"
    LOWER = "lower"


class SeededRole(enum.Enum):
    """A seeded entrant who skips the qualification (rules 3.iii-iv)."""

    TITLE_HOLDER = "title_holder"
    RUNNER_UP = "runner_up"


@dataclass(frozen=True, slots=True)
class PoolTable:
    """Which qualification places go to which pool, and where the present seeded entrants go.

    ``upper_places``/``lower_places`` are 1-based qualification places. ``title_holder`` and
    ``runner_up`` name the pool of that seeded entrant when present.
    """

    upper_places: tuple[int, ...]
    lower_places: tuple[int, ...]
    title_holder: Pool
    runner_up: Pool


REGULATION_POOL_TABLES: Mapping[int, PoolTable] = {
    # rules 3.vi.2.1: both seeded entrants take part.
    2: PoolTable(
        upper_places=(9, 8, 5, 4, 2),
        lower_places=(10, 7, 6, 3, 1),
        title_holder=Pool.UPPER,
        runner_up=Pool.LOWER,
    ),
    # rules 3.vi.2.2 with 3.vi.1: the one present seeded entrant fills the upper pool (the title
    # holder starts there; the runner-up "starts in the upper pool" when the holder is absent).
    1: PoolTable(
        upper_places=(10, 9, 6, 5, 3),
        lower_places=(11, 8, 7, 4, 2, 1),
        title_holder=Pool.UPPER,
        runner_up=Pool.UPPER,
    ),
    # rules 3.vi.2.3: no seeded entrant.
    0: PoolTable(
        upper_places=(12, 9, 7, 6, 4, 1),
        lower_places=(11, 10, 8, 5, 3, 2),
        title_holder=Pool.UPPER,
        runner_up=Pool.LOWER,
    ),
}
"""The 2021 tables for pools of 6, keyed by the number of seeded entrants taking part."""


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One candidate. ``qualification_place`` is ``None`` for a seeded entrant."""

    player: PlayerId
    pool: Pool
    qualification_place: int | None
    seeded: SeededRole | None

    @property
    def seed_key(self) -> int:
        """Lower is better: title holder, runner-up, then qualifiers by place (see rank key)."""
        if self.seeded is SeededRole.TITLE_HOLDER:
            return -2
        if self.seeded is SeededRole.RUNNER_UP:
            return -1
        assert self.qualification_place is not None
        return self.qualification_place


@dataclass(frozen=True, slots=True)
class Pools:
    """Both pools. Each pool lists seeded entrants first, then qualifiers by qualification place."""

    upper: tuple[PoolEntry, ...]
    lower: tuple[PoolEntry, ...]

    def entries(self, pool: Pool) -> tuple[PoolEntry, ...]:
        return self.upper if pool is Pool.UPPER else self.lower

    def players(self, pool: Pool) -> tuple[PlayerId, ...]:
        return tuple(entry.player for entry in self.entries(pool))

    def entry(self, player: PlayerId) -> PoolEntry:
        """The entry of ``player``; raises :class:`CandidatesError` if not a candidate."""
        for entry in (*self.upper, *self.lower):
            if entry.player == player:
                return entry
        raise CandidatesError(
            CandidatesErrorReason.UNKNOWN_PLAYER, f"{player} is not a Candidates player."
        )

    def pool_of(self, player: PlayerId) -> Pool:
        return self.entry(player).pool


def _seeded_present(seeding: Seeding) -> tuple[PlayerId | None, PlayerId | None]:
    holder = normalise_username(seeding.title_holder) if seeding.title_holder else None
    runner = normalise_username(seeding.runner_up) if seeding.runner_up else None
    return holder, runner


def qualifiers_needed(seeding_present_count: int, ruleset: Ruleset) -> int:
    """How many qualification places go to the Candidates (rules 3.v.4).

    10 with both seeded entrants, one more for each absent one (11, 12). Raises
    :class:`CandidatesError` for a count outside 0-2.
    """
    if not 0 <= seeding_present_count <= 2:
        raise CandidatesError(
            CandidatesErrorReason.BAD_SEED_COUNT,
            f"There are two seeded entrants at most, not {seeding_present_count}.",
        )
    return ruleset.stages.qualifiers + (2 - seeding_present_count)


def smaller_pools(
    placement: Sequence[PlayerId], *, ruleset: Ruleset, seeding: Seeding | None = None
) -> Pools:
    """The TDs' way on when too few qualify to fill two pools (rules 1.3, 5.10): every
    qualifier in ``placement`` (1st first) and every present seeded entrant, placed by the
    regulations' table (rules 3.vi.2) with the places nobody reached left out, so the pools are
    as the regulations would make them, only smaller (an odd pool gives a bye each round).

    Raises :class:`CandidatesError`: ``POOL_TOO_SMALL`` when a pool would have fewer than two
    players, ``UNSUPPORTED_POOL_SIZE`` when the rule set's pools have no regulation table,
    ``DUPLICATE_PLAYER`` or ``SEEDED_IN_QUALIFICATION`` for a bad placement.
    """
    seeding = ruleset.seeding if seeding is None else seeding
    holder, runner = _seeded_present(seeding)
    present = int(holder is not None) + int(runner is not None)
    if ruleset.stages.pool_size != 6 or present not in REGULATION_POOL_TABLES:
        raise CandidatesError(
            CandidatesErrorReason.UNSUPPORTED_POOL_SIZE,
            "Smaller pools follow the regulations' table, which exists for pools of 6 only.",
        )
    ids = [normalise_username(p) for p in placement]
    if len(set(ids)) != len(ids) or any(p in (holder, runner) for p in ids):
        raise CandidatesError(
            CandidatesErrorReason.DUPLICATE_PLAYER,
            "The qualification placement names a player twice or a seeded entrant.",
        )
    table = REGULATION_POOL_TABLES[present]
    reached = len(ids)
    upper = [
        PoolEntry(ids[p - 1], Pool.UPPER, p, None)
        for p in sorted(table.upper_places)
        if p <= reached
    ]
    lower = [
        PoolEntry(ids[p - 1], Pool.LOWER, p, None)
        for p in sorted(table.lower_places)
        if p <= reached
    ]
    target = {Pool.UPPER: upper, Pool.LOWER: lower}
    if runner is not None:
        target[table.runner_up].insert(
            0, PoolEntry(runner, table.runner_up, None, SeededRole.RUNNER_UP)
        )
    if holder is not None:
        target[table.title_holder].insert(
            0, PoolEntry(holder, table.title_holder, None, SeededRole.TITLE_HOLDER)
        )
    full = _rounds_per_leg(ruleset.stages.pool_size)
    if any(_rounds_per_leg(len(pool)) != full for pool in (upper, lower)):
        raise CandidatesError(
            CandidatesErrorReason.POOL_TOO_SMALL,
            f"{reached} qualifiers and {present} seeded entrants make pools of {len(upper)} and "
            f"{len(lower)}, which play fewer than the {full} rounds a week each the Candidates "
            "have (rules 3.vi.3).",
        )
    return Pools(upper=tuple(upper), lower=tuple(lower))


def _rounds_per_leg(size: int) -> int:
    """Berger rounds for a pool of ``size``: an odd pool gets a bye each round."""
    return size - 1 if size % 2 == 0 else size


def fewest_qualifiers(ruleset: Ruleset, *, seeded_present: int = 2) -> int | None:
    """The fewest qualifiers :func:`smaller_pools` can seat with ``seeded_present`` seeded
    entrants, or None when it cannot seat any number short of the full pools."""
    seeding = Seeding(
        title_holder="seeded-holder" if seeded_present >= 1 else None,
        runner_up="seeded-runner" if seeded_present >= 2 else None,
    )
    for count in range(1, qualifiers_needed(seeded_present, ruleset)):
        placement = [PlayerId(f"q{i}") for i in range(1, count + 1)]
        try:
            smaller_pools(placement, ruleset=ruleset, seeding=seeding)
        except CandidatesError:
            continue
        return count
    return None


def _check_table(
    table: PoolTable, *, qualifiers: int, pool_size: int, present: tuple[SeededRole, ...]
) -> None:
    places = sorted((*table.upper_places, *table.lower_places))
    if places != list(range(1, qualifiers + 1)):
        raise CandidatesError(
            CandidatesErrorReason.BAD_POOL_TABLE,
            f"The pool table must use qualification places 1 to {qualifiers} once each.",
        )
    upper = len(table.upper_places)
    lower = len(table.lower_places)
    for role in present:
        pool = table.title_holder if role is SeededRole.TITLE_HOLDER else table.runner_up
        upper += int(pool is Pool.UPPER)
        lower += int(pool is Pool.LOWER)
    if upper != pool_size or lower != pool_size:
        raise CandidatesError(
            CandidatesErrorReason.BAD_POOL_TABLE,
            f"The pool table gives pools of {upper} and {lower}, not {pool_size} each.",
        )


def assign_pools(
    placement: Sequence[PlayerId],
    *,
    ruleset: Ruleset,
    seeding: Seeding | None = None,
    table: PoolTable | None = None,
) -> Pools:
    """Split the qualifiers and the seeded entrants into the two pools (rules 3.v.4, 3.vi.1-2).

    ``placement`` is the qualification's final order, 1st first; only the first
    :func:`qualifiers_needed` places are used. ``seeding`` (default ``ruleset.seeding``) names
    the seeded entrants who take part: a ``None`` field means that entrant does not play.
    ``table`` overrides the regulations' table, which exists only for pools of 6.

    Raises :class:`CandidatesError` when there are too few qualifiers, a player appears twice,
    a seeded entrant appears in the qualification placement, or the pool size has no table.
    """
    seeding = ruleset.seeding if seeding is None else seeding
    pool_size = ruleset.stages.pool_size
    holder, runner = _seeded_present(seeding)
    if holder is not None and holder == runner:
        raise CandidatesError(
            CandidatesErrorReason.DUPLICATE_PLAYER,
            f"{holder} cannot be both the title holder and the runner-up.",
        )
    present = int(holder is not None) + int(runner is not None)
    needed = qualifiers_needed(present, ruleset)
    table = _pool_table(table, needed=needed, present=present, pool_size=pool_size)
    roles = tuple(
        role
        for role, who in ((SeededRole.TITLE_HOLDER, holder), (SeededRole.RUNNER_UP, runner))
        if who is not None
    )
    _check_table(table, qualifiers=needed, pool_size=pool_size, present=roles)

    ids = [normalise_username(p) for p in placement]
    _check_placement(ids, seeded=(holder, runner), needed=needed)
    return _fill_pools(ids, table, holder=holder, runner=runner)


def _pool_table(table: PoolTable | None, *, needed: int, present: int, pool_size: int) -> PoolTable:
    """``table``, or the regulations' for pools of 6, once ``needed`` qualifiers and ``present``
    seeded entrants fill two pools of ``pool_size``."""
    if needed + present != 2 * pool_size:
        raise CandidatesError(
            CandidatesErrorReason.UNSUPPORTED_POOL_SIZE,
            f"{needed} qualifiers and {present} seeded entrants do not fill two pools of"
            f" {pool_size}.",
        )
    if table is None:
        if pool_size != 6:
            raise CandidatesError(
                CandidatesErrorReason.UNSUPPORTED_POOL_SIZE,
                f"The regulations list pools of 6 only; pools of {pool_size} need a pool table.",
            )
        table = REGULATION_POOL_TABLES[present]
    return table


def _check_placement(
    ids: Sequence[PlayerId], *, seeded: tuple[PlayerId | None, PlayerId | None], needed: int
) -> None:
    """Each qualifier once, no seeded entrant among them, and ``needed`` of them at least."""
    holder, runner = seeded
    seen: set[PlayerId] = set()
    for pid in ids:
        if pid in seen:
            raise CandidatesError(
                CandidatesErrorReason.DUPLICATE_PLAYER,
                f"{pid} appears twice in the qualification placement.",
            )
        seen.add(pid)
        if pid in (holder, runner):
            raise CandidatesError(
                CandidatesErrorReason.SEEDED_IN_QUALIFICATION,
                f"{pid} is a seeded entrant and does not play the qualification (rules 3.v.1).",
            )
    if len(ids) < needed:
        raise CandidatesError(
            CandidatesErrorReason.TOO_FEW_QUALIFIERS,
            f"The Candidates need {needed} qualifiers (rules 3.v.4) but the qualification"
            f" placed only {len(ids)}.",
        )


def _fill_pools(
    ids: Sequence[PlayerId], table: PoolTable, *, holder: PlayerId | None, runner: PlayerId | None
) -> Pools:
    """The two pools: the seeded entrants present, then the qualifiers at the table's places."""
    upper: list[PoolEntry] = []
    lower: list[PoolEntry] = []
    target = {Pool.UPPER: upper, Pool.LOWER: lower}
    if holder is not None:
        target[table.title_holder].append(
            PoolEntry(holder, table.title_holder, None, SeededRole.TITLE_HOLDER)
        )
    if runner is not None:
        runner_pool = table.runner_up
        target[runner_pool].append(PoolEntry(runner, runner_pool, None, SeededRole.RUNNER_UP))
    for pool, places in ((Pool.UPPER, table.upper_places), (Pool.LOWER, table.lower_places)):
        for place in sorted(places):
            target[pool].append(PoolEntry(ids[place - 1], pool, place, None))
    return Pools(upper=tuple(upper), lower=tuple(lower))


# --------------------------------------------------------------------------------------------
# Schedule (rules 3.vi.3-4, 4.1)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One scheduled match: ``white_first`` has White in game 1. ``leg`` counts meetings from 1."""

    round: int
    white_first: PlayerId
    black_first: PlayerId
    leg: int


@dataclass(frozen=True, slots=True)
class RoundRobinRound:
    """One week of a pool: its matches and the player who sits out (odd pools only)."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: PlayerId | None


def berger_rounds(size: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The Berger table for ``size`` players (numbered 1..size, ``size`` even).

    Each round is a tuple of ``(white, black)`` numbers. Player ``size`` meets player ``x`` in
    round ``r`` where ``x = (r-1)*size/2 mod (size-1) + 1`` and alternates colours (Black in odd
    rounds); the others pair around ``x`` with ``x+d`` White against ``x-d``. This is the FIDE
    table (C.05 Annex 1), in which every player's colours differ by at most one.
    """
    if size < 2 or size % 2:
        raise CandidatesError(
            CandidatesErrorReason.POOL_TOO_SMALL,
            f"A Berger table needs an even number of players (at least 2), not {size}.",
        )
    m = size - 1
    rounds: list[tuple[tuple[int, int], ...]] = []
    for r in range(1, size):
        x = ((r - 1) * (size // 2)) % m + 1
        pairs: list[tuple[int, int]] = [(x, size) if r % 2 else (size, x)]
        for d in range(1, size // 2):
            white = (x - 1 + d) % m + 1
            black = (x - 1 - d) % m + 1
            pairs.append((white, black))
        rounds.append(tuple(pairs))
    return tuple(rounds)


def pool_schedule(
    players: Sequence[PlayerId],
    *,
    ruleset: Ruleset,
    meetings: int | None = None,
    rng: random.Random | None = None,
) -> tuple[RoundRobinRound, ...]:
    """The pool's rounds: each pair meets ``meetings`` times, one match a week (rules 3.vi.3, 4.1).

    ``meetings`` defaults to ``ruleset.stages.candidates_meetings``. Berger numbers follow the
    order of ``players`` (pool order: seeded first, then by qualification place) unless ``rng``
    is given, which draws them by lot. With an odd number of players the highest Berger number
    is a bye. A later leg repeats the rounds of the first with the colours of game 1 swapped,
    so with an even number of legs every player has White in game 1 equally often.

    Raises :class:`CandidatesError` for fewer than two players, a repeated player or
    ``meetings`` below 1.
    """
    meetings = ruleset.stages.candidates_meetings if meetings is None else meetings
    if meetings < 1:
        raise CandidatesError(
            CandidatesErrorReason.BAD_MEETINGS,
            f"Each pair must meet at least once, not {meetings} times.",
        )
    order = [PlayerId(p) for p in players]
    if len(set(order)) != len(order):
        raise CandidatesError(
            CandidatesErrorReason.DUPLICATE_PLAYER, "A player appears twice in the pool."
        )
    if len(order) < 2:
        raise CandidatesError(
            CandidatesErrorReason.POOL_TOO_SMALL, "A pool needs at least two players."
        )
    if rng is not None:
        order = sorted(order, key=str)
        rng.shuffle(order)
    size = len(order) + len(order) % 2
    table = berger_rounds(size)
    by_number: dict[int, PlayerId | None] = {i + 1: p for i, p in enumerate(order)}
    by_number.setdefault(size, None)

    result: list[RoundRobinRound] = []
    number = 0
    for leg in range(1, meetings + 1):
        swap = leg % 2 == 0
        for pairs in table:
            number += 1
            pairings: list[Pairing] = []
            bye: PlayerId | None = None
            for white_no, black_no in pairs:
                white, black = by_number[white_no], by_number[black_no]
                if white is None or black is None:
                    bye = black if white is None else white
                    continue
                if swap:
                    white, black = black, white
                pairings.append(Pairing(number, white, black, leg))
            result.append(RoundRobinRound(number, tuple(pairings), bye))
    return tuple(result)


# --------------------------------------------------------------------------------------------
# Results (rules 3.vi.3-4, 8.ii); the standings are rules.stages.pool_standings


@dataclass(frozen=True, slots=True)
class MatchResult:
    """What a match contributes to the standings.

    Built from games by :func:`result_of`, or by the caller for a match the TDs adjudicated.
    ``first`` had White in game 1. Game points count every played game, so they are final game by
    game; match points count only once ``outcome`` is no longer in progress.
    """

    match_id: MatchId
    first: PlayerId
    second: PlayerId
    first_points: Fraction
    second_points: Fraction
    games_played: int
    outcome: Outcome

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.first, self.second)

    @property
    def is_finished(self) -> bool:
        return self.outcome is not Outcome.IN_PROGRESS

    def game_points_of(self, player: PlayerId) -> Fraction:
        if player == self.first:
            return self.first_points
        if player == self.second:
            return self.second_points
        raise ValueError(f"{player} does not play match {self.match_id}")

    def match_points_of(self, player: PlayerId) -> Fraction:
        """1 for a match win, ½ for a tied match, 0 otherwise or while in progress."""
        if not self.is_finished:
            return Fraction(0)
        if player not in self.players:
            raise ValueError(f"{player} does not play match {self.match_id}")
        return match_points(self.outcome, first=player == self.first)


def result_of(
    match: Match, games: Iterable[Game], *, fmt: MatchFormat | None = None
) -> MatchResult:
    """The result of a Candidates match from its accepted games (rules 3.vi.3-4).

    ``fmt`` defaults to the match's own format. Raises ``ValueError`` (from
    :func:`rules.core.scoring.match_score`) if a game is not between the match's players.
    """
    fmt = match.format if fmt is None else fmt
    score = match_score(match, games)
    outcome = match_outcome(score, fmt, week=match.week)
    return MatchResult(
        match_id=match.id,
        first=match.white_first,
        second=match.black_first,
        first_points=score.first,
        second_points=score.second,
        games_played=score.games_played,
        outcome=outcome,
    )


def disregard_withdrawn(
    results: Iterable[MatchResult], withdrawn: Iterable[PlayerId]
) -> tuple[MatchResult, ...]:
    """Rules 8.ii: drop every match of a withdrawn or disqualified candidate.

    Their opponents keep nothing from those matches, won or lost, finished or not.
    """
    gone = frozenset(withdrawn)
    return tuple(r for r in results if r.first not in gone and r.second not in gone)


def candidates_format(ruleset: Ruleset) -> MatchFormat:
    """The Candidates match format (rules 3.vi.3-4)."""
    return ruleset.formats.for_stage(StageKind.CANDIDATES)
