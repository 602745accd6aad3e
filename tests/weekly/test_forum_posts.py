"""A round's forum posts (issue 17): one pairings post kept current, rewritten while unposted
and offered as an edit once posted, closed by the previous round's results (or a closing post
when the stage's round ends), and the daily digest of what needs no decision, which a
decision's alert carries when one goes out."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from bot.app import bootstrap
from bot.notify.keys import pairing
from bot.notify.notes import FOLDED_HEAD, digest_text, folded_notes
from bot.runtime.deadlines import DeadlineRunner
from bot.service.forum import (
    PAIRINGS_REDRAW_DEADLINE,
    ROUND_CLOSE_DEADLINE,
    AlreadyPostedError,
    Forum,
)
from bot.web.desk.decisions import alert_body
from rules.core.model import PlayerId
from rules.core.ruleset import StageKind
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState
from rules.talk.notices import DM_LIMIT, fit
from rules.week.calendar import label_time
from storage.db import Database
from storage.models import OutboxRow, PlayerRow, StageEntrantRow
from tests.weekly.harness import TDS, Week, at

FORUM = (PAIRINGS_REDRAW_DEADLINE, ROUND_CLOSE_DEADLINE)


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
            white,
            black,
            start=start,
            minutes=6,
            winner="w" if white == "alice" else "b",
            settle=game < 5,
        )
        start = week.clock.now()
    # the last game's transaction left the post and the closing to the runner
    (waiting,) = await week.outbox("forum_draft")
    assert "result: 6-0" not in (waiting.revised_body or "")
    due = [r.kind for r in await week.deadlines() if r.fired_at is None and r.kind in FORUM]
    assert sorted(due) == ["pairings_redraw", "round_close"]
    await week.settle()
    pairings, closing = await week.outbox("forum_draft")
    assert "result: 6-0, Alice wins" in (pairings.revised_body or "")
    assert closing.subject == "ACWC qualification round 1: results"
    assert "1. Alice - Bob: 6-0, Alice wins" in closing.body


async def _field(week: Week, *players: str) -> None:
    """The qualification's entrants (4 players: rules 3.v.2 gives 4 rounds)."""
    async with week.db.uow() as uow:
        tournament = await uow.tournaments.current()
        assert tournament is not None
        stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
        assert stage is not None
        for number, player in enumerate(players, start=1):
            if await uow.players.get(player) is None:
                await uow.players.add(
                    PlayerRow(id=player, username=player.title(), registered_at=week.clock.now())
                )
            await uow.stages.add_entrant(
                StageEntrantRow(stage_id=stage.id, player_id=player, number=number)
            )
        await uow.commit()


async def _six_wins(
    week: Week, white: str, black: str, start: dt.datetime, *, winner: str, settle: bool = True
) -> None:
    """Six games of the match (colours alternating from ``white``), all won by ``winner``;
    ``settle=False``: the deadlines they make due are not fired (a burst, or a stop after)."""
    for game in range(6):
        w, b = (white, black) if game % 2 == 0 else (black, white)
        await week.play(
            w, b, start=start, minutes=6, winner="w" if w == winner else "b", settle=settle
        )
        start = week.clock.now()


async def test_one_post_a_round_carries_the_previous_rounds_results_and_standings(
    week: Week,
) -> None:
    """tournament.forum_posts_per_round = 1 (the default): no closing post but the stage's
    last; a round that ends after the next one went out is added to the next one's post."""
    assert week.config.tournament.forum_posts_per_round == 1
    await week.publish(("alice", "bob"))
    await _field(week, "alice", "bob", "carol", "dave")
    await _six_wins(week, "alice", "bob", at(13, 18), winner="alice")
    (first,) = await week.outbox("forum_draft")
    assert first.notice == "round_pairings"
    assert "result: 6-0, Alice wins" in first.body

    week.clock.set(at(19, 9))
    await week.publish(("carol", "dave"))
    first_again, second = await week.outbox("forum_draft")
    assert first_again.body == first.body
    assert second.subject == "ACWC qualification round 2 pairings"
    assert "Round 1 results:\n1. Alice - Bob: 6-0, Alice wins" in second.body
    assert "Standings after round 1 (match points, Median-Buchholz):\n1. Alice 1 " in second.body

    week.clock.set(at(19, 10))
    await week.publish(("alice", "carol"))  # before round 2 has ended
    third = (await week.outbox("forum_draft"))[2]
    assert "Round 2 results" not in third.body
    await _six_wins(week, "carol", "dave", at(20, 18), winner="dave")
    await week.settle()
    drafts = await week.outbox("forum_draft")
    assert [d.notice for d in drafts] == ["round_pairings"] * 3  # still one post a round
    assert "Round 2 results:\n1. Carol - Dave: 0-6, Dave wins" in drafts[2].body
    assert "Standings after round 2 " in drafts[2].body


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


