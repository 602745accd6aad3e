"""The TD commands of the weekly feature, run in-process against the test database."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.launch import main
from rules.talk.spelling import spell_names
from tests.acwc_words import as_td
from tests.weekly.harness import Week, at

Run = Callable[..., Awaitable[tuple[int, str, str]]]


@pytest.fixture
def acwc(in_tmp: Path, database_url: str, capsys: pytest.CaptureFixture[str]) -> Run:
    (in_tmp / "config.toml").write_text(
        '[tournament]\ntds = ["ODMWND", "Shiaxou"]\n'
        f'[service]\ndatabase_url = "{database_url}"\npublic_url = "https://acwc.example"\n'
    )

    async def run(*args: object) -> tuple[int, str, str]:
        # The CLI runs its own event loop (asyncio.run), so it gets a thread of its own.
        code = await asyncio.to_thread(main, as_td([str(a) for a in args], "ODMWND"))
        out, err = capsys.readouterr()
        return code, out, err

    return run


async def _disagreed(week: Week) -> int:
    (match_id,) = await week.publish(("alice", "bob"))
    await week.say(match_id, "alice", "offer wed 9:00, thu 9:00, fri 9:00")
    await week.say(match_id, "bob", "offer wed 21:00, thu 21:00, fri 21:00")
    await week.until(at(16, 1))
    return match_id


async def test_fault_decision_deadlines_and_timeline_from_the_command_line(
    week: Week, acwc: Run
) -> None:
    match_id = await _disagreed(week)
    code, out, _ = await acwc("say", match_id, "alice", "status", "--by", "odmwnd")
    assert code == 0
    assert f"Match {match_id}: you against bob." in out
    code, out, err = await acwc("say", match_id, "carol", "offer thu 18:00", "--by", "odmwnd")
    assert code == 1
    assert out == ""
    assert err.startswith("acwc: error: carol does not play match")
    code, _, err = await acwc("say", match_id, "alice", "status", "--by", "mallory")
    assert code == 1
    assert "not a TD" in err
    code, _, err = await acwc("fault", "decide", match_id, "--nobody")
    assert code == 2
    assert "--reason" in err

    code, out, _ = await acwc(
        "fault", "decide", match_id, "--at-fault", "Bob", "--reason", "slow", "--by", "odmwnd"
    )
    assert code == 0
    assert "bob at fault; alice chooses the time" in out
    code, _, err = await acwc("fault", "decide", match_id, "--at-fault", "carol", "--reason", "x")
    assert code == 1
    assert "carol does not play match" in err

    code, out, _ = await acwc("deadlines", "--match", match_id, "--json")
    states = {d["kind"]: d["state"] for d in json.loads(out)}
    assert states["offers_check"] == "fired"
    assert states["weekend_check"] == "fired"
    code, out, _ = await acwc("deadlines")
    assert "weekend_check" in out

    code, out, _ = await acwc("timeline", match_id)
    assert code == 0
    assert "TD decision: at fault bob (slow)" in out
    assert "fault.decide - slow" in out
    code, out, _ = await acwc("timeline", 999)
    assert code == 1

    code, _, err = await acwc("claim", "decide", match_id, "--dismiss", "--reason", "x")
    assert code == 1
    assert "no open claim" in err
    code, _, err = await acwc("dq", "confirm", "alice", "--reason", "x")
    assert code == 1
    assert "forfeits in 0 match(es)" in err


async def test_forum_drafts_are_listed_and_marked_posted(week: Week, acwc: Run) -> None:
    await week.publish(("alice", "bob"))
    code, out, _ = await acwc("outbox", "--kind", "forum_draft", "--json")
    (draft,) = json.loads(out)
    assert draft["recipient"] == "forum"
    assert "Alice - Bob" in draft["body"]
    code, out, _ = await acwc("forum", "posted", draft["id"], "--by", "shiaxou")
    assert code == 0
    code, _, err = await acwc("forum", "posted", draft["id"])
    assert code == 1
    assert "already marked posted" in err
    code, out, _ = await acwc("outbox", "--kind", "dm", "--json")
    dm_id = json.loads(out)[0]["id"]
    code, _, err = await acwc("forum", "posted", dm_id)
    assert "is a dm, not a forum draft" in err
    code, out, _ = await acwc("outbox", "--status", "posted")
    assert "forum_draft" in out
    async with week.db.uow() as uow:
        actions = [(a.actor, a.action) for a in await uow.audit.list()]
    assert ("shiaxou", "forum.posted") in actions


async def test_relayed_text_acts_for_the_player_and_names_the_td(week: Week) -> None:
    (match_id,) = await week.publish(("alice", "bob"))
    async with week.db.uow() as uow:
        reply = await week.services.texts.handle(
            uow,
            match_id=match_id,
            player="alice",
            text="offer thu 18:00",
            now=week.clock.now(),
            via="td-relay",
            relayed_by="odmwnd",
        )
        await uow.commit()
    assert reply.changed
    # the player hears it too, by their opponent's username
    assert (await week.dms_to("alice"))[-1] == spell_names(reply.text, {"bob": "Bob"})
    async with week.db.uow() as uow:
        (entry,) = [a for a in await uow.audit.list(match_id=match_id) if a.action == "match.offer"]
    assert (entry.actor, entry.player, entry.details["via"]) == ("odmwnd", "alice", "td-relay")
