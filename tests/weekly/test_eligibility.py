"""Eligibility through the service against the sandbox (rules 2.2, 7.3): "cheat detected" games
with their dates, a TD's refusal that sticks, a disqualified player told the truth, and the daily
look at every active player's account, flagged on the desk with a one-click disqualification
through the one exit path."""

from __future__ import annotations

import dataclasses
import datetime as dt

from bot.app import LichessMessenger, bootstrap
from bot.config import RegistrationConfig
from bot.notify.undelivered import UndeliveredAlerts
from bot.runtime.deadlines import DeadlineRunner
from bot.runtime.outbox import OutboxDispatcher
from bot.sandbox.schemas import make_game
from bot.service.registration import (
    Registration,
    SelfRegistration,
    standing_refusals,
    td_hand,
)
from bot.web.desk.decisions import Ruling
from bot.web.desk.marks import MarkedAccounts
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.states import StageState
from tests.lichess.test_registration import history
from tests.weekly.harness import TEAM, Week, at, make_config

UTC = dt.UTC
OLD = dt.datetime(2019, 1, 1, tzinfo=UTC)


async def _registration(week: Week) -> Registration:
    # each player's 110 games at once: these tests are about what the games say, and lila's
    # real-time export pace (tests/lichess/test_lila_contract.py) would only add seconds of waiting
    week.state.knobs.export_throttle = False
    config = dataclasses.replace(
        week.config,
        registration=RegistrationConfig(
            opens=week.clock.now() - dt.timedelta(days=1),
            closes=week.clock.now() + dt.timedelta(days=30),
        ),
    )
    services = bootstrap(config, clock=week.clock, db=week.db, lichess=week.client)
    assert services.registration is not None
    async with week.db.uow() as uow:
        await services.tournament.create(uow, now=week.clock.now(), actor="odmwnd")
        await uow.commit()
    return services.registration


def _eligible(week: Week, name: str) -> None:
    week.state.add_user(name, created_at=OLD)
    week.state.join_team(TEAM, name)
    start = dt.datetime(2021, 3, 2, tzinfo=UTC)
    history(week.state, name, [(start + dt.timedelta(hours=i), 1700, 1) for i in range(110)])


def _cheat_game(week: Week, name: str, when: dt.datetime, *, caught: bool = True) -> None:
    """A game Lichess ended as "cheat detected": ``name`` plays White and loses when caught."""
    week.state.add_game(
        make_game(
            name,
            "sparring",
            id=f"ch{name[:3]}{when:%y%m%d}".lower(),
            created_at=when,
            status="cheat",
            winner="black" if caught else "white",
            rated=True,
            ratings=(1700, 1500),
            rating_diffs=(-5, 5),
        )
    )
    user = week.state.users.get(PlayerId(name.lower()))
    if user is not None:  # lila's Finisher adds a finished game's time to the player's
        user.playTime += 8 * 60  # (the daily look reads the games only when it moved)


async def _register_self(week: Week, registration: Registration, name: str) -> SelfRegistration:
    """A player's own registration as the queue's runner makes it: what is settled without
    Lichess, else the check, then the entry in a transaction of its own."""
    settled = await registration.settled(name, now=week.clock.now())
    if settled is not None:
        return settled
    check = await registration.check_player(name)
    refused = await registration.refusal(name, check)
    if refused is not None:
        return refused
    async with week.db.uow() as uow:
        entered = await registration.enter(uow, name, check, now=week.clock.now())
        await uow.commit()
    return entered


