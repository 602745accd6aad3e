"""The forum posts' words (rules/talk/forum.py): each match's line and a result in words."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.talk.forum import (
    ForumMatch,
    MatchResult,
    StandingLine,
    qualification_standings_lines,
    result_line,
    result_text,
    room_line,
)

AGREED = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)


def match(result: MatchResult, *, black: str | None = "bob", week: int = 1) -> ForumMatch:
    return ForumMatch("semifinal", 2, "alice", black, week, "https://acwc/match/7", AGREED, result)


@pytest.mark.parametrize(
    ("result", "words"),
    [
        (MatchResult(), ""),
        (MatchResult(bye=True), "bye"),
        (MatchResult(void=True), "void (rules 8)"),
        (MatchResult(repeat=True, score="3 - 3"), "3 - 3, tied, played again the next week"),
        (MatchResult(decided=True, score="6 - 2", winner="alice"), "6 - 2, alice wins"),
        (MatchResult(decided=True, winner="bob", decided_by="forfeit"), "bob wins by forfeit"),
        (
            MatchResult(decided=True, score="6 - 6", winner="bob", decided_by="armageddon"),
            "6 - 6, bob wins after the armageddon",
        ),
        (MatchResult(decided=True, decided_by="td"), "tied by TD decision"),
    ],
)
def test_a_result_in_words(result: MatchResult, words: str) -> None:
    assert result_text(result) == words


def test_an_undecided_match_shows_its_room_and_agreed_time() -> None:
    line = room_line(match(MatchResult()), named=False)
    assert line == "2. alice - bob  https://acwc/match/7  agreed: Thu 14 Oct 18:00 UTC"


def test_a_decided_match_shows_its_result_not_its_time_and_names_its_stage_when_asked() -> None:
    decided = match(MatchResult(decided=True, score="6 - 2", winner="alice"), week=2)
    assert room_line(decided, named=True) == (
        "semifinal 2. alice - bob (week 2)  https://acwc/match/7  result: 6 - 2, alice wins"
    )
    assert result_line(decided, named=False) == "2. alice - bob (week 2): 6 - 2, alice wins"


def test_a_bye_has_no_room() -> None:
    assert room_line(match(MatchResult(bye=True), black=None), named=False) == "2. alice: bye"
    assert result_line(match(MatchResult(bye=True), black=None), named=False) == "2. alice: bye"


def test_the_qualification_standings_lines() -> None:
    rows = [StandingLine(1, "alice", 3.0, 4.5), StandingLine(2, "bob", 2.5, 4.0)]
    assert qualification_standings_lines(3, rows) == [
        "Standings after round 3 (match points, Median-Buchholz):",
        "1. alice 3 4.5",
        "2. bob 2.5 4",
    ]
