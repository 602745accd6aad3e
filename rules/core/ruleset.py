"""Every number in the regulations, as data, with the 2021 values as defaults.

The service reads these from the config file (``bot/config.py``); rules functions take a
:class:`Ruleset` (or the relevant part of it) as a keyword argument, so the same code runs the
next edition or another variant's championship.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field
from fractions import Fraction

UTC = dt.UTC


class Tiebreak(enum.Enum):
    """What happens when a match ends level (rules 3.vii.2, 3.viii.3-5)."""

    NONE = "none"  # a tied match stands (qualification, candidates)
    ARMAGEDDON = "armageddon"  # one armageddon game decides (semifinals)
    REPEAT_THEN_ARMAGEDDON = "repeat_then_armageddon"  # replay the match, then armageddon (finals)


class StageKind(enum.StrEnum):
    QUALIFICATION = "qualification"
    PLAY_IN = "play_in"
    CANDIDATES = "candidates"
    SEMIFINAL = "semifinal"
    FINAL = "final"
    THIRD_PLACE = "third_place"


@dataclass(frozen=True, slots=True)
class MatchFormat:
    """The shape of one match of a stage.

    ``clinch_at``: the score at which the players may stop (rules 3.v.1: 5.5 of 10); ``None`` when
    every game must be played (rules 3.vi.4). ``max_weeks``: how many weekly repeats a tied match
    gets before armageddon (rules 3.viii.3-5: 3).
    """

    games: int
    clinch_at: Fraction | None
    tiebreak: Tiebreak
    max_weeks: int = 1


def _qualification_format() -> MatchFormat:
    return MatchFormat(games=10, clinch_at=Fraction(11, 2), tiebreak=Tiebreak.NONE)


def _candidates_format() -> MatchFormat:
    return MatchFormat(games=10, clinch_at=None, tiebreak=Tiebreak.NONE)


def _semifinal_format() -> MatchFormat:
    return MatchFormat(games=10, clinch_at=Fraction(11, 2), tiebreak=Tiebreak.ARMAGEDDON)


def _final_format() -> MatchFormat:
    return MatchFormat(
        games=12, clinch_at=Fraction(13, 2), tiebreak=Tiebreak.REPEAT_THEN_ARMAGEDDON, max_weeks=3
    )


@dataclass(frozen=True, slots=True)
class Formats:
    """Match formats per stage (rules 3.v.1, 3.vi.3-4, 3.vii.2, 3.viii.1-5)."""

    qualification: MatchFormat = field(default_factory=_qualification_format)
    play_in: MatchFormat = field(default_factory=_qualification_format)
    candidates: MatchFormat = field(default_factory=_candidates_format)
    semifinal: MatchFormat = field(default_factory=_semifinal_format)
    final: MatchFormat = field(default_factory=_final_format)
    third_place: MatchFormat = field(default_factory=_final_format)

    def for_stage(self, stage: StageKind) -> MatchFormat:
        fmt: MatchFormat = getattr(self, stage.value)
        return fmt


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Rules 3.i: all games rated, 2+5, antichess."""

    limit_seconds: int = 120
    increment_seconds: int = 5
    variant: str = "antichess"
    rated: bool = True


@dataclass(frozen=True, slots=True)
class OfferRules:
    """Rules 5.1, 5.4, 5.7."""

    required_offers: int = 3
    min_gap: dt.timedelta = dt.timedelta(hours=3)
    max_per_date: int = 2
    deadline_weekday: int = 4  # Friday (Monday = 0)
    deadline_time: dt.time = dt.time(23, 59)
    reply_within: dt.timedelta = dt.timedelta(hours=24)


@dataclass(frozen=True, slots=True)
class Calendar:
    """Rules 4: one match a week, published Tuesday, done by Monday 23:59 UTC."""

    first_publication: dt.date = dt.date(2021, 10, 12)
    publish_weekday: int = 1  # Tuesday
    complete_weekday: int = 0  # Monday
    complete_time: dt.time = dt.time(23, 59)
    break_weeks_after_qualification: int = 1
    break_weeks_after_candidates: int = 1