async def test_a_decisions_alert_carries_the_notes_and_the_digest_has_none_left(
    week: Week,
) -> None:
    """The first no-show check is a note (the second one gives the claim, rules 6.3); the
    second check's alert carries it to the TDs, so no digest goes out for it."""
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 18:00, thu 18:00, fri 20:00")
    assert (await week.say(match_id, "bob", "accept 2")).ok
    week.state.users[PlayerId("alice")].online = True
    await week.until(at(14, 18, 10))
    assert await week.outbox("td_alert") == []
    (note,) = await week.outbox("td_note")
    assert (note.notice, note.status) == ("no_show_first", "pending")

    await week.until(at(14, 18, 20))
    alerts = await week.outbox("td_alert")
    assert sorted(a.recipient for a in alerts) == sorted(TDS)
    body = alerts[0].body
    assert body.startswith(f"[ACWC] match {match_id}: Bob has not shown up 20 minutes")
    assert f"{FOLDED_HEAD}\n- No-show, first check (rules 6.3), match {match_id}: " in body
    (note,) = await week.outbox("td_note")
    assert note.status == "sent"
    assert FOLDED_HEAD not in alert_body(alerts[0], {})  # the desk shows the alert alone

    await week.until(at(15, 9))  # Friday's digest time: nothing waits
    assert [r for r in await week.outbox("dm") if r.notice == "td_digest"] == []


def test_notes_beyond_one_message_wait_for_the_next_digest() -> None:
    notes = [
        OutboxRow(id=n, body=f"note {n} " + "x" * 200, notice="offers_verdict", match_id=n)
        for n in range(1, 6)
    ]
    text, carried = folded_notes("alert", notes, limit=700)
    assert [r.id for r in carried] == [1, 2]
    assert len(text) <= 700
    digest, carried = digest_text(dt.date(2021, 10, 16), notes, limit=700)
    assert [r.id for r in carried] == [1, 2]
    assert digest.count("\n- Offers check ruled") == 2


async def test_a_game_keeps_the_carried_standings_and_a_disqualification_redraws_them(
    week: Week,
) -> None:
    """A game of round 2 rewrites round 2's post and keeps round 1's results and standings it
    carries; an engine disqualification (rules 8.i.2) turns them over without a match event,
    and the post follows."""
    await week.publish(("alice", "bob"))
    await _field(week, "alice", "bob", "carol", "dave")
    await _six_wins(week, "alice", "bob", at(13, 18), winner="alice")
    week.clock.set(at(19, 9))
    await week.publish(("carol", "dave"))
    await week.play("carol", "dave", start=at(20, 18), minutes=6, winner="w")
    _, second = await week.outbox("forum_draft")
    assert "1. Carol - Dave " in second.body
    assert "result: " not in second.body.split("\n\n")[1]
    assert "Round 1 results:\n1. Alice - Bob: 6-0, Alice wins" in second.body
    assert "Standings after round 1 (match points, Median-Buchholz):\n1. Alice 1 " in second.body

    async with week.db.uow() as uow:
        await week.services.exits.exit_player(
            uow,
            player="alice",
            kind="disqualification",
            reason="engine",
            engine_mark=True,
            now=week.clock.now(),
            actor=TDS[0],
        )
        await uow.commit()
    _, redrawn = await week.outbox("forum_draft")
    assert "Round 1 results:\n1. Alice - Bob: 0-6, Bob wins by forfeit" in redrawn.body
    assert "\n1. Bob 1 " in redrawn.body


