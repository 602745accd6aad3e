"""Building blocks for the later-stage tests: a tournament in storage, results entered through
the TDs' own operation (``Results.record``, behind ``acwc result record``)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Sequence

from bot.config import Config, ServiceConfig, TournamentConfig
from bot.runtime.clock import FakeClock
from bot.service.results import MatchListeners, Results
from bot.service.services import Services
from bot.service.stages.qualification import fix_entrants
from bot.service.stages.registry import AdvanceReport
from bot.views.qualification import qualification_stage
from rules.core.model import Game, GameId, GameStatus, PlayerId
from rules.core.ruleset import StageKind
from rules.stages.candidates import berger_rounds
from storage.convert import fraction_to_text
from storage.db import Database
from storage.models import MatchRow, RoundRow
from tests.factories import services_for

UTC = dt.UTC
FIRST_TUESDAY = dt.datetime(2021, 10, 12, 9, 0, tzinfo=UTC)
SEEDED = ("PepsiNGaming", "GrohochetGrom")
ENTRANTS = tuple(f"Player{i:02d}" for i in range(1, 11))  # rated 2500 down to 2050


def config_for(url: str) -> Config:
    return Config(
        tournament=TournamentConfig(tds=("ODMWND", "Shiaxou")),
        service=ServiceConfig(database_url=url),
    )


def services(db: Database, config: Config) -> Services:
    return services_for(db, config)


def tuesday(week: int, config: Config | None = None) -> dt.datetime:
    """The Tuesday ``week`` weeks after the first pairings (of ``config``'s calendar; None: of
    the 2021 season)."""
    return first_tuesday(config) + dt.timedelta(weeks=week)


def first_tuesday(config: Config | None) -> dt.datetime:
    if config is None:
        return FIRST_TUESDAY
    day = config.rules.calendar.first_publication
    return dt.datetime.combine(day, FIRST_TUESDAY.timetz())


async def register(
    db: Database,
    config: Config,
    *,
    seeded: Sequence[str] | None = None,
    entrants: Sequence[str] = ENTRANTS,
) -> None:
    """The entrants registered, in a tournament made first when none is open; ``seeded``
    (None: the config's title holder and runner-up) at 2600."""
    found = services(db, config)
    now = first_tuesday(config)
    if seeded is None:
        seeding = config.rules.seeding
        seeded = [n for n in (seeding.title_holder, seeding.runner_up) if n]
    async with db.uow() as uow:
        if await uow.tournaments.current() is None:
            await found.tournament.create(uow, now=now, actor="test")
        for name in seeded:
            await found.players.add(uow, name, seed_rating=2600, now=now, actor="t")
        for i, name in enumerate(entrants):
            await found.players.add(uow, name, seed_rating=2500 - 50 * i, now=now, actor="t")
        await uow.commit()


async def pair_qualification(db: Database, config: Config, number: int) -> list[int]:
    """Round ``number`` of the qualification, paired from a Berger table (no Swiss engine
    needed for these tests), approved and published in week ``number - 1``."""
    async with db.uow() as uow:
        stage = await qualification_stage(uow)
        now = tuesday(number - 1, config)
        field = await fix_entrants(uow, stage, config.rules, now=now, actor="test")
        table = berger_rounds(len(field))
        rnd = await uow.tournaments.add_round(
            RoundRow(stage_id=stage.id, number=number, state="approved", approved_at=now)
        )
        fmt = config.rules.formats.qualification
        ids = []
        for board, (w, b) in enumerate(table[number - 1], start=1):
            row = await uow.matches.add(
                MatchRow(
                    round_id=rnd.id,
                    stage=StageKind.QUALIFICATION.value,
                    board=board,
                    white_first=field[w - 1].player,
                    black_first=field[b - 1].player,
                    games=fmt.games,
                    clinch_at=fraction_to_text(fmt.clinch_at),
                    tiebreak=fmt.tiebreak.value,
                    max_weeks=fmt.max_weeks,
                    state="proposed",
                )
            )
            ids.append(row.id)
        await services(db, config).publication.publish_round(uow, rnd, now=now, actor="test")
        await uow.commit()
    return ids


async def play(
    db: Database, match_id: int, results: Sequence[str], *, now: dt.datetime | None = None
) -> None:
    """Record the games of a match in order (``"1-0"`` etc., White's view) with the TDs'
    operation but without the match listeners, like results written behind the service's back:
    what a tie is owed then waits for ``acwc stage advance`` or ``acwc stage sync``."""
    quiet = Results(MatchListeners(()))
    async with db.uow() as uow:
        start = len(await uow.games.for_match(match_id))
        for i, result in enumerate(results, start=start + 1):
            await quiet.record(
                uow,
                match_id,
                game_number=i,
                result=result,
                reason="result posted in the forum",
                now=now or FIRST_TUESDAY,
                actor="test",
            )
        await uow.commit()


def first_wins(games: int = 6) -> list[str]:
    """``white_first`` wins every game: colours alternate, so White wins odd games."""
    return ["1-0" if i % 2 == 0 else "0-1" for i in range(games)]


def second_wins(games: int = 6) -> list[str]:
    return ["0-1" if i % 2 == 0 else "1-0" for i in range(games)]


def draws(games: int) -> list[str]:
    return ["1/2-1/2"] * games


async def matches_of(db: Database, stage: StageKind) -> list[MatchRow]:
    async with db.uow() as uow:
        rows = await uow.matches.all()
    return [r for r in rows if r.stage == stage.value and r.state != "void"]


async def qualification_done(db: Database, config: Config, *, rounds: int = 5) -> None:
    await register(db, config)
    for number in range(1, rounds + 1):
        for match_id in await pair_qualification(db, config, number):
            await play(db, match_id, first_wins())


async def advance(db: Database, config: Config, now: dt.datetime) -> AdvanceReport:
    async with db.uow() as uow:
        report = await services(db, config).progression.advance(
            uow, now=now, actor="odmwnd", rng=random.Random(1)
        )
        await uow.commit()
    return report


async def approve(db: Database, config: Config, stage: StageKind, now: dt.datetime) -> None:
    async with db.uow() as uow:
        await services(db, config).stage_rounds.approve_round(
            uow, stage=stage, now=now, actor="odmwnd"
        )
        await uow.commit()


Games = Sequence[str] | Callable[[MatchRow], Sequence[str]] | None
"""A Candidates match's games: the same for each, or each match's own (None: the default)."""


async def candidates_done(db: Database, config: Config, *, games: Games = None) -> dt.date:
    """The Candidates played, each match's games ``games`` (None: six won by its first player,
    then four draws); the last round's Tuesday."""
    await qualification_done(db, config)
    report = await advance(db, config, tuesday(5, config))
    assert report.earliest_publication is not None
    for number in range(5):
        day = report.earliest_publication + dt.timedelta(weeks=number)
        await approve(
            db, config, StageKind.CANDIDATES, dt.datetime.combine(day, dt.time(1), tzinfo=dt.UTC)
        )
        for row in await matches_of(db, StageKind.CANDIDATES):
            if row.state == "scheduled":
                await play(db, row.id, _games_of(row, games))
    return report.earliest_publication + dt.timedelta(weeks=4)


def _games_of(row: MatchRow, games: Games) -> Sequence[str]:
    if games is None:
        return first_wins(6) + draws(4)
    return games(row) if callable(games) else games


async def semifinals_running(
    db: Database, config: Config, *, candidates: Games = None
) -> list[MatchRow]:
    last = await candidates_done(db, config, games=candidates)
    report = await advance(db, config, dt.datetime.combine(last, dt.time(23), tzinfo=dt.UTC))
    assert report.earliest_publication is not None
    publish = dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC)
    await approve(db, config, StageKind.SEMIFINAL, publish)
    return await matches_of(db, StageKind.SEMIFINAL)


