"""Issue 28 item 5: the notice that a player may claim the match (their opponent overran the
break, rules 6.1, 6.4) is in that player's language; the TDs' alert stays English."""

from __future__ import annotations

from tests.weekly.harness import Week, at


async def test_the_claim_s_notice_is_in_the_claimant_s_language(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    async with week.db.uow() as uow:
        await week.services.players.set_language(uow, "bob", language="fr", now=week.clock.now())
        await uow.commit()
    await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")
    assert (await week.say(match_id, "bob", "accept 2")).ok
    await week.play("alice", "bob", start=at(14, 18, 0), minutes=6)
    week.clock.set(at(14, 18, 7))
    assert (await week.say(match_id, "alice", "break")).changed
    assert await week.until(at(14, 18, 18)) == ["pause_check"]  # nobody came back
    assert (await week.dms_to("bob"))[-1] == (
        "La pause après la partie 1 dure déjà 11 min 01 s, plus que les 10 min 00 s que peut "
        "durer une pause (règles 6.1, 6.4) ; prise par Alice. Vous pouvez envoyer `claim win` "
        "dans votre salle de match ; les arbitres décident (règles 6.1, 6.4)."
    )
    (alert,) = [a for a in await week.alerts() if "Pause after game 1" in a]
    assert "so far, longer than the 10 min 00 s a break may last" in alert
