"""Eligibility and seeding rating of a registrant (rules 2.i, 2.ii.5, 3.v.3).

Everything here is computed from facts the Lichess adapter reads (``GET /api/user/{u}`` and the
player's rated antichess games); nothing reads a clock.

Decisions, each one a reading of the regulations that a TD may want to know:

* **Account age** (rules 2.i.1): the account must be created strictly before
  ``Eligibility.account_created_before``.
* **Game count** (rules 2.i.2): rated antichess games whose ``createdAt`` is strictly before
  ``Eligibility.games_before``. The count is reported capped at ``min_rated_games`` (the adapter
  stops fetching there, so "100" means "100 or more").
* **"Cheat detected" games** (rules 2.2.3): the finished games Lichess ended with the status
  ``cheat``, by the time each was created: one since ``Eligibility.cheat_one_cutoff``
  (2020-09-01), or two since ``cheat_two_cutoff`` (2018-09-01), refuse the entry; fewer, or older
  ones, do not (the regulations name no other case), and the verdict still lists them.
* **BOT accounts** (rules 2.ii.5) are refused. A ``tosViolation`` mark or a closed (``disabled``)
  account is *not* an automatic refusal: rules 2.ii leaves qualification to a Lichess admin, so
  these become flags for a TD to review.
* **Rating at the cut-off** (rules 3.v.3): the rating after the last game created before
  ``games_before``: that game's ``rating + ratingDiff``.
* **Highest rating in the window** ``[peak_window_start, peak_window_end)``: the highest rating
  the player *held* in the window. That is the rating after each game created in the window, and
  also the rating held when the window opened: the ``rating`` (before the game) of the first game
  in the window, or, with no game in the window, the rating after the last game before it (held
  unchanged through the whole window).
* **Seeding rating** = the average of the two, rounded half up to an integer:
  ``(cutoff + peak + 1) // 2``.
* Games are taken in ``(created_at, game_id)`` order, so two games with one timestamp still give
  one answer.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Iterable
from dataclasses import dataclass

from rules.core.errors import RulesError
from rules.core.model import GameId
from rules.core.ruleset import Eligibility

__all__ = [
    "AccountFacts",
    "EligibilityVerdict",
    "RatedGame",
    "Refusal",
    "ReviewFlag",
    "SeedingError",
    "SeedingErrorReason",
    "assess",
    "cheat_grounds",
    "seeding_rating",
]

BOT_TITLE = "BOT"


class SeedingErrorReason(enum.Enum):
    NAIVE_DATETIME = "naive_datetime"
    MISSING_RATING_DIFF = "missing_rating_diff"
    BAD_WINDOW = "bad_window"


class SeedingError(RulesError):
    """The facts given cannot be assessed (not a refusal: a refusal is a verdict)."""

    reason: SeedingErrorReason


@dataclass(frozen=True, slots=True)
class AccountFacts:
    """What ``GET /api/user/{u}`` says about an account."""

    created_at: dt.datetime
    tos_violation: bool = False
    disabled: bool = False
    title: str | None = None


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One rated antichess game of the player: their rating before it and its change."""

    game_id: GameId
    created_at: dt.datetime
    rating: int
    rating_diff: int | None

    @property
    def rating_after(self) -> int:
        if self.rating_diff is None:
            raise SeedingError(
                SeedingErrorReason.MISSING_RATING_DIFF,
                f"Game {self.game_id} has no rating change, so the rating after it is unknown.",
            )
        return self.rating + self.rating_diff


class Refusal(enum.Enum):
    """Why a registrant cannot enter (rules 2.i, 2.ii.5)."""

    CREATED_TOO_LATE = "created_too_late"
    TOO_FEW_RATED_GAMES = "too_few_rated_games"
    BOT_ACCOUNT = "bot_account"
    CHEAT_DETECTED = "cheat_detected"


class ReviewFlag(enum.Enum):
    """Facts a TD must look at before accepting the entry (rules 2.ii)."""

    TOS_VIOLATION = "tos_violation"
    ACCOUNT_CLOSED = "account_closed"


@dataclass(frozen=True, slots=True)
class EligibilityVerdict:
    """The whole assessment: every refusal, every flag, and the seeding figures.

    ``eligible`` is True when nothing refuses the entry; flags still need a TD's look.
    ``seed_rating`` is ``None`` when the player has no rated game before the cut-off.
    """

    refusals: tuple[Refusal, ...]
    flags: tuple[ReviewFlag, ...]
    rated_games_counted: int
    rating_at_cutoff: int | None
    peak_rating: int | None
    seed_rating: int | None
    cheat_detected: tuple[dt.datetime, ...] = ()
    """When each "cheat detected" game read was created, oldest first (rules 2.2.3)."""

    @property
    def eligible(self) -> bool:
        return not self.refusals

    @property
    def needs_review(self) -> bool:
        return bool(self.flags)


