"""Notice texts and TD alerts (UTC with weekday and time remaining; DM length limit)."""

from __future__ import annotations

import datetime as dt

import pytest

from rules.core.model import GameId, MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.talk import notices
from rules.talk.cheat_reports import (
    ReportError,
    ReportErrorReason,
    cheat_report_receipt,
    make_cheat_report,
    td_cheat_report_alert,
)
from rules.talk.commands import Report, parse
from rules.talk.notices import (
    DM_LIMIT,
    Audience,
    Notice,
    change_proposed,
    deadline_missed,
    describe_time,
    fit,
    match_result,
    no_show_notice,
    offer_received,
    pairing_published,
    reply_reminder,
    td_claim_alert,
    td_disqualification_alert,
    td_no_show_alert,
    td_offers_verdict_alert,
    td_pause_alert,
    td_weekend_alert,
    time_agreed,
)
from rules.talk.status import status_text
from rules.week.calendar import UTC, match_week
from rules.week.conduct import (
    BreakCall,
    Forfeit,
    ForfeitReason,
    GameSpan,
    NoShowAlert,
    assess_no_show,
    disqualification_due,
    review_pauses,
)
from rules.week.faults import apply_verdict, assess_offer_deadline, assess_weekend, awaiting_reply
from rules.week.negotiation import (
    Negotiation,
    Ruling,
    RulingKind,
    accept_offer,
    make_offers,
    propose_change,
    start_negotiation,
)

RS = DEFAULT_RULESET
WEEK = match_week(dt.date(2021, 10, 12), RS)
ALICE, BOB = PlayerId("alice"), PlayerId("bob")
MATCH = MatchId(7)


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2021, 10, day, hour, minute, tzinfo=UTC)


def fresh() -> Negotiation:
    return start_negotiation(MATCH, (ALICE, BOB), WEEK)


def offer(n: Negotiation, player: PlayerId, *times: dt.datetime, now: dt.datetime) -> Negotiation:
    return make_offers(n, times, player=player, now=now, ruleset=RS).negotiation


@pytest.mark.parametrize(
    ("when", "now", "text"),
    [
        (at(14, 18), at(12, 15), "Thu 14 Oct 18:00 UTC, in 2 days 3 hours"),
        (at(14, 18), at(14, 17, 15), "Thu 14 Oct 18:00 UTC, in 45 minutes"),
        (at(14, 18), at(14, 16, 59), "Thu 14 Oct 18:00 UTC, in 1 hour 1 minute"),
        (at(14, 18), at(14, 18), "Thu 14 Oct 18:00 UTC, now"),
        (at(14, 18), at(14, 18, 5), "Thu 14 Oct 18:00 UTC, 5 minutes ago"),
        (at(18, 23, 59), at(12, 0), "Mon 18 Oct 23:59 UTC, in 6 days 23 hours"),
    ],
)
def test_describe_time_states_utc_weekday_and_distance(
    when: dt.datetime, now: dt.datetime, text: str
) -> None:
    assert describe_time(when, now=now) == text


def test_pairing_notice_names_opponent_deadlines_and_room() -> None:
    notice = pairing_published(
        match_id=MATCH,
        player=ALICE,
        opponent=BOB,
        week=WEEK,
        room_url="https://acwc.example/match/7",
        now=at(12, 9),
        ruleset=RS,
    )
    assert notice.recipient == ALICE
    assert notice.audience is Audience.PLAYER
    assert "you play bob" in notice.text
    assert "https://acwc.example/match/7" in notice.text
    assert "Fri 15 Oct 23:59 UTC, in 3 days 14 hours" in notice.text
    assert "Mon 18 Oct 23:59 UTC" in notice.text
    assert "3 hours apart" in notice.text


def test_offer_and_reminder_notices_list_numbers_and_the_accept_command() -> None:
    n = offer(fresh(), ALICE, at(14, 18), at(15, 18), now=at(12, 10))
    notice = offer_received(n, n.offers, recipient=BOB, now=at(12, 10), ruleset=RS)
    assert notice.recipient == BOB
    assert "1. alice: Thu 14 Oct 18:00 UTC" in notice.text
    assert "accept 1" in notice.text
    (pending,) = awaiting_reply(n)
    reminder = reply_reminder(n, pending, now=at(13, 10))
    assert reminder.recipient == BOB
    assert "2. alice: Fri 15 Oct 18:00 UTC" in reminder.text


