"""The TD desk over HTTP: decisions, corrections, relays, forum posts, all audited by name."""

from __future__ import annotations

import datetime as dt
import re

from bot.views import matches as views
from rules.core.colour import Colour
from rules.core.model import Game, GameId, GameStatus, PlayerId
from rules.core.scoring import Outcome
from rules.core.states import DecidedBy, MatchState
from rules.week.forfeits import ForfeitKind
from storage.models import MatchRow, RoundRow
from tests.factories import stored_match
from tests.web.helpers import NOW, TD, Browser, Site, flash_text, no_agreement


async def td(browsers: dict[str, Browser]) -> Browser:
    b = browsers["tina"]
    await b.login(TD)
    await b.get("/desk")
    return b


async def audit(site: Site, action: str) -> list[tuple[str, str | None]]:
    async with site.db.uow() as uow:
        return [(r.actor, r.reason) for r in await uow.audit.list() if r.action == action]


async def test_forum_post_is_listed_until_marked_posted_once(
    site: Site, browsers: dict[str, Browser]
) -> None:
    async with site.db.uow() as uow:
        row = await uow.outbox.enqueue(
            now=NOW,
            kind="forum_draft",
            recipient="forum",
            body="Round 1: Alice - Bob",
            subject="R1",
        )
        await uow.commit()
    assert row is not None
    b = await td(browsers)
    assert "Round 1: Alice - Bob" in b.last_html
    assert "Mark posted" in b.last_html
    html = await b.post(f"/desk/forum/{row.id}/posted", {})
    assert "Marked posted." in flash_text(html)
    assert "Round 1: Alice - Bob" not in html.split("Recently posted")[0]
    html = await b.post(f"/desk/forum/{row.id}/posted", {"csrf": b.csrf()}, csrf=None)
    assert "already marked posted" in flash_text(html)
    assert await audit(site, "forum.posted") == [(TD, None)]
    async with site.db.uow() as uow:
        stored = await uow.outbox.get(row.id)
        assert stored is not None
        assert stored.status == "posted"


