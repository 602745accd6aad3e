"""One exit path (rules 8, 6.5): a disqualification the TDs confirm after two forfeits goes
through the stages' exit, in every stage, on the fake clock with the deadline runner: the
leaver's unfinished match is settled for the opponent (8.1.1) or disregarded (8.2), the next
player moves up (8.3-8.4), the match's deadlines are cancelled and nobody innocent is charged."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.config import Config
from bot.errors import OperationError
from bot.runtime.clock import FakeClock
from bot.runtime.deadlines import DeadlineRunner
from bot.service.stages.exits import ExitPreview
from bot.views.bracket import load_bracket
from bot.views.candidates import pool_tables
from rules.core.ruleset import StageKind
from rules.week.forfeits import ForfeitKind
from storage.db import Database
from storage.models import MatchRow
from tests.stages.helpers import (
    FIRST_TUESDAY,
    advance,
    approve,
    config_for,
    first_wins,
    matches_of,
    pair_qualification,
    play,
    qualification_done,
    register,
    semifinals_running,
    services,
    tuesday,
)


@pytest.fixture
def config(database_url: str) -> Config:
    return config_for(database_url)


def _other(row: MatchRow, player: str) -> str:
    other = row.black_first if row.white_first == player else row.white_first
    assert other is not None
    return other


async def _forfeit_twice(db: Database, config: Config, player: str, matches: list[int]) -> None:
    """Two forfeits of ``player`` in two different matches (rules 6.5), recorded as the TDs'
    ruling on a claim records them."""
    async with db.uow() as uow:
        for match_id in matches:
            await services(db, config).conduct.record_forfeit(
                uow,
                player=player,
                match_id=match_id,
                kind=ForfeitKind.MATCH,
                reason="no-show",
                now=FIRST_TUESDAY,
                actor="odmwnd",
            )
        await uow.commit()


async def _confirm(db: Database, config: Config, player: str, now: dt.datetime) -> ExitPreview:
    async with db.uow() as uow:
        preview = await services(db, config).conduct.confirm_disqualification(
            uow, player, reason="two forfeits", now=now, actor="odmwnd"
        )
        await uow.commit()
    assert isinstance(preview, ExitPreview)
    return preview


async def _open_deadlines(db: Database, match_id: int) -> list[str]:
    async with db.uow() as uow:
        rows = await uow.weekly.deadlines(match_id)
    return [r.kind for r in rows if r.fired_at is None and r.cancelled_at is None]


async def _forfeits_of(db: Database, player: str) -> list[int]:
    async with db.uow() as uow:
        return [r.match_id for r in await uow.weekly.forfeits(player=player)]


async def _run_deadlines(db: Database, config: Config, until: dt.datetime) -> None:
    await DeadlineRunner(db, FakeClock(until), services(db, config).deadline_handlers).fire_due()


async def test_qualification_dq_gives_the_unfinished_match_away_and_charges_nobody(
    db: Database, config: Config
) -> None:
    await register(db, config)
    earlier = [await pair_qualification(db, config, n) for n in (1, 2)]
    for ids in earlier:
        for match_id in ids:
            await play(db, match_id, first_wins())
    (current, *_) = await pair_qualification(db, config, 3)
    async with db.uow() as uow:
        row = await uow.matches.get(current)
        assert row is not None
        leaver = row.white_first
        opponent = _other(row, leaver)
        mine = [m.id for m in await uow.matches.for_player(leaver) if m.id != current]
    await _forfeit_twice(db, config, leaver, mine)
    assert await _open_deadlines(db, current)  # the week's checks are planned
    preview = await _confirm(db, config, leaver, tuesday(2) + dt.timedelta(days=1))
    assert any("rules 8.1.1" in c for c in preview.changes)
    after = {r[1].lower(): r for r in preview.after[0].rows}
    assert after[leaver][5] == "disqualified"
    async with db.uow() as uow:
        row = await uow.matches.get(current)
        assert row is not None
        assert (row.state, row.decided_by) == ("complete", "forfeit")
        assert row.outcome == ("second_wins" if row.white_first == leaver else "first_wins")
        dms = [r.body for r in await uow.outbox.list(kind="dm") if r.player == opponent]
    assert any(f"match {current} (round 3) is awarded to you" in d for d in dms)
    assert await _open_deadlines(db, current) == []
    # Saturday: the offers check of round 3 has passed; the opponent owes nothing.
    await _run_deadlines(db, config, tuesday(2) + dt.timedelta(days=4))
    assert current not in await _forfeits_of(db, opponent)
    async with db.uow() as uow:
        with pytest.raises(OperationError, match="already left"):
            await services(db, config).exits.exit_player(
                uow,
                player=leaver,
                kind="disqualification",
                reason="again",
                engine_mark=False,
                now=tuesday(3),
                actor="odmwnd",
            )


async def test_candidates_dq_disregards_every_game_and_voids_the_open_matches(
    db: Database, config: Config
) -> None:
    await qualification_done(db, config)
    report = await advance(db, config, tuesday(5))
    assert report.earliest_publication is not None
    first = dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC)
    await approve(db, config, StageKind.CANDIDATES, first)
    for row in await matches_of(db, StageKind.CANDIDATES):
        if row.state == "scheduled":
            await play(db, row.id, first_wins(10))
    second = first + dt.timedelta(weeks=1)
    await approve(db, config, StageKind.CANDIDATES, second)
    open_rows = [r for r in await matches_of(db, StageKind.CANDIDATES) if r.state == "scheduled"]
    leaver = open_rows[0].white_first
    opponent = _other(open_rows[0], leaver)
    async with db.uow() as uow:
        mine = [m.id for m in await uow.matches.for_player(leaver) if m.state == "complete"]
    await _forfeit_twice(db, config, leaver, mine[-2:])
    preview = await _confirm(db, config, leaver, second + dt.timedelta(days=1))
    assert any("rules 8.2" in c for c in preview.changes)
    assert leaver in [r[1] for t in preview.before for r in t.rows]
    assert leaver not in [r[1] for t in preview.after for r in t.rows]
    async with db.uow() as uow:
        void = await uow.matches.get(open_rows[0].id)
        assert void is not None
        assert void.state == "void"
        tables = await pool_tables(uow, config)
    assert leaver not in [r.player for t in tables.values() for r in t[1]]
    assert await _open_deadlines(db, open_rows[0].id) == []
    await _run_deadlines(db, config, second + dt.timedelta(days=4))
    assert open_rows[0].id not in await _forfeits_of(db, opponent)


async def test_knockout_dq_moves_the_next_player_up_and_pairs_them(
    db: Database, config: Config
) -> None:
    sfs = await semifinals_running(db, config)
    async with db.uow() as uow:
        bracket = await load_bracket(uow)
        assert bracket is not None
        leaver, second = bracket.upper[0], bracket.upper[1]
        earlier = [m.id for m in await uow.matches.for_player(leaver) if m.stage == "candidates"]
    await _forfeit_twice(db, config, leaver, earlier[:2])
    old = next(r for r in sfs if leaver in (r.white_first, r.black_first))
    preview = await _confirm(db, config, leaver, dt.datetime(2022, 1, 5, tzinfo=dt.UTC))
    assert any(f"{second} moves up" in c for c in preview.changes)
    async with db.uow() as uow:
        bracket = await load_bracket(uow)
        void = await uow.matches.get(old.id)
    assert bracket is not None
    assert void is not None
    assert void.state == "void"
    assert bracket.semifinals[0].white_first == second
    assert await _open_deadlines(db, old.id) == []
    new = [r for r in await matches_of(db, StageKind.SEMIFINAL) if second in (r.white_first,)]
    assert len(new) == 1
    assert await _open_deadlines(db, new[0].id)
