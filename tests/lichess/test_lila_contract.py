"""The sandbox answers as lila does: one test per fact of lila's contract (docs/lichess.md),
each naming the file of lila's source the fact comes from. Over real HTTP on 127.0.0.1, with
the sandbox's defaults (lila's limits on)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import aiohttp
import pytest
from lichess_helpers import BOT, TEAM

from bot.lichess.broadcasts import LichessBroadcasts
from bot.lichess.challenges import LichessChallenges
from bot.lichess.client import LichessClient
from bot.runtime.clock import FakeClock
from bot.sandbox.challenges import ChallengeError, join_challenge
from bot.sandbox.schemas import millis
from bot.sandbox.state import SandboxState
from bot.service.challenges import ChallengeSpec

OPEN = "/api/challenge/open"
FORM = {
    "rated": "true",
    "clock.limit": "120",
    "clock.increment": "5",
    "variant": "antichess",
    "users": "Alice,Bob",
}


async def post(
    url: str, path: str, form: dict[str, str], token: str | None = None
) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url + path, data=form, headers=headers, allow_redirects=False) as resp,
    ):
        text = await resp.text()
        try:
            return resp.status, await resp.json(content_type=None)
        except ValueError:
            return resp.status, text


# --- tokens and scopes: app/controllers/LilaController.scala ----------------------------------


async def test_anon_or_scoped_checks_the_scope_of_a_token_sent_LilaController_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """``AnonOrScopedBody(...)(_.Challenge.Write)``: no token is fine, a token without the
    scope is a 403 "Missing scope", an unknown token a 401."""
    without = state.add_token("Carol", scopes={"msg:write"})
    assert (await post(sandbox_url, OPEN, FORM))[0] == 200
    status, body = await post(sandbox_url, OPEN, FORM, without)
    assert status == 403
    assert body["error"].startswith("Missing scope")
    assert (await post(sandbox_url, OPEN, FORM, "lip_unknown"))[0] == 401
    with_scope = state.add_token("Dave", scopes={"challenge:write"})
    assert (await post(sandbox_url, OPEN, FORM, with_scope))[0] == 200
    assert sum(state.refusals.values()) == 2


async def test_the_bot_sends_its_token_only_with_challenge_write_Challenge_scala(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    """The bot's challenge goes without the token when the token lacks ``challenge:write``
    (lila would refuse it), and with it when it has the scope: no call is refused."""
    spec = ChallengeSpec(
        white="Alice",
        black="Bob",
        rated=True,
        clock_limit=120,
        clock_increment=5,
        variant="antichess",
        name="ACWC week 1 game 1",
        expires_at=clock.now() + dt.timedelta(hours=2),
    )
    for scopes in ({"msg:write"}, {"msg:write", "challenge:write"}):
        token = state.add_token(BOT, scopes=scopes)
        async with LichessClient(base_url=sandbox_url, token=token, clock=clock) as client:
            await client.test_token()
            made = await LichessChallenges(client)(spec)
        assert made.id in state.challenges
    unknown = state.add_token(BOT, scopes={"msg:write"})
    async with LichessClient(base_url=sandbox_url, token=unknown, clock=clock) as client:
        maker = LichessChallenges(client)  # the scopes not read: tried with it, then without
        made = await maker(spec)
    assert maker.refused_token
    assert made.id in state.challenges


# --- open challenges: modules/challenge/src/main/ChallengeJoiner.scala -------------------------


async def test_open_challenge_needs_both_clicks_and_fixes_colours_ChallengeJoiner_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """``users=A,B``: only they may join, A is White; the first click waits, the second makes
    the game, whose id is the challenge's and whose source is ``friend``."""
    status, body = await post(sandbox_url, OPEN, {**FORM, "users": "Bob,Alice"})
    assert status == 200
    cid = body["id"]
    with pytest.raises(ChallengeError):
        join_challenge(state, cid, "Carol")
    assert join_challenge(state, cid, "Alice") is None
    assert state.games.get(cid) is None
    game = join_challenge(state, cid, "Bob")
    assert game is not None
    assert game.id == cid
    assert game.user_ids == ("bob", "alice")
    assert game.source == "friend"


