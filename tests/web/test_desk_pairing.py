"""The desk's pairing editor (rules 3.v.6): the TDs pair a qualification round by hand, are
told what the FIDE rules would not do, override a warning with a reason, and publish through
the same approval as an engine pairing."""

from __future__ import annotations

import re

from tests.web.helpers import NOW, TD, Browser, Site, flash_text


async def round_one_decided(site: Site) -> None:
    """Alice and Carol win round 1 (a TD's adjudication: no games needed here)."""
    results = site.service.services.results
    async with site.db.uow() as uow:
        for match, winner in (("alice-bob", "alice"), ("carol-dave", "carol")):
            await results.adjudicate(
                uow, site.matches[match], winner=winner, reason="test", now=NOW, actor=TD
            )
        await uow.commit()


def board_form(*boards: tuple[str, str], reason: str = "") -> dict[str, str]:
    form = {"reason": reason}
    for i, (white, black) in enumerate(boards, 1):
        form[f"white{i}"], form[f"black{i}"] = white, black
    return form


def selected(html: str, name: str) -> str:
    found = re.search(rf'name="{name}">.*?<option value="(\w+)" selected', html, re.S)
    return found.group(1) if found else ""


async def test_the_tds_pair_a_round_by_hand_and_publish_it_through_the_approval(
    site: Site, browsers: dict[str, Browser]
) -> None:
    await round_one_decided(site)
    b = browsers["tina"]
    await b.login(TD)
    html = await b.get("/desk/rounds")
    assert 'href="/desk/pairing"' in html
    html = await b.get("/desk/pairing")
    assert "Pair qualification round 2 of 4" in html
    assert "Starting from the engine&#39;s pairing" in html or "engine's pairing" in html
    # the engine's pairing: the winners meet, the losers meet
    assert {selected(html, "white1"), selected(html, "black1")} == {"alice", "carol"}
    assert {selected(html, "white2"), selected(html, "black2")} == {"bob", "dave"}

    # a player twice is refused, and nothing is kept
    html = await b.post("/desk/pairing/check", board_form(("alice", "bob"), ("alice", "dave")))
    assert "This pairing cannot be played" in html
    assert "alice is seated twice" in html.lower() or "Alice is seated twice" in html

    # the rematches are warnings: explained, and kept only with a reason
    rematches = board_form(("bob", "alice"), ("dave", "carol"))
    html = await b.post("/desk/pairing/check", rematches)
    assert html.count("a rematch") == 2
    html = await b.post("/desk/pairing", rematches)
    assert "Give a reason" in html or "give a reason" in html
    async with site.db.uow() as uow:
        assert len(await uow.tournaments.all_rounds()) == 1  # nothing kept
    html = await b.post("/desk/pairing", rematches | {"reason": "the players asked for a return"})
    assert "your pairing is the round's proposal (2 warning(s) overridden)" in flash_text(html)
    assert "Approve pairings: Qualification round 2" in html
    async with site.db.uow() as uow:
        (row,) = [r for r in await uow.audit.list() if r.action == "round.pair_by_hand"]
        assert (row.actor, row.reason) == (TD, "the players asked for a return")
        assert row.details["boards"] == [["bob", "alice"], ["dave", "carol"]]
        assert len(row.details["overridden"]) == 2

    # the editor now starts from the proposal; the approval publishes it as it does the engine's
    html = await b.get("/desk/pairing")
    assert "Starting from the round&#39;s proposal" in html or "round's proposal." in html
    assert (selected(html, "white1"), selected(html, "black1")) == ("bob", "alice")
    html = await b.get("/desk")
    key = re.search(
        r'name="kind" value="round"><input type="hidden" name="key" value="(\d+)"', html
    )
    assert key
    html = await b.post("/desk/decide", {"kind": "round", "key": key.group(1), "choice": "approve"})
    assert "approved and published" in flash_text(html)
    async with site.db.uow() as uow:
        rounds = await uow.tournaments.all_rounds()
        second = next(r for r in rounds if r.number == 2)
        assert second.state != "proposed"
        matches = await uow.matches.for_round(second.id)
    assert [(m.white_first, m.black_first) for m in matches] == [
        ("bob", "alice"),
        ("dave", "carol"),
    ]


async def test_the_editor_is_the_tds_only(site: Site, browsers: dict[str, Browser]) -> None:
    alice = browsers["alice"]
    await alice.login("Alice")
    await alice.get("/desk/pairing", status=403)
