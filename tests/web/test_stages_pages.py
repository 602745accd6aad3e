"""Candidates crosstables and the knockout bracket, rendered from stored matches and games; and
one Candidates read model behind the public page, ``acwc standings`` and the desk."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from bot.launch import main
from rules.core.ruleset import StageKind
from rules.core.states import RoundState, StageState
from storage.models import RoundRow, StageEntrantRow
from tests.factories import stored_match
from tests.web.helpers import NOW, TD, Browser, Site


async def candidates_started(site: Site, *players: str) -> None:
    """The Candidates under way (the current stage), ``players`` in the upper pool in the order
    they placed in the qualification."""
    async with site.db.uow() as uow:
        tournament = await uow.tournaments.current()
        assert tournament is not None
        qualification = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
        assert qualification is not None
        for entrant in await uow.stages.entrants(qualification.id):
            if entrant.player_id in players:
                entrant.placement = players.index(entrant.player_id) + 1
        stage = await uow.tournaments.stage(tournament.id, StageKind.CANDIDATES.value)
        assert stage is not None
        stage.state, stage.started_at = StageState.ACTIVE, NOW
        tournament.current_stage = StageKind.CANDIDATES
        for number, player in enumerate(players, start=1):
            await uow.stages.add_entrant(
                StageEntrantRow(stage_id=stage.id, player_id=player, number=number, pool="upper")
            )
        await uow.commit()


async def publish_round_of(site: Site, match_id: int) -> None:
    async with site.db.uow() as uow:
        match = await uow.matches.get(match_id)
        assert match is not None
        rnd = await uow.session.get(RoundRow, match.round_id)
        assert rnd is not None
        rnd.state = RoundState.PUBLISHED
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
    await candidates_started(site, "alice", "carol")
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


def _cell(html: str, player: str) -> list[str]:
    """The numbers of ``player``'s row in the first table of ``html`` that links them."""
    row = re.search(rf'<tr><th scope="row"><a href="/players/{player}"[^>]*>.*?</tr>', html, re.S)
    assert row is not None, player
    return re.findall(r'<td class="num[^"]*">([^<]*)</td>', row.group(0))


async def test_a_forfeit_won_candidates_match_scores_the_same_on_the_page_cli_and_desk(
    site: Site,
    browsers: dict[str, Browser],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A match won by forfeit, no game played: one match point to the winner everywhere."""
    match_id = await stored_match(site.db, "alice", "carol", stage=StageKind.CANDIDATES)
    await candidates_started(site, "alice", "carol")
    services = site.service.services
    async with site.db.uow() as uow:
        match = await uow.matches.get(match_id)
        assert match is not None
        rnd = await uow.tournaments.round(match.round_id)
        assert rnd is not None
        rnd.state = RoundState.APPROVED
        await services.publication.publish_round(uow, rnd, now=NOW, actor=TD)
        await services.decisions.decide_claim(
            uow, match_id, winner="alice", reason="carol never replied", now=NOW, actor=TD
        )
        await uow.commit()
        assert (match.decided_by, match.outcome) == ("forfeit", "first_wins")
    # the public crosstable, over HTTP: MP then GP after the cells
    html = await browsers["nobody"].get("/candidates")
    assert _cell(html, "alice")[-2:] == ["1", "0"]
    assert _cell(html, "carol")[-2:] == ["0", "0"]
    # acwc standings --stage candidates, the command line on the same database
    config = tmp_path / "config.toml"
    config.write_text(f'[service]\ndatabase_url = "{site.service.config.service.database_url}"\n')
    argv = ["standings", "--stage", "candidates", "--json", "--config", str(config)]
    capsys.readouterr()
    code = await asyncio.to_thread(main, argv)
    out = capsys.readouterr().out
    assert code == 0, out
    (upper, _lower) = json.loads(out)
    rows = {r["player"]: (r["match_points"], r["game_points"]) for r in upper["standings"]}
    assert rows == {"alice": ("1", "0"), "carol": ("0", "0")}
    # the desk's Candidates standings
    tina = browsers["tina"]
    await tina.login(TD)
    desk = await tina.get("/desk")
    standings = re.search(r'<section aria-labelledby="h-pools".*?</section>', desk, re.S)
    assert standings is not None
    alice = re.search(r"<tr><td>1</td><td>alice</td>(.*?)</tr>", standings.group(0))
    assert alice is not None
    assert re.findall(r'<td class="num">([^<]*)</td>', alice.group(1))[:2] == ["1", "0"]


async def test_standings_show_each_round_like_a_crosstable(
    site: Site, browsers: dict[str, Browser]
) -> None:
    await results(site, site.matches["alice-bob"], *["1-0", "0-1"] * 3)  # Alice 6-0
    await results(site, site.matches["carol-dave"], *["0-1", "1-0"] * 3)  # Dave 6-0
    html = await browsers["nobody"].get("/standings")
    assert '<th scope="col" class="num">R1</th>' in html
    ranks = dict(
        re.findall(r'<tr class="[^"]*">\s*<td>(\d+)</td><td><a href="/players/(\w+)"', html)
    )
    by_player = {player: rank for rank, player in ranks.items()}
    alice_cell = f"+{by_player['bob']}w"
    assert f">{alice_cell}</td>" in html
    assert "won against Bob, game points 6/6" in html
    assert f">-{by_player['alice']}b</td>" in html
