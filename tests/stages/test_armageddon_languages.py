"""Issue 28 item 5: an armageddon step sent at the wrong moment (rock-paper-scissors while the
time offers are open, a second offer, a late one, a match with no armageddon) is refused in the
words of the player who sent it; the knockout page says how White was chosen in its reader's."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.notify.languages import words
from bot.web.public import WHITE_CHOSEN
from storage.db import Database
from tests.stages.helpers import config_for, semifinal_at_armageddon

# The same on both databases (the words of a language): CI's PostgreSQL run leaves it to the SQLite
# run.
pytestmark = pytest.mark.same_on_both_databases


async def test_an_armageddon_step_at_the_wrong_moment_is_refused_in_the_sender_s_words(
    db: Database, database_url: str
) -> None:
    sf1, clock, found = await semifinal_at_armageddon(db, config_for(database_url))
    a, b = sf1.white_first, sf1.black_first
    assert b is not None
    async with db.uow() as uow:
        await found.players.set_language(uow, b, language="fr", now=clock.now())
        await uow.commit()

    async def say(player: str, text: str, match_id: int = sf1.id) -> tuple[bool, str]:
        async with db.uow() as uow:
            reply = await found.texts.handle(
                uow, match_id=match_id, player=player, text=text, now=clock.now()
            )
            await uow.commit()
        return reply.ok, reply.text

    assert await say(b, "rps rock") == (
        False,
        "Pierre-feuille-ciseaux n'est pas possible maintenant : les enchères sont ouvertes.",
    )
    assert await say(a, "rps rock") == (
        False,
        "Rock-paper-scissors is not possible now: the time offers are open.",
    )
    ok, _ = await say(b, "bid 1:40")
    assert ok
    assert await say(b, "bid 1:30") == (False, "Vous avez déjà fait votre enchère.")
    clock.advance(dt.timedelta(hours=25))  # past the offers' deadline, not yet revealed
    ok, text = await say(a, "bid 1:30")
    assert not ok
    assert text.startswith("Time offers closed at ")
    assert text.endswith(" UTC.")


def test_how_white_was_chosen_reads_in_the_page_s_words() -> None:
    fr = words("fr")
    assert fr.gettext(WHITE_CHOSEN["lower_bid"]) == "par l'enchère la plus basse"
    assert fr.gettext(WHITE_CHOSEN["td"]) == "par les arbitres"