@dataclass(frozen=True, slots=True)
class Conduct:
    """Rules 6: no-show grace, the one break, forfeits."""

    no_show_grace: dt.timedelta = dt.timedelta(minutes=10)
    no_show_second_alert: dt.timedelta = dt.timedelta(minutes=20)
    break_length: dt.timedelta = dt.timedelta(minutes=10)
    long_pause: dt.timedelta = dt.timedelta(minutes=3)
    forfeit_limit: int = 2


@dataclass(frozen=True, slots=True)
class Armageddon:
    """Rules 3.ix."""

    black_seconds: int = 180
    increment_seconds: int = 0
    min_white_seconds: int = 1
    black_draw_odds: bool = True
    bid_window: dt.timedelta = dt.timedelta(hours=24)


@dataclass(frozen=True, slots=True)
class Stages:
    """Stage sizes (rules 3.v.4, 3.vi.1)."""

    qualifiers: int = 10  # plus one per absent seeded entrant (rules 3.v.4)
    pool_size: int = 6
    candidates_meetings: int = 1  # matches per pair in a pool (rules 3.vi.3)
    bye_is_match_win: bool = True
    absolute_colours: bool = False
    """The qualification's pairing reads the colour of a match's game 1 as a FIDE colour, its
    absolute preferences included (C.04.3 1.6.2, C3), instead of a preference only (the
    default: a 10-game match's colours alternate; :mod:`rules.stages.manual_pairing`)."""
    play_in_matches: int = 0  # a play-in round for the last places (0: none; rules/stages/play_in)


@dataclass(frozen=True, slots=True)
class Seeding:
    """Seeded entrants (rules 3.iii-iv) and the previous final (rules 3.vi.6.4)."""

    title_holder: str | None = "PepsiNGaming"
    runner_up: str | None = "GrohochetGrom"
    previous_final_order: tuple[str, ...] = ("PepsiNGaming", "GrohochetGrom")


@dataclass(frozen=True, slots=True)
class Eligibility:
    """Rules 2.i and 3.v.3."""

    account_created_before: dt.datetime = dt.datetime(2021, 3, 1, tzinfo=UTC)
    min_rated_games: int = 100
    games_before: dt.datetime = dt.datetime(2021, 9, 1, tzinfo=UTC)
    peak_window_start: dt.datetime = dt.datetime(2021, 3, 1, tzinfo=UTC)
    peak_window_end: dt.datetime = dt.datetime(2021, 9, 1, tzinfo=UTC)
    cheat_one_since: dt.datetime | None = None
    """Rules 2.2.3.1: one "cheat detected" game since then refuses the entry; ``None``: one
    year before ``games_before`` (2020-09-01 for the 2021 season)."""
    cheat_two_since: dt.datetime | None = None
    """Rules 2.2.3.2: two since then; ``None``: three years before ``games_before``
    (2018-09-01)."""

    @property
    def cheat_one_cutoff(self) -> dt.datetime:
        if self.cheat_one_since is not None:
            return self.cheat_one_since
        return _years_before(self.games_before, 1)

    @property
    def cheat_two_cutoff(self) -> dt.datetime:
        if self.cheat_two_since is not None:
            return self.cheat_two_since
        return _years_before(self.games_before, 3)


def _years_before(when: dt.datetime, years: int) -> dt.datetime:
    """The same moment ``years`` earlier (29 February: the 28th)."""
    try:
        return when.replace(year=when.year - years)
    except ValueError:
        return when.replace(year=when.year - years, day=28)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Everything configurable about the championship's regulations."""

    formats: Formats = field(default_factory=Formats)
    time_control: TimeControl = field(default_factory=TimeControl)
    offers: OfferRules = field(default_factory=OfferRules)
    calendar: Calendar = field(default_factory=Calendar)
    conduct: Conduct = field(default_factory=Conduct)
    armageddon: Armageddon = field(default_factory=Armageddon)
    stages: Stages = field(default_factory=Stages)
    seeding: Seeding = field(default_factory=Seeding)
    eligibility: Eligibility = field(default_factory=Eligibility)


DEFAULT_RULESET = Ruleset()
