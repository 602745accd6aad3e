"""Live pages (issue 29, item 3): a change stored reaches an open page by itself.

The stream (server-sent events) is read as a browser would; a game's end reaches an open match
room in Chromium, and the pairings and standings pages of an anonymous visitor. Each test waits
on the event itself: nothing is timed.
"""

from __future__ import annotations

import datetime as dt

import aiohttp

from rules.core.colour import Colour
from tests.web.helpers import Browser, Site
from tests.web.test_chromium import login
from tests.web.test_room import game, offer_and_accept
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium, chromium_paths

THURSDAY = dt.datetime(2021, 10, 14, 18, 0, tzinfo=dt.UTC)

WAIT_FOR_TEXT = """
const [css, text, done] = arguments;
const found = () => (document.querySelector(css) || {}).textContent || "";
if (found().includes(text)) { done(found()); return; }
document.addEventListener("acwc:live", function seen() {
  if (found().includes(text)) {
    document.removeEventListener("acwc:live", seen);
    done(found());
  }
});
"""


async def next_event(stream: aiohttp.ClientResponse) -> tuple[str, str]:
    """The next event of a server-sent events stream: (its name, its data)."""
    name, data = "message", ""
    while True:
        line = (await stream.content.readline()).decode("utf-8").rstrip("\n")
        if not line:
            if data:
                return name, data
            continue
        if line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data = line.removeprefix("data:").strip()


