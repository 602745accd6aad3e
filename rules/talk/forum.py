"""The forum posts' words (the TDs paste them: Lichess has no API for the forum): a round's
pairings post, its closing post of results and standings, each match's line in them.

``bot/service/forum.py`` decides which post a round gets and when; every line of a post is
written here, from plain values.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.core.states import DecidedBy
from rules.stages.formats import stage_name
from rules.week.calendar import label_time

__all__ = [
    "ForumMatch",
    "MatchResult",
    "StandingLine",
    "closing_title",
    "pairings_header",
    "pairings_title",
    "pool_standings_lines",
    "qualification_standings_lines",
    "result_line",
    "result_text",
    "results_heading",
    "room_line",
    "stage_names",
]

_HOW: dict[str, str] = {
    DecidedBy.FORFEIT: " by forfeit",
    DecidedBy.TD: " by TD decision",
    DecidedBy.ARMAGEDDON: " after the armageddon",
}


def _stage_name(stage: str) -> str:
    return stage_name(stage).lower()


def stage_names(stages: Iterable[str]) -> str:
    """``qualification``, or ``final and third place`` for a post that covers two stages."""
    return " and ".join(_stage_name(s) for s in stages)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Where a match stands for a post: a bye, void (rules 8), played again the next week (a
    tied knockout week), decided (``winner`` None: tied) or still open. ``score``: the games'
    score, when games were played."""

    bye: bool = False
    void: bool = False
    repeat: bool = False
    decided: bool = False
    score: str | None = None
    winner: str | None = None
    decided_by: str | None = None


def result_text(result: MatchResult) -> str:
    """``6 - 2, alice wins`` (or by forfeit, by TD decision, after the armageddon); empty for
    a match still open."""
    if result.bye:
        return "bye"
    if result.void:
        return "void (rules 8)"
    if not result.decided and not result.repeat:
        return ""
    score = f"{result.score}, " if result.score is not None else ""
    if result.repeat:
        return f"{score}tied, played again the next week"
    how = _HOW.get(result.decided_by, "") if result.decided_by is not None else ""
    return f"{score}{result.winner} wins{how}" if result.winner else f"{score}tied{how}"


@dataclass(frozen=True, slots=True)
class ForumMatch:
    """One match of a post: its stage (named when a post covers two), board, players (``black``
    None: a bye), week (a tied knockout's repeat), room, agreed time and result."""

    stage: str
    board: int
    white: str
    black: str | None
    week: int
    room_url: str
    agreed: dt.datetime | None
    result: MatchResult


def _head(m: ForumMatch, named: bool) -> str:
    return f"{_stage_name(m.stage)} " if named else ""


def _week(m: ForumMatch) -> str:
    return f" (week {m.week})" if m.week > 1 else ""


def room_line(m: ForumMatch, *, named: bool) -> str:
    """A match of the pairings post: its players, its room link, the agreed time while it is
    undecided and its result so far (``named``: with its stage's name)."""
    if m.black is None:
        return f"{_head(m, named)}{m.board}. {m.white}: bye"
    line = f"{_head(m, named)}{m.board}. {m.white} - {m.black}{_week(m)}  {m.room_url}"
    if m.agreed is not None and not m.result.decided:
        line += f"  agreed: {label_time(m.agreed)}"
    result = result_text(m.result)
    if result:
        line += f"  result: {result}"
    return line


def result_line(m: ForumMatch, *, named: bool) -> str:
    """A match of the closing lines: its players and its result."""
    pair = m.white if m.black is None else f"{m.white} - {m.black}"
    return f"{_head(m, named)}{m.board}. {pair}{_week(m)}: {result_text(m.result)}"


def pairings_title(stages: str, number: int) -> str:
    return f"ACWC {stages or '?'} round {number} pairings"


def pairings_header(
    title: str,
    *,
    week_end: dt.datetime,
    public_url: str,
    live_url: str | None,
    broadcast_url: str | None,
) -> list[str]:
    """The pairings post's first lines: its title, the round's end (rules 4.5), where the
    times and results are, and where the games are followed live."""
    lines = [
        title,
        f"Play by {label_time(week_end)} (rules 4.5); all times UTC.",
        f"Agreed times and results are also on {public_url.rstrip('/')}/",
    ]
    if live_url is not None:  # this round's live broadcast
        lines.append(f"Follow every game live on Lichess: {live_url}")
    elif broadcast_url:
        lines.append(f"Lichess broadcast: {broadcast_url}")
    return lines


def closing_title(stages: str, number: int) -> str:
    return f"ACWC {stages} round {number}: results"


def results_heading(number: int) -> str:
    """The first of a round's closing lines (a pairings post carries them from there)."""
    return f"Round {number} results:"


@dataclass(frozen=True, slots=True)
class StandingLine:
    rank: int
    username: str
    match_points: float
    buchholz_median: float


def qualification_standings_lines(through: int, rows: Iterable[StandingLine]) -> list[str]:
    lines = [f"Standings after round {through} (match points, Median-Buchholz):"]
    lines += [f"{r.rank}. {r.username} {r.match_points:g} {r.buchholz_median:g}" for r in rows]
    return lines


def pool_standings_lines(through: int, pools: Iterable[tuple[str, Sequence[str]]]) -> list[str]:
    """The Candidates pools' order after round ``through``: (pool, players in order)."""
    lines = [f"Standings after round {through}:"]
    lines += [f"{pool} pool: " + ", ".join(order) for pool, order in pools]
    return lines
