"""Every refusal through the one door for a player's text: a sentence, a reason, and nothing
written (rules 5.4)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from sqlalchemy import func, select

from bot.app import bootstrap
from bot.service.weekly.texts import PlayerTexts
from storage.models import AuditRow, DeadlineRow, OutboxRow
from storage.models_weekly import MatchEventRow
from tests.weekly.harness import Week

Setup = tuple[tuple[str, str], ...]

REFUSALS: list[tuple[str, Setup, str, str, str, str]] = [
    # (case, setup, player, text, reason, words in the reply)
    (
        "2 h 59 min from another offer",
        (("alice", "offer thu 18:00"),),
        "alice",
        "offer thu 20:59",
        "too_close",
        "only 2 hours 59 minutes from your offer 1",
    ),
    (
        "a third offer on one date",
        (("alice", "offer wed 09:00, wed 12:00"),),
        "alice",
        "offer wed 18:00",
        "date_full",
        "at most 2 offers may be on one date",
    ),
    (
        "two too close in one message",
        (),
        "alice",
        "offer thu 18:00, thu 19:00",
        "too_close",
        "another time in this message",
    ),
    (
        "the same time twice",
        (("alice", "offer thu 18:00"),),
        "alice",
        "offer thu 18:00",
        "duplicate",
        "separate",
    ),
    (
        "the opponent's time",
        (("bob", "offer thu 18:00"),),
        "alice",
        "offer thu 18:00",
        "opponents_time",
        "send `accept 1`",
    ),
    (
        "after the match week",
        (),
        "alice",
        "offer 2021-10-19 18:00",
        "outside_week",
        "outside this match week",
    ),
    ("a time already passed", (), "alice", "offer today 08:00", "in_the_past", "already passed"),
    (
        "another time zone",
        (),
        "alice",
        "offer thu 18:00 CEST",
        "not_utc",
        "is 2021-10-14 16:00 UTC",
    ),
    ("no time of day", (), "alice", "offer thu", "no_time", "at what time"),
    ("an unknown command", (), "alice", "reschedule please", "unknown_command", "Commands:"),
    (
        "one's own offer",
        (("alice", "offer thu 18:00"),),
        "alice",
        "accept 1",
        "own_offer",
        "your own",
    ),
    ("no such offer", (), "alice", "accept 3", "no_such_offer", "no offer 3"),
    (
        "choosing without a ruling",
        (),
        "alice",
        "choose thu 18:00",
        "not_chooser",
        "Nobody has been ruled",
    ),
    ("a change before agreement", (), "bob", "change thu 18:00", "not_agreed", "No time is agreed"),
    ("a claim with no right to it", (), "bob", "claim win", "no_claim", "nothing to claim"),
    ("a break before any game", (), "alice", "break", "not_started", "between two games"),
    ("an armageddon bid", (), "alice", "bid 1:30", "wrong_phase", "no armageddon game"),
    (
        "someone else's match",
        (),
        "carol",
        "offer thu 18:00",
        "not_your_match",
        "your own match room",
    ),
]


async def _counts(week: Week, uow: object) -> tuple[int, ...]:
    session = uow.session  # type: ignore[attr-defined]
    out = []
    for table in (MatchEventRow, OutboxRow, AuditRow, DeadlineRow):
        out.append((await session.execute(select(func.count()).select_from(table))).scalar_one())
    return tuple(out)


@pytest.mark.parametrize(
    ("case", "setup", "player", "text", "reason", "words"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
async def test_refusal_says_why_and_writes_nothing(
    week: Week, case: str, setup: Setup, player: str, text: str, reason: str, words: str
) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.publish(("carol", "dave"))
    for who, said in setup:
        assert (await week.say(match_id, who, said)).changed
    async with week.db.uow() as uow:
        before = await _counts(week, uow)
        reply = await week.services.texts.handle(
            uow, match_id=match_id, player=player, text=text, now=week.clock.now()
        )
        assert await _counts(week, uow) == before  # not even flushed
    assert not reply.ok
    assert not reply.changed
    assert reply.reason == reason
    assert words in reply.text


async def test_three_hours_exactly_is_accepted(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    assert (await week.say(match_id, "alice", "offer wed 12:00")).ok
    reply = await week.say(match_id, "alice", "offer wed 15:00")
    assert reply.ok
    assert "You have made 2 of 3 offers" in reply.text


async def test_status_and_help_answer_without_writing(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "bob", "offer thu 18:00")
    status = await week.say(match_id, "alice", "status")
    assert status.ok
    assert not status.changed
    assert "1. bob: Thu 14 Oct 18:00 UTC, in 2 days 9 hours" in status.text
    assert "You have made 0 of 3 offers" in status.text
    help_reply = await week.say(match_id, "alice", "help offer")
    assert "3 hours apart" in help_reply.text


async def test_unpublished_match_is_refused(week: Week) -> None:
    from tests.factories import stored_match

    match_id = await stored_match(week.db, "alice", "bob")
    reply = await week.say(match_id, "alice", "status")
    assert reply.reason == "not_published"
    unknown = await week.say(9999, "alice", "status")
    assert unknown.reason == "no_such_match"


async def test_the_help_and_the_refusals_a_player_reads_follow_the_settings(week: Week) -> None:
    """rules.offers.min_gap and rules.conduct.no_show_grace set to other values than 2021's:
    the help and the refusals say the new ones (a TD who changes a setting never sends the old
    regulations' numbers)."""
    (match_id,) = await week.publish(("alice", "bob"))
    rules = week.config.rules
    changed = dataclasses.replace(
        week.config,
        rules=dataclasses.replace(
            rules,
            offers=dataclasses.replace(rules.offers, min_gap=dt.timedelta(hours=5)),
            conduct=dataclasses.replace(rules.conduct, no_show_grace=dt.timedelta(minutes=15)),
        ),
    )
    for config, gap, grace in (
        (week.config, "3 hours", "10 minutes"),
        (changed, "5 hours", "15 minutes"),
    ):
        texts = bootstrap(config, clock=week.clock, db=week.db).texts

        async def say(text: str, texts: PlayerTexts = texts) -> str:
            async with week.db.uow() as uow:
                reply = await texts.handle(
                    uow, match_id=match_id, player="alice", text=text, now=week.clock.now()
                )
            return reply.text

        assert f"{gap} apart" in await say("help offer")
        assert f"has started {grace} after the agreed time" in await say("help claim")
        assert f"{gap} apart" in await say("help")
        refused = await say("offer thu 18:00, thu 19:00")
        assert f"offers must be at least {gap} apart" in refused
        refused = await say("claim win")
        assert f"in the {grace} grace period after the agreed time" in refused
