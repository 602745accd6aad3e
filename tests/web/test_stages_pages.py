"""Candidates crosstables and the knockout bracket, rendered from stored matches and games."""

from __future__ import annotations

from rules.core.ruleset import StageKind
from storage.models import RoundRow
from tests.factories import stored_match
from tests.web.helpers import NOW, TD, Browser, Site


async def publish_round_of(site: Site, match_id: int) -> None:
    async with site.db.uow() as uow:
        match = await uow.matches.get(match_id)
        assert match is not None
        rnd = await uow.session.get(RoundRow, match.round_id)
        assert rnd is not None
        rnd.state = "published"
        await uow.commit()


async def results(site: Site, match_id: int, *scores: str) -> None:
    async with site.db.uow() as uow:
        for number, result in enumerate(scores, start=1):
            await site.service.services.results.record(
                uow, match_id, game_number=number, result=result, reason="test", now=NOW, actor=TD
            )
        await uow.commit()


async def test_candidates_crosstable_shows_each_pairs_game_score(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await stored_match(site.db, "alice", "carol", stage=StageKind.CANDIDATES)
    await results(site, match_id, "1-0", "1/2-1/2", "1-0")  # alice 2.5 - carol 0.5
    nobody = browsers["nobody"]
    assert "2½-½" not in await nobody.get("/candidates")  # not published: not public
    await publish_round_of(site, match_id)
    html = await nobody.get("/candidates")
    assert "2½-½" in html
    assert "½-2½" in html


async def test_knockout_page_shows_published_matches_with_their_scores(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await stored_match(site.db, "bob", "dave", stage=StageKind.FINAL)
    await results(site, match_id, "0-1")
    nobody = browsers["nobody"]
    html = await nobody.get("/knockout")
    assert 'href="/players/dave"' not in html
    await publish_round_of(site, match_id)
    html = await nobody.get("/knockout")
    assert 'href="/players/dave"' in html
    assert 'href="/players/bob"' in html