def _require_aware(when: dt.datetime, what: str) -> None:
    if when.tzinfo is None or when.utcoffset() is None:
        raise SeedingError(
            SeedingErrorReason.NAIVE_DATETIME, f"The {what} has no time zone; times must be UTC."
        )


def _ordered(games: Iterable[RatedGame]) -> list[RatedGame]:
    ordered = sorted(games, key=lambda g: (g.created_at, g.game_id))
    for game in ordered:
        _require_aware(game.created_at, f"creation time of game {game.game_id}")
    return ordered


def _half_up_average(a: int, b: int) -> int:
    return (a + b + 1) // 2


def seeding_rating(
    games: Iterable[RatedGame], *, eligibility: Eligibility
) -> tuple[int | None, int | None, int | None]:
    """``(rating_at_cutoff, peak_rating, seed_rating)`` from the player's rated games (rules 3.v.3).

    Any of them is ``None`` when the games do not determine it. Raises :class:`SeedingError` for
    a naive datetime, a window that ends before it starts, or a game that matters but lacks its
    rating change.
    """
    start, end, cutoff = (
        eligibility.peak_window_start,
        eligibility.peak_window_end,
        eligibility.games_before,
    )
    for when, what in ((start, "window start"), (end, "window end"), (cutoff, "cut-off")):
        _require_aware(when, what)
    if end < start:
        raise SeedingError(
            SeedingErrorReason.BAD_WINDOW, "The peak-rating window ends before it starts."
        )
    ordered = _ordered(games)

    before_cutoff = [g for g in ordered if g.created_at < cutoff]
    at_cutoff = before_cutoff[-1].rating_after if before_cutoff else None

    in_window = [g for g in ordered if start <= g.created_at < end]
    before_window = [g for g in ordered if g.created_at < start]
    held: list[int] = []
    if in_window:
        held.append(in_window[0].rating)
        held.extend(g.rating_after for g in in_window)
    elif before_window:
        held.append(before_window[-1].rating_after)
    peak = max(held) if held else None

    seed = None if at_cutoff is None or peak is None else _half_up_average(at_cutoff, peak)
    return at_cutoff, peak, seed


def cheat_grounds(cheat_detected: Iterable[dt.datetime], *, eligibility: Eligibility) -> bool:
    """Rules 2.2.3: one "cheat detected" game since the first cut-off or two since the second
    are grounds for refusing (or, during the event, disqualifying) the player."""
    dates = list(cheat_detected)
    for when in dates:
        _require_aware(when, "creation time of a cheat-detected game")
    recent = sum(1 for d in dates if d >= eligibility.cheat_one_cutoff)
    older = sum(1 for d in dates if d >= eligibility.cheat_two_cutoff)
    return recent >= 1 or older >= 2


def assess(
    account: AccountFacts,
    games: Iterable[RatedGame],
    *,
    eligibility: Eligibility,
    cheat_detected: Iterable[dt.datetime] = (),
) -> EligibilityVerdict:
    """Check rules 2.i and 2.ii.5 and compute the seeding rating (rules 3.v.3).

    Every refusal found is listed, not just the first. Raises :class:`SeedingError` only when
    the facts themselves are unusable (naive datetimes, a missing rating change on a game the
    seeding needs).
    """
    _require_aware(account.created_at, "account creation time")
    _require_aware(eligibility.account_created_before, "account creation deadline")
    ordered = _ordered(games)

    refusals: list[Refusal] = []
    if account.created_at >= eligibility.account_created_before:
        refusals.append(Refusal.CREATED_TOO_LATE)
    counted = min(
        sum(1 for g in ordered if g.created_at < eligibility.games_before),
        eligibility.min_rated_games,
    )
    if counted < eligibility.min_rated_games:
        refusals.append(Refusal.TOO_FEW_RATED_GAMES)
    if account.title is not None and account.title.upper() == BOT_TITLE:
        refusals.append(Refusal.BOT_ACCOUNT)
    cheats = tuple(sorted(cheat_detected))
    if cheat_grounds(cheats, eligibility=eligibility):
        refusals.append(Refusal.CHEAT_DETECTED)

    flags: list[ReviewFlag] = []
    if account.tos_violation:
        flags.append(ReviewFlag.TOS_VIOLATION)
    if account.disabled:
        flags.append(ReviewFlag.ACCOUNT_CLOSED)

    at_cutoff, peak, seed = seeding_rating(ordered, eligibility=eligibility)
    return EligibilityVerdict(
        refusals=tuple(refusals),
        flags=tuple(flags),
        rated_games_counted=counted,
        rating_at_cutoff=at_cutoff,
        peak_rating=peak,
        seed_rating=seed,
        cheat_detected=cheats,
    )
