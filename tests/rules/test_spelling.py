"""Players as they spell their usernames, and plain text for Lichess (rules.talk.spelling)."""

from __future__ import annotations

from rules.core.model import PlayerId
from rules.talk.cheat_reports import make_cheat_report, td_cheat_report_alert
from rules.talk.commands import Report
from rules.talk.spelling import as_lichess_message, name_candidates, spell_names
from tests.rules.test_next_step import at

NAMES = {"alice": "Alice", "bob": "Bob", "odmwnd": "ODMWND", "carol": "carol"}


def test_ids_read_as_the_usernames_where_they_stand_as_words() -> None:
    text = (
        "ACWC pairing: you play bob (match 1).\n"
        "1. alice - bob: 6-0, alice wins\n"
        "- Tue 12 Oct 09:00 UTC odmwnd: pairing published\n"
        "Reminder: bob's offers are waiting; carol is told."
    )
    assert spell_names(text, NAMES) == (
        "ACWC pairing: you play Bob (match 1).\n"
        "1. Alice - Bob: 6-0, Alice wins\n"
        "- Tue 12 Oct 09:00 UTC ODMWND: pairing published\n"
        "Reminder: Bob's offers are waiting; carol is told."  # carol spells it so
    )


def test_what_is_quoted_is_left_as_written() -> None:
    text = (
        "Your report R-20211014-1802-alice reached the TDs. "
        "See https://lichess.org/@/alice and send `accept bob`.\n"
        "- alice wrote: “bob moves “instantly” every game, ask alice”"
    )
    assert spell_names(text, NAMES) == (
        "Your report R-20211014-1802-alice reached the TDs. "
        "See https://lichess.org/@/alice and send `accept bob`.\n"
        "- Alice wrote: “bob moves “instantly” every game, ask alice”"
    )
    assert "bob" not in name_candidates(text)  # only in quotes and the command


def test_words_that_only_contain_an_id_are_not_names() -> None:
    assert spell_names("bobby and alice-2 met alice_x", NAMES) == "bobby and alice-2 met alice_x"
    assert spell_names("", NAMES) == ""
    assert spell_names("alice", {}) == "alice"


def test_a_private_reports_words_reach_the_tds_as_the_reporter_wrote_them() -> None:
    words = "bob PLAYS too fast; Ask carol. “Really”"
    report = make_cheat_report(Report(words), reporter=PlayerId("alice"), now=at(14, 18))
    alert = spell_names(td_cheat_report_alert(report).text, NAMES)
    assert f"- Alice wrote: “{words}”" in alert
    assert "private report R-20211014-1800-alice from Alice" in alert


def test_a_lichess_message_has_commands_in_quotation_marks() -> None:
    text = "Reply with `accept 1` or offer other times (`offer ...`).\n- alice wrote: “use `x`”"
    assert as_lichess_message(text) == (
        'Reply with "accept 1" or offer other times ("offer ...").\n- alice wrote: “use `x`”'
    )
    assert as_lichess_message("no commands here") == "no commands here"