async def test_an_aborted_game_spends_the_challenge_ChallengeApi_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """The game's id is the challenge's: once aborted, the link makes no new game."""
    _, body = await post(sandbox_url, OPEN, FORM)
    cid = body["id"]
    join_challenge(state, cid, "Alice")
    join_challenge(state, cid, "Bob")
    state.abort_game(cid)
    with pytest.raises(ChallengeError):
        join_challenge(state, cid, "Alice")


async def test_open_challenge_forms_lila_refuses_SetupForm_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """``rules=noAbort`` is refused for an ordinary account, a rated game without a clock too;
    unknown usernames are not checked."""
    assert (await post(sandbox_url, OPEN, {**FORM, "rules": "noAbort"}))[0] == 400
    no_clock = {k: v for k, v in FORM.items() if not k.startswith("clock")}
    assert (await post(sandbox_url, OPEN, no_clock))[0] == 400
    assert (await post(sandbox_url, OPEN, {**FORM, "users": "Alice,Nobody"}))[0] == 200


# --- private messages: modules/msg/src/main/MsgSecurity.scala, app/controllers/Msg.scala -------


async def dm(url: str, token: str, to: str, text: str) -> int:
    return (await post(url, f"/inbox/{to}", {"text": text}, token))[0]


async def test_new_conversations_per_day_and_halved_with_a_link_MsgSecurity_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """An account over 30 days old opens 20 conversations a day, 10 when the text holds a
    link; over budget is a 429."""
    token = state.add_token("Sender", scopes={"msg:write"})
    for i in range(10):
        state.add_user(f"reader{i}")
        assert await dm(sandbox_url, token, f"reader{i}", "https://lichess.org/abc") == 200
    state.add_user("reader10")
    assert await dm(sandbox_url, token, "reader10", "see https://lichess.org/abc") == 429
    assert await dm(sandbox_url, token, "reader10", "no link here") == 429  # 10 links = 20
    assert state.messaging.limited == 2


