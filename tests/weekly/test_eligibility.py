"""Eligibility through the service against the sandbox (rules 2.2, 7.3): "cheat detected" games
with their dates, a TD's refusal that sticks, a disqualified player told the truth, and the daily
look at every active player's account, flagged on the desk with a one-click disqualification
through the one exit path."""

from __future__ import annotations

import dataclasses
import datetime as dt

from bot.app import bootstrap
from bot.config import RegistrationConfig
from bot.sandbox.schemas import make_game
from bot.service.registration import Registration
from bot.web.desk.decisions import Ruling
from bot.web.desk.marks import MarkedAccounts
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.states import StageState
from tests.lichess.test_registration import history
from tests.weekly.harness import TEAM, Week, at

UTC = dt.UTC
OLD = dt.datetime(2019, 1, 1, tzinfo=UTC)


async def _registration(week: Week) -> Registration:
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
    said = {
        name: await registration.register_self(name, now=week.clock.now())
        for name in (*cases, "Victim")
    }
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
        assert (await registration.register_self(name, now=week.clock.now())).registered
    async with week.db.uow() as uow:  # what the TDs' "refuse" on the registrations list does
        await week.services.players.remove(
            uow, "Regina", reason="second account", now=week.clock.now(), actor="odmwnd"
        )
        await uow.audit.record(
            at=week.clock.now(),
            actor="odmwnd",
            action="registration.refuse",
            reason="second account",
            player="regina",
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
    again = await registration.register_self("Regina", now=week.clock.now())
    assert not again.registered
    assert "The TDs refused your registration (second account)" in again.reasons[0]
    dora = await registration.register_self("Dora", now=week.clock.now())
    assert not dora.registered
    assert "You are disqualified from this championship (rules 2.2.4)" in dora.reasons[0]
    async with week.db.uow() as uow:
        assert await uow.players.get("regina") is None
        await week.services.players.add(
            uow, "Regina", seed_rating=None, now=week.clock.now(), actor="odmwnd"
        )
        await uow.audit.record(
            at=week.clock.now(), actor="odmwnd", action="registration.add", player="regina"
        )
        await uow.commit()
    assert (await registration.register_self("Regina", now=week.clock.now())).registered


async def test_the_daily_look_flags_a_mark_and_the_desk_disqualifies_in_one_click(
    week: Week,
) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    async with week.db.uow() as uow:  # the qualification started with its first round
        tournament = await uow.tournaments.current()
        assert tournament is not None
        stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
        assert stage is not None
        stage.state = StageState.ACTIVE
        await uow.commit()
    await week.until(at(13, 8))  # the first look: nothing marked
    assert not [a for a in await week.alerts() if "rules 7.3" in a]
    week.state.users[PlayerId("bob")].tosViolation = True  # marked on Lichess mid-week
    await week.until(at(14, 10))
    (alert,) = [a for a in await week.alerts() if "rules 7.3" in a]
    assert "Bob's account is marked on Lichess" in alert
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