async def test_result_correction_needs_a_reason_and_is_audited_with_the_tds_name(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = site.matches["carol-dave"]
    data = {"match_id": str(match_id), "game": "1", "result": "0-1", "reason": " "}
    html = await b.post("/desk/result", data)
    assert "reason is required" in flash_text(html)
    html = await b.post("/desk/result", data | {"reason": "game played on a wrong link"})
    assert "score 0-1" in flash_text(html)
    assert await audit(site, "result.record") == [(TD, "game played on a wrong link")]
    html = await browsers["nobody"].get("/players/dave")
    assert "entered by a TD" in html


async def test_a_td_relays_a_players_message_through_the_same_handler(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    html = await b.post("/desk/relay", {"player": "alice", "text": "offer thu 18:00"})
    assert "flash ok" in html, flash_text(html)
    assert "Alice (relayed)" in flash_text(html)
    relays = await audit(site, "desk.relay")
    assert relays == [(TD, None)]
    alice = browsers["alice"]
    await alice.login("Alice")
    html = await alice.get(f"/match/{site.matches['alice-bob']}")
    assert "Thu 14 Oct 18:00 UTC" in html
    html = await b.post("/desk/relay", {"player": "alice", "text": "offer someday"})
    assert "flash error" in html


async def test_pairings_waiting_for_approval_are_approved_from_the_desk(
    site: Site, browsers: dict[str, Browser]
) -> None:
    async with site.db.uow() as uow:
        first = await uow.tournaments.round(1)
        assert first is not None
        rnd = await uow.tournaments.add_round(RoundRow(stage_id=first.stage_id, number=2))
        await uow.matches.add(
            MatchRow(
                round_id=rnd.id,
                stage="qualification",
                board=1,
                white_first="dave",
                black_first="alice",
                games=10,
                clinch_at="11/2",
                tiebreak="none",
                state="proposed",
            )
        )
        await uow.commit()
    b = await td(browsers)
    assert "Approve pairings: Qualification round 2" in b.last_html
    assert "can change the standings" not in b.last_html  # no button of it is previewed
    html = await b.post("/desk/decide", {"kind": "round", "key": str(rnd.id), "choice": "approve"})
    assert "approved and published" in flash_text(html)
    assert "Approve pairings" not in html
    assert [a for a, _ in await audit(site, "round.approve")] == [TD]
    assert [a for a, _ in await audit(site, "desk.settle")] == [TD]
    html = await b.post("/desk/decide", {"kind": "round", "key": str(rnd.id), "choice": "approve"})
    assert "already settled" in flash_text(html)


def casual_game(game_id: str) -> Game:
    """A casual game of Alice and Bob in their match week: it does not count."""
    return Game(
        id=GameId(game_id),
        white=PlayerId("alice"),
        black=PlayerId("bob"),
        status=GameStatus.MATE,
        winner=Colour.WHITE,
        variant="antichess",
        rated=False,
        clock_limit=120,
        clock_increment=5,
        created_at=NOW + dt.timedelta(hours=2),
        last_move_at=NOW + dt.timedelta(hours=2, minutes=5),
    )


async def test_a_game_that_did_not_count_waits_for_a_ruling(
    site: Site, browsers: dict[str, Browser]
) -> None:
    await site.service.intake(casual_game("Casual01"))
    b = await td(browsers)
    assert "Game Casual01 did not count" in b.last_html
    assert "Alice - Bob: 1-0" in b.last_html  # as Lichess spells them, not the game's ids
    html = await b.post("/desk/decide", {"kind": "game", "key": "Casual01", "choice": "1-0"})
    assert "Give a reason" in flash_text(html)
    html = await b.post(
        "/desk/decide",
        {"kind": "game", "key": "Casual01", "choice": "1-0", "reason": "agreed casual by mistake"},
    )
    assert "counted as 1-0" in flash_text(html)
    assert "Game Casual01 did not count" not in html
    async with site.db.uow() as uow:
        rows = await uow.audit.list(match_id=site.matches["alice-bob"])
    assert any(r.action == "result.record" and r.actor == TD for r in rows)


async def test_a_game_that_did_not_count_is_no_decision_once_its_match_has_its_result(
    site: Site, browsers: dict[str, Browser]
) -> None:
    await site.service.intake(casual_game("Casual02"))
    b = await td(browsers)
    assert "Game Casual02 did not count" in b.last_html
    async with site.db.uow() as uow:  # the match is decided (here: ruled tied)
        row = await uow.matches.get(site.matches["alice-bob"])
        assert row is not None
        row.outcome, row.decided_by = Outcome.TIED, DecidedBy.TD
        await uow.commit()
    html = await b.get("/desk")
    assert "Game Casual02 did not count" not in html
    assert "Game Casual02 did not count" not in await b.post(
        "/desk/decide", {"kind": "game", "key": "Casual02", "choice": "dismiss"}
    )


async def test_the_audit_log_lists_every_td_action_with_its_name(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    await b.post("/desk/relay", {"player": "bob", "text": "offer fri 18:00"})
    html = await b.get("/desk/audit")
    assert "desk.relay" in html
    assert f"<td>{TD}</td>" in html


async def test_both_offered_and_no_agreement_asks_the_tds_who_is_at_fault(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = await no_agreement(site, b)
    html = b.last_html
    assert f"No agreed time in match {match_id}" in html
    html = await b.post(
        "/desk/decide",
        {"kind": "fault", "key": f"{match_id}:w1", "choice": "fault:alice", "reason": "no reply"},
    )
    assert "ruled Alice at fault" in flash_text(html), flash_text(html)
    assert "No agreed time in match" not in html
    assert (TD, "no reply") in await audit(site, "fault.decide")
    assert "Settle it" not in html  # the alerts' way to settle is the buttons


async def test_nobody_at_fault_reads_ruled_tied_everywhere(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = await no_agreement(site, b)
    html = b.last_html
    assert html.count(f"match {match_id}") >= 1
    assert html.count("No agreed time by the weekend") == 0  # the card, not its raw alert too
    html = await b.post(
        "/desk/decide",
        {"kind": "fault", "key": f"{match_id}:w1", "choice": "nobody", "reason": "both late"},
    )
    assert "ruled tied" in flash_text(html)
    async with site.db.uow() as uow:
        row = await uow.matches.get(match_id)
        assert row is not None
        line = await views.match_line(uow, row)
    assert line.outcome_label == "ruled tied by the TDs (no games played)"
    assert f"match {match_id}" not in html.split("Forum posts")[0]  # nothing left pending


async def test_a_td_reads_any_match_room_and_relays_from_it(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    match_id = site.matches["carol-dave"]
    html = await b.get(f"/match/{match_id}")
    assert "viewing this room as a tournament director" in html
    assert "Send offer" not in html  # the TD does not act as a player here
    html = await b.post(
        "/desk/relay",
        {
            "player": "Dave",
            "text": "offer thu 20:00",
            "match_id": str(match_id),
            "back": f"/match/{match_id}",
        },
    )
    assert "dave (relayed)" in flash_text(html).lower()
    assert f"<h1>Match {match_id}" in html
    assert "Thu 14 Oct 20:00 UTC" in html


async def test_td_pairs_forbids_and_approves_a_qualification_round_from_the_desk(
    site: Site, browsers: dict[str, Browser]
) -> None:
    async with site.db.uow() as uow:  # round 1 over: Alice and Carol won
        for key in ("alice-bob", "carol-dave"):
            row = await uow.matches.get(site.matches[key])
            assert row is not None
            row.state, row.outcome, row.decided_by = (
                MatchState.COMPLETE,
                Outcome.FIRST_WINS,
                DecidedBy.TD,
            )
        await uow.commit()
    b = await td(browsers)
    html = await b.post("/desk/rounds/pair", {"action": "pair"})
    assert "Qualification round 2 proposed (2 boards)" in flash_text(html)
    async with site.db.uow() as uow:
        rnd = await uow.tournaments.round(1)
        assert rnd is not None
        rounds = await uow.tournaments.rounds(rnd.stage_id)
        proposed = await uow.matches.for_round(rounds[-1].id)
    first = {proposed[0].white_first, proposed[0].black_first}
    assert first == {"alice", "carol"}  # the two winners meet (rules 3.v: Dutch system)
    html = await b.post(
        "/desk/rounds/pair", {"action": "forbid", "first": "Alice", "second": "Carol"}
    )
    assert "proposed" in flash_text(html)
    async with site.db.uow() as uow:
        re_paired = await uow.matches.for_round(rounds[-1].id)
    assert all({m.white_first, m.black_first} != first for m in re_paired)
    html = await b.post(
        "/desk/rounds/pair", {"action": "swap", "first": "alice", "second": "alice"}
    )
    assert "two different players" in flash_text(html)
    html = await b.post("/desk/rounds/pair", {"action": "swap", "first": "alice", "second": "zed"})
    assert "not a qualification entrant" in flash_text(html)
    b2 = await td(browsers)
    html = await b2.post(
        "/desk/decide", {"kind": "round", "key": str(rounds[-1].id), "choice": "approve"}
    )
    assert "Round 2 approved and published" in flash_text(html)
    assert [a for a, _ in await audit(site, "round.propose")] == [TD, TD]
    async with site.db.uow() as uow:
        published = await uow.tournaments.round(rounds[-1].id)
    assert published is not None
    assert published.state == "published"


async def test_a_withdrawal_shows_before_and_after_and_changes_nothing_until_confirmed(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    assert 'action="/desk/exit/preview"' in b.last_html
    form = {"player": "Bob", "kind": "withdrawal", "reason": "moving house"}
    html = await b.post("/desk/exit/preview", form)
    assert "Confirm: Bob, withdrawal" in html
    assert "Before" in html
    assert "After" in html
    async with site.db.uow() as uow:
        bob = await uow.players.get("bob")
        assert bob is not None
        assert bob.status == "active"  # the preview changed nothing
        assert await uow.stages.exits() == []
    html = await b.post("/desk/exit", form)
    assert "Bob: withdrawal recorded" in flash_text(html)
    async with site.db.uow() as uow:
        exits = await uow.stages.exits()
        match = await uow.matches.get(site.matches["alice-bob"])
    assert [(e.player_id, e.kind, e.decided_by) for e in exits] == [("bob", "withdrawal", TD)]
    assert match is not None
    assert (match.outcome, match.decided_by) == ("first_wins", "forfeit")  # rules 8.i.1
    html = await b.post("/desk/exit/preview", form)
    assert "flash error" in html  # already out


async def test_a_disqualification_card_confirms_or_waives_one_of_its_forfeits(
    site: Site, browsers: dict[str, Browser]
) -> None:
    second = await stored_match(site.db, "bob", "dave")
    conduct = site.service.services.conduct
    async with site.db.uow() as uow:
        for match_id in (site.matches["alice-bob"], second):
            await conduct.record_forfeit(
                uow,
                player="bob",
                match_id=match_id,
                kind=ForfeitKind.MATCH,
                reason="no_show",
                now=NOW,
                actor=TD,
            )
        await uow.commit()
    b = await td(browsers)
    assert "Disqualify Bob? (rules 6.5)" in b.last_html
    assert "acwc dq confirm" not in b.last_html  # the buttons settle it, not a terminal
    async with site.db.uow() as uow:
        first_id = (await uow.weekly.forfeits(player="bob"))[0].id
    found = re.search(r'name="key" value="(bob:[^"]+)"', b.last_html)
    assert found is not None
    key = found.group(1)
    html = await b.post("/desk/decide", {"kind": "dq", "key": key, "choice": f"waive:{first_id}"})
    assert "Give a reason" in flash_text(html)
    html = await b.post(
        "/desk/decide",
        {"kind": "dq", "key": key, "choice": f"waive:{first_id}", "reason": "Lichess was down"},
    )
    assert f"Forfeit {first_id} of Bob waived" in flash_text(html)
    assert "Disqualify Bob?" not in html
    assert (TD, "Lichess was down") in await audit(site, "forfeit.waive")
    async with site.db.uow() as uow:
        bob = await uow.players.get("bob")
    assert bob is not None
    assert bob.status == "active"


async def test_the_tds_overrule_the_offers_check_from_its_alert(
    site: Site, browsers: dict[str, Browser]
) -> None:
    b = await td(browsers)
    await b.post(
        "/desk/relay", {"player": "alice", "text": "offer wed 18:00, thu 18:00, fri 18:00"}
    )
    site.clock.set(dt.datetime(2021, 10, 16, 0, 5, tzinfo=dt.UTC))  # after the offers deadline
    await site.service.runner.fire_due()  # the Friday check: Bob made no offer (rules 5.5)
    html = await b.get("/desk")
    match_id = site.matches["alice-bob"]
    # listed apart from the decisions that wait: it stands as ruled unless a TD overrules it
    pending, rulings = html.split('id="h-rulings"')
    assert "Offers check ruled" not in pending.split('id="h-pending"')[1]
    assert f"Offers check ruled (rules 5.5, 5.6): match {match_id}" in rulings
    assert "Keep the bot&#39;s ruling" in html
    keys = re.findall(r'name="kind" value="alert"><input [^>]*name="key" value="([^"]+)"', html)
    assert len(keys) == 1
    html = await b.post(
        "/desk/decide",
        {"kind": "alert", "key": keys[0], "choice": "nobody", "reason": "Lichess was down Friday"},
    )
    assert "nobody at fault; the match is ruled tied" in flash_text(html), flash_text(html)
    assert (TD, "Lichess was down Friday") in await audit(site, "fault.decide")
    async with site.db.uow() as uow:
        row = await uow.matches.get(match_id)
    assert row is not None
    assert (row.outcome, row.decided_by) == ("tied", "td")
    assert "Offers check ruled" not in html.split("Forum posts")[0]


async def test_two_private_reports_on_one_match_are_two_items_titled_with_their_kind(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = site.matches["alice-bob"]
    for name, words in (("Alice", "bob moves instantly"), ("Bob", "alice had help")):
        player = browsers[name.lower()]
        await player.login(name)
        await player.get(f"/match/{match_id}")
        await player.post(f"/match/{match_id}/say", {"action": "report", "report": words})
    b = await td(browsers)
    titles = re.findall(r'<h3 id="d-\d+">(.*?)</h3>', b.last_html)
    reports = [t for t in titles if t.startswith(f"Private report (rules 7.1): match {match_id}")]
    assert len(reports) == 2, titles
    assert {t.rsplit(", ", 1)[-1] for t in reports} == {"Alice", "Bob"}  # who reported