async def test_a_young_account_has_a_smaller_budget_MsgSecurity_scala(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    """Under 7 days old (over 3), a message costs three times as much: 6 a day."""
    state.add_user("Young", created_at=clock.now() - dt.timedelta(days=4))
    token = state.add_token("Young", scopes={"msg:write"})
    sent = 0
    for i in range(10):
        state.add_user(f"friend{i}")
        sent += await dm(sandbox_url, token, f"friend{i}", "hello") == 200
    assert sent == 6


async def test_a_team_leader_writes_to_members_for_free_MsgSecurity_scala(
    sandbox_url: str, state: SandboxState, bot_token: str
) -> None:
    """New conversations with the members of a team the sender leads cost nothing."""
    for i in range(25):
        state.add_user(f"member{i}")
        state.join_team(TEAM, f"member{i}")
        assert await dm(sandbox_url, bot_token, f"member{i}", "https://x.org/a") == 200


async def test_replies_per_minute_halved_with_a_link_MsgSecurity_scala(
    sandbox_url: str, state: SandboxState, bot_token: str, clock: FakeClock
) -> None:
    """Replies in an existing conversation: 20 a minute, 10 with a link, no team exemption."""
    state.join_team(TEAM, "Alice")
    assert await dm(sandbox_url, bot_token, "Alice", "hello") == 200
    codes = [await dm(sandbox_url, bot_token, "Alice", "http://a.org/x") for _ in range(11)]
    assert codes.count(200) == 10
    assert codes[-1] == 429
    clock.advance(dt.timedelta(minutes=1))
    assert await dm(sandbox_url, bot_token, "Alice", "hello") == 200


async def test_messages_to_or_from_a_bot_account_are_rejected_MsgSecurity_scala(
    sandbox_url: str, state: SandboxState, bot_token: str
) -> None:
    """``userCache.getBotIds``: a BOT on either side is a 400 "The message was rejected", as
    are blocks and a follows-only preference."""
    state.add_user("Robot", title="BOT")
    robot = state.add_token("Robot", scopes={"msg:write"})
    assert await dm(sandbox_url, bot_token, "Robot", "hi") == 400
    assert await dm(sandbox_url, robot, "Alice", "hi") == 400
    state.messaging.blocks["bob"] = {BOT.lower()}
    assert await dm(sandbox_url, bot_token, "Bob", "hi") == 400
    state.messaging.refuse_strangers.add("carol")
    status, body = await post(sandbox_url, "/inbox/Carol", {"text": "hi"}, bot_token)
    assert (status, body) == (400, {"error": "The message was rejected"})


# --- team updates: app/controllers/Team.scala, modules/team/src/main/TeamMsgApi.scala ---------


async def test_team_update_is_a_feed_and_a_leader_without_updates_gets_303_Team_scala(
    sandbox_url: str, state: SandboxState, bot_token: str
) -> None:
    """The update is read in the team's feed by members who did not unsubscribe; a leader
    without the "Updates" permission is redirected to the team page."""
    state.join_team(TEAM, "Alice")
    state.join_team(TEAM, "Bob")
    state.unsubscribed[TEAM] = {"bob"}
    path = f"/team/{TEAM}/pm-all"
    assert (await post(sandbox_url, path, {"message": "Round 1 is out"}, bot_token))[0] == 200
    assert state.team_feed_of("Alice") == ["Round 1 is out"]
    assert state.team_feed_of("Bob") == []
    assert state.inbox_of("Alice") == []  # no DM
    state.without_updates.add((TEAM, BOT.lower()))
    status, _ = await post(sandbox_url, path, {"message": "Round 2 is out"}, bot_token)
    assert status == 303


# --- broadcasts: modules/relay/src/main/RelayRoundForm.scala, RelayApi.scala, RelayRound.scala -


async def test_a_round_made_without_status_new_never_syncs_RelayRoundForm_scala(
    sandbox_url: str, state: SandboxState, bot_token: str, clock: FakeClock
) -> None:
    """``Data.make``: without ``status=new`` the round is started at once, lila's auto-start
    passes it by, and ``autoFinishNotSyncing`` finishes it after 3 hours."""
    _, tour = await post(sandbox_url, "/broadcast/new", {"name": "ACWC Final"}, bot_token)
    form = {"name": "Round 1", "syncSource": "users", "syncUsers": "Alice Bob"}
    tid = tour["tour"]["id"]
    await post(sandbox_url, f"/broadcast/{tid}/new", form, bot_token)
    rnd = state.broadcasts[tid].rounds[0]
    state.start_game(white="Alice", black="Bob")
    assert rnd.shown == set()
    clock.advance(dt.timedelta(hours=3))
    state.relay_tick()
    assert rnd.finished_at is not None


async def test_a_round_syncs_from_starts_at_and_stops_after_an_idle_hour_RelayApi_scala(
    sandbox_url: str, state: SandboxState, bot_token: str, clock: FakeClock
) -> None:
    """``autoStart`` with ``status=new`` and ``startsAt``: games of two listed players going on
    are shown; ``Sync.play`` keeps it an hour after the last move; a new ``startsAt`` with
    ``status=new`` (``RelayApi.update``) starts it again."""
    client = LichessClient(base_url=sandbox_url, token=bot_token, clock=clock)
    async with client:
        maker = LichessBroadcasts(client)
        tour = await maker.tour(name="ACWC Final", markdown="live")
        made = await maker.round(
            tour.id, name="Round 1", players=["Alice", "Bob"], starts_at=clock.now()
        )
        rnd = state.broadcasts[tour.id].rounds[0]
        first = state.start_game(white="Alice", black="Bob")
        assert first.id in rnd.shown
        state.finish_game(first.id, winner="white")
        clock.advance(dt.timedelta(hours=2))
        second = state.start_game(white="Bob", black="Alice")
        assert second.id not in rnd.shown  # idle for an hour: the sync stopped
        await maker.wake(made.id, name="Round 1", players=["Alice", "Bob"], starts_at=clock.now())
        assert second.id in rnd.shown  # started again: the game going on is picked up
    assert sum(state.refusals.values()) == 0


async def test_a_bot_account_cannot_broadcast_RelayTour_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    state.add_user("Robot", title="BOT")
    robot = state.add_token("Robot")
    assert (await post(sandbox_url, "/broadcast/new", {"name": "ACWC"}, robot))[0] == 403


# --- games: modules/api/src/main/GameApiV2.scala ----------------------------------------------


async def test_last_move_at_is_in_the_export_not_in_the_stream_GameApiV2_scala(
    state: SandboxState,
) -> None:
    """The export of a finished game carries ``lastMoveAt``; the games stream's line does not."""
    from bot.sandbox.encode import game_json, game_stream_json

    game = state.add_finished_game("Alice", "Bob")
    assert "lastMoveAt" in game_json(game)
    assert "lastMoveAt" not in game_stream_json(game)


async def test_the_games_stream_takes_any_valid_token_and_500_names_Api_scala(
    sandbox_url: str, state: SandboxState, bot_token: str
) -> None:
    """``gamesByUsersStream = AnonOrScopedBody(...)()``: no scope needed, an unknown token is a
    401, and a token raises the list's limit from 300 names to 500."""
    names = ",".join(f"player{i}" for i in range(400))
    path = "/api/stream/games-by-users"
    async with aiohttp.ClientSession() as session:
        async with session.post(sandbox_url + path, data=names) as resp:
            assert resp.status == 400
        bad = {"Authorization": "Bearer lip_unknown"}
        async with session.post(sandbox_url + path, data="alice,bob", headers=bad) as resp:
            assert resp.status == 401
        good = {"Authorization": f"Bearer {bot_token}"}
        async with session.post(sandbox_url + path, data=names, headers=good) as resp:
            assert resp.status == 200
            state.drop_streams()


async def test_two_game_exports_at_once_per_ip_GlobalConcurrencyLimitPerIP(
    sandbox_url: str, state: SandboxState
) -> None:
    """``Game.apiExportByUser`` runs under ``GlobalConcurrencyLimitPerIP.download``: a third
    export while two run is a 429."""
    state.exports_running = 2
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            sandbox_url + "/api/games/user/alice", headers={"Accept": "application/x-ndjson"}
        ) as resp,
    ):
        assert resp.status == 429
    state.exports_running = 0


