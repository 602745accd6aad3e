"""The feature inside the service, the match room for visitors, and replay as an invariant."""

from __future__ import annotations

import dataclasses
import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app import Service
from bot.config import ServiceConfig
from bot.demo.bundled import bundled_sandbox
from bot.runtime.clock import FakeClock
from bot.views.timeline import timeline
from rules.core.errors import RulesError
from rules.core.model import MatchId, PlayerId
from rules.core.ruleset import DEFAULT_RULESET
from rules.week.calendar import match_week
from rules.week.negotiation import start_negotiation
from storage.match_log import apply_step, replay
from storage.models_weekly import MatchEventRow
from tests.weekly.harness import START, Week, at, make_config


async def test_service_start_binds_the_handlers_to_its_config_clock_and_lichess(
    database_url: str,
) -> None:
    config = make_config(team=None)
    config = dataclasses.replace(
        config, service=ServiceConfig(database_url=database_url, public_url="https://x.example")
    )
    clock = FakeClock(START)
    async with Service(config, clock=clock, serve_web=False, sandbox=bundled_sandbox()) as service:
        deadlines = service.services.weekly_deadlines
        assert service.services.deadline_handlers["offers_check"] == deadlines.on_offers_check
        assert deadlines.config is service.config
        assert deadlines.clock is service.clock
        assert deadlines.clock.now() == START
        assert deadlines.presence is not None
        statuses = await deadlines.presence([config.service.bot_account])
        assert [s.id for s in statuses] == [config.service.bot_account]
        assert deadlines.on_match_changed in service.services.match_listeners.listeners


async def test_visitors_see_the_schedule_but_no_claims_and_no_actions(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")
    visitor = await week.view(match_id, None)
    assert visitor.actions == ()
    assert [o.number for o in visitor.offers] == [1, 2, 3]
    assert visitor.offers_deadline == dt.datetime(2021, 10, 15, 23, 59, tzinfo=dt.UTC)
    assert visitor.offers_counted == (("Alice", 3), ("Bob", 0))  # as Lichess spells them
    bob = await week.view(match_id, "Bob")  # a player, however they spell their name
    assert set(bob.actions) == {"status", "help", "report", "offer", "accept"}
    alice = await week.view(match_id, "alice")
    assert "withdraw" in alice.actions
    assert "accept" not in alice.actions
    assert [d.kind for d in alice.deadlines] == [
        "reply_reminder",
        "offers_check",
        "completion_check",
    ]


async def test_private_report_reaches_only_the_tds(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    reply = await week.say(match_id, "alice", "report bob moves instantly every game")
    assert reply.changed
    assert "reached the TDs privately" in reply.text
    assert "instantly" not in reply.text
    assert any("bob moves instantly" in a for a in await week.alerts())
    assert not [r for r in await week.outbox("forum_draft") if "instantly" in r.body]
    assert not [b for b in await week.dms_to("bob") if "instantly" in b]
    async with week.db.uow() as uow:
        audit = await uow.audit.list()
        entries = await timeline(uow, match_id)
    assert not [a for a in audit if "instantly" in str(a.details)]
    assert not [e for e in entries if "instantly" in e.text]


WEEK = match_week(dt.date(2021, 10, 12), DEFAULT_RULESET)
ALICE, BOB = PlayerId("alice"), PlayerId("bob")
TIMES = [at(d, h) for d in range(12, 19) for h in (0, 9, 12, 15, 18, 21)]

step = st.one_of(
    st.tuples(
        st.just("offer"), st.lists(st.sampled_from(TIMES), min_size=1, max_size=3, unique=True)
    ),
    st.tuples(st.just("accept"), st.integers(1, 8)),
    st.tuples(st.just("withdraw"), st.integers(1, 8)),
    st.tuples(st.just("change"), st.sampled_from(TIMES)),
    st.tuples(st.just("accept_change"), st.none()),
    st.tuples(st.just("decline_change"), st.none()),
    st.tuples(st.just("choose"), st.sampled_from(TIMES)),
    st.tuples(st.just("offers_verdict"), st.none()),
    st.tuples(st.just("td_decision"), st.sampled_from([None, "alice", "bob"])),
)


def _data(kind: str, arg: object) -> dict[str, object]:
    if kind == "offer":
        assert isinstance(arg, list)
        return {"times": [t.isoformat() for t in arg]}
    if kind in ("accept", "withdraw"):
        return {"number": arg}
    if kind in ("change", "choose"):
        assert isinstance(arg, dt.datetime)
        return {"time": arg.isoformat()}
    if kind == "td_decision":
        return {"at_fault": arg}
    return {}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([ALICE, BOB]), step, st.integers(0, 60 * 24)),
        max_size=14,
    )
)
def test_replaying_the_accepted_steps_rebuilds_the_live_negotiation(
    steps: list[tuple[PlayerId, tuple[str, object], int]],
) -> None:
    """Whatever the players try, the log of accepted steps replays to the same state."""
    live = start_negotiation(MatchId(1), (ALICE, BOB), WEEK)
    log = [
        MatchEventRow(
            match_id=1,
            week=1,
            seq=1,
            at=WEEK.start,
            actor="odmwnd",
            kind="week_started",
            data={
                "players": [ALICE, BOB],
                "start": WEEK.start.isoformat(),
                "end": WEEK.end.isoformat(),
                "offer_deadline": WEEK.offer_deadline.isoformat(),
            },
        )
    ]
    now = WEEK.start
    for player, (kind, arg), minutes in steps:
        now += dt.timedelta(minutes=minutes)
        data = _data(kind, arg)
        try:
            stepped = apply_step(live, kind, player, now, data, DEFAULT_RULESET)
        except RulesError:
            continue  # refused: nothing goes into the log
        live = stepped.negotiation
        log.append(
            MatchEventRow(
                match_id=1, week=1, seq=len(log) + 1, at=now, actor=player, kind=kind, data=data
            )
        )
    assert replay(reversed(log), DEFAULT_RULESET) == live
