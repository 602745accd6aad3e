"""`acwc registration check`: eligibility and seeding from a sandbox with hand-made histories."""

from __future__ import annotations

import datetime as dt

from bot.app import bootstrap
from bot.config import Config
from bot.lichess.client import LichessClient
from bot.runtime.clock import FakeClock
from bot.sandbox import make_game
from bot.sandbox.state import SandboxState
from storage.db import Database

UTC = dt.UTC


def history(state: SandboxState, player: str, ratings: list[tuple[dt.datetime, int, int]]) -> None:
    """Finished rated antichess games of ``player`` (as White) with given rating and change."""
    for i, (when, rating, diff) in enumerate(ratings):
        state.add_game(
            make_game(
                player,
                "sparring",
                id=f"{player[:3]}{i:05d}".lower(),
                created_at=when,
                last_move_at=when + dt.timedelta(minutes=5),
                status="resign",
                winner="white" if diff >= 0 else "black",
                ratings=(rating, 1500),
                rating_diffs=(diff, -diff),
            )
        )


def alice_games() -> list[tuple[dt.datetime, int, int]]:
    games = []
    feb = dt.datetime(2021, 2, 1, tzinfo=UTC)
    for i in range(29):
        games.append((feb + dt.timedelta(hours=i), 1500, 0))
    games.append((feb + dt.timedelta(days=5), 1590, 10))  # holds 1600 when the window opens
    rating = 1600
    start = dt.datetime(2021, 3, 2, tzinfo=UTC)
    for i in range(45):  # climbs to 1915, the peak
        games.append((start + dt.timedelta(days=i), rating, 7))
        rating += 7
    for i in range(45):  # falls to 1780 by the cut-off
        games.append((start + dt.timedelta(days=60 + i), rating, -3))
        rating -= 3
    games.append((dt.datetime(2021, 9, 2, tzinfo=UTC), rating, 50))  # after the cut-off: ignored
    return games


async def test_eligibility_and_seeding_match_hand_computed_values(
    db: Database, state: SandboxState, sandbox_url: str, bot_token: str, clock: FakeClock
) -> None:
    state.add_user("Eve", created_at=dt.datetime(2020, 1, 1, tzinfo=UTC))
    history(state, "Eve", alice_games())
    state.add_user("Frank", created_at=dt.datetime(2021, 5, 1, tzinfo=UTC))
    history(
        state,
        "Frank",
        [(dt.datetime(2021, 6, 1, tzinfo=UTC) + dt.timedelta(hours=i), 1500, 1) for i in range(50)],
    )
    state.add_user(
        "Gina", created_at=dt.datetime(2019, 1, 1, tzinfo=UTC), title="BOT", tos_violation=True
    )
    config = Config()
    async with LichessClient(
        base_url=sandbox_url, token=bot_token, clock=clock, timeout=10
    ) as client:
        services = bootstrap(config, clock=clock, db=db, lichess=client)
        async with db.uow() as uow:
            await services.tournament.create(uow, now=clock.now(), actor="t")
            for name in ("Eve", "Frank", "Gina", "Nobody404"):
                await services.players.add(uow, name, seed_rating=None, now=clock.now(), actor="t")
            await uow.commit()
        assert services.registration is not None
        found = await services.registration.check_all()
        async with db.uow() as uow:
            await services.registration.record_checks(uow, found, now=clock.now(), actor="td")
            await uow.commit()
        checks = {c.username: c for c in found}

    eve = checks["Eve"]
    assert eve.is_eligible
    assert eve.verdict is not None
    assert eve.verdict.rated_games_counted == 100  # 120 before the cut-off, counting stops at 100
    assert eve.verdict.rating_at_cutoff == 1780
    assert eve.verdict.peak_rating == 1915
    assert eve.verdict.seed_rating == 1848  # (1780 + 1915) / 2 = 1847.5, rounded half up

    frank = checks["Frank"]
    assert not frank.is_eligible
    assert frank.reasons == ["created too late", "too few rated games"]
    gina = checks["Gina"]
    assert "bot account" in gina.reasons
    assert "review: tos violation" in gina.reasons
    assert checks["Nobody404"].reasons == ["no such Lichess account"]

    async with db.uow() as uow:
        eve_row = await uow.players.get("eve")
        audit = await uow.audit.list(player="frank")
    assert eve_row is not None
    assert eve_row.seed_rating == 1848
    assert audit[-1].action == "registration.check"
    assert audit[-1].details["eligible"] is False