async def test_cheat_detected_games_refuse_by_their_dates(week: Week) -> None:
    registration = await _registration(week)
    cases = {
        "Recent": [dt.datetime(2020, 10, 1, tzinfo=UTC)],  # one since 2020-09-01: refused
        "TwoOld": [dt.datetime(2019, 1, 5, tzinfo=UTC), dt.datetime(2019, 6, 5, tzinfo=UTC)],
        "OneOld": [dt.datetime(2019, 1, 5, tzinfo=UTC)],  # one, before 2020-09-01: eligible
        "Ancient": [dt.datetime(2017, 1, 5, tzinfo=UTC)] * 1,  # before 2018-09-01: eligible
    }
    for name, dates in cases.items():
        _eligible(week, name)
        for when in dates:
            _cheat_game(week, name, when)
    _eligible(week, "Victim")  # their opponent was caught: nothing against them
    _cheat_game(week, "Victim", dt.datetime(2021, 2, 1, tzinfo=UTC), caught=False)
    said = {name: await _register_self(week, registration, name) for name in (*cases, "Victim")}
    assert not said["Recent"].registered
    assert (
        "cheat detected: one since 01 Sep 2020 or two since 01 Sep 2018"
        in said["Recent"].reasons[0]
    )
    assert not said["TwoOld"].registered
    assert said["OneOld"].registered
    assert said["Ancient"].registered
    assert said["Victim"].registered
    check = await registration.check_player("OneOld")
    assert check.verdict is not None
    assert check.verdict.cheat_detected == (dt.datetime(2019, 1, 5, tzinfo=UTC),)