def test_agreed_time_goes_to_both_players_and_the_public_schedule() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    n = accept_offer(n, player=BOB, number=1, now=at(12, 12)).negotiation
    notices = time_agreed(n, now=at(12, 12), ruleset=DEFAULT_RULESET)
    assert [x.recipient for x in notices if x.audience is Audience.PLAYER] == [ALICE, BOB]
    public = [x for x in notices if x.audience is Audience.PUBLIC]
    assert public == [Notice(Audience.PUBLIC, None, "alice - bob: Thu 14 Oct 18:00 UTC")]
    n = propose_change(n, at(15, 18), player=ALICE, now=at(12, 13), ruleset=RS).negotiation
    change = change_proposed(n, now=at(12, 13))
    assert change.recipient == BOB
    assert "accept change" in change.text


def test_deadline_missed_tells_chooser_and_player_at_fault() -> None:
    n = offer(fresh(), ALICE, at(13, 9), at(14, 9), at(15, 9), now=at(12, 10))
    verdict = assess_offer_deadline(n, now=WEEK.offers_close, ruleset=RS)
    step = apply_verdict(n, verdict, now=WEEK.offers_close)
    ruling = step.negotiation.ruling
    assert ruling is not None
    to_alice, to_bob = deadline_missed(step.negotiation, ruling, now=WEEK.offers_close)
    assert "you choose the match time" in to_alice.text
    assert "choose sat 18:00" in to_alice.text
    assert "You are at fault" in to_bob.text
    alert = td_offers_verdict_alert(n, verdict)
    assert "acwc fault decide 7 --at-fault USER|--nobody" in (alert.command or "")
    assert "acwc" not in alert.text.replace("[ACWC]", "")
    assert "offers counted: alice: 3, bob: 0" in alert.text


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        (RulingKind.OFFERS_BOTH_AT_FAULT, "forfeit"),
        (RulingKind.TD_NOBODY_AT_FAULT, "neither player at fault"),
    ],
)
def test_tied_rulings_are_explained(kind: RulingKind, says: str) -> None:
    ruling = Ruling(kind, WEEK.offers_close, tied=True)
    for notice in deadline_missed(fresh(), ruling, now=WEEK.offers_close):
        assert "tied match" in notice.text
        assert says in notice.text


def test_weekend_alert_offers_the_fault_decision_command() -> None:
    n = offer(fresh(), ALICE, at(13, 9), at(14, 9), at(15, 9), now=at(12, 10))
    n = offer(n, BOB, at(13, 18), at(14, 18), at(15, 18), now=at(12, 11))
    alert = td_weekend_alert(n, assess_weekend(n, now=WEEK.offers_close, ruleset=RS))
    assert alert.command == "acwc fault decide 7 --at-fault alice|bob|--nobody"
    assert "offer 6 by bob: Fri 15 Oct 18:00 UTC" in alert.text
    assert "rules 5.8" in alert.text


def test_no_show_alerts_name_the_appearing_player() -> None:
    def check(minute: int) -> NoShowAlert | None:
        return assess_no_show(
            match_id=MATCH,
            players=(ALICE, BOB),
            scheduled=at(14, 18),
            now=at(14, 18, minute),
            seen={BOB},
            games_started=0,
            ruleset=RS,
        )

    first, second = check(10), check(20)
    assert first is not None
    assert second is not None
    alert1 = td_no_show_alert(first, ruleset=DEFAULT_RULESET)
    assert "bob is there" in alert1.text
    assert alert1.command is None
    alert2 = td_no_show_alert(second, ruleset=DEFAULT_RULESET)
    assert alert2.command == "acwc claim decide 7 --winner bob|--dismiss"
    to_bob, to_alice = no_show_notice(second, now=at(14, 18, 20), ruleset=DEFAULT_RULESET)
    assert to_bob.recipient == BOB
    assert "claim win" in to_bob.text
    assert to_alice.recipient == ALICE
    assert second.claim is not None
    assert "did not show up" in td_claim_alert(second.claim, ruleset=DEFAULT_RULESET).text


def test_pause_alerts_carry_the_claim_command() -> None:
    t = at(14, 18)
    games = [
        GameSpan(GameId("aaaaaaaa"), t, t + dt.timedelta(minutes=8)),
        GameSpan(GameId("bbbbbbbb"), t + dt.timedelta(minutes=20), t + dt.timedelta(minutes=28)),
    ]
    review = review_pauses(
        games,
        [BreakCall(ALICE, t + dt.timedelta(minutes=9))],
        match_id=MATCH,
        players=(ALICE, BOB),
        conduct=RS.conduct,
    )
    (violation,) = review.violations
    alert = td_pause_alert(violation)
    assert alert.command == "acwc claim decide 7 --winner bob|--dismiss"
    assert "12 min 00 s" in alert.text