async def test_a_round_longer_than_a_post_is_drafted_as_its_whole_text_cut(week: Week) -> None:
    """A round of 130 matches does not fit in one post: the draft is the whole text cut where
    a message is (``fit``), results and agreed times as they are, the lines past the cut not
    computed; a result inside the part shown still rewrites it."""
    pairs = [(f"w{i:03d}", f"b{i:03d}") for i in range(130)]
    ids = await week.publish(*pairs)
    agreed = at(14, 18)
    async with week.db.uow() as uow:
        for n, match_id in enumerate(ids):
            row = await uow.matches.get(match_id)
            assert row is not None
            if n % 3 == 0:
                row.outcome, row.decided_by = Outcome.FIRST_WINS, DecidedBy.FORFEIT
                row.state = MatchState.COMPLETE
            elif n % 3 == 1:
                row.agreed_time = agreed
            round_id = row.round_id
        round_row = await uow.tournaments.round(round_id)
        assert round_row is not None
        await week.services.forum.pairings_post(uow, round_row, now=week.clock.now())
        await uow.commit()

    def line(n: int, *, decided: bool = False) -> str:
        text = f"{n + 1}. W{n:03d} - B{n:03d}  {week.config.room_url(ids[n])}"  # as spelled
        if decided:
            return f"{text}  result: W{n:03d} wins by forfeit"
        return f"{text}  agreed: {label_time(agreed)}" if n % 3 == 1 else text

    (draft,) = await week.outbox("forum_draft")
    head = draft.body[: draft.body.index("\n1. W000") + 1]
    whole = head + "\n".join(line(n, decided=n % 3 == 0) for n in range(130))
    assert len(whole) > DM_LIMIT
    assert draft.body == fit(whole)

    async def decide(match_id: int) -> None:
        async with week.db.uow() as uow:
            row = await uow.matches.get(match_id)
            assert row is not None
            row.outcome, row.decided_by = Outcome.FIRST_WINS, DecidedBy.FORFEIT
            row.state = MatchState.COMPLETE
            await week.services.forum.match_changed(uow, row, now=week.clock.now())
            await uow.commit()
        await week.settle()  # the runner redraws the post

    await decide(ids[1])  # match 2 (shown) is decided
    (draft,) = await week.outbox("forum_draft")
    decided = {0, 1} | set(range(0, 130, 3))
    assert draft.body == fit(head + "\n".join(line(n, decided=n in decided) for n in range(130)))

    await decide(ids[127])  # match 128 (past the cut) is decided: the post reads the same
    (after,) = await week.outbox("forum_draft")
    decided.add(127)
    assert after.body == draft.body
    assert after.body == fit(head + "\n".join(line(n, decided=n in decided) for n in range(130)))


async def test_a_rounds_closing_survives_a_crash_after_its_last_game_and_is_drafted_once(
    week: Week,
) -> None:
    """The last result commits with a ``round_close`` row, not the closing itself: a service
    that stops there leaves the row due, the next one drafts the closing, and nothing after
    (the digest's sweep, the row again) drafts it twice."""
    (match_id,) = await week.publish(("alice", "bob"))
    await _six_wins(week, "alice", "bob", at(14, 18), winner="alice", settle=False)
    (row,) = [r for r in await week.deadlines() if r.kind == "round_close"]
    assert row.fired_at is None
    assert row.match_id is None
    assert [d.notice for d in await week.outbox("forum_draft")] == ["round_pairings"]

    # a new service over the database
    runner = DeadlineRunner(week.db, week.clock, week.services.deadline_handlers)
    await runner.fire_due()
    assert [r.fired_at for r in await week.deadlines() if r.kind == "round_close"] == [
        week.clock.now()
    ]
    forum = week.services.forum
    async with week.db.uow() as uow:
        assert await forum.sweep(uow, now=week.clock.now()) == 0
        again = await uow.matches.get(match_id)
        assert again is not None
        await forum.match_changed(uow, again, now=week.clock.now())  # a TD's correction
        await uow.commit()
    assert await runner.fire_due() == 2  # its pairings post redrawn, the closing left as is
    drafts = await week.outbox("forum_draft")
    assert [d.notice for d in drafts] == ["round_pairings", "round_closing"]
    assert "1. Alice - Bob: 6-0, Alice wins" in drafts[1].body


