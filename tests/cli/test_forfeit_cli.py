"""Forfeits on the command line: listed, and waived by a TD with a reason (rules 5.10, 6.5)."""

from __future__ import annotations

import asyncio
import json

from storage.db import Database
from storage.models_weekly import ForfeitRow
from tests.factories import NOW, stored_match


async def _forfeit(url: str) -> int:
    db = Database(url)
    try:
        match_id = await stored_match(db)
        async with db.uow() as uow:
            row = ForfeitRow(
                player_id="bob",
                match_id=match_id,
                kind="match",
                reason="no_show",
                at=NOW,
                recorded_by="bot",
                waived=False,
            )
            uow.session.add(row)
            await uow.commit()
            return row.id
    finally:
        await db.dispose()


def test_a_td_waives_a_forfeit_once_with_a_reason(acwc, database_url: str) -> None:  # type: ignore[no-untyped-def]
    acwc("db", "upgrade")
    forfeit_id = asyncio.run(_forfeit(database_url))
    listed = json.loads(acwc("forfeit", "list", "--json")[1])
    assert [(f["player"], f["waived"]) for f in listed] == [("bob", False)]
    code, _, err = acwc("forfeit", "waive", str(forfeit_id), "--reason", " ")
    assert code == 1
    assert "reason is required" in err
    code, out, err = acwc(
        "forfeit", "waive", str(forfeit_id), "--reason", "lichess outage", "--by", "ODMWND"
    )
    assert code == 0, err
    assert "waived" in out
    listed = json.loads(acwc("forfeit", "list", "--player", "Bob", "--json")[1])
    assert [(f["waived"], f["waived_by"]) for f in listed] == [(True, "ODMWND")]
    code, _, err = acwc("forfeit", "waive", str(forfeit_id), "--reason", "again")
    assert code == 1
    assert "waived already" in err
    code, _, err = acwc("forfeit", "waive", "999", "--reason", "x")
    assert "no forfeit 999" in err
    audit = json.loads(acwc("audit", "--player", "bob", "--json")[1])
    assert [a["action"] for a in audit] == ["forfeit.waive"]
