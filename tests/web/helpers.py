"""A real service (sandbox Lichess, real database, web on port 0) and a cookie-keeping client."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html import unescape
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

from bot.app import Service
from bot.config import Config, ServiceConfig, TournamentConfig
from bot.runtime.clock import FakeClock
from bot.service.stages.qualification import fix_entrants
from rules.core.model import Game
from rules.core.ruleset import DEFAULT_RULESET, StageKind
from rules.core.states import RoundState
from storage.convert import fraction_to_text
from storage.db import Database
from storage.models import MatchRow, RoundRow

NOW = dt.datetime(2021, 10, 12, 12, 0, tzinfo=dt.UTC)  # a Tuesday: publication day
TD = "Tina"
PLAYERS = ("Alice", "Bob", "Carol", "Dave")


def make_config(database_url: str, **service: Any) -> Config:
    return Config(
        tournament=TournamentConfig(name="Test Antichess Championship", tds=(TD,)),
        service=dataclasses.replace(ServiceConfig(database_url=database_url), **service),
    )


@dataclass
class Site:
    service: Service
    clock: FakeClock
    url: str
    matches: dict[str, int]

    @property
    def db(self) -> Database:
        return self.service.db


async def seed(
    service: Service,
    *,
    publish: bool = True,
    players: tuple[str, ...] = PLAYERS,
    pairs: tuple[tuple[str, str], ...] = (("alice", "bob"), ("carol", "dave")),
) -> dict[str, int]:
    """A tournament, four players, round 1 of the qualification: Alice-Bob, Carol-Dave
    (``publish=False``: the round waits for a TD's approval)."""
    config = service.config
    services = service.services
    async with service.db.uow() as uow:
        tournament = await services.tournament.create(uow, now=NOW, actor=TD)
        for i, name in enumerate(players):
            await services.players.add(uow, name, seed_rating=2200 - i * 10, now=NOW, actor=TD)
        stage = await uow.tournaments.stage(tournament.id, StageKind.QUALIFICATION.value)
        assert stage is not None
        await fix_entrants(uow, stage, config.rules, now=NOW, actor=TD)
        rnd = await uow.tournaments.add_round(RoundRow(stage_id=stage.id, number=1))
        fmt = DEFAULT_RULESET.formats.qualification
        ids = {}
        for board, (a, b) in enumerate(pairs, start=1):
            row = await uow.matches.add(
                MatchRow(
                    round_id=rnd.id,
                    stage=StageKind.QUALIFICATION.value,
                    board=board,
                    white_first=a,
                    black_first=b,
                    games=fmt.games,
                    clinch_at=fraction_to_text(fmt.clinch_at),
                    tiebreak=fmt.tiebreak.value,
                    max_weeks=fmt.max_weeks,
                    state="proposed",
                )
            )
            ids[f"{a}-{b}"] = row.id
        if publish:
            rnd.state = RoundState.APPROVED
            await services.publication.publish_round(uow, rnd, now=NOW, actor=TD)
        await uow.commit()
    return ids


class Browser:
    """An HTTP client with its own cookies, that logs in through the sandbox's OAuth page."""

    def __init__(self, site: Site, *, headers: Mapping[str, str] | None = None) -> None:
        self.site = site
        self.http = aiohttp.ClientSession(
            cookie_jar=aiohttp.CookieJar(unsafe=True), headers=headers
        )
        self.last_html = ""
        self.landed = ""

    async def close(self) -> None:
        await self.http.close()

    def url(self, path: str) -> str:
        return path if path.startswith("http") else self.site.url + path

    async def login(self, username: str, *, next_path: str | None = None) -> str:
        """The whole login dance; returns the page the app lands on."""
        params = {} if next_path is None else {"next": next_path}
        async with self.http.get(self.url("/login"), params=params, allow_redirects=False) as resp:
            assert resp.status == 302, await resp.text()
            oauth = resp.headers["Location"]
        assert oauth.startswith(self.site.service.lichess_url + "/oauth?")
        form = {k: v[0] for k, v in parse_qs(urlsplit(oauth).query).items()}
        assert "scope" not in form  # identifying the player needs no scope
        form |= {"username": username, "decision": "approve"}
        async with self.http.post(
            self.site.service.lichess_url + "/_sandbox/oauth/authorize",
            data=form,
            allow_redirects=False,
        ) as resp:
            assert resp.status == 302
            callback = resp.headers["Location"]
        async with self.http.get(callback) as resp:
            assert resp.status == 200, await resp.text()
            self.last_html = await resp.text()
            self.landed = str(resp.url)
        return self.last_html

    async def get(self, path: str, *, status: int = 200) -> str:
        async with self.http.get(self.url(path), allow_redirects=True) as resp:
            text = await resp.text()
            assert resp.status == status, (resp.status, text[:2000])
        self.last_html = text
        return text

    async def get_raw(self, path: str) -> aiohttp.ClientResponse:
        resp = await self.http.get(self.url(path), allow_redirects=False)
        await resp.read()
        resp.release()
        return resp

    def csrf(self) -> str:
        found = re.search(r'name="csrf" value="([^"]+)"', self.last_html)
        assert found, "no CSRF token on the last page"
        return found.group(1)

    async def post(
        self,
        path: str,
        data: Mapping[str, str],
        *,
        csrf: str | None = "page",
        status: int = 200,
        follow: bool = True,
    ) -> str:
        form = dict(data)
        if csrf == "page":
            form["csrf"] = self.csrf()
        elif csrf is not None:
            form["csrf"] = csrf
        async with self.http.post(self.url(path), data=form, allow_redirects=follow) as resp:
            text = await resp.text()
            assert resp.status == status, (resp.status, text[:2000])
        if follow:
            self.last_html = text
        return text


async def grant_games(
    b: Browser, lichess_url: str, username: str, decision: str = "approve"
) -> str:
    """Press "Let the bot start my games", answer Lichess's page, land back on /account."""
    async with b.http.post(
        b.url("/account/games/allow"), data={"csrf": b.csrf()}, allow_redirects=False
    ) as resp:
        assert resp.status == 303, await resp.text()
        oauth = resp.headers["Location"]
    form = {k: v[0] for k, v in parse_qs(urlsplit(oauth).query).items()}
    assert form["scope"] == "challenge:write"
    form |= {"username": username, "decision": decision}
    async with b.http.post(
        lichess_url + "/_sandbox/oauth/authorize", data=form, allow_redirects=False
    ) as resp:
        callback = resp.headers["Location"]
    return await b.get(callback)


def flash_text(html: str) -> str:
    found = re.search(r'<p class="flash (?:ok|error)" id="reply" role="\w+">(.*?)</p>', html, re.S)
    if not found:
        return ""
    return unescape(re.sub(r"</?code>", "`", found.group(1)))  # the reply as the bot wrote it


async def no_agreement(site: Site, b: Browser) -> int:
    """Alice and Bob offer (relayed by the TD ``b``) and agree nothing: Saturday comes, and the
    desk asks who is at fault (rules 5.8). Returns their match."""
    for player, times in (
        ("alice", "offer wed 18:00, thu 18:00, fri 18:00"),
        ("bob", "offer wed 12:00, thu 12:00, fri 12:00"),
    ):
        html = await b.post("/desk/relay", {"player": player, "text": times})
        assert "flash ok" in html, flash_text(html)
    site.clock.set(dt.datetime(2021, 10, 16, 9, 0, tzinfo=dt.UTC))  # Saturday
    await b.get("/desk")
    return site.matches["alice-bob"]


class Waits:
    """A running service's watch: an event each time one of its loops goes to wait (a test
    waits on it for what the loops do, never on time)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def loop_waiting(self) -> None:
        self.event.set()

    def game_done(self, game: Game, *, began: float, began_cpu: float) -> None:
        pass