async def test_a_burst_of_results_redraws_the_pairings_post_once_even_across_a_restart(
    week: Week,
) -> None:
    """Games that end together each commit with the round's one open ``pairings_redraw`` row
    (naming the matches that changed), not the post: a service that stops before the runner
    fires it leaves it due, and the next service redraws the post once, with every result."""
    first, second = await week.publish(("alice", "bob"), ("carol", "dave"))
    (draft,) = await week.outbox("forum_draft")
    await _six_wins(week, "alice", "bob", at(14, 18), winner="alice", settle=False)
    await _six_wins(week, "carol", "dave", at(14, 18), winner="dave", settle=False)
    redraws = [r for r in await week.deadlines() if r.kind == PAIRINGS_REDRAW_DEADLINE]
    assert [(r.fired_at, r.payload) for r in redraws] == [(None, {"matches": [first, second]})]
    assert (await week.outbox("forum_draft"))[0].body == draft.body  # not redrawn by a game

    # the service stops here; a new one over the same database
    db = Database(week.db.url)
    try:
        services = bootstrap(week.config, clock=week.clock, db=db, lichess=week.client)
        runner = DeadlineRunner(db, week.clock, services.deadline_handlers)
        await runner.fire_due()
        assert await runner.fire_due() == 0
    finally:
        await db.dispose()
    redraws = [r for r in await week.deadlines() if r.kind == PAIRINGS_REDRAW_DEADLINE]
    assert [r.fired_at for r in redraws] == [week.clock.now()]  # once for the burst
    pairings = (await week.outbox("forum_draft"))[0]
    assert "result: 6-0, Alice wins" in pairings.body
    assert "result: 0-6, Dave wins" in pairings.body


async def test_a_redraw_row_claimed_after_a_game_read_it_is_not_extended(week: Week) -> None:
    """A game's transaction read the round's open row, then the runner claimed it (another
    connection, PostgreSQL): the game's change is not added to a fired row, whose redraw
    may not have seen it; ``extend_open`` says so, and the game adds a new row."""
    (match_id,) = await week.publish(("alice", "bob"))
    async with week.db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        await week.services.forum.match_changed(uow, row, now=week.clock.now())
        await uow.commit()
    async with week.db.uow() as game:
        (open_row,) = await game.deadlines.all_open_of_kind(PAIRINGS_REDRAW_DEADLINE)
        assert await week.settle() >= 1  # the runner claims and fires it meanwhile
        assert not await game.deadlines.extend_open(open_row, {"matches": [match_id]})
        row = await game.matches.get(match_id)
        assert row is not None
        await week.services.forum.match_changed(game, row, now=week.clock.now())
        await game.commit()
    redraws = [r for r in await week.deadlines() if r.kind == PAIRINGS_REDRAW_DEADLINE]
    assert [r.fired_at is None for r in redraws] == [False, True]


async def test_a_redraw_a_previous_release_fired_without_its_handler_is_made_by_the_sweep(
    week: Week,
) -> None:
    """During an upgrade the previous release may lead while ``pairings_redraw`` rows exist:
    it has no handler for them, so it claims them as unhandled and the post is not redrawn.
    The daily digest's sweep brings every open round's pairings post up to date."""
    await week.publish(("alice", "bob"), ("carol", "dave"))
    (draft,) = await week.outbox("forum_draft")
    await _six_wins(week, "alice", "bob", at(14, 18), winner="alice", settle=False)
    async with week.db.uow() as uow:  # what the previous release's runner does with the row
        (row,) = await uow.deadlines.all_open_of_kind(PAIRINGS_REDRAW_DEADLINE)
        assert await uow.deadlines.claim_id(row.id, week.clock.now()) is not None
        await uow.commit()
    assert (await week.outbox("forum_draft"))[0].body == draft.body  # the change is lost
    async with week.db.uow() as uow:
        assert await week.services.forum.sweep(uow, now=week.clock.now()) == 1
        await uow.commit()
    (pairings,) = await week.outbox("forum_draft")
    assert "result: 6-0, Alice wins" in pairings.body