async def test_exports_stream_at_lila_pace_Game_scala(
    sandbox_url: str, state: SandboxState, bot_token: str
) -> None:
    """``Game.apiExportByUser``: 20 games a second without a token, 30 with an OAuth token;
    ``Game.exportByIds``: 30 a second. On by default: 61 games wait 3 seconds anonymously,
    2 with a token, and the same 61 by ids 2."""
    assert state.knobs.export_throttle
    games = [state.add_finished_game("Alice", "Bob") for _ in range(61)]
    ndjson = {"Accept": "application/x-ndjson"}
    path = "/api/games/user/alice"
    waits = []
    async with aiohttp.ClientSession() as session:
        for headers in (ndjson, {**ndjson, "Authorization": f"Bearer {bot_token}"}):
            before = state.export_pauses
            async with session.get(sandbox_url + path, headers=headers) as resp:
                assert len((await resp.text()).splitlines()) == 61
            waits.append(state.export_pauses - before)
        before = state.export_pauses
        body = ",".join(g.id for g in games)
        async with session.post(
            sandbox_url + "/api/games/export/_ids", data=body, headers=ndjson
        ) as resp:
            assert len((await resp.text()).splitlines()) == 61
        waits.append(state.export_pauses - before)
    assert waits == [3, 2, 2]