async def semifinals_played(
    db: Database, config: Config, *, candidates: Games = None
) -> dt.datetime:
    """The semifinals won by the first player of each; the start of their week."""
    sfs = await semifinals_running(db, config, candidates=candidates)
    for row in sfs:
        await play(db, row.id, first_wins(6))
    async with db.uow() as uow:
        rnd = await uow.tournaments.round(sfs[0].round_id)
        assert rnd is not None
        assert rnd.week_start is not None
        return rnd.week_start


def stage_game(gid: str, white: str, black: str, at: dt.datetime, **kw: object) -> Game:
    """A 2+5 rated antichess challenge game starting ``at``, a draw unless ``kw`` says."""
    values: dict[str, object] = {
        "status": GameStatus.DRAW,
        "winner": None,
        "variant": "antichess",
        "rated": True,
        "clock_limit": 120,
        "clock_increment": 5,
        "source": "friend",
    }
    values.update(kw)
    return Game(
        id=GameId(gid),
        white=PlayerId(white),
        black=PlayerId(black),
        created_at=at,
        last_move_at=at + dt.timedelta(minutes=10),
        **values,  # type: ignore[arg-type]
    )


async def semifinal_at_armageddon(
    db: Database, config: Config
) -> tuple[MatchRow, FakeClock, Services]:
    """The first semifinal after ten draws, colours alternating: level after 10, so an
    armageddon decides it (rules 3.vii.2). Its row, the clock after the games, and the
    services on that clock."""
    sf1 = (await semifinals_running(db, config))[0]
    a, b = sf1.white_first, sf1.black_first
    assert b is not None
    async with db.uow() as uow:
        rnd = await uow.tournaments.round(sf1.round_id)
        assert rnd is not None
        assert rnd.week_start is not None
        start = rnd.week_start + dt.timedelta(hours=20)
    clock = FakeClock(start)
    found = services_for(db, config, clock)
    for i in range(10):
        white, black = (a, b) if i % 2 == 0 else (b, a)
        await found.intake(
            stage_game(f"g{i:07d}", white, black, start + dt.timedelta(minutes=15 * i))
        )
    return sf1, clock, found


async def season_played(
    db: Database,
    config: Config,
    *,
    final: Sequence[str] | None = None,
    candidates: Games = None,
) -> dt.datetime:
    """A whole season to its champion: the semifinals won by the first player of each, then
    the final (its games ``final``; None: won by its first player, ``white_first``) and the
    third place playoff won by its first player. The start of the final's week."""
    week_start = await semifinals_played(db, config, candidates=candidates)
    report = await advance(db, config, week_start + dt.timedelta(days=6))
    assert report.earliest_publication is not None
    publish = dt.datetime.combine(report.earliest_publication, dt.time(1), tzinfo=dt.UTC)
    await approve(db, config, StageKind.FINAL, publish)
    await approve(db, config, StageKind.THIRD_PLACE, publish)
    for stage, games in ((StageKind.FINAL, final), (StageKind.THIRD_PLACE, None)):
        (row,) = await matches_of(db, stage)
        await play(db, row.id, first_wins(7) if games is None else games, now=publish)
    await advance(db, config, publish + dt.timedelta(days=6))
    return publish