def test_disqualification_alert_awaits_confirmation() -> None:
    forfeits = [
        Forfeit(BOB, MatchId(1), ForfeitReason.OFFERS, at(16, 0)),
        Forfeit(BOB, MatchId(2), ForfeitReason.NO_SHOW, at(21, 18)),
    ]
    case = disqualification_due(forfeits, BOB, conduct=RS.conduct)
    assert case is not None
    alert = td_disqualification_alert(case)
    assert alert.command == "acwc dq confirm bob"
    assert "rules 6.5" in alert.text


def test_result_notice_and_public_line() -> None:
    notices = match_result(match_id=MATCH, players=(ALICE, BOB), score="5.5-2.5", winner=ALICE)
    assert notices[-1] == Notice(Audience.PUBLIC, None, "alice - bob 5.5-2.5 (alice wins)")


def test_status_lists_offers_and_duty() -> None:
    n = offer(fresh(), ALICE, at(14, 18), now=at(12, 10))
    text = status_text(n, player=ALICE, now=at(12, 11), ruleset=RS)
    assert "1. alice: Thu 14 Oct 18:00 UTC" in text
    assert "You have made 1 of 3 offers" in text


def test_every_text_fits_a_lichess_message_even_at_the_limits() -> None:
    n = fresh()
    for day in range(12, 19):
        n = offer(n, ALICE, at(day, 3), at(day, 12), now=at(12, 1))
        n = offer(n, BOB, at(day, 6), at(day, 15), now=at(12, 2))
    texts = [status_text(n, player=ALICE, now=at(12, 3), ruleset=RS)]
    texts.append(offer_received(n, n.offers, recipient=BOB, now=at(12, 3), ruleset=RS).text)
    texts.append(td_weekend_alert(n, assess_weekend(n, now=WEEK.offers_close, ruleset=RS)).text)
    assert all(len(t) <= DM_LIMIT for t in texts)
    assert len(fit("x" * (DM_LIMIT + 50))) == DM_LIMIT


# --- private reports (rules 7.1) -----------------------------------------------------------------


def test_cheat_report_stays_private() -> None:
    command = parse("report bob played engine moves in game 3", now=at(14, 19), week=WEEK)
    assert isinstance(command, Report)
    report = make_cheat_report(command, reporter=ALICE, now=at(14, 19, 2), match_id=MATCH)
    receipt = cheat_report_receipt(report)
    alert = td_cheat_report_alert(report)
    assert receipt.audience is Audience.PLAYER
    assert receipt.recipient == ALICE
    assert "engine" not in receipt.text  # the receipt does not repeat the accusation
    assert "rules 7.1" in receipt.text
    assert alert.notice().audience is Audience.TDS
    assert "bob played engine moves in game 3" in alert.text
    assert report.reference in receipt.text
    assert report.reference in alert.text
    assert "engine" not in repr(report)  # not in logs either


def test_empty_or_long_report_is_refused() -> None:
    with pytest.raises(ReportError, check=lambda e: e.reason is ReportErrorReason.EMPTY):
        make_cheat_report(Report("   "), reporter=ALICE, now=at(14, 19))
    with pytest.raises(ReportError, check=lambda e: e.reason is ReportErrorReason.TOO_LONG):
        make_cheat_report(Report("x" * 501), reporter=ALICE, now=at(14, 19))


@pytest.mark.parametrize(
    ("decided_by", "games_played", "words"),
    [
        ("games", True, "6 - 2"),
        ("forfeit", True, "6 - 2 (decided by forfeit)"),
        ("td", True, "6 - 2 (decided by the TDs)"),
        ("forfeit", False, "by forfeit"),
        ("td", False, "by TD decision"),
    ],
)
def test_a_result_notice_says_who_decided_the_match(
    decided_by: str, games_played: bool, words: str
) -> None:
    assert notices.result_score("6 - 2", decided_by=decided_by, games_played=games_played) == words


def test_a_match_not_completed_by_the_week_end_alerts_the_tds_with_its_evidence() -> None:
    end = dt.datetime(2021, 10, 18, 23, 59, tzinfo=dt.UTC)
    alert = notices.td_completion_alert(
        MatchId(4),
        ("alice", "bob"),
        end,
        score="3 - 2",
        played=5,
        games=10,
        agreed=None,
        history=["line"],
    )
    assert alert.what == "alice - bob was not completed by Mon 18 Oct 23:59 UTC (rules 4.5)."
    assert alert.evidence == ("score 3 - 2 after 5 of 10 games", "agreed time: none", "line")


def test_a_late_check_says_how_late_it_ran() -> None:
    due = dt.datetime(2021, 10, 15, 23, 59, tzinfo=dt.UTC)
    note = notices.late_check_note(due, dt.timedelta(hours=2))
    assert note.startswith("(This check was due Fri 15 Oct 23:59 UTC and ran 2 hours late")
