"""A round's pairings go once through the team message: a member's pairing is a room notice,
sent with it, not a DM (lila's message budget spares nothing for a DM the team message made
needless); a non-member still gets the DM; if the team message fails, the DMs go after all."""

from __future__ import annotations

from storage.models import Channel, OutboxStatus, PlayerRow
from tests.weekly.harness import BOT, TEAM, Week


async def _members(week: Week, *names: str) -> None:
    async with week.db.uow() as uow:
        for name in names:
            await uow.players.add(
                PlayerRow(
                    id=name,
                    username=name.title(),
                    registered_at=week.clock.now(),
                    seed_rating=2000,
                    team_member=True,
                )
            )
        await uow.commit()


async def _pairings(week: Week) -> dict[str, tuple[Channel, OutboxStatus]]:
    return {
        r.player or "": (r.kind, r.status) for r in await week.outbox() if r.notice == "pairing"
    }


async def test_members_get_their_pairing_in_the_team_message_and_others_by_dm(
    week: Week,
) -> None:
    await _members(week, "alice", "bob", "carol")
    await week.publish(("alice", "bob"), ("carol", "dave"))
    assert await week.deliver() > 0
    sent = (Channel.ROOM, OutboxStatus.SENT)
    assert await _pairings(week) == {
        "alice": sent,
        "bob": sent,
        "carol": sent,
        "dave": (Channel.DM, OutboxStatus.SENT),
    }
    (update,) = week.state.team_updates
    assert "alice - bob" in update.message.lower()
    assert "your notices" in update.message
    assert week.state.inbox_of("alice") == []
    assert len(week.received("dave")) == 1


async def test_a_failed_team_message_sends_the_pairings_by_dm_after_all(week: Week) -> None:
    week.state.team_leaders[TEAM] = {"someone-else"}  # the bot no longer leads the team
    assert BOT.lower() not in week.state.team_leaders[TEAM]
    await _members(week, "alice", "bob")
    await week.publish(("alice", "bob"))
    await week.deliver()
    await week.deliver()
    assert await _pairings(week) == {
        "alice": (Channel.DM, OutboxStatus.SENT),
        "bob": (Channel.DM, OutboxStatus.SENT),
    }
    (team,) = await week.outbox("team_update")
    assert team.status is OutboxStatus.FAILED
    assert len(week.received("alice")) == 1