async def test_a_td_refusal_sticks_and_a_disqualified_player_is_told_so(week: Week) -> None:
    registration = await _registration(week)
    for name in ("Regina", "Dora"):
        _eligible(week, name)
        assert (await _register_self(week, registration, name)).registered
    _eligible(week, "Nemo")  # never registered: the TDs refuse the account before it does
    async with week.db.uow() as uow:  # the TDs' "Refuse" on the registrations list
        for name in ("Regina", "Nemo"):
            await td_hand(
                uow,
                week.services.players,
                name,
                refuse=True,
                reason="second account",
                now=week.clock.now(),
                actor="odmwnd",
            )
        await week.services.exits.exit_player(
            uow,
            player="Dora",
            kind="disqualification",
            reason="rules 2.2.4",
            engine_mark=False,
            now=week.clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    again = await _register_self(week, registration, "Regina")
    assert not again.registered
    assert "The TDs refused your registration (second account)" in again.reasons[0]
    dora = await _register_self(week, registration, "Dora")
    assert not dora.registered
    assert "You are disqualified from this championship (rules 2.2.4)" in dora.reasons[0]
    nemo = await _register_self(week, registration, "Nemo")
    assert not nemo.registered
    assert "The TDs refused your registration (second account)" in nemo.reasons[0]
    async with week.db.uow() as uow:
        assert await uow.players.get("regina") is None
        assert await uow.players.get("nemo") is None
        assert [r.username for r in await standing_refusals(uow)] == ["Regina", "Nemo"]
        await td_hand(  # a TD adds Regina: the refusal no longer stands
            uow,
            week.services.players,
            "Regina",
            refuse=False,
            reason="not a second account after all",
            now=week.clock.now(),
            actor="odmwnd",
        )
        await uow.commit()
    assert (await _register_self(week, registration, "Regina")).registered
    async with week.db.uow() as uow:
        assert [r.username for r in await standing_refusals(uow)] == ["Nemo"]


async def test_the_daily_look_flags_a_mark_and_the_desk_disqualifies_in_one_click(
    week: Week,
) -> None:
    (match_id,) = await _begin(week, ("alice", "bob"))
    await week.until(at(13, 8))  # the first look: nothing marked
    assert not [a for a in await week.alerts() if "rules 7.3" in a]
    week.state.users[PlayerId("bob")].tosViolation = True  # marked on Lichess mid-week
    await week.until(at(14, 10))
    (alert,) = [a for a in await week.alerts() if "rules 7.3" in a]
    assert "Bob's account is marked on Lichess" in alert
    assert "The daily look (rules 7.3)" in alert
    assert "acwc" not in alert.replace("[ACWC]", "")
    source = MarkedAccounts()
    async with week.db.uow() as uow:
        (decision,) = await source.pending(uow, week.services, now=week.clock.now())
        assert [c.value for c in decision.choices] == ["engine", "other", "dismiss"]
        said = await source.settle(
            uow,
            week.services,
            Ruling(decision.key, "other", "booster mark", "odmwnd", week.clock.now()),
        )
        await uow.commit()
    assert said.startswith("Bob is disqualified")
    row = await week.match(match_id)
    assert (row.state, row.decided_by, row.outcome) == ("complete", "forfeit", "first_wins")
    assert await week.open_deadlines(match_id) == []
    await week.until(at(16, 10))  # the offers check and two more looks: nothing new
    assert len([a for a in await week.alerts() if "rules 7.3" in a]) == 1
    async with week.db.uow() as uow:
        assert await source.pending(uow, week.services, now=week.clock.now()) == []
        forfeits = await uow.weekly.forfeits(player="alice")
    assert forfeits == []


async def _begin(week: Week, *pairs: tuple[str, str]) -> list[int]:
    """The round published and the qualification in play (the daily look runs from then);
    the match ids."""
    ids = await week.publish(*pairs)
    async with week.db.uow() as uow:
        tournament = await uow.tournaments.current()
        assert tournament is not None
        stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
        assert stage is not None
        stage.state = StageState.ACTIVE
        await uow.commit()
    return ids


async def test_the_daily_look_counts_cheat_detected_games_with_their_dates(week: Week) -> None:
    """Rules 2.2.3 during the event (7.3): with the first cut-off moved after the season, one
    "cheat detected" game is no grounds and two since the second cut-off are, counted with the
    dates read at registration and the games earlier looks saw."""
    rules = week.config.rules
    eligibility = dataclasses.replace(
        rules.eligibility, cheat_one_since=dt.datetime(2022, 1, 1, tzinfo=UTC)
    )
    config = dataclasses.replace(
        make_config(), rules=dataclasses.replace(rules, eligibility=eligibility)
    )
    services = bootstrap(config, clock=week.clock, db=week.db, lichess=week.client)
    week = dataclasses.replace(
        week,
        config=config,
        services=services,
        runner=DeadlineRunner(week.db, week.clock, services.deadline_handlers),
        dispatcher=OutboxDispatcher(
            week.db,
            LichessMessenger(week.client),
            week.clock,
            alerts=UndeliveredAlerts(services.notifier),
        ),
    )
    await _begin(week, ("alice", "bob"), ("carol", "dave"))
    async with week.db.uow() as uow:  # what Alice's registration read kept: one from 2019
        await uow.audit.record(
            at=week.clock.now(),
            actor="alice",
            action="registration.self",
            player="alice",
            details={"seed_rating": 2000, "cheat_detected": ["2019-03-01T00:00:00+00:00"]},
        )
        await uow.commit()
    _cheat_game(week, "Alice", at(12, 20))  # with 2019's: two since 2018, grounds
    _cheat_game(week, "Bob", at(12, 21))  # one: no grounds yet
    _cheat_game(week, "Carol", at(12, 22), caught=False)  # her opponent was caught
    for day in (1, 2):  # two old ones before Dave registered: known then, not news now
        _cheat_game(week, "Dave", dt.datetime(2019, 5, day, tzinfo=UTC))
    await week.until(at(13, 10))  # the first look
    (alice,) = [a for a in await week.alerts() if "rules 7.3" in a]
    assert 'Alice\'s account is named in games Lichess ended as "cheat detected"' in alice
    assert "https://lichess.org/chali211012 (created 2021-10-12)" in alice
    _cheat_game(week, "Bob", at(13, 20))  # Bob's second since 2018
    await week.until(at(14, 10))
    (bob,) = [a for a in await week.alerts() if "rules 7.3" in a and "Bob" in a]
    assert "chbob211012 (created 2021-10-12)" in bob  # both games counted, with dates
    assert "chbob211013 (created 2021-10-13)" in bob
    await week.until(at(16, 10))  # more looks, nothing new: no new alert
    assert len([a for a in await week.alerts() if "rules 7.3" in a]) == 2
    async with week.db.uow() as uow:
        decisions = await MarkedAccounts().pending(uow, week.services, now=week.clock.now())
    links = {d.title: [e.url for e in d.evidence] for d in decisions}
    assert links == {
        "Disqualify Alice? (rules 7.3)": [
            "https://lichess.org/@/Alice",
            "https://lichess.org/chali211012",
        ],
        "Disqualify Bob? (rules 7.3)": [
            "https://lichess.org/@/Bob",
            "https://lichess.org/chbob211012",
            "https://lichess.org/chbob211013",
        ],
    }
