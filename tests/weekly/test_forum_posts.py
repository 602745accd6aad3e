"""A round's forum posts (issue 17): one pairings post kept current, rewritten while unposted
and offered as an edit once posted, a closing post when the round ends, and the daily digest
of what needs no decision."""

from __future__ import annotations

import dataclasses

import pytest

from bot.notify.keys import pairing
from bot.service.forum import AlreadyPostedError, Forum
from tests.weekly.harness import TDS, Week, at


async def _post(week: Week, draft_id: int) -> None:
    async with week.db.uow() as uow:
        await week.services.forum.mark_posted(uow, draft_id, now=week.clock.now(), actor=TDS[0])
        await uow.commit()


async def test_a_posted_pairings_post_is_offered_as_an_edit_then_the_round_closes(
    week: Week,
) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    (draft,) = await week.outbox("forum_draft")
    await _post(week, draft.id)
    assert (await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")).ok
    week.clock.set(at(12, 20))
    assert (await week.say(match_id, "bob", "accept 2")).ok

    (posted,) = await week.outbox("forum_draft")
    assert posted.body == draft.body  # what the forum shows stays on record
    assert posted.revised_body is not None
    assert "agreed: Thu 14 Oct 18:00" in posted.revised_body
    await _post(week, posted.id)  # the TD pasted the edit over the post
    (edited,) = await week.outbox("forum_draft")
    assert edited.body == posted.revised_body
    assert edited.revised_body is None
    with pytest.raises(AlreadyPostedError):
        await _post(week, edited.id)
    async with week.db.uow() as uow:
        actions = [a.action for a in await uow.audit.list() if a.action.startswith("forum.")]
    assert actions == ["forum.posted", "forum.edited"]

    start = at(14, 18)
    for game in range(6):
        white, black = ("alice", "bob") if game % 2 == 0 else ("bob", "alice")
        await week.play(
            white, black, start=start, minutes=6, winner="w" if white == "alice" else "b"
        )
        start = week.clock.now()
    pairings, closing = await week.outbox("forum_draft")
    assert "result: 6-0, alice wins" in (pairings.revised_body or "")
    assert closing.subject == "ACWC qualification round 1: results"
    assert "1. alice - bob: 6-0, alice wins" in closing.body


async def test_the_pairings_post_names_the_broadcast(week: Week) -> None:
    url = "https://lichess.org/broadcast/acwc-2021/round-1/abcd1234"
    config = dataclasses.replace(
        week.config, tournament=dataclasses.replace(week.config.tournament, broadcast_url=url)
    )
    week.services.publication.forum = Forum(config, week.services.notifier)
    await week.publish(("alice", "bob"))
    (draft,) = await week.outbox("forum_draft")
    assert f"Lichess broadcast: {url}" in draft.body


async def test_no_forum_posts_when_the_config_says_none(week: Week) -> None:
    config = dataclasses.replace(
        week.config,
        tournament=dataclasses.replace(week.config.tournament, forum_posts_per_round=0),
    )
    week.services.publication.forum = Forum(config, week.services.notifier)
    await week.publish(("alice", "bob"))
    assert await week.outbox("forum_draft") == []


async def test_information_waits_for_one_daily_digest(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.until(at(16, 1))  # the offers check: nobody offered, a tied match (rules 5.6)
    assert [r.recipient for r in await week.outbox("td_alert")] == []
    (note,) = await week.outbox("td_note")
    assert "neither player made the required offers" in note.body
    await week.until(at(16, 9))  # the digest at 08:00: a DM to each TD, no alert to settle
    assert await week.outbox("td_alert") == []
    digests = [r for r in await week.outbox("dm") if r.notice == "td_digest"]
    assert sorted(r.recipient for r in digests) == sorted(TDS)
    assert digests[0].notice == "td_digest"
    assert f"Offers check ruled (rules 5.5, 5.6), match {match_id}: " in digests[0].body
    (note,) = await week.outbox("td_note")
    assert note.status == "sent"  # in one digest only
    await week.until(at(17, 9))
    digests = [r for r in await week.outbox("dm") if r.notice == "td_digest"]
    assert len(digests) == len(TDS)  # nothing new: no digest


async def test_a_message_lichess_refuses_goes_into_the_digest(week: Week) -> None:
    await week.publish(("alice", "bob"))
    async with week.db.uow() as uow:
        await week.services.notifier.dm(
            uow, now=week.clock.now(), to="Ghost", text="hello", key=pairing(999, 1)
        )
        await uow.commit()
    await week.deliver()
    failed = [r for r in await week.outbox("dm") if r.status == "failed"]
    assert [r.recipient for r in failed] == ["Ghost"]
    (note,) = await week.outbox("td_note")
    assert note.notice == "undelivered"
    assert "A notice to Ghost could not be delivered by DM: " in note.body
    await week.until(at(13, 9))  # Wednesday's digest
    (digest, _) = [r for r in await week.outbox("dm") if r.notice == "td_digest"]
    assert (
        "- A notice could not be delivered by DM: A notice to Ghost could not be delivered by DM"
        in digest.body
    )