async def test_the_export_by_ids_reads_300_and_counts_as_a_download_Game_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """``Game.exportByIds``: the first 300 ids are read, the rest ignored without an error;
    it runs under the same ``GlobalConcurrencyLimitPerIP.download`` as the user export."""
    state.knobs.export_throttle = False  # about the ids, not the pace
    games = [state.add_finished_game("Alice", "Bob") for _ in range(301)]
    ndjson = {"Accept": "application/x-ndjson"}
    body = ",".join(g.id for g in games)
    url = sandbox_url + "/api/games/export/_ids"
    async with aiohttp.ClientSession() as session:
        async with session.post(url, data=body, headers=ndjson) as resp:
            assert resp.status == 200
            assert len((await resp.text()).splitlines()) == 300
        state.exports_running = 2
        async with session.post(url, data=body, headers=ndjson) as resp:
            assert resp.status == 429
        state.exports_running = 0


async def test_users_by_ids_reads_300_names_and_no_token_Api_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """``Api.usersByIds``: an anonymous ``AnonBodyOf`` action reading the first 300 names; each
    user as ``JsonView.full`` writes it, a closed account as its names and ``disabled``."""
    for i in range(301):
        state.add_user(f"player{i}", tos_violation=i == 7, disabled=i == 8)
    names = ",".join(f"player{i}" for i in range(301))
    async with (
        aiohttp.ClientSession() as session,
        session.post(sandbox_url + "/api/users", data=names) as resp,
    ):
        body = await resp.json()
    assert len(body) == 300
    assert body[7]["tosViolation"] is True
    assert body[8] == {"id": "player8", "username": "player8", "disabled": True}
    assert "createdAt" in body[0]


# --- rate limits: modules/web/src/main/Limiters.scala, modules/team/src/main/TeamMsgApi.scala --


