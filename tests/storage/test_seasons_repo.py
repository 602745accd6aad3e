"""The repositories answer for the open season (issue 28): a person who entered an archived
season re-enters on their own row, a registration taken back gives them their earlier entry
back, and an exit of one season is not one of the next (each season may have one a player)."""

from __future__ import annotations

import datetime as dt

from rules.core.ruleset import StageKind
from rules.core.states import PlayerStatus
from storage.db import Database
from storage.models import PlayerExitRow, PlayerRow, SeasonState, TournamentRow

AT = dt.datetime(2021, 10, 12, 9, tzinfo=dt.UTC)


def _entry(pid: str, rating: int) -> PlayerRow:
    return PlayerRow(
        id=pid,
        username=pid.capitalize(),
        seed_rating=rating,
        status=PlayerStatus.ACTIVE,
        engine_mark=False,
        registered_at=AT,
    )


def _exit(pid: str) -> PlayerExitRow:
    return PlayerExitRow(
        player_id=pid,
        stage="qualification",
        kind="withdrawal",
        last_round=1,
        reason="r",
        decided_by="td",
        at=AT,
    )


async def test_a_person_re_enters_the_next_season_and_their_exit_stays_in_the_last(
    db: Database,
) -> None:
    async with db.uow() as uow:
        first = await uow.tournaments.add(
            TournamentRow(
                name="ACWC",
                created_at=AT,
                current_stage=StageKind.QUALIFICATION,
                year=2021,
                state=SeasonState.OPEN,
            )
        )
        await uow.players.add(_entry("alice", 2000))
        await uow.players.add(_entry("bob", 1900))
        alice = await uow.players.get("alice")
        assert alice is not None
        alice.status = PlayerStatus.WITHDRAWN
        await uow.stages.add_exit(_exit("alice"))
        await uow.commit()

    async with db.uow() as uow:  # 2021 archived with its entries, 2022 opened
        await uow.seasons.keep_entries(first.id)
        old = await uow.seasons.get(first.id)
        assert old is not None
        old.state = SeasonState.ARCHIVED
        second = await uow.tournaments.add(
            TournamentRow(
                name="ACWC",
                created_at=AT,
                current_stage=StageKind.QUALIFICATION,
                year=2022,
                state=SeasonState.OPEN,
            )
        )
        await uow.commit()

    async with db.uow() as uow:
        assert await uow.players.list() == []
        assert await uow.players.get("alice") is None
        assert await uow.stages.exits() == []
        await uow.players.add(_entry("alice", 2100))
        await uow.players.add(_entry("carol", 1800))
        await uow.stages.add_exit(_exit("alice"))  # a second exit, in 2022: allowed
        await uow.commit()

    async with db.uow() as uow:
        assert [p.id for p in await uow.players.list()] == ["alice", "carol"]
        alice = await uow.players.get("alice")
        assert alice is not None
        assert (alice.seed_rating, alice.status, alice.tournament_id) == (
            2100,
            PlayerStatus.ACTIVE,
            second.id,
        )
        assert [e.tournament_id for e in await uow.stages.exits()] == [second.id]
        kept = {e.player_id: e for e in await uow.seasons.entries(first.id)}
        assert (kept["alice"].seed_rating, kept["alice"].status) == (2000, PlayerStatus.WITHDRAWN)
        assert set(kept) == {"alice", "bob"}

        await uow.players.remove(alice)  # entered 2022 in error: her 2021 entry comes back
        await uow.commit()
    async with db.uow() as uow:
        person = await uow.players.person("alice")
        assert person is not None
        assert (person.seed_rating, person.tournament_id) == (2000, first.id)
        assert [p.id for p in await uow.players.list()] == ["carol"]


async def test_a_season_s_own_settings_are_archived_with_it(db: Database) -> None:
    async with db.uow() as uow:
        await uow.settings.set("candidates.small_field", "smaller_pools")
        await uow.settings.set("lichess.stream_since", "kept")  # the service's, not a season's
        await uow.seasons.keep_settings(7, ("candidates.small_field",))
        await uow.commit()
    async with db.reads() as uow:
        assert await uow.settings.get("candidates.small_field") is None
        assert await uow.settings.get("season.7.candidates.small_field") == "smaller_pools"
        assert await uow.settings.get("lichess.stream_since") == "kept"
