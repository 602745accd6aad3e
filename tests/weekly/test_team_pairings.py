"""A round's pairings go out as the team's announcement and, to every player, by DM: lila shows
a team update in the team's feed to members who did not unsubscribe, not as a DM
(``modules/team/src/main/TeamMsgApi.scala``), so no player's pairing relies on it alone. A DM
from the team's leader to a member opens no conversation against the bot's budget
(``modules/msg/src/main/MsgSecurity.scala``)."""

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


async def test_every_player_gets_their_pairing_by_dm_beside_the_team_update(
    week: Week,
) -> None:
    await _members(week, "alice", "bob", "carol")
    week.state.unsubscribed[TEAM] = {"carol"}  # she would never see the team update
    await week.publish(("alice", "bob"), ("carol", "dave"))
    assert await week.deliver() > 0
    sent = (Channel.DM, OutboxStatus.SENT)
    assert await _pairings(week) == {"alice": sent, "bob": sent, "carol": sent, "dave": sent}
    (update,) = week.state.team_updates
    assert "alice - bob" in update.message.lower()
    assert week.state.team_feed_of("carol") == []
    for player in ("alice", "carol", "dave"):
        assert len(week.received(player)) == 1


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
