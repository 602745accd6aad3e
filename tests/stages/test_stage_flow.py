"""Stage transitions, the calendar, exits (rules 4.2, 8) and the knockout listener, in storage."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from bot.config import Config
from bot.errors import OperationError
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from bot.service.results import refresh_match
from bot.views.bracket import armageddon_view, load_bracket
from bot.views.candidates import pool_entries, pool_tables
from bot.views.qualification import standings
from bot.web.desk.rulings import FlaggedGames
from rules.core.colour import Colour
from rules.core.model import GameStatus, PlayerId
from rules.core.ruleset import StageKind
from rules.stages.armageddon import ArmageddonError
from rules.stages.candidates import Pool
from rules.talk import commands
from storage.db import Database
from storage.models import DeadlineRow
from tests.stages.helpers import (
    advance as _advance,
)
from tests.stages.helpers import (
    approve as _approve,
)
from tests.stages.helpers import (
    candidates_done as _candidates_done,
)
from tests.stages.helpers import (
    config_for,
    draws,
    first_wins,
    matches_of,
    pair_qualification,
    play,
    register,
    semifinal_at_armageddon,
    services,
    tuesday,
)
from tests.stages.helpers import (
    qualification_done as _qualification_done,
)
from tests.stages.helpers import (
    semifinals_played as _semifinals_played,
)
from tests.stages.helpers import (
    semifinals_running as _semifinals_running,
)
from tests.stages.helpers import (
    stage_game as _game,
)


@pytest.fixture
def config(database_url: str) -> Config:
    return config_for(database_url)


async def test_advance_lists_what_is_missing_and_changes_nothing(
    db: Database, config: Config
) -> None:
    await register(db, config)
    ids = await pair_qualification(db, config, 1)
    await play(db, ids[0], first_wins(3))
    async with db.uow() as uow:
        with pytest.raises(OperationError) as caught:
            await services(db, config).progression.advance(uow, now=tuesday(1), actor="odmwnd")
    text = str(caught.value)
    assert "is unfinished" in text
    assert "Round 5 is not paired yet" in text
    async with db.uow() as uow:
        tournament = await uow.tournaments.current()
        assert tournament is not None
        assert tournament.current_stage == "qualification"


async def test_candidates_are_the_qualifiers_in_the_regulation_pools(
    db: Database, config: Config
) -> None:
    await _qualification_done(db, config)
    report = await _advance(db, config, tuesday(5))
    # Round 5 was published on 9 Nov: its own week, then the week's break (rules 4.2).
    assert report.earliest_publication == dt.date(2021, 11, 23)
    async with db.uow() as uow:
        pools = await pool_entries(uow)
        table = await standings(uow, config.rules)
    places = [row.player for row in table.rows]
    upper = [e.player for e in pools[Pool.UPPER]]
    lower = [e.player for e in pools[Pool.LOWER]]
    # rules 3.vi.2.1: upper 9, 8, 5, 4, 2; lower 10, 7, 6, 3, 1; seeded first.
    assert upper == ["pepsingaming", *(places[p - 1] for p in (2, 4, 5, 8, 9))]
    assert lower == ["grohochetgrom", *(places[p - 1] for p in (1, 3, 6, 7, 10))]
    rounds = await matches_of(db, StageKind.CANDIDATES)
    assert len(rounds) == 30  # 5 Berger rounds of 3 matches in each pool
    pairs = {frozenset((m.white_first, m.black_first)) for m in rounds}
    assert len(pairs) == 30  # everyone meets everyone in their pool once


async def test_a_round_is_not_published_before_the_break_is_over(
    db: Database, config: Config
) -> None:
    await _qualification_done(db, config)
    await _advance(db, config, tuesday(5))
    with pytest.raises(OperationError, match="cannot be published before Tue 2021-11-23"):
        await _approve(db, config, StageKind.CANDIDATES, tuesday(5))
    await _approve(db, config, StageKind.CANDIDATES, tuesday(6))
    with pytest.raises(OperationError, match="2021-11-30"):  # one round a week (rules 4.1)
        await _approve(db, config, StageKind.CANDIDATES, tuesday(6))


async def test_semifinals_pair_each_pool_winner_with_the_other_pools_second(
    db: Database, config: Config
) -> None:
    last = await _candidates_done(db, config)
    report = await _advance(db, config, dt.datetime.combine(last, dt.time(23), tzinfo=dt.UTC))
    assert report.entered is StageKind.SEMIFINAL
    assert report.earliest_publication == last + dt.timedelta(weeks=2)
    async with db.uow() as uow:
        tables = await pool_tables(uow, config)
        bracket = await load_bracket(uow)
    upper = [r.player for r in tables[Pool.UPPER][1]]
    lower = [r.player for r in tables[Pool.LOWER][1]]
    assert bracket is not None
    sf1, sf2 = bracket.semifinals
    assert (sf1.white_first, sf1.black_first) == (upper[0], lower[1])
    assert (sf2.white_first, sf2.black_first) == (lower[0], upper[1])


async def test_a_tied_semifinal_goes_to_armageddon_bids_deadline_and_game_through_intake(
    db: Database, config: Config
) -> None:
    sf1, clock, found = await semifinal_at_armageddon(db, config)
    a, b = sf1.white_first, sf1.black_first
    assert b is not None
    intake = found.intake
    async with db.uow() as uow:
        row = await uow.matches.get(sf1.id)
        assert row is not None
        assert row.state == "armageddon"
        view = await armageddon_view(uow, sf1.id, config.rules)
        assert view is not None
        assert view["phase"] == "bidding"
        dms = [m.body for m in await uow.outbox.list(kind="dm")]
        assert sum("sealed time offer" in body for body in dms) == 2
        reply = await found.armageddons.act(
            uow, match_id=sf1.id, player=b, command=commands.Bid(100), now=clock.now()
        )
        assert "sealed" in reply
        with pytest.raises(ArmageddonError, match="already made"):
            await found.armageddons.act(
                uow, match_id=sf1.id, player=b, command=commands.Bid(90), now=clock.now()
            )
        public = await armageddon_view(uow, sf1.id, config.rules)
        assert public is not None
        assert public["bids"] is None  # sealed until both are in or the deadline passes
        await uow.commit()
    # Nobody else bids: at the deadline b plays White with their own offer (a made none).
    clock.advance(dt.timedelta(hours=25))
    runner = DeadlineRunner(db, clock, found.armageddons.handlers())
    await runner.fire_due()  # the week's own deadlines are due too; only the bids one matters here
    async with db.uow() as uow:
        fired = [
            d.kind
            for d in await uow.session.scalars(
                select(DeadlineRow).where(DeadlineRow.fired_at.is_not(None))
            )
        ]
    assert fired.count("armageddon_bids") == 1
    async with db.uow() as uow:
        view = await armageddon_view(uow, sf1.id, config.rules)
        assert view is not None
        assert (view["white"], view["white_seconds"], view["decided_by"]) == (
            b,
            100,
            "opponent_no_bid",
        )
        clocks = [
            m.body
            for m in await uow.outbox.list(kind="dm")
            if m.body.startswith("Armageddon (rules 3.ix)")
        ]
        assert len(clocks) == 2
        audit = [r.action for r in await uow.audit.list(match_id=sf1.id)]
        assert "armageddon.bid_sealed" in audit
        assert "armageddon.colours_decided" in audit
    # A 2+5 game now is not the armageddon game: refused, TDs told.
    later = clock.now() + dt.timedelta(hours=1)
    await intake(_game("wrongclk", b, a, later, status=GameStatus.RESIGN, winner=Colour.WHITE))
    # The armageddon game: 3+0, a draw, so Black wins the match (rules 3.ix.1.1).
    await intake(
        _game("armagedn", b, a, later, clock_limit=180, clock_increment=0, status=GameStatus.DRAW)
    )
    async with db.uow() as uow:
        row = await uow.matches.get(sf1.id)
        assert row is not None
        assert (row.state, row.decided_by) == ("complete", "armageddon")
        assert row.outcome == ("first_wins" if a == row.white_first else "second_wins")
        alerts = [m.body for m in await uow.outbox.list(kind="td_note")]  # the digest's
        assert any("wrongclk" in t and "increment 5" in t for t in alerts)
        assert any("armagedn" in t and "cannot be checked" in t for t in alerts)
        game = await uow.games.get("armagedn")
        assert game is not None
        assert (game.counted, game.refusal) == (False, "armageddon_game")
        # On the desk the armageddon game is one item, its alert; not also "did not count".
        flagged = [d.key for d in await FlaggedGames().pending(uow, found, now=later)]
        assert "wrongclk" in flagged
        assert "armagedn" not in flagged


async def test_a_tied_final_week_is_played_again_with_colours_swapped(
    db: Database, config: Config
) -> None:
    week_start = await _semifinals_played(db, config)
    report = await _advance(db, config, week_start + dt.timedelta(days=6))
    assert report.earliest_publication == week_start.date() + dt.timedelta(weeks=1)
    publish = dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC)
    await _approve(db, config, StageKind.FINAL, publish)
    final = (await matches_of(db, StageKind.FINAL))[0]
    found = services(db, config)
    async with db.uow() as uow:
        await play(db, final.id, draws(12))
        state = await refresh_match(uow, final.id, now=publish)
        assert state.outcome is not None
        assert state.outcome.value == "repeat"
        await found.match_listeners(uow, final.id, state.outcome)
        await uow.commit()
    weeks = sorted(await matches_of(db, StageKind.FINAL), key=lambda r: r.week)
    assert [(r.week, r.white_first, r.black_first) for r in weeks] == [
        (1, final.white_first, final.black_first),
        (2, final.black_first, final.white_first),
    ]
    assert weeks[1].state == "scheduled"
    async with db.uow() as uow:  # the service started week 2's negotiation itself
        events = await uow.weekly.events(weeks[1].id, week=2)
        deadlines = await uow.deadlines.open_for_match(weeks[1].id)
    assert [e.kind for e in events] == ["week_started"]
    assert deadlines


async def test_a_withdrawal_in_the_qualification_gives_the_unfinished_match_away(
    db: Database, config: Config
) -> None:
    await register(db, config)
    ids = await pair_qualification(db, config, 1)
    for match_id in ids[1:]:
        await play(db, match_id, first_wins())
    await play(db, ids[0], first_wins(2))
    async with db.uow() as uow:
        row = await uow.matches.get(ids[0])
        assert row is not None
        leaver, opponent = row.white_first, row.black_first
        assert leaver is not None
        assert opponent is not None
        preview = await services(db, config).exits.exit_player(
            uow,
            player=leaver,
            kind="withdrawal",
            reason="personal reasons",
            engine_mark=False,
            now=tuesday(0),
            actor="odmwnd",
        )
        await uow.commit()
    assert preview.last_round == 1
    assert all(r[2] == "0" for r in preview.before[0].rows)  # round 1 was not complete before
    after = {r[1].lower(): r for r in preview.after[0].rows}
    assert after[leaver][5] == "withdrawn"
    assert after[opponent][2] == "1"
    async with db.uow() as uow:
        row = await uow.matches.get(ids[0])
        assert row is not None
        assert (row.decided_by, row.outcome, row.state) == ("forfeit", "second_wins", "complete")
        player = await uow.players.get(leaver)
        assert player is not None
        assert player.status == "withdrawn"
        with pytest.raises(OperationError, match="already left"):
            await services(db, config).exits.exit_player(
                uow,
                player=leaver,
                kind="disqualification",
                reason="again",
                engine_mark=False,
                now=tuesday(0),
                actor="odmwnd",
            )


async def test_an_engine_mark_gives_every_finished_qualification_match_to_the_opponent(
    db: Database, config: Config
) -> None:
    await register(db, config)
    won = []
    for number in (1, 2):
        for match_id in await pair_qualification(db, config, number):
            await play(db, match_id, first_wins())
    async with db.uow() as uow:
        cheater = "player01"
        for row in await uow.matches.for_player(cheater):
            won.append(row.id)
        await services(db, config).exits.exit_player(
            uow,
            player=cheater,
            kind="disqualification",
            reason="engine mark on Lichess",
            engine_mark=True,
            now=tuesday(2),
            actor="odmwnd",
        )
        await uow.commit()
    async with db.uow() as uow:
        for match_id in won:
            match = await uow.matches.get(match_id)
            assert match is not None
            assert match.decided_by == "forfeit"
            winner = match.white_first if match.outcome == "first_wins" else match.black_first
            assert winner != cheater
        table = await standings(uow, config.rules)
        assert table.row(PlayerId(cheater)).match_points == 0


async def test_a_candidate_who_withdraws_has_every_game_disregarded(
    db: Database, config: Config
) -> None:
    await _qualification_done(db, config)
    report = await _advance(db, config, tuesday(5))
    assert report.earliest_publication is not None
    await _approve(
        db,
        config,
        StageKind.CANDIDATES,
        dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC),
    )
    for row in await matches_of(db, StageKind.CANDIDATES):
        if row.state == "scheduled":
            await play(db, row.id, first_wins(6) + draws(4))
    async with db.uow() as uow:
        pools = await pool_entries(uow)
        leaver = pools[Pool.UPPER][1].player
        preview = await services(db, config).exits.exit_player(
            uow,
            player=leaver,
            kind="withdrawal",
            reason="illness",
            engine_mark=False,
            now=tuesday(7),
            actor="odmwnd",
        )
        await uow.commit()
    assert leaver in [r[1] for r in preview.before[0].rows]
    assert leaver not in [r[1] for r in preview.after[0].rows]
    async with db.uow() as uow:
        tables = await pool_tables(uow, config)
        rows = tables[Pool.UPPER][1]
        # Two round-1 matches remain among the other four; their opponent keeps nothing.
        assert sum(r.matches_played for r in rows) == 4
        first = next(
            m
            for m in await matches_of(db, StageKind.CANDIDATES)
            if leaver in (m.white_first, m.black_first) and m.state == "complete"
        )
        opponent = first.black_first if first.white_first == leaver else first.white_first
        assert [r.matches_played for r in rows if r.player == opponent] == [0]
        open_rows = [
            m
            for m in await matches_of(db, StageKind.CANDIDATES)
            if leaver in (m.white_first, m.black_first)
        ]
        assert all(m.state == "complete" for m in open_rows)  # the rest are void


async def test_a_semifinalist_who_withdraws_is_replaced_by_the_next_in_their_pool(
    db: Database, config: Config
) -> None:
    sfs = await _semifinals_running(db, config)
    async with db.uow() as uow:
        bracket = await load_bracket(uow)
        assert bracket is not None
        leaver = bracket.upper[0]
        third = bracket.upper[2]
        preview = await services(db, config).exits.exit_player(
            uow,
            player=leaver,
            kind="disqualification",
            reason="two forfeits (rules 6.5)",
            engine_mark=False,
            now=dt.datetime(2022, 1, 5, tzinfo=dt.UTC),
            actor="odmwnd",
        )
        await uow.commit()
        bracket = await load_bracket(uow)
    assert bracket is not None
    assert bracket.semifinals[0].white_first == bracket.upper[1]
    assert bracket.semifinals[1].black_first == third
    assert any("moves up" in c for c in preview.changes)
    rows = await matches_of(db, StageKind.SEMIFINAL)
    assert {r.id for r in sfs}.isdisjoint({r.id for r in rows})  # both semifinals paired anew
    assert {(r.white_first, r.black_first) for r in rows} == {
        (p.white_first, p.black_first) for p in bracket.semifinals
    }


async def test_the_final_matches_go_out_with_the_advance_and_share_one_forum_post(
    db: Database, config: Config
) -> None:
    """The advance approved the final matches' round (rules 3.viii fixes it): on its Tuesday it
    goes out at once, audited as the bot's; the final and the third place playoff, one stage in
    the rules (3.ii), get one pairings post and one closing post."""
    tuesday_after = await _semifinals_played(db, config) + dt.timedelta(weeks=1)
    report = await _advance(db, config, tuesday_after + dt.timedelta(hours=9))
    assert report.earliest_publication == tuesday_after.date()
    found = services(db, config)
    clock = FakeClock(tuesday_after + dt.timedelta(hours=9))
    await DeadlineRunner(db, clock, found.deadline_handlers).fire_due()
    async with db.uow() as uow:
        published = [
            (a.actor, a.details["number"])
            for a in await uow.audit.list()
            if a.action == "round.publish" and a.at >= clock.now()
        ]
        drafts = await uow.outbox.list(kind="forum_draft")
    assert published == [("bot", 1), ("bot", 1)]  # the final's round, the third place's
    (post,) = [d for d in drafts if (d.subject or "").startswith("ACWC final and third place")]
    assert post.subject == "ACWC final and third place round 1 pairings"
    assert "\nfinal 1. " in post.body
    assert "\nthird place 1. " in post.body

    final = (await matches_of(db, StageKind.FINAL))[0]
    third = (await matches_of(db, StageKind.THIRD_PLACE))[0]
    await play(db, third.id, first_wins(7))
    async with db.uow() as uow:
        await found.forum.sweep(uow, now=clock.now())
        await uow.commit()
        assert not [
            d
            for d in await uow.outbox.list(kind="forum_draft")
            if d.notice == "round_closing" and (d.subject or "").startswith("ACWC final")
        ]
    await play(db, final.id, first_wins(7))
    async with db.uow() as uow:
        await found.forum.sweep(uow, now=clock.now())
        await uow.commit()
        closing = [
            d
            for d in await uow.outbox.list(kind="forum_draft")
            if d.notice == "round_closing" and (d.subject or "").startswith("ACWC final")
        ]
        name = {p.id: p.username for p in await uow.players.list()}  # as they spell it
    (post,) = closing
    assert post.subject == "ACWC final and third place round 1: results"
    for stage, m in (("final", final), ("third place", third)):
        assert m.black_first is not None
        pair = f"{name[m.white_first]} - {name[m.black_first]}"
        assert f"\n{stage} 1. {pair}: 7-0, " in post.body