async def test_open_challenges_500_per_10_minutes_per_ip_Limiters_scala(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    """``Challenge.openCreate`` runs under ``limit.challenge``: 500 per IP in 10 minutes, no
    limit per account."""
    state.limits.allow("challenge.create.ip", "127.0.0.1", clock.now(), cost=499)
    assert (await post(sandbox_url, OPEN, FORM))[0] == 200
    status, _ = await post(sandbox_url, OPEN, FORM)
    assert status == 429
    clock.advance(dt.timedelta(minutes=10))
    assert (await post(sandbox_url, OPEN, FORM))[0] == 200


async def test_ten_tours_and_a_hundred_rounds_a_day_Limiters_scala(
    sandbox_url: str, state: SandboxState, bot_token: str, clock: FakeClock
) -> None:
    """``RelayTour.rateLimitCreation``: an ordinary account pays 10 of its 100 credits a day
    for a tour (``relayTour``) and of its 1,000 for a round (``relay``); a marked account may
    not broadcast at all (``NoLameOrBot``)."""
    tours = [
        await post(sandbox_url, "/broadcast/new", {"name": f"T{i:03d}"}, bot_token)
        for i in range(11)
    ]
    assert [status for status, _ in tours].count(200) == 10
    assert tours[-1][0] == 429
    tid = tours[0][1]["tour"]["id"]
    form = {"syncSource": "users", "syncUsers": "Alice Bob", "status": "new"}
    state.add_user("Alice")
    state.add_user("Bob")
    for i in range(64):  # 64 rounds a tour at most: the rest in a second tour
        assert (
            await post(
                sandbox_url, f"/broadcast/{tid}/new", {**form, "name": f"R{i:03d}"}, bot_token
            )
        )[0] == 200
    other = tours[1][1]["tour"]["id"]
    codes = [
        (
            await post(
                sandbox_url, f"/broadcast/{other}/new", {**form, "name": f"S{i:03d}"}, bot_token
            )
        )[0]
        for i in range(37)
    ]
    assert codes.count(200) == 36
    assert codes[-1] == 429
    clock.advance(dt.timedelta(days=1))
    assert (await post(sandbox_url, "/broadcast/new", {"name": "Next day"}, bot_token))[0] == 200
    state.add_user("Marked", tos_violation=True)
    marked = state.add_token("Marked")
    assert (await post(sandbox_url, "/broadcast/new", {"name": "ACWC"}, marked))[0] == 403


async def test_team_updates_8_a_week_and_no_repeat_in_10_minutes_TeamMsgApi_scala(
    sandbox_url: str, state: SandboxState, bot_token: str, clock: FakeClock
) -> None:
    """``TeamMsgApi``: the same text to a team again within 10 minutes is refused (``dedup``);
    a team gets 8 updates in 7 days (40 credits at 5 an update); over that, a 429."""
    path = f"/team/{TEAM}/pm-all"
    assert (await post(sandbox_url, path, {"message": "Round 1 is out"}, bot_token))[0] == 200
    assert (await post(sandbox_url, path, {"message": "Round 1 is out"}, bot_token))[0] == 400
    codes = [
        (await post(sandbox_url, path, {"message": f"Update {i}"}, bot_token))[0] for i in range(8)
    ]
    assert codes == [200] * 7 + [429]
    clock.advance(dt.timedelta(days=7))
    assert (await post(sandbox_url, path, {"message": "Round 1 is out"}, bot_token))[0] == 200


async def test_play_time_grows_when_a_game_with_a_clock_ends_Finisher_scala(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    """``Finisher.incNbGames``: a finished game with a clock adds its length and 2 seconds to
    both players' ``playTime.total``; an aborted one, or one without a clock, adds nothing."""
    game = state.start_game(white="Alice", black="Bob")
    clock.advance(dt.timedelta(minutes=5))
    state.finish_game(game.id, winner="white")
    aborted = state.start_game(white="Alice", black="Bob")
    state.abort_game(aborted.id)
    slow = state.start_game(white="Alice", black="Bob", clock_limit=None, rated=False)
    state.finish_game(slow.id, winner="black")
    async with (
        aiohttp.ClientSession() as session,
        session.post(sandbox_url + "/api/users", data="alice,bob") as resp,
    ):
        body = await resp.json()
    assert [u["playTime"]["total"] for u in body] == [302, 302]


async def test_an_open_challenge_lapses_after_24_hours_or_at_expires_at_SetupForm_scala(
    sandbox_url: str, state: SandboxState, clock: FakeClock
) -> None:
    """``SetupForm.api.open``: ``expiresAt`` at most two weeks ahead; without it the challenge
    lapses after 24 hours, and a click after that makes no game."""
    too_far = millis(clock.now() + dt.timedelta(weeks=2, minutes=1))
    assert (await post(sandbox_url, OPEN, {**FORM, "expiresAt": str(too_far)}))[0] == 400
    _, body = await post(sandbox_url, OPEN, FORM)
    clock.advance(dt.timedelta(hours=24))
    with pytest.raises(ChallengeError):
        join_challenge(state, body["id"], "Alice")


async def test_the_token_test_lists_each_token_with_its_scopes_OAuth_scala(
    sandbox_url: str, state: SandboxState
) -> None:
    """``POST /api/token/test``: each token of the body with its user and scopes, ``null`` for
    an unknown one: how the bot learns whether it may send its token with a call."""
    token = state.add_token("Carol", scopes={"msg:write", "challenge:write"})
    async with (
        aiohttp.ClientSession() as session,
        session.post(sandbox_url + "/api/token/test", data=f"{token},lip_unknown") as resp,
    ):
        body = await resp.json()
    assert body[token]["userId"] == "carol"
    assert set(body[token]["scopes"].split(",")) == {"msg:write", "challenge:write"}
    assert body["lip_unknown"] is None