async def test_a_game_stored_is_a_change_event_on_the_rooms_stream(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    alice = browsers["alice"]
    html = await alice.get(f"/match/{match_id}")
    assert f'data-live="/live?page=/match/{match_id}&amp;since=' in html
    async with alice.http.get(f"{site.url}/live?page=/match/{match_id}") as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        assert await stream.content.readline() == b"retry: 3000\n"
        await stream.content.readline()
        site.clock.set(THURSDAY + dt.timedelta(minutes=10))
        await site.service.intake(game("LiveG001", "alice", "bob", THURSDAY, Colour.WHITE))
        name, version = await next_event(stream)
    assert name == "change"
    assert version.isdigit()


async def test_a_stream_is_only_for_whom_the_page_is(
    site: Site, browsers: dict[str, Browser]
) -> None:
    match_id = site.matches["alice-bob"]
    nobody, carol = browsers["nobody"], browsers["carol"]
    resp = await nobody.get_raw(f"/live?page=/match/{match_id}")
    assert resp.status == 302
    assert resp.headers["Location"].startswith("/login?next=")
    await carol.login("Carol")
    await carol.get(f"/live?page=/match/{match_id}", status=404)
    for page in ("/desk", "/match/x", "/players/alice", "https://evil.example/", ""):
        await carol.get(f"/live?page={page}", status=404)


async def room_waits_for(b: Chromium, text: str) -> str:
    return str(await b.wait_in_page(WAIT_FOR_TEXT, "#games", text))


async def test_a_games_end_reaches_an_open_room_by_itself(
    site: Site, browsers: dict[str, Browser]
) -> None:
    chromium_paths()
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    site.clock.set(THURSDAY + dt.timedelta(minutes=1))
    async with chromium() as b:
        await b.resize(1000, 900)
        await login(b, site, "Alice")
        await b.go(f"{site.url}/match/{match_id}")
        assert "No games yet" in await b.text("#games")
        await b.set_value("#text", "status")  # a command being written stays as it is
        await site.service.intake(game("LiveG002", "alice", "bob", THURSDAY, Colour.WHITE))
        games = await room_waits_for(b, "Alice – Bob")
        assert "1-0" in games
        assert "Play game 2 now" in await b.text("#now")  # the card moved on too
        assert await b.script("return document.querySelector('#text').value;") == "status"


async def test_pairings_and_standings_update_for_a_visitor(site: Site) -> None:
    chromium_paths()
    async with chromium() as b, chromium() as c:
        await b.go(f"{site.url}/pairings")
        await c.go(f"{site.url}/standings")
        site.clock.set(THURSDAY + dt.timedelta(hours=2))
        for i in range(6):  # Alice wins six in a row: 6-0 decides the match
            white, black = ("alice", "bob") if i % 2 == 0 else ("bob", "alice")
            winner = Colour.WHITE if white == "alice" else Colour.BLACK
            at = THURSDAY + dt.timedelta(minutes=9 * i)
            await site.service.intake(game(f"LiveP{i:02d}", white, black, at, winner))
        pairings = str(await b.wait_in_page(WAIT_FOR_TEXT, "#page", "6–0"))
        assert "Alice" in pairings
        standings = str(await c.wait_in_page(WAIT_FOR_TEXT, "#page", "provisional"))
        assert "Alice" in standings


NO_EVENT_SOURCE = """
delete window.EventSource;
window.__polls = [];
const every = window.setInterval;
window.setInterval = function (fn, ms) {  // the page's own polling, run here when the test says
  if (ms >= 10000) { window.__polls.push([fn, ms]); return 0; }
  return every.apply(this, arguments);
};
"""


async def test_a_browser_without_server_sent_events_polls_the_room(
    site: Site, browsers: dict[str, Browser]
) -> None:
    """Without EventSource the room polls itself: the page's poll (its timer held by the test,
    which runs it once the game is stored, instead of waiting 20 s) brings the game in."""
    chromium_paths()
    match_id = await offer_and_accept(site, browsers["alice"], browsers["bob"])
    site.clock.set(THURSDAY + dt.timedelta(minutes=1))
    async with chromium() as b:
        await b.before_each_page(NO_EVENT_SOURCE)
        await login(b, site, "Alice")
        await b.go(f"{site.url}/match/{match_id}")
        assert await b.script("return window.EventSource === undefined;")
        # it polls instead, every 20 s (the page's other timer keeps its countdowns current)
        assert 20000 in await b.script("return window.__polls.map(([, ms]) => ms);")
        await site.service.intake(game("LiveQ001", "alice", "bob", THURSDAY, Colour.WHITE))
        await b.script("window.__polls.forEach(([fn]) => fn());")  # their timers fire
        games = await room_waits_for(b, "Alice – Bob")
        assert "1-0" in games


async def test_the_games_link_reaches_an_open_room_once_a_time_is_agreed(
    site: Site, browsers: dict[str, Browser]
) -> None:
    """Alice waits in her room; Bob accepts her offer; the bot's challenge for game 1 is made:
    her card shows its link without a reload (it once took a reload)."""
    chromium_paths()
    match_id = site.matches["alice-bob"]
    alice, bob = browsers["alice"], browsers["bob"]
    await alice.login("Alice")
    await alice.get(f"/match/{match_id}")
    offer = {"action": "offer", "time1": "2021-10-14T18:00", "time2": "2021-10-15T18:00"}
    await alice.post(f"/match/{match_id}/say", offer | {"time3": "2021-10-16T12:00"})
    async with chromium() as b:
        await login(b, site, "Alice")
        await b.go(f"{site.url}/match/{match_id}")
        assert await b.script("return document.querySelector('#now').dataset.step;") == (
            "wait_answer"
        )
        await bob.login("Bob")
        await bob.get(f"/match/{match_id}")
        await bob.post(f"/match/{match_id}/say", {"action": "accept", "index": "1"})
        await site.service.runner.fire_due()  # the bot's challenge for game 1, due at once
        card = str(await b.wait_in_page(WAIT_FOR_TEXT, "#now", "Join game 1 on Lichess"))
        assert "Play game 1 at the agreed time" in card
        link = await b.script("return document.querySelector('#now a.challenge').href;")
    async with site.db.reads() as uow:
        (made,) = await uow.lichess.challenges(match_id)
    assert str(link).endswith(f"/{made.id}"), link  # the bot's challenge
